# Crude in-order, scoreboard model of ONE warp through one step (BAR -> BAR),
# with the SM-wide shared-memory return pipe shared by 8 identical warps.
import re,sys
LAT={'MUFU.EX2':18,'MUFU.RCP':20,'MUFU.TANH':18,'LDS':30,'SHFL':27,'LDC':30,'S2R':25}
def lat(op):
    for k,v in LAT.items():
        if op.startswith(k): return v
    if op.startswith(('IMAD.WIDE','IMAD ','IMAD.U32')): return 5
    return 4   # FP32/INT ALU dependent-issue latency
def parse(f):
    out=[]
    for l in open(f):
        m=re.search(r'/\*[0-9a-f]{4}\*/\s*(.*?)\s*;',l)
        if not m: continue
        s=m.group(1); pred=None
        pm=re.match(r'(@!?U?P[0-9T])\s+(.*)',s)
        if pm: pred=pm.group(1).lstrip('@!'); s=pm.group(2)
        op,_,args=s.partition(' ')
        regs=[a.strip() for a in args.split(',')]
        toks=lambda a: re.findall(r'\b(U?R\d+|U?P\d)\b',a)
        dst=[];src=[]
        if op.startswith(('STS','STG','BRA','BAR','BSSY','BSYNC','EXIT')):
            for a in regs: src+=toks(a)
        else:
            if regs and regs[0]:
                d=toks(regs[0]); dst+=d
                # ISETP/FSETP: first two are predicates
                if op.startswith(('ISETP','FSETP','PLOP3','SHFL')): dst+=toks(regs[1]); regs=regs[1:]
                for a in regs[1:]: src+=toks(a)
                if op.startswith(('LDS.128',)):
                    base=int(dst[0][1:]); dst=['R%d'%(base+i) for i in range(4)]
                if op.startswith('LDC.64') or op.startswith('IMAD.WIDE') or op.startswith('LDS.64'):
                    base=int(dst[0][1:]); dst=['R%d'%(base+i) for i in range(2)]
        if pred: src.append(pred)
        out.append((op,dst,src,s))
    return out
def run(f,lds_cyc,issue_gap,warps=8,sh_cyc=1):
    ins=parse(f)[1:]   # skip leading BAR (t=0 is its release)
    end=None; ready={}; t=0; lsu_free=0; mio_free=0; nlds=0
    for op,dst,src,s in ins:
        if op.startswith('BAR'):
            end=max([t]+[ready.get(r,0) for r in src]); break
        st=max([t]+[ready.get(r,0) for r in src])
        t=st+issue_gap if (op.startswith(('FFMA','LDS'))) else st+1
        L=lat(op)
        if op.startswith('LDS'):
            # the 8 warps' loads interleave on the return pipe: each of this warp's
            # loads waits for one load of every other warp
            w=lds_cyc if '128' in op else 1
            lsu_free=max(lsu_free,st)+w*warps
            done=max(st+L, lsu_free+L-w)
        elif op.startswith('SHFL'):
            mio_free=max(mio_free,st,lsu_free)+sh_cyc*warps
            done=max(st+L,mio_free+L-sh_cyc)
        else: done=st+L
        if op.startswith(('LDG','STG','STS','BRA','BSSY','BSYNC')): continue
        for r in dst: ready[r]=done
    return t  # issue time of the last instruction before BAR (the STS of h_t)
for f in ['tiny0_step.sass','tiny2_step.sass']:
    for lds in (1,2,4):
        for g in (1,2):
            print(f, 'LDS.128 return cycles',lds,'FFMA/LDS issue gap',g,'-> BAR reached at',run(f,lds,g))
