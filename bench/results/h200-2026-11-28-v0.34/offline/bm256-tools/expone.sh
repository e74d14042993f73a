#!/bin/bash
# expone.sh NAME CFGNAME CR EXTRA_DEFINES : compile exp/kernel_src with extra -D, print regs + crit
n=$1; cfg=$2; cr=$3; shift 3
read nm m d h b tile <<< "$(grep "^$cfg " /tmp/bm256-scratch/cfg.txt)"
D=$(/tmp/bm256-scratch/dump $m $d $h $b $cr "$tile")
o=/tmp/bm256-scratch/exp/out; mkdir -p $o
nvcc -std=c++17 -arch=sm_90 -cubin -Xptxas -v -I /tmp/bm256-scratch/exp/kernel_src $D "$@" -o $o/$n.cubin /tmp/bm256-scratch/exp/kernel_src/rnn_persistent.cu > $o/$n.log 2>&1 || { tail -5 $o/$n.log; exit 1; }
echo "$(grep -oE 'Used [0-9]+ registers' $o/$n.log) $(python3 /tmp/bm256-scratch/crit.py $o/$n.cubin | cut -c37-)"
