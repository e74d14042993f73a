#!/bin/bash
# one.sh NAME mode dtype H B caller_rows "tile"  -> NAME.ptxas NAME.sass, summary line
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
SRC=${SRC:-/tmp/wt-bwdreg/kernel_src}
cd /tmp/bwdreg-scratch/out
n=$1; shift
D=$(../dumpb "$@" 2> $n.est)
case "$D" in fail*) echo "$n FAIL $D"; exit;; esac
nvcc -arch=sm_90 -cubin -Xptxas -v -I $SRC $D $EXTRA -o $n.cubin $SRC/rnn_backward.cu > $n.ptxas 2>&1 || { echo "$n COMPILE-ERROR"; tail -3 $n.ptxas; exit; }
$ND -c $n.cubin | grep -E "^\s+/\*[0-9a-f]+\*/|^\.L_x" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@\1 @; s@ ;.*@@; s@/\*.*\*/@@' > $n.sass
rm -f $n.cubin
echo "$n $(cat $n.est) | $(python3 ../loopchk.py $n)"
