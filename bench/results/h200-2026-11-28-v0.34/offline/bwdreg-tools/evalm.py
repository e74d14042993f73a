import re,sys,glob
sys.path.insert(0,'/tmp/bwdreg-scratch'); from model import *
tiles={}
for f in sys.argv[2:]:
    for i,l in enumerate(open(f)):
        tiles[(f,i)]=l.strip()
rows=[]
for logf,tf in [(a.split(':')[0],a.split(':')[1]) for a in sys.argv[1].split(',')]:
    lines=[l.strip() for l in open(tf) if l.strip()]
    for l in open(logf):
        m=re.match(r'\s*(\d+) .*?\| (\S+) est_regs \d+ kreg (\d+) .*LDL (\d+) STL (\d+) in loop',l)
        if not m: continue
        i,name,kreg,ldl,stl=int(m.group(1)),m.group(2),int(m.group(3)),int(m.group(4)),int(m.group(5))
        mm,dd,H,B,dirs,tile=lines[i].split('|')[:6]
        g=geo(int(mm),int(dd),int(H),int(B),tile)
        # replace reg slots
        ks=re.sub(r'reg_slots=\d+',f'reg_slots={kreg*g["wpk"]}',tile)
        g=geo(int(mm),int(dd),int(H),int(B),ks)
        c1=name.endswith('_c1')
        rows.append((name,int(mm),int(H),int(B),kreg,ldl+stl,g,c1))
for mname,f in [('current',cur),('drop-poll',nopoll),('product-only',prod),('phase-max B32 p4',lambda g:pmax(g,32,4)),('phase-max B37 p4',lambda g:pmax(g,37,4)),('phase-max B24 p4',lambda g:pmax(g,24,4)),('frag B24',lambda g:pfrag(g,24)),('frag B20',lambda g:pfrag(g,20)),('frag B28',lambda g:pfrag(g,28))]:
    fl=[r for r in rows if f(r[6])<=255 and r[5]>0]
    fr=[r for r in rows if f(r[6])>255 and r[5]==0]
    print(f"{mname:18s} false-legal {len(fl):2d} {[ (r[0],f(r[6]),r[5]) for r in fl]}")
    print(f"{'':18s} false-reject {len(fr):2d} {[ (r[0],f(r[6])) for r in fr]}")
