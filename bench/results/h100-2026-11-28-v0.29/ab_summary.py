"""Best-of-two A/B of prnn-bench CSVs: python3 ab_summary.py BASE1 BASE2 NEW1 NEW2"""
import csv, math, sys
def load(f):
    return {(r['pass'], r['mode'], r['dtype'], r['hidden'], r['batch'], r['seq']): r
            for r in csv.DictReader(open(f))}
b = [load(sys.argv[1]), load(sys.argv[2])]
n = [load(sys.argv[3]), load(sys.argv[4])]
cols = ['prnn_median_us', 'prnn_graph_median_us']
if b[0] and next(iter(b[0].values()))['pass'] == 'training':
    cols.append('prnn_bwd_weights_us')
for col in cols:
    rs = []
    print(f'== {col} (best of two, base -> new)')
    for k in b[0]:
        bv = min(float(x[k][col]) for x in b)
        nv = min(float(x[k][col]) for x in n)
        rs.append(nv / bv)
        print('  %-9s %-4s %-3s H %4s B %3s T %3s %-10s %9.2f -> %9.2f  %.3f' % (
            *k, b[0][k]['prnn_engine'], bv, nv, nv / bv))
    print('  geomean %.3f, min %.3f, max %.3f (%d points)' % (
        math.exp(sum(map(math.log, rs)) / len(rs)), min(rs), max(rs), len(rs)))
