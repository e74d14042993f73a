import sys,os,re,math,glob
sys.path.insert(0,'/tmp/bm256-scratch')
from sim import load,walk
from crit import crit
def regs(log):
    s=open(log).read()
    r=re.search(r'Used (\d+) registers',s); sp=re.findall(r'(\d+) bytes spill stores',s)
    return int(r.group(1)) if r else -1, max(map(int,sp)) if sp else 0
def s2(f):
    ins,lab=load(f)
    try: path=walk(ins,lab)
    except Exception: path=[]
    onp=sum(1 for i in path if re.search(r'\bS2U?R\b.*SR_(TID|CTAID)',ins[i]['txt']))
    tot=sum(1 for x in ins if re.search(r'\bS2U?R\b.*SR_(TID|CTAID)',x['txt']))
    lp=sum(1 for i in path if re.search(r'\b(LDL|STL)\b',ins[i]['txt']))
    return onp,tot,lp
a,b,tag=sys.argv[1],sys.argv[2],sys.argv[3]   # before dir, after dir, p|c
gl=[]
names=sorted(set(os.path.basename(f).split('.')[0] for f in glob.glob(a+'/*.cubin')))
for n in names:
    fa,fb=f'{a}/{n}.{tag}.cubin',f'{b}/{n}.{tag}.cubin'
    ra,rb=regs(fa[:-6]+'.log'),regs(fb[:-6]+'.log')
    sa,sb=s2(fa),s2(fb)
    same=open(fa[:-6]+'.sass').read()==open(fb[:-6]+'.sass').read()
    try: ca=sum(crit(fa)[:3]); cb=sum(crit(fb)[:3]); r=cb/ca; gl.append(r); cs=f"{ca:5d}->{cb:5d} x{r:.3f}"
    except Exception: cs="model n/a"
    print(f"{n:16s} regs {ra[0]:3d}->{rb[0]:3d} spill {ra[1]}->{rb[1]}B  S2R/S2UR path {sa[0]}->{sb[0]} (all {sa[1]}->{sb[1]}) LDL/STL path {sa[2]}->{sb[2]}  {cs}{'  SAME' if same else ''}")
if gl: print(f"geomean after/before {math.exp(sum(map(math.log,gl))/len(gl)):.3f} n {len(gl)} best {min(gl):.3f} worst {max(gl):.3f}")
