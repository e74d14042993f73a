# Next session's first call: branch bm256p checked out (bm256: the caller-rows forward's schedule fix; bm256p: the index
# read in every persistent kernel): the GPU suites on it, then the layout A/B against main: batch-padded and packed, full
# lengths (issue 27's three f32 H 256 points, and the packed kernels' predicted ~0.94).
# run: mkdir -p /tmp/r; timeout -k 5 570 bash .ab/s136.sh 2>&1 | grep -v "Generating\|Writing" | tail -40; tar -czf $OUT/r.tgz -C /tmp r
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
OUT=$R timeout 380 bash tests/gpu/run.sh v8 forward training > $R/suites.log 2>&1; echo "suites rc $?"; grep -E "^== " $R/suites.log | cut -c1-90
grep -hE "^FAIL" -A1 $R/forward.log $R/training.log $R/v8*.log 2>/dev/null | head -6 | cut -c1-200
el
OUT=$R timeout 150 bash bench/ab.sh .ab/main.tgz 2 lay -- --layout packed,batch-padded --lengths full --modes lstm,gru --hidden 256,1024 --batch 8,64 --dtype float,half --seq 256 --repeats 7 --warmup 1 2>&1 | grep -E "^==|geomean" | head -4
grep -h "geomean padded/packed" $R/lay-base*.log $R/lay-new*.log
grep -hE "H=256 B=(8|64) T=256 batch-padded full" $R/lay-new*.log | sed -E 's/ +/ /g' | cut -c1-110 | head -8
el
