import sim,sys
for f in sys.argv[1:]:
    b=sim.load(f); sim.sim(b,passes=3)
    T=[x for x in sim.TRACE if x[0]==0 and x[1]==2]
    bars=[x for x in T if x[5].startswith('BAR')]
    # step boundaries: pass start, each BAR
    t0=T[0][3]; bounds=[0]+[b_[2] for b_ in bars]
    rows=[]
    prev_t=t0
    for si,bb in enumerate(bars):
        seg=[x for x in T if (bars[si-1][2] if si else -1) < x[2] <= bb[2]]
        st=seg[0][3]
        lds=[x for x in seg if x[5].startswith('LDS.128')]
        sh=[x for x in seg if x[5].startswith('SHFL')]
        sts=[x for x in seg if x[5].startswith('STS')]
        rows.append(f"step {si}: start {st-t0}, LDS.128 issue {lds[0][3]-st}-{lds[-1][3]-st} data {max(x[4] for x in lds)-st}, SHFL {sh[0][3]-st}-{sh[-1][3]-st}, STS {sts[-1][3]-st}, BAR {bb[3]-st}")
    nxt=[x for x in sim.TRACE if x[0]==0 and x[1]==3]
    print(f, 'pass', (nxt[0][3]-t0) if nxt else None); print('\n'.join('  '+r for r in rows))
