# Static path model of one step of the persistent forward (the cell warp):
# decodes Hopper control bits (stall, barriers) and walks the step loop's
# common path: forward branches not taken except the one into the hand-off
# poll, poll loops not re-run, the loop's back edge ends the walk.
import re,sys,subprocess
ND='/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm'
LAT={'LDG':400,'LDS':30,'S2R':25,'S2UR':25,'LDC':20,'ULDC':0,'MUFU':18,'SHFL':25,'BAR':40,'STS':20,'STG':20,'VOTE':0,'I2F':12,'F2F':12,'DEFAULT':20}
def load(cubin):
    out=subprocess.run([ND,'-hex','-c',cubin],capture_output=True,text=True).stdout.split('\n')
    ins=[];lab={}
    i=0
    while i<len(out):
        l=out[i]
        m=re.match(r'^(\.L_x_\d+):',l.strip())
        if m: lab[m.group(1)]=len(ins); i+=1; continue
        m=re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]+) \*/',l)
        if m:
            hi=int(re.search(r'(0x[0-9a-f]+)',out[i+1]).group(1),16)
            c=hi>>41
            ins.append(dict(addr=int(m.group(1),16),txt=m.group(2).strip().rstrip(' ;'),stall=c&15,yld=(c>>4)&1,wb=(c>>5)&7,rb=(c>>8)&7,wait=(c>>11)&63))
            i+=2; continue
        i+=1
    return ins,lab
def op(t):
    s=t.split(); return s[1] if s[0].startswith('@') else s[0]
def steploop(ins,lab):
    bars=[i for i,x in enumerate(ins) if 'BAR.SYNC' in x['txt']]
    best=None
    for i,x in enumerate(ins):
        m=re.search(r'BRA `\((\.L_x_\d+)\)',x['txt'])
        if m and m.group(1) in lab and lab[m.group(1)]<i and any(lab[m.group(1)]<=b<=i for b in bars):
            L=(lab[m.group(1)],i)
            if best is None or L[1]-L[0]>best[1]-best[0]: best=L
    return best
def walk(ins,lab):
    a,b=steploop(ins,lab)
    # the hand-off poll's entry: a label whose block holds LDG.*STRONG before the next BRA/label
    hand=set()
    for name,j in lab.items():
        for k in range(j,min(j+40,len(ins))):
            t=ins[k]['txt']
            if 'STRONG.GPU' in t and t.split()[0].startswith('LDG') or ('LDG' in t and 'STRONG' in t): hand.add(name); break
            if 'BRA' in t: break
    path=[];i=a;seen=0
    while True:
        x=ins[i]; t=x['txt']; path.append(i)
        m=re.search(r'BRA `\((\.L_x_\d+)\)',t)
        if m:
            tgt=lab.get(m.group(1))
            cond=t.startswith('@')
            if i==b: break
            if not cond: i=tgt; continue
            if tgt>i and m.group(1) in hand: i=tgt; continue
            i+=1; continue
        if op(t)=='EXIT': break
        i+=1
    return path
def sim(ins,path):
    t=0; bar=[0]*6; times=[]
    for i in path:
        x=ins[i]
        # wait for scoreboards
        for k in range(6):
            if x['wait']>>k&1: t=max(t,bar[k])
        times.append(t)
        o=op(x['txt']).split('.')[0]
        lat=LAT.get(o,LAT['DEFAULT'])
        if x['wb']!=7: bar[x['wb']]=max(bar[x['wb']],t+lat)
        if x['rb']!=7: bar[x['rb']]=max(bar[x['rb']],t+6)
        t+=max(x['stall'],1)
    return times,t
if __name__=='__main__':
    for f in sys.argv[1:]:
        ins,lab=load(f); path=walk(ins,lab)
        times,T=sim(ins,path)
        P=[ins[i]['txt'] for i in path]
        poll=[k for k,s in enumerate(P) if 'LDG' in s and 'STRONG' in s][0]
        pub=[k for k,s in enumerate(P) if re.search(r'STG.E(\.64)?\.STRONG',s)][0]
        bar=[k for k,s in enumerate(P) if 'BAR.SYNC' in s][-1]
        stall=lambda a,b: sum(max(ins[path[k]]['stall'],1) for k in range(a,b))
        print(f"{f:36s} path {len(P):4d} | top->poll {poll:3d} ins {stall(0,poll):4d} stall | poll->BAR {bar-poll:4d} ins {stall(poll,bar):4d} | BAR->pub {pub-bar:3d} ins {stall(bar,pub):4d} | pub->end {len(P)-pub:3d} ins {stall(pub,len(P)):3d}")
