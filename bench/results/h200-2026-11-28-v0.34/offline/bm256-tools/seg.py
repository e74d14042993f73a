import re,sys
from collections import Counter
sys.path.insert(0,'/tmp/bm256-scratch')
from loop import parse,loops,op
def segs(f):
    lab,ins=parse(f); L=loops(lab,ins)
    outer=[l for l in L if not any(o!=l and o[0]<=l[0] and l[1]<=o[1] for o in L)]
    a,b=max(outer,key=lambda l:l[1]-l[0])
    body=ins[a:b+1]
    # marks
    poll=[i for i,x in enumerate(body) if 'LDG.E.64.STRONG.GPU' in x or 'LDG.E.STRONG.GPU' in x]
    vote=[i for i,x in enumerate(body) if 'VOTE.ANY' in x]
    bars=[i for i,x in enumerate(body) if 'BAR.SYNC' in x]
    pub=[i for i,x in enumerate(body) if re.search(r'STG.E(\.64)?\.STRONG.GPU',x)]
    return body,dict(poll=poll,vote=vote,bars=bars,pub=pub)
if __name__=="__main__":
  for f in sys.argv[1:]:
      body,m=segs(f)
      lastvote=m['vote'][-1]; bar=m['bars']; pub=m['pub']
      print(f"{f:34s} loop {len(body):5d}  top->poll {m['poll'][0]:4d}  pollexit->lastBAR {bar[-1]-lastvote:4d}  lastBAR->pub {pub[0]-bar[-1] if pub else -1:4d}  pub->end {len(body)-pub[-1] if pub else -1:4d} bars {len(bar)} pubs {len(pub)}")
