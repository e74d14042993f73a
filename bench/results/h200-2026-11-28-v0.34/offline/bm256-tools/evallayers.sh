#!/bin/bash
o=$1 src=$2 L=$3; mkdir -p $o
while read n m d h b tile; do
  D=$(/tmp/bm256-scratch/dump $m $d $h $b 1 "$tile" $L)
  /tmp/bm256-scratch/rtc $o/$n.L$L.cubin $src/kernel_src/rnn_persistent.cu -I$src/kernel_src $D -Xptxas -v > $o/$n.L$L.log 2>&1 || echo "FAIL $n"
  echo "$n L$L $(grep -oE 'Used [0-9]+ registers|[1-9][0-9]* bytes spill stores' $o/$n.L$L.log | tr '\n' ' ')"
done < /tmp/bm256-scratch/cfg.txt
