#!/bin/bash
# all.sh OUTDIR SRCDIR : every config, packed (p) and caller rows (c)
while read n m d h b tile; do
  /tmp/bm256-scratch/one.sh $1 $n.p $2 $m $d $h $b 0 "$tile"
  /tmp/bm256-scratch/one.sh $1 $n.c $2 $m $d $h $b 1 "$tile"
done < /tmp/bm256-scratch/cfg.txt
