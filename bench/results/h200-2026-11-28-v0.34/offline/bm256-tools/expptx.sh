#!/bin/bash
n=$1; cfg=$2; cr=$3; shift 3
read nm m d h b tile <<< "$(grep "^$cfg " /tmp/bm256-scratch/cfg.txt)"
D=$(/tmp/bm256-scratch/dump $m $d $h $b $cr "$tile")
o=/tmp/bm256-scratch/exp/out; mkdir -p $o
nvcc -std=c++17 -arch=sm_90 -ptx -I /tmp/bm256-scratch/exp/kernel_src $D "$@" -o $o/$n.ptx /tmp/bm256-scratch/exp/kernel_src/rnn_persistent.cu
