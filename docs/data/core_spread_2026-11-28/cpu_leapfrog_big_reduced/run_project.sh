#!/bin/bash
tag=${1%%|*}; rest=${1#*|}; f=${rest%%|*}; args=${rest#*|}
cd /work/main
VX_PROJECT=$f OMP_NUM_THREADS=1 /usr/bin/python3 scripts/long_runs.py leapfrog_big --reduced --backend cpu --t-end 10 --exe .gpu/build/vortexfmm --out /tmp/prj/$tag ${args:+"--scale=$args"} > /tmp/prj/$tag.out 2>&1
