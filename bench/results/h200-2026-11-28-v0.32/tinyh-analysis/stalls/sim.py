# Crude model of the tiny kernel's step loop from SASS control bits:
# 2 identical warps on one SMSP (one issue a cycle between them), the SM's
# LSU data pipe shared by 4 symmetric SMSPs (a request of n wavefronts holds
# it 4n cycles), stall counts as fixed latencies, scoreboards for the rest.
import re,sys
P=dict(lds_wf=2, lds_lat=24, ldg_lat=450, ldg_wf=1, stg_wf=1, shfl_lat=24, shfl_wf=1,
       mufu_lat=18, s2r_lat=25, ldc_lat=12, rb_lat=8, bar_lat=24, smsp=4)
def load(f):
    L=[l.rstrip('\n') for l in open(f)]
    # loop body: from the label targeted by the last backward branch to that branch
    back=None
    for i,l in enumerate(L):
        m=re.search(r'@!?P\d BRA `\((\.L_x_\d+)\)',l)
        if m and 'BAR' not in l:
            lab=m.group(1)
            j=next((k for k,x in enumerate(L) if x.startswith(lab+':')),None)
            if j is not None and j<i: back=(j,i)
    j,i=back
    body=[]
    for l in L[j+1:i+1]:
        if l.startswith('.L'): continue
        m=re.match(r'(\w+) S(\d\d)(.) W(.) R(.) wait:(\S+)\s+(.*)',l)
        off,S,y,W,R,wt,ins=m.groups()
        body.append(dict(S=int(S),W=None if W=='-' else int(W),R=None if R=='-' else int(R),
                         wait=[] if wt=='-' else [int(c) for c in wt],ins=re.sub(r'^@!?U?P\w+\s+','',ins),txt=ins))
    return body
def lat(ins,t,pipe):
    op=ins.split()[0]
    if op.startswith('LDS'):
        wf=P['lds_wf'] if '.128' in op else 1
        start=max(t,pipe[0]); pipe[0]=start+wf*P['smsp']
        return pipe[0]+P['lds_lat']
    if op.startswith('LDG'):
        start=max(t,pipe[0]); pipe[0]=start+P['ldg_wf']*P['smsp']; return pipe[0]+P['ldg_lat']
    if op.startswith(('STS','STG')):
        start=max(t,pipe[0]); pipe[0]=start+(1 if op.startswith('STS') else P['stg_wf'])*P['smsp']; return start+P['rb_lat']
    if op.startswith('SHFL'):
        start=max(t,pipe[0]); pipe[0]=start+P['shfl_wf']*P['smsp']; return pipe[0]+P['shfl_lat']
    if op.startswith('MUFU'): return t+P['mufu_lat']
    if op.startswith(('S2R','S2UR','CS2R.32')): return t+P['s2r_lat']
    if op.startswith(('LDC','ULDC')): return t+P['ldc_lat']
    return t+P['rb_lat']
TRACE=[]
def sim(body,passes=4,nw=2):
    TRACE.clear()
    n=len(body); W=[dict(pc=0,t=0,sb=[0]*6,pas=0,atbar=False,hist=[]) for _ in range(nw)]
    pipe=[0]; t=0; barw=0; starts=[]; ldgwait=[]
    while True:
        # barrier release
        if all(w['atbar'] for w in W):
            rel=max(w['bart'] for w in W)+P['bar_lat']
            for w in W: w['atbar']=False; w['t']=max(w['t'],rel); w['pc']+=1
            if W[0]['pc']>=n:
                pass
        if all(w['pas']>=passes for w in W): break
        # pick a warp to issue at cycle t
        cand=[]
        for k,w in enumerate(W):
            if w['atbar'] or w['pas']>=passes: continue
            ins=body[w['pc']]
            ready=max([w['t']]+[w['sb'][b] for b in ins['wait']])
            cand.append((ready,k))
        if not cand: continue
        ready,k=min(cand)
        t=max(t,ready); w=W[k]; ins=body[w['pc']]
        if k==0 and 5 in ins['wait'] and w['sb'][5]>w['t'] and w['pas']==passes-1:
            ldgwait.append((w['pc'],ins['txt'][:40],w['sb'][5]-w['t']))
        if w['pc']==0 and k==0: starts.append(t)
        done=lat(ins['ins'],t,pipe)
        TRACE.append((k,w['pas'],w['pc'],t,done,ins['ins'].split()[0]))
        if ins['W'] is not None: w['sb'][ins['W']]=max(w['sb'][ins['W']],done)
        if ins['R'] is not None: w['sb'][ins['R']]=max(w['sb'][ins['R']],t+P['rb_lat'])
        w['t']=t+max(ins['S'],1); t+=1
        if ins['ins'].startswith('BAR'):
            w['atbar']=True; w['bart']=t
            if w['pc']==n-1: pass
            continue
        w['pc']+=1
        if w['pc']>=n: w['pc']=0; w['pas']+=1
    return starts,ldgwait
if __name__=='__main__':
    for f in sys.argv[1:]:
        body=load(f)
        st,lw=sim(body,passes=6)
        per=[(st[i+1]-st[i])/4 for i in range(len(st)-1)]
        print(f"{f}: {len(body)} instr a pass; cycles a step, pass by pass: {[round(x) for x in per]}; SB5 waits warp0 {lw} over {len(st)} passes")
