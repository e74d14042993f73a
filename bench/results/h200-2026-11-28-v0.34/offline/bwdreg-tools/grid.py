import subprocess,re,sys
SH=lambda t: re.sub(r' (threads|ksplit|lanes_k|mma|handoff|partial_sums)=\S+','',t)
def first(exe,m,d,H,B):
    o=subprocess.run([exe,str(m),str(d),str(H),str(B),'1'],capture_output=True,text=True).stdout.strip()
    if not o: return None
    i,cost,est,tile=o.split('|')
    if 'partial_sums=1' not in tile or 'mma=1' not in tile: return None
    return tile,int(re.search(r'kreg (\d+)',est).group(1)),float(cost)
def wpk_of(m,d,H,B,tile):
    e=subprocess.run(['./dumpb',str(m),str(d),str(H),str(B),'0',tile],capture_output=True,text=True).stderr
    return dict((k,int(v)) for k,v in re.findall(r'(\w+) (\d+)',e)), 'REJECTED' not in e
done={}
def comp(name,m,d,H,B,tile):
    key=(m,d,H,B,tile)
    if key in done: return done[key]
    r=subprocess.run(['nice','./one.sh',name,str(m),str(d),str(H),str(B),'0',tile],capture_output=True,text=True).stdout.strip()
    mm=re.search(r'regs (\d+) spill (\d+)B.*LDL (\d+) STL (\d+) in loop',r)
    s=f"r{mm.group(1)} sp{mm.group(2)} loop-LDL/STL {int(mm.group(3))+int(mm.group(4))}" if mm else r[-80:]
    done[key]=s; return s
modes=[int(x) for x in sys.argv[1].split(',')]; Hs=[int(x) for x in sys.argv[2].split(',')]; Bs=[int(x) for x in sys.argv[3].split(',')]
for m in modes:
  for H in Hs:
    for B in Bs:
        d=2
        o=first('./heurc_old',m,d,H,B); n=first('./heurc',m,d,H,B)
        if not o and not n: print(f"m{m} H{H} B{B}: not psum mma",flush=True); continue
        line=f"m{m} H{H} B{B}:"
        if o: line+=f" OLD k{o[1]} [{comp(f'g_{m}_{H}_{B}_old',m,d,H,B,o[0])}] {SH(o[0])} |"
        if n:
            same = o and o[0]==n[0]
            line+=f" NEW k{n[1]} {'(same)' if same else '['+comp(f'g_{m}_{H}_{B}_new',m,d,H,B,n[0])+'] '+SH(n[0])} |"
            g,_=wpk_of(m,d,H,B,n[0])
            if g['kreg']<g['kreg']+g['ksmem']+g['kglb'] and (g['kreg']+1)*g['wpk']<=255:
                t=re.sub(r'reg_slots=\d+',f"reg_slots={(g['kreg']+1)*g['wpk']}",n[0])
                g2,legal=wpk_of(m,d,H,B,t)
                if legal: line+=f" TIGHT k{g2['kreg']} est{g2['est_regs']} [{comp(f'g_{m}_{H}_{B}_tight',m,d,H,B,t)}]"
                else: line+=f" tight k{g2['kreg']} illegal est{g2['est_regs']}"
        print(line,flush=True)
