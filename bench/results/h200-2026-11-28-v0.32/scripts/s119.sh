# issue 27 experiment: which part of the caller-rows persistent kernel costs (PRNN_EXP bits: 1 x packed, 2 y packed, 4 hy packed, 8 no order in hand-off, 16 no order load, 32 CALLER_ROWS 0)
. .ab/setup.sh
build build-gpu || exit 1
P="--no-cudnn --modes lstm --hidden 256 --batch 8 --dtype float,half --seq 256 --repeats 20 --warmup 3"
$BENCH $P --layout packed > $R/e-packed.log 2>&1; echo "packed: $(grep -E '^lstm' $R/e-packed.log | awk '{print $2, $9}' | tr '\n' ' ')"
for e in 0 1 2 3 7 8 16 24 31 32; do
PRNN_EXP=$e $BENCH $P --layout batch-padded --lengths full > $R/e-$e.log 2>&1; echo "exp $e: $(grep -E '^lstm' $R/e-$e.log | awk '{print $2, $9}' | tr '\n' ' ')"
done
