#!/bin/bash
# evalbwd.sh OUTDIR SRCDIR : backward-data caller-rows (c) and packed (p) kernels of cfgbwd.txt
o=$1 src=$2; mkdir -p $o
while read n m d h b tile; do
  for cr in 0 1; do
    tag=$([ $cr = 0 ] && echo p || echo c)
    [ -f $o/$n.$tag.cubin ] && continue
    D=$(/tmp/bm256-scratch/dump $m $d $h $b $cr "$tile" 1 1)
    /tmp/bm256-scratch/rtc $o/$n.$tag.cubin $src/kernel_src/rnn_backward.cu -I$src/kernel_src $D -Xptxas -v > $o/$n.$tag.log 2>&1 || echo "FAIL $n $tag"
  done
done < /tmp/bm256-scratch/cfgbwd.txt
