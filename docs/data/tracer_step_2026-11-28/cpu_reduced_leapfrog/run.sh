E=/work/main/.gpu/build/vortexfmm
S=/work/main/scripts/long_runs.py
for v in "a|--order 12 --remesh-drop 3e-3" "b|--order 12 --relax 0.1" "c|--order 12 --remesh-every 4" "d|--order 12 --viscosity 2.4e-3 --remesh-drop 3e-3"; do
  tag=${v%%|*}; args=${v#*|}
  /usr/bin/python3 $S leapfrog --reduced --backend cpu --t-end 10 --exe $E --out /tmp/red/$tag --scale="$args" > /tmp/red/$tag.out 2>&1
done
echo done > /tmp/red/done
