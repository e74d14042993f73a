import re,sys
# usage: nvdisasm -hex -c x.cubin | python3 ctl.py
lines=sys.stdin.read().split('\n')
out=[]
i=0
while i<len(lines):
    l=lines[i]
    m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]{16}) \*/',l)
    if m:
        off,ins,lo=m.groups()
        hi=re.search(r'/\* (0x[0-9a-f]{16}) \*/',lines[i+1]).group(1)
        h=int(hi,16)
        stall=(h>>41)&0xf; yld=(h>>45)&1; wb=(h>>46)&7; rb=(h>>49)&7; wm=(h>>52)&0x3f
        c=f"S{stall:02d}"+("Y" if yld==0 else "-")
        c+=f" W{wb if wb!=7 else '-'} R{rb if rb!=7 else '-'}"
        c+=" wait:"+(''.join(str(k) for k in range(6) if wm>>k&1) or '-')
        ins=re.sub(r'\s+',' ',ins.strip().rstrip(';').strip())
        print(f"{off} {c:22s} {ins}")
        i+=2; continue
    if l.startswith('.L_x'): print(l)
    i+=1
