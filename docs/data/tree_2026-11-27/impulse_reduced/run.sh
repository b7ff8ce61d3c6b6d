tag=${1%%|*}; args=${1#*|}
OMP_NUM_THREADS=1 timeout 900 build/vortexfmm --headless --scene docs/data/tree_2026-11-27/impulse_reduced/leapfrog_reduced.scene --backend cpu --tracers 0 --t-end 10 --diag docs/data/tree_2026-11-27/impulse_reduced/$tag.csv --quiet $args > docs/data/tree_2026-11-27/impulse_reduced/$tag.log 2>&1
echo "$tag exit $?" >> docs/data/tree_2026-11-27/impulse_reduced/done.txt
