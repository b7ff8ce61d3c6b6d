# Experiment build only: VX_M2L_CUT_A (the radius a) was a temporary switch, not in the committed code.
run() { build/vortexfmm-bench --backend cpu --n 65536 --dist $1 --order $2 --precision double --check 2000 --repeat 1 --json --quiet 2>&1 | python3 -c "
import sys,json
for l in sys.stdin:
  try: d=json.loads(l)
  except: print(l.strip()); continue
  print('%.3e %.3e %.0f'%(d['err_vel'],d['err_grad'],d['t_m2l']))"; }
for dist in uniform rings; do for p in 8 12 16 20; do
 line="$dist p=$p base: $(VX_M2L_CUT=0 run $dist $p)"
 for cfg in "0.5 1" "0.6 1" "0.5 0.1" "0.6 0.1" "0.7 0.1"; do set -- $cfg; line="$line | a=$1 t=$2: $(VX_M2L_CUT_A=$1 VX_M2L_CUT=$2 run $dist $p)"; done
 echo "$line"; done; done
