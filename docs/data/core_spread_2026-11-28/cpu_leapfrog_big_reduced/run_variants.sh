#!/bin/bash
tag=${1%%|*}; args=${1#*|}
cd /work/main
OMP_NUM_THREADS=1 /usr/bin/python3 scripts/long_runs.py leapfrog_big --reduced --backend cpu --t-end 10 --exe .gpu/build/vortexfmm --out /tmp/lbv/$tag "--scale=$args" > /tmp/lbv/$tag.out 2>&1
