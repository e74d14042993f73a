import csv,re,collections
rows=list(csv.reader(open('/tmp/evidence/tiny-src.csv')))
hdr=rows[1]; data=[r for r in rows[2:] if len(r)>=len(hdr)]
idx={h:i for i,h in enumerate(hdr)}
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
ins=[r[1].strip() for r in data]
samp=[int(r[idx['Warp Stall Sampling (All Samples)']]) for r in data]
ex=[int(r[idx['Instructions Executed']]) for r in data]
st=[{s[6:]:int(r[idx[s]]) for s in stalls} for r in data]
# loop: first index with ex==512 to last BAR
L0=next(i for i in range(len(ins)) if ex[i]==512)
bars=[i for i in range(L0,len(ins)) if ins[i].startswith('BAR.SYNC')]
print('loop start',L0,'bars',bars)
starts=[L0]+[b+2 if "BRA" in ins[b+1] else b+1 for b in bars[:-1]]
ends=bars
ph=collections.OrderedDict()
def add(p,i):
    d=ph.setdefault(p,{'n':0,'s':0,'st':collections.Counter()})
    d['n']+=ex[i]/512; d['s']+=samp[i]; d['st'].update({k:v for k,v in st[i].items() if v})
tot=0
for k,(a,b) in enumerate(zip(starts,ends)):
    seg=range(a,b+2 if b+1<len(ins) and ex[b+1]==512 and 'BRA' in ins[b+1] else b+1)
    fl=next(i for i in seg if ins[i].startswith('LDS.128'))
    mufu=next(i for i in seg if 'MUFU.EX2' in ins[i])
    ld=max(i for i in seg if i<mufu and re.match(r'FFMA R\d+, R\d+, R\d+, R\d+$',ins[i]))
    sh=next(i for i in seg if ins[i].startswith('SHFL'))
    bs=next(i for i in seg if ins[i].startswith('BSSY')) if any(ins[i].startswith('BSSY') for i in seg) else sh
    obr=next(i for i in seg if i>sh and 'BRA' in ins[i])
    bsync=next(i for i in seg if ins[i].startswith('BSYNC'))
    for i in seg:
        if i<fl: p='0 step head (loop-top ISETP/BRA, uniform setup)'
        elif i<=ld: p='1 R.h dot: LDS.128 + FFMA'
        elif i<sh: p='2 partial sums + x+b + gate activation (+ xp LDG addr/issue)'
        elif i<=obr: p='3 quad shuffles + owner branch'
        elif i<bsync: p='4 owner: cell (tanh c, h) + y/hy/cy STG'
        elif i<b: p='5 tail: BSYNC, nb/row0 LDG, STS h, movs'
        else: p='6 BAR.SYNC + branch after it'
        add(p,i)
pro=sum(samp[:L0]); print('prologue samples',pro,'loop',sum(samp[L0:]),'total',sum(samp))
print(f"{'phase':62s} {'instr/step':>10s} {'samples':>7s}  stalls")
for p,d in sorted(ph.items()):
    print(f"{p:62s} {d['n']/4:10.1f} {d['s']:7d}  {dict(d['st'].most_common())}")
