import sys,re,sim
for tag in sys.argv[1:]:
    L=[l for l in open(tag+'.ctl') if not l.startswith('.L')]
    body=sim.load(tag+'.ctl')
    n=len(body)
    head=body[1] if 'BRA' in body[1]['txt'] else body[0]
    # the loop head's wait mask
    hw=''.join(str(b) for b in next(x for x in body if 'BRA' in x['txt'])['wait'])
    ldg=sum('LDG' in x['txt'] for x in body)
    sb5=[i for i,x in enumerate(body) if 5 in x['wait']]
    pro=L[:next(i for i,l in enumerate(L) if 'BAR.SYNC' in l)]
    wl=sum(1 for l in pro if re.search(r' (LDG|LD)\.',l))
    st,_=sim.sim(body,passes=4)
    per=(st[-1]-st[-2])/4
    print(f"{tag}: loop {n} instr/pass ({n/4:.0f}/step), LDG in loop {ldg}, loop-head wait SBs {hw}, SB5 waits at loop pcs {sb5[:6]}, prologue global loads {wl} (both weight paths), model {per:.0f} cyc/step")
