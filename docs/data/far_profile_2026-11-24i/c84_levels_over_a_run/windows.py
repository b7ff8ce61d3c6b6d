# windows.py: median ms a step, levels and elements over step windows of the c84 runs (python3 windows.py from this folder)
import csv, glob, statistics
for fn in sorted(glob.glob('*.csv')):
    rd = list(csv.DictReader(l for l in open(fn) if not l.startswith('#')))
    wins = [(20, 100), (500, 600), (1000, 1100)] if fn.startswith('lf') else [(20, 100), (1000, 1100), (2500, 2600)]
    out = []
    for a, b in wins:
        w = [r for r in rd if a <= int(r['step']) <= b]
        out.append('[%d-%d] %6.2f ms L%s, %s elements' % (a, b, statistics.median(float(r['ms_step']) for r in w),
                   ','.join(sorted(set(r['levels'] for r in w))), w[-1]['n_elem']))
    print('%-16s %s' % (fn, ' | '.join(out)))
