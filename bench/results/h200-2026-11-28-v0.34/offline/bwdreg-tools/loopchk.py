import re,sys
def load(f):
    ins=[];lab={}
    for l in open(f):
        l=l.strip()
        if l.startswith('.L'): lab[l.rstrip(':')]=len(ins); continue
        a,_,x=l.partition(' '); ins.append(x)
    return ins,lab
n=sys.argv[1]
px=open(n+'.ptxas').read()
r=re.search(r'Used (\d+) registers',px).group(1); sb=re.search(r'(\d+) bytes spill stores',px).group(1)
ins,lab=load(n+'.sass')
# the step loop: the longest loop whose body has >=2 BAR.SYNC (psum: two barriers a chunk)
best=None
for i,x in enumerate(ins):
    m=re.search(r'BRA `?\(?(\.L_x_\d+)',x)
    if m and m.group(1) in lab and lab[m.group(1)]<=i:
        s=lab[m.group(1)]
        if sum('BAR.SYNC' in y for y in ins[s:i+1])>=1 and (best is None or i-s>best[1]-best[0]): best=(s,i)
s,e=best; body=ins[s:e+1]
ldl=sum(1 for y in body if re.search(r'\bLDL',y)); stl=sum(1 for y in body if re.search(r'\bSTL',y))
lds=sum(1 for y in body if 'LDS.128' in y)
hm=sum(1 for y in body if 'HMMA' in y)
# LDS.128 after the last BAR.SYNC in the body
bars=[j for j,y in enumerate(body) if 'BAR.SYNC' in y]
after=sum(1 for y in body[bars[-1]:] if 'LDS.128' in y) if bars else 0
tot=len([1 for x in ins])
ldl_all=sum(1 for y in ins if re.search(r'\bLDL',y)); stl_all=sum(1 for y in ins if re.search(r'\bSTL',y))
print(f"regs {r} spill {sb}B (LDL {ldl_all} STL {stl_all} total) | loop {e-s+1} ins, LDL {ldl} STL {stl} in loop, bars {len(bars)}, HMMA {hm}, LDS.128 {lds} ({after} after last bar) = {lds*16*256//1024} KB/step/block")
