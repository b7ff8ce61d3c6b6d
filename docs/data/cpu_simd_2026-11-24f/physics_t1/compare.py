#!/usr/bin/env python3
"""leapfrog on the CPU over t <= 1 (float, tracers 0, the 2-core machine): the binaries before the
vectorized pair loops (8aca1c4, leaf 64) against after (leaf 256): largest differences over the rows
(scripts/diag_compare.py). Run from this folder."""
import subprocess
import sys
subprocess.run([sys.executable, '../../../../scripts/diag_compare.py', 'lf_before.csv', 'lf_after.csv'], check=True)
