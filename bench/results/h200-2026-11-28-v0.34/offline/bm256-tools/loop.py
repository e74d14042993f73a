import re,sys
from collections import Counter
def parse(f):
    lab={}; ins=[]
    for l in open(f):
        l=l.strip()
        if not l: continue
        if l.startswith('.L'): lab[l.rstrip(':')]=len(ins)
        else: ins.append(l)
    return lab,ins
def loops(lab,ins):
    bar=[i for i,x in enumerate(ins) if 'BAR.SYNC' in x]
    L=[]
    for i,x in enumerate(ins):
        m=re.search(r'BRA `\((\.L_x_\d+)\)',x)
        if m and m.group(1) in lab and lab[m.group(1)]<i and any(lab[m.group(1)]<=b<=i for b in bar):
            L.append((lab[m.group(1)],i))
    return L
def op(x):
    t=x.split(); return t[1] if t[0].startswith('@') else t[0]
if __name__=='__main__':
    for f in sys.argv[1:]:
        lab,ins=parse(f); L=loops(lab,ins)
        outer=[l for l in L if not any(o!=l and o[0]<=l[0] and l[1]<=o[1] for o in L)]
        print(f, 'loops', [(a,b,b-a+1) for a,b in outer], 'inner', [(a,b,b-a+1) for a,b in L if (a,b) not in outer])
