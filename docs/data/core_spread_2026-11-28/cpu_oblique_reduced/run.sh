#!/bin/bash
# tag|args
E=/work/main/.gpu/build/vortexfmm
tag=${1%%|*}; args=${1#*|}
s=$(date +%s)
OMP_NUM_THREADS=1 VX_ADAPT=${ADAPT:-0} VX_ADAPT2=${ADAPT2:-0} timeout 1800 $E --headless --scene /tmp/ob/reduced/oblique.scene --backend cpu --tracers 0 --diag-every 10 --quiet $args --diag /tmp/ob/$tag.csv > /tmp/ob/$tag.log 2>&1
echo "rc $? wall $(( $(date +%s) - s ))" >> /tmp/ob/$tag.log
