# tiny-inplace (inplace + tiny-exp + harness fix): the training suite (v8 and forward passed on final = this + psum preload)
. .ab/setup.sh
t0=$(date +%s)
build build-gpu || exit 1
OUT=$R timeout 200 bash tests/gpu/run.sh training > $R/suites.log 2>&1; echo "suites rc $?"; grep -E "^== " $R/suites.log | cut -c1-90
grep -hE "^FAIL" -A1 $R/training.log | head -6 | cut -c1-200; tail -4 $R/training.log | cut -c1-200
echo "t $(( $(date +%s)-t0 )) s"
