import sys
sys.path.insert(0,'/tmp/bm256-scratch')
from seg import segs
body,m=segs(sys.argv[1])
a=int(sys.argv[2]) if len(sys.argv)>2 else 0
b=int(sys.argv[3]) if len(sys.argv)>3 else len(body)
for i in range(a,min(b,len(body))): print(i,body[i])
