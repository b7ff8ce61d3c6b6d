#!/bin/bash
# c129 (HEAD): leapfrog's remeshing lattice h = 0.02 (shipped), 1/70, 1/80: the step with its tracers (1000 steps) and
# frames at 1080p; the impulse over t = 10 without tracers at 1/70 and 1/80 (under MPS)
export VX_ASSETS_DIR=$PWD/assets
B=$PWD/.gpu/bin
. $B/gpu-env $B/lib
R=$OUT/r; mkdir -p $R/runs; cat $B/COMMIT > $R/commit.txt
P=$R/profile.txt
prof() { tag=$1; shift; echo "== $tag" >> $P; timeout 80 env "$@" 2>&1 | grep -v "^ *$" | tail -4 >> $P; }
for h in 0.02 0.0142857142857142857 0.0125; do
 prof "lf1000 h=$h" $B/vortexfmm --headless --scene leapfrog --backend cuda --steps 1000 --remesh-h $h
 prof "lf1080 h=$h" $B/vortexfmm --headless --scene leapfrog --backend cuda --frames 1000 --size 1920x1080 --remesh-h $h
done
echo "steps $SECONDS s" > $R/time.txt
nvidia-cuda-mps-control -d
run1() { tag=$1; shift; s=$SECONDS; echo "cmd: $*" > $R/runs/$tag.log
 timeout -s INT -k 20 400 "$@" --diag $R/runs/$tag.csv >> $R/runs/$tag.log 2>&1; echo "long_runs: wall $((SECONDS-s)) s, exit $?" >> $R/runs/$tag.log; }
X="$B/vortexfmm --headless --quiet --backend cuda --tracers 0 --t-end 10 --diag-every 50 --scene leapfrog"
run1 leapfrog_h70__cuda__float $X --remesh-h 0.0142857142857142857 &
run1 leapfrog_h80__cuda__float $X --remesh-h 0.0125 &
run1 leapfrog_h70__cuda__double $X --remesh-h 0.0142857142857142857 --precision double &
run1 leapfrog_h80__cuda__double $X --remesh-h 0.0125 --precision double &
wait
echo quit | nvidia-cuda-mps-control; sleep 1
echo "all $SECONDS s" >> $R/time.txt
cd $OUT && tar czf all.tgz r && rm -rf r
