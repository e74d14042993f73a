# branch final (= inplace + tiny-exp + psum preload + harness fix): v8/forward/training suites; psum preload A/B against inplace; FlashRNN shape
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
OUT=$R timeout 285 bash tests/gpu/run.sh v8 forward training > $R/suites.log 2>&1; echo "suites rc $?"; grep -E "^== " $R/suites.log | cut -c1-90
grep -hE "^FAIL" -A1 $R/forward.log $R/training.log | head -6 | cut -c1-200
el
OUT=$R timeout 175 bash bench/ab.sh .ab/inplace.tgz 2 psum -- --pass training --modes lstm,gru --hidden 768,1024 --batch 8,16 --dtype half,bfloat16 --seq 256 --repeats 5 --warmup 1 2>&1 | grep -E "^==|geomean"
grep -A17 "bwd_data" $R/psum-summary.txt | grep -E "lstm|gru" | head -16
el
OUT=$R timeout 60 bash bench/ab.sh .ab/inplace.tgz 1 flash -- --pass training --modes lstm --hidden 768 --batch 16 --dtype bfloat16 --seq 1024 --repeats 3 --warmup 1 2>&1 | grep -E "^==|geomean"
grep -E "lstm" $R/flash-summary.txt | head -6
el
