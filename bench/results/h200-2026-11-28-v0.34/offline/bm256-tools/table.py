import sys,re
sys.path.insert(0,'/tmp/bm256-scratch')
from sim import load,walk
from crit import crit
def info(d,n):
    f=f'{d}/{n}.cubin'; log=open(f'{d}/{n}.log').read()
    r=int(re.search(r'Used (\d+) registers',log).group(1)); sp=max(map(int,re.findall(r'(\d+) bytes spill stores',log)) or [0])
    ins,lab=load(f); path=walk(ins,lab); P=[ins[i]['txt'] for i in path]
    polls=[k for k,s in enumerate(P) if 'LDG' in s and 'STRONG' in s]
    pub=[k for k,s in enumerate(P) if re.search(r'STG.E(\.64)?\.STRONG',s)][0]
    s2r=sum(1 for s in P if s.split()[0].lstrip('@!P0123456789 ') in ('S2R','S2UR') or ' S2R ' in ' '+s+' ' or 'S2UR' in s)
    a,b,c,_,_=crit(f)
    return dict(r=r,sp=sp,path=len(P),wait2pub=pub-polls[-1],pub2poll=len(P)-pub+polls[0],s2r=s2r,cyc=a+b+c)
for n in sys.argv[1:]:
    for t in 'pc':
        B=info('rtc-before',f'{n}.{t}'); A=info('final',f'{n}.{t}')
        print(f"{n:15s} {t}  regs {B['r']:3d}->{A['r']:3d} spill {B['sp']}->{A['sp']}  path {B['path']:4d}->{A['path']:4d}  wait->pub {B['wait2pub']:4d}->{A['wait2pub']:4d}  pub->poll {B['pub2poll']:3d}->{A['pub2poll']:3d}  S2R/S2UR {B['s2r']}->{A['s2r']}  model {B['cyc']:5d}->{A['cyc']:5d}")
