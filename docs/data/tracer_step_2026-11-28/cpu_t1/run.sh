B=/work/main/.gpu/build/vortexfmm
for v in 1 4 2; do
  /usr/bin/time -f "m$v %e s" $B --headless --quiet --scene leapfrog --backend cpu --tracers 4096 --t-end 1 --tracer-every $v --checkpoint m$v.ckpt --diag m$v.csv > m$v.log 2>&1
done
VX_SPLIT_TARGETS=1 /usr/bin/time -f "split %e s" $B --headless --quiet --scene leapfrog --backend cpu --tracers 4096 --t-end 1 --checkpoint split.ckpt --diag split.csv > split.log 2>&1
