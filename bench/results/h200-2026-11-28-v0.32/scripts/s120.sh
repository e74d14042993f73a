# issue 27: hy/cy written after the steps (persistent); experiment bits again; packed A/B; v8 suite
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
P="--no-cudnn --modes lstm --hidden 256 --batch 8 --dtype float,half --seq 256 --repeats 20 --warmup 3"
$BENCH $P --layout packed > $R/e-packed.log 2>&1; echo "packed: $(grep -E '^lstm' $R/e-packed.log | awk '{print $2, $9}' | tr '\n' ' ')"
for e in 0 1 2 3 8 32; do
PRNN_EXP=$e $BENCH $P --layout batch-padded --lengths full > $R/e-$e.log 2>&1; echo "exp $e: $(grep -E '^lstm' $R/e-$e.log | awk '{print $2, $9}' | tr '\n' ' ')"
done
for e in 0 8; do
PRNN_EXP=$e $BENCH $P --layout seq-padded --lengths varied > $R/ev-$e.log 2>&1; echo "varied exp $e: $(grep -E '^lstm' $R/ev-$e.log | awk '{print $2, $9}' | tr '\n' ' ')"
done
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 2 pk -- --modes lstm,gru --hidden 128,256 --batch 1,8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 2>&1 | tail -3
el
OUT=$R timeout 150 bash tests/gpu/run.sh v8 > $R/suites.log 2>&1; echo "suites rc $?"; tail -9 $R/suites.log | cut -c1-70
el
