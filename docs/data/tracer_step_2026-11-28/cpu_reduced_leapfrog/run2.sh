E=/work/main/.gpu/build/vortexfmm
S=/work/main/scripts/long_runs.py
while [ ! -f /tmp/red/done ]; do sleep 5; done
for v in "e|--order 12 --remesh-drop 5e-3" "f|--order 10 --remesh-drop 3e-3" "g|--order 12 --remesh-drop 2e-3"; do
  tag=${v%%|*}; args=${v#*|}
  /usr/bin/python3 $S leapfrog --reduced --backend cpu --t-end 10 --exe $E --out /tmp/red/$tag --scale="$args" > /tmp/red/$tag.out 2>&1
done
echo done > /tmp/red/done2
