import sys,re,os,glob
sys.path.insert(0,'/tmp/bm256-scratch')
from crit import crit
def regs(log):
    s=open(log).read()
    r=re.search(r'Used (\d+) registers',s); sp=re.findall(r'(\d+) bytes spill stores',s)
    return int(r.group(1)) if r else -1, max(map(int,sp)) if sp else 0
d=sys.argv[1]; ref=sys.argv[2] if len(sys.argv)>2 else None
names=sorted(set(os.path.basename(f).rsplit('.',2)[0] for f in glob.glob(d+'/*.cubin')))
import math
gl=[]
for n in names:
    row=[]
    vals={}
    for t in 'pc':
        f=f'{d}/{n}.{t}.cubin'
        if not os.path.exists(f): continue
        try: a,b,c,_,_=crit(f)
        except Exception as e: a=b=c=-1
        r,sp=regs(f'{d}/{n}.{t}.log')
        vals[t]=(a+b+c,r,sp,a,b,c)
    if 'p' in vals and 'c' in vals and vals['p'][0]>0:
        P,C=vals['p'],vals['c']
        ratio=C[0]/P[0]; gl.append(ratio)
        line=f"{n:18s} p {P[0]:5d} ({P[1]:3d}r{' sp'+str(P[2]) if P[2] else ''})  c {C[0]:5d} ({C[1]:3d}r{' sp'+str(C[2]) if C[2] else ''})  c/p {ratio:.3f}   [p {P[3]}/{P[4]}/{P[5]}  c {C[3]}/{C[4]}/{C[5]}]"
        if ref and os.path.exists(f'{ref}/{n}.p.cubin'):
            try:
                rp=crit(f'{ref}/{n}.p.cubin'); rc=crit(f'{ref}/{n}.c.cubin')
            except Exception: continue
            line+=f"  vs ref p {P[0]/sum(rp[:3]):.3f} c {C[0]/sum(rc[:3]):.3f} c/ref-p {C[0]/sum(rp[:3]):.3f}"
        print(line)
print('geomean c/p', math.exp(sum(map(math.log,gl))/len(gl)), 'n', len(gl), 'worst', max(gl))
