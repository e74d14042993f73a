import re,sys
exec(open('/tmp/bwdreg-scratch/loopchk.py').read().split('n=sys.argv[1]')[0])
def analyze(n,ksmem):
    ins,lab=load(n+'.sass')
    best=None; loops=[]
    for i,x in enumerate(ins):
        m=re.search(r'BRA `?\(?(\.L_x_\d+)',x)
        if m and m.group(1) in lab and lab[m.group(1)]<=i:
            s=lab[m.group(1)]; loops.append((s,i))
            if sum('BAR.SYNC' in y for y in ins[s:i+1])>=1 and (best is None or i-s>best[1]-best[0]): best=(s,i)
    s,e=best
    static=e-s+1; extra=0
    # after the last barrier
    bars=[j for j in range(s,e+1) if 'BAR.SYNC' in ins[j]]
    after=e-bars[-1]
    for (a,b) in loops:
        if s<a and b<e and any('HMMA' in y for y in ins[a:b+1]) and any('LDS.128' in y for y in ins[a:b+1]):
            trips=ksmem//2
            extra+=(trips-1)*(b-a+1)
            hm=sum('HMMA' in y for y in ins[a:b+1])
    return static,static+extra,after+extra
for n,ks in [(a.split(':')[0],int(a.split(':')[1])) for a in sys.argv[1:]]:
    st,dy,af=analyze('out/'+n,ks)
    print(f"{n}: static {st}, dynamic ~{dy} a step, ~{af} after the last barrier")
