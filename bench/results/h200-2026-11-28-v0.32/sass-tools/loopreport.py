import re,glob,os,sys
from collections import Counter
d='/tmp/ptxdump/cmp'
def loop(f):
    L=[l.strip() for l in open(f)]
    lab={}; ins=[]
    for l in L:
        if l.startswith('.L'): lab[l.rstrip(':')]=len(ins)
        else: ins.append(l)
    bar=[i for i,x in enumerate(ins) if 'BAR.SYNC' in x]
    loops=[]
    for i,x in enumerate(ins):
        m=re.search(r'BRA `\((\.L_x_\d+)\)',x)
        if m and m.group(1) in lab and lab[m.group(1)]<i and any(lab[m.group(1)]<=b<=i for b in bar):
            loops.append((lab[m.group(1)],i))
    # outermost loops (the steps' loops): not contained in another
    outer=[l for l in loops if not any(o!=l and o[0]<=l[0] and l[1]<=o[1] for o in loops)]
    if not outer: return []
    best=max(outer,key=lambda l:l[1]-l[0])
    loop.sizes=[l[1]-l[0]+1 for l in outer]
    return ins[best[0]:best[1]+1]
def op(x):
    t=x.split(); return t[1] if t[0].startswith('@') else t[0]
names=sorted(set(os.path.basename(f).split('.')[0] for f in glob.glob(d+'/*.sass')))
sel=sys.argv[1:] 
for n in names:
    if sel and n not in sel: continue
    A={}; sizes={}
    for t in ('main','cr0','cr1'):
        A[t]=loop(f'{d}/{n}.{t}.sass'); sizes[t]=getattr(loop,'sizes',[])
    c0=Counter(map(op,A['cr0'])); c1=Counter(map(op,A['cr1']))
    add=c1-c0; rem=c0-c1
    print(f"{n:18s} loop {len(A['main'])}/{len(A['cr0'])}/{len(A['cr1'])}  cr1 +{sum(add.values())} -{sum(rem.values())}  {dict(add.most_common(6))} loops {sizes['cr1']}")
