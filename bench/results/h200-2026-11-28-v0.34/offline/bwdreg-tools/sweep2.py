import subprocess,re,sys
lines=[l.strip() for l in open(sys.argv[1]) if l.strip()]
crs=[int(x) for x in sys.argv[2].split(',')]
pre=sys.argv[3]
for i,l in enumerate(lines):
    m,d,h,b,dirs,tile=l.split('|')[:6]
    e=subprocess.run(['./dumpb',m,d,h,b,'0',tile],capture_output=True,text=True).stderr
    g=dict(re.findall(r'(\w+) (\d+)',e))
    kreg,ksmem,kglb,wpk=int(g['kreg']),int(g['ksmem']),int(g['kglb']),int(g['wpk'])
    ks=kreg+ksmem+kglb
    for nk in range(kreg,ks+1):
        ns=ks-nk
        t=re.sub(r'reg_slots=\d+',f'reg_slots={nk*wpk}',tile); t=re.sub(r'smem_slots=\d+',f'smem_slots={ns*wpk}',t)
        for cr in crs:
            name=f"{pre}{i}_k{nk}_c{cr}"
            r=subprocess.run(['nice','./one.sh',name,m,d,h,b,str(cr),t],capture_output=True,text=True).stdout.strip()
            print(f"{i:2d} m{m} d{d} H{h} B{b} | {r}",flush=True)
