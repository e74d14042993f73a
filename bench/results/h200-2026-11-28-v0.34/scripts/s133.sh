# inplace checked out (+ the harness's handle-lock fix): forward and training suites; tiny-exp vs main (tiny-h forced);
# bwd-first's forward (y address before the wait) vs inplace; cuDNN's own batch-major/packed ratio.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
OUT=$R timeout 290 bash tests/gpu/run.sh forward training > $R/suites.log 2>&1; echo "suites rc $?"; grep -E "^== " $R/suites.log | cut -c1-90
grep -hE "^FAIL" -A1 $R/forward.log $R/training.log | head -6 | cut -c1-200
el
PRNN_ENGINE=tiny-h OUT=$R timeout 110 bash .ab/ab2.sh .ab/main.tgz .ab/tiny.tgz 2 tiny -- --modes lstm,gru,tanh --hidden 64 --batch 1,8,64,256 --dtype float,half --seq 256 --repeats 7 --warmup 1 2>&1 | grep -A1 "prnn_median_us"
grep -E "lstm f32  H   64 B   1 " $R/tiny-summary.txt | head -2
el
OUT=$R timeout 130 bash .ab/ab2.sh .ab/inplace.tgz .ab/bwdfirst.tgz 2 yat -- --layout packed,batch-padded --lengths full --modes lstm,gru --hidden 256,1024 --batch 8,64 --dtype float,half --seq 256 --repeats 7 --warmup 1 2>&1 | grep -A1 "prnn_median_us"
el
timeout 50 $BENCH --layout packed,batch-padded --lengths full --modes lstm,gru --hidden 256,1024 --batch 8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 > $R/bm.log 2>&1
grep -E "padded +full|geomean" $R/bm.log | sed -E 's/ +/ /g' | cut -c1-160 | head -24
el
