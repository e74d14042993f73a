import sys,re
sys.path.insert(0,'/tmp/bm256-scratch')
from sim import *
f=sys.argv[1]; ins,lab=load(f); path=walk(ins,lab)
P=[ins[i]['txt'] for i in path]
polls=[k for k,s in enumerate(P) if 'LDG' in s and 'STRONG' in s]
times,_=sim(ins,path[polls[-1]+1:]+path[:polls[0]+1])
seg=path[polls[-1]+1:]+path[:polls[0]+1]
for k,i in enumerate(seg):
    x=ins[i]; print(f"{times[k]:5d} s{x['stall']:2d} W{x['wait']:02x} w{x['wb']}  {x['txt']}")
