#!/bin/bash
# one.sh OUTDIR NAME SRCDIR MODE DTYPE H B CR "TILE" -> OUTDIR/NAME.{sass,regs}
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
o=$1 n=$2 src=$3 m=$4 d=$5 h=$6 b=$7 cr=$8 tile="$9"
mkdir -p $o
D=$(/tmp/bm256-scratch/dump $m $d $h $b $cr "$tile") || exit 1
nvcc -std=c++17 -arch=sm_90 -cubin -Xptxas -v -I $src/kernel_src $D -o $o/$n.cubin $src/kernel_src/rnn_persistent.cu > $o/$n.log 2>&1
grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)|error.*" $o/$n.log | tr '\n' ' ' > $o/$n.regs
$ND -c $o/$n.cubin | grep -E "^\s+/\*[0-9a-f]+\*/|^\.L_x" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@@; s@ ;.*@@; s@/\*.*\*/@@' > $o/$n.sass
echo "$n $(cat $o/$n.regs) $(grep -vc '^\.L' $o/$n.sass) instrs"
