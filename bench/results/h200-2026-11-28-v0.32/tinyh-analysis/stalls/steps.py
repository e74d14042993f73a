import sys,re
for f in sys.argv[1:]:
    L=[l for l in open(f) if not l.startswith('.L')]
    bars=[i for i,l in enumerate(L) if 'BAR.SYNC' in l]
    # loop: from the first BAR (prologue) to last
    segs=[bars[k+1]-bars[k] for k in range(len(bars)-1)]
    ldg=[sum('LDG' in L[i] for i in range(bars[k],bars[k+1])) for k in range(len(bars)-1)]
    print(f, 'instrs per step (BAR to BAR):',segs,'sum',sum(segs),'LDG per step',ldg, 'total',len(L))
