#!/bin/bash
# evalall.sh OUTDIR SRCDIR [CFGFILE] [extra -D...]: p and c variants of every tile, step estimates
o=$1 src=$2 cf=${3:-/tmp/bm256-scratch/cfgall.txt}; shift 3
mkdir -p $o
while read n m d h b tile; do
  D=$(/tmp/bm256-scratch/dump $m $d $h $b 0 "$tile") || continue
  for cr in 0 1; do
    tag=$([ $cr = 0 ] && echo p || echo c)
    [ -f $o/$n.$tag.cubin ] && continue
    D=$(/tmp/bm256-scratch/dump $m $d $h $b $cr "$tile")
    /tmp/bm256-scratch/rtc $o/$n.$tag.cubin $src/kernel_src/rnn_persistent.cu -I$src/kernel_src $D "$@" -Xptxas -v > $o/$n.$tag.log 2>&1 || echo "FAIL $n $tag"
  done
done < $cf
