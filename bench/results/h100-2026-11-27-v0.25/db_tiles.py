# prints "mode dtype H B tile-text" for forward long-T DB entries of the given shapes
import json, sys
d = json.load(open('tuning_db/h100.json'))
want = set()
for spec in sys.argv[1:]:
    m, dt, h, b = spec.split(':'); want.add((m, dt, int(h), int(b)))
order = ['blocks','threads','ksplit','lanes_k','batch_chunk','reg_slots','smem_slots','mma','handoff','batch_groups']
for e in d['entries']:
    k = (e['mode'], e['dtype'], e['hidden'], e['batch'])
    if k in want and e.get('pass', 'forward') == 'forward' and 'max_seq_length' not in e and e.get('directions',1)==1 and e.get('engine') in (None, 'persistent'):
        c = e['config']
        print(*k, ' '.join('%s=%s' % (f, c[f]) for f in order if f in c))
