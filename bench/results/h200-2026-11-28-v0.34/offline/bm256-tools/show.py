import sys,re
sys.path.insert(0,'/tmp/bm256-scratch')
from sim import *
f=sys.argv[1]; ins,lab=load(f); path=walk(ins,lab)
P=[ins[i]['txt'] for i in path]
bar=[k for k,s in enumerate(P) if 'BAR.SYNC' in s][-1]
a=int(sys.argv[2]) if len(sys.argv)>2 else bar
b=int(sys.argv[3]) if len(sys.argv)>3 else len(P)
for k in range(a,b):
    x=ins[path[k]]
    print(f"{k:4d} s{x['stall']:2d} y{x['yld']} w{x['wb']} r{x['rb']} W{x['wait']:02x}  {x['txt']}")
