import re,sys
sys.path.insert(0,'/tmp/bwdreg-scratch'); from model import *
lines=[l.strip() for l in open(sys.argv[1]) if l.strip()]
B=int(sys.argv[2]) if len(sys.argv)>2 else 32
for i,l in enumerate(lines):
    m,d,H,Bt,dirs,tile=l.split('|')[:6]; m,d,H,Bt=int(m),int(d),int(H),int(Bt)
    t0=re.sub(r'reg_slots=\d+','reg_slots=0',tile)
    g0=geo(m,d,H,Bt,t0)
    ks=None
    g=geo(m,d,H,Bt,re.sub(r'reg_slots=\d+','reg_slots=255',tile)); kmax=g['kreg']
    gs=geo(m,d,H,Bt,tile)
    out=[]
    for name,f in [('cur',cur),('new',lambda g:pmax(g,B,4))]:
        e0=f(g0); hk=min(max(0,239-e0)//g0['wpk'],kmax); 
        # largest legal
        lk=max([k for k in range(0,kmax+1) if f(geo(m,d,H,Bt,re.sub(r'reg_slots=\d+',f'reg_slots={k*g0["wpk"]}',tile)))<=255] or [-1])
        out.append(f"{name}: heur k{hk} maxlegal k{lk}")
    print(f"{i:2d} m{m} H{H} B{Bt} shipped k{gs['kreg']} of {kmax} | "+' | '.join(out))
