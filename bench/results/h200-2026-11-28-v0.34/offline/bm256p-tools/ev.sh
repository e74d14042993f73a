#!/bin/bash
# ev.sh OUTDIR SRCDIR fwd|bwd : p and c variants of every tile of cfgall/cfgbwd, cubin+log+sass
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
o=$1 src=$2 pass=$3; mkdir -p $o
if [ $pass = fwd ]; then cf=/tmp/bm256p-scratch/cfgall.txt cu=rnn_persistent.cu ex=""; else cf=/tmp/bm256p-scratch/cfgbwd.txt cu=rnn_backward.cu ex="1 1"; fi
while read n m d h b tile; do
  /tmp/bm256p-scratch/dump $m $d $h $b 0 "$tile" $ex >/dev/null 2>&1 || { echo "SKIP $n"; continue; }
  for cr in 0 1; do
    tag=$([ $cr = 0 ] && echo p || echo c)
    D=$(/tmp/bm256p-scratch/dump $m $d $h $b $cr "$tile" $ex)
    /tmp/bm256p-scratch/rtc $o/$n.$tag.cubin $src/kernel_src/$cu -I$src/kernel_src $D -Xptxas -v > $o/$n.$tag.log 2>&1 || echo "FAIL $n $tag"
    $ND -c $o/$n.$tag.cubin | grep -E "^\s+/\*[0-9a-f]+\*/|^\.L_x" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@@; s@ ;.*@@; s@/\*.*\*/@@' > $o/$n.$tag.sass
  done
done < $cf
