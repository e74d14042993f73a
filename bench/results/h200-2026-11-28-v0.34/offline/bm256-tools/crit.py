import sys,re
sys.path.insert(0,'/tmp/bm256-scratch')
from sim import *
# Simulated issue cycles of the cell warp (one warp alone, latencies as in sim.LAT, the poll
# answered at once): poll's return -> last BAR.SYNC, BAR -> publishing store, publish -> next
# step's first poll load.
def crit(f):
    ins,lab=load(f); path=walk(ins,lab)
    P=[ins[i]['txt'] for i in path]
    bar=[k for k,s in enumerate(P) if 'BAR.SYNC' in s][-1]
    pub=[k for k,s in enumerate(P) if re.search(r'STG.E(\.64)?\.STRONG',s)][0]
    polls=[k for k,s in enumerate(P) if 'LDG' in s and 'STRONG' in s]
    poll=polls[0]; lastpoll=polls[-1]
    # poll return: first instruction after the last poll load; time from there
    t0,_=sim(ins,path[lastpoll+1:bar+1])
    t1,_=sim(ins,path[bar:pub+1])
    seg=path[pub:]+path[:poll+1]
    t2,_=sim(ins,seg)
    return t0[-1],t1[-1],t2[-1],pub-bar,len(seg)
if __name__=='__main__':
    for f in sys.argv[1:]:
        a,b,c,n1,n2=crit(f)
        print(f"{f:36s} poll->BAR {a:4d}  BAR->pub {b:4d} cyc ({n1} ins)  pub->poll {c:4d} cyc ({n2} ins)  step {a+b+c:5d}")
