import re,sys
exec(open('/tmp/bwdreg-scratch/loopchk.py').read().split('n=sys.argv[1]')[0])
n=sys.argv[1]; ins,lab=load(n+'.sass')
best=None
for i,x in enumerate(ins):
    m=re.search(r'BRA `?\(?(\.L_x_\d+)',x)
    if m and m.group(1) in lab and lab[m.group(1)]<=i:
        s=lab[m.group(1)]
        if sum('BAR.SYNC' in y for y in ins[s:i+1])>=1 and (best is None or i-s>best[1]-best[0]): best=(s,i)
s,e=best
inv={v:k for k,v in lab.items()}
for j in range(s,e+1):
    x=ins[j]
    if re.search(r'\b(LDL|STL|BAR|BRA|LDG|STG|HMMA|LDS|STS)',x) or j in inv:
        print(j-s, inv.get(j,''), x)
