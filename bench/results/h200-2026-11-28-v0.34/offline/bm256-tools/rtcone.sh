#!/bin/bash
# rtcone.sh OUTDIR NAME SRCDIR CFGNAME CR [extra -D...] : NVRTC compile, regs/spills, sass
ND=/work/main/build/python-venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/nvdisasm
o=$1 n=$2 src=$3 cfg=$4 cr=$5; shift 5
read nm m d h b tile <<< "$(grep "^$cfg " /tmp/bm256-scratch/cfg.txt)"
mkdir -p $o
D=$(/tmp/bm256-scratch/dump $m $d $h $b $cr "$tile") || exit 1
/tmp/bm256-scratch/rtc $o/$n.cubin $src/kernel_src/rnn_persistent.cu -I$src/kernel_src $D "$@" -Xptxas -v > $o/$n.log 2>&1 || { tail -5 $o/$n.log; exit 1; }
grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)" $o/$n.log | tr '\n' ' ' > $o/$n.regs
$ND -c $o/$n.cubin | grep -E "^\s+/\*[0-9a-f]+\*/|^\.L_x" | sed -E 's@^\s+/\*([0-9a-f]+)\*/\s+@@; s@ ;.*@@; s@/\*.*\*/@@' > $o/$n.sass
echo "$n: $(cat $o/$n.regs)| $(python3 /tmp/bm256-scratch/crit.py $o/$n.cubin | cut -c37-)"
