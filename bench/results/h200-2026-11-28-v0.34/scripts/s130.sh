# Next session's first call: branch bwd-first checked out (= inplace + the backward stores after the hand-off).
# The suites (the publish-first forward, the backward change, the harness's upload fix), then backward A/B against inplace.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
OUT=$R timeout 320 bash tests/gpu/run.sh v8 forward training > $R/suites.log 2>&1; echo "suites rc $?"; tail -12 $R/suites.log | cut -c1-90
grep -E "^FAIL" -A1 $R/training.log | head -6
el
OUT=$R timeout 200 bash bench/ab.sh .ab/inplace.tgz 2 bwd -- --pass training --modes lstm,gru --hidden 128,256,1024 --batch 1,8,64 --dtype float,half --seq 256 --repeats 5 --warmup 1 2>&1 | tail -12
el
