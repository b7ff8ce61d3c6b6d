E=/work/main/.gpu/build/vortexfmm
S=/work/main/scripts/long_runs.py
for v in "h|--order 10 --remesh-drop 5e-3" "i|--order 12 --remesh-drop 4e-3"; do
  tag=${v%%|*}; args=${v#*|}
  /usr/bin/python3 $S leapfrog --reduced --backend cpu --t-end 10 --exe $E --out /tmp/red/$tag --scale="$args" > /tmp/red/$tag.out 2>&1
done
echo done > /tmp/red/done3
