import re,math
ACT={0:0,1:0,2:5,3:4}; DG={0:1,1:1,2:4,3:4}; GATES={0:1,1:1,2:4,3:3}
cd=lambda a,b:-(-a//b)
def geo(m,d,H,B,tile):
    t=dict((k,int(v)) for k,v in re.findall(r'(\w+)=(\d+)',tile))
    G=GATES[m]; per_group=cd(B,t['batch_groups']); bc=min(t['batch_chunk'],per_group)
    chunks=cd(per_group,bc); upb=cd(H,t['blocks']); upb+=upb%2; blocks=cd(H,upb)
    ps_rows=cd(bc,2); ps_items=upb*ps_rows; sl=1 if ps_items>=t['threads'] else t['threads']//ps_items
    sl=min(sl,blocks); span=cd(blocks,sl); pw=min(span,16)
    warps=t['threads']//32; rpg=cd(cd(H,warps),16)*16; rt=rpg//16; ntn=cd(bc,8); wpk=4*rt
    KD=G*upb; ksteps=cd(cd(KD,2)*1,16) if False else cd(KD+KD%2,16)
    kreg=min(t['reg_slots']//wpk,ksteps)
    acc=rt*ntn*4; items=cd((upb//2)*bc,t['threads'])
    carry=chunks*items*2; itm=items*2*(ACT[m]+3+DG[m])
    onchip=kreg+min(t['smem_slots']//wpk,ksteps-kreg)
    return dict(w=kreg*wpk,acc=acc,pw=pw,carry=carry,itm=itm,kreg=kreg,wpk=wpk,rt=rt,handoff=t['handoff'],rest=ksteps-kreg)
def cur(g): return g['w']+g['acc']+56+2*g['pw']+g['carry']+g['itm']
def nopoll(g): return g['w']+g['acc']+56+g['carry']+g['itm']
def prod(g): return g['w']+g['acc']+56+g['carry']
def pmax(g,B=32,pc=4): return g['w']+g['carry']+B+max(g['acc'],(pc if g['handoff']==0 else 2)*g['pw']+g['itm'])

def pfrag(g,B=24): return g['w']+g['carry']+B+max(g['acc']+(4*g['rt'] if g['rest']>0 else 0),(4 if g['handoff']==0 else 2)*g['pw']+g['itm'])
