import re,sys
for f,cuts in [("tiny0_step.sass",None),("tiny2_step.sass",None)]:
    ins=[l for l in open(f) if re.search(r'/\*[0-9a-f]{4}\*/',l)]
    ops=[re.sub(r'^\s*/\*[0-9a-f]+\*/\s*(@!?U?P[0-9T]\s+)?','',l).split()[0] for l in ins]
    # phase boundaries
    i_act=next(i for i,l in enumerate(ins) if '@P' in l and 'FMUL' in l and '0.5' in l)
    i_sh=next(i for i,o in enumerate(ops) if o.startswith('SHFL'))
    i_bra=next(i for i in range(i_sh,len(ops)) if ops[i]=='BRA')
    i_bs=next(i for i,o in enumerate(ops) if o=='BSYNC')
    ph={'A dot (BAR..last FADD)':(0,i_act),'B gate act':(i_act,i_sh),'C gather':(i_sh,i_bra+1),'D owner cell':(i_bra+1,i_bs),'E tail..BAR':(i_bs,len(ops))}
    print("==",f,len(ops))
    for k,(a,b) in ph.items():
        seg=ops[a:b]
        cat={'fp':0,'mufu':0,'mio':0,'int/ctl':0,'gmem':0}
        for o in seg:
            if o.startswith(('FFMA','FADD','FMUL','FSEL','FSETP','HADD2','F2FP')) and not o.startswith('HFMA2.MMA'): cat['fp']+=1
            elif o.startswith('MUFU'): cat['mufu']+=1
            elif o.startswith(('LDS','STS','SHFL')): cat['mio']+=1
            elif o.startswith(('LDG','STG','LDC')): cat['gmem']+=1
            else: cat['int/ctl']+=1
        print(f"  {k:24s} {b-a:4d}  {cat}")
