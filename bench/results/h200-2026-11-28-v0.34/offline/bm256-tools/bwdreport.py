import sys,os,glob,re
sys.path.insert(0,'/tmp/bm256-scratch')
from sim import load,walk,sim
def regs(log):
    s=open(log).read()
    r=re.search(r'Used (\d+) registers',s); sp=re.findall(r'(\d+) bytes spill stores',s)
    return (int(r.group(1)) if r else -1, max(map(int,sp)) if sp else 0)
def m(f):
    ins,lab=load(f); path=walk(ins,lab); t,T=sim(ins,path); return len(path),T
a,b=sys.argv[1],sys.argv[2]
for f in sorted(glob.glob(a+'/*.cubin')):
    n=os.path.basename(f); g=f'{b}/{n}'
    if not os.path.exists(g): continue
    (na,ta),(nb,tb)=m(f),m(g)
    ra,rb=regs(f[:-6]+'.log'),regs(g[:-6]+'.log')
    same=open(f[:-6]+'.sass').read()==open(g[:-6]+'.sass').read() if os.path.exists(f[:-6]+'.sass') else None
    print(f"{n:28s} {b}: {nb:5d} ins {tb:5d} cyc {rb}   {a}: {na:5d} ins {ta:5d} cyc {ra}  ratio {ta/tb:.3f}")
