# issue 27 / 22: the input's bias added after the wait (persistent forward), row bases once; packed A/B vs main, layouts, suites
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
P="--no-cudnn --modes lstm --hidden 256 --batch 8 --dtype float,half --seq 256 --repeats 20 --warmup 3"
for L in packed "batch-padded --lengths full" "seq-padded --lengths varied"; do
$BENCH $P --layout $L > $R/l.log 2>&1; echo "$L: $(grep -E '^lstm' $R/l.log | awk '{print $2, $9}' | tr '\n' ' ')"
done
el
OUT=$R timeout 130 bash bench/ab.sh .ab/base.tgz 2 pk -- --modes lstm,gru --hidden 128,256,1024 --batch 1,8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 2>&1 | tail -3
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 1 lay -- --layout batch-padded,seq-padded --lengths varied --modes lstm,gru --hidden 128,256 --batch 8,64 --dtype half,float --seq 256 --repeats 5 --warmup 1 2>&1 | tail -3
el
OUT=$R timeout 200 bash tests/gpu/run.sh v8 forward > $R/suites.log 2>&1; echo "suites rc $?"; tail -10 $R/suites.log | cut -c1-70
el
