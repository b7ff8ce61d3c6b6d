#!/usr/bin/env python3
"""leapfrog over t <= 1 (float, tracers 0): the capped tree (lf_cap) against corrections at level 4
(lf_rc4; lf_rc4t with reg_tol 1e-5): largest differences over the rows (scripts/diag_compare.py).
Run from this folder."""
import subprocess
import sys
subprocess.run([sys.executable, '../../../../scripts/diag_compare.py', 'lf_cap.csv', 'lf_rc4.csv', 'lf_rc4t.csv'], check=True)
