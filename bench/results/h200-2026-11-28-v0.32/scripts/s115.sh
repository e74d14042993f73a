# Next session's first call for issue 27 (run with the branch `inplace` checked out in
# /work/main and .ab/base.tgz = `git archive --format=tar.gz -o .ab/base.tgz main`):
# the packed path A/B (expected 1.00), batch_first / full-length batch-major and varied
# padded data against main's moves, then the suites with the engines forced.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
left() { echo $(( 560 - ($(date +%s)-t0) )); }
build build-gpu || exit 1
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 2 pk -- --modes tanh,lstm --hidden 64,128 --batch 1,8 --dtype float,half --seq 256 --repeats 10 --warmup 2 2>&1 | tail -3
el
OUT=$R timeout 120 bash bench/ab.sh .ab/base.tgz 2 lay -- --layout batch-padded,seq-padded --lengths varied --modes lstm,gru --hidden 64,256 --batch 8,64 --dtype half,float --seq 256 --pass inference,training --repeats 5 --warmup 1 2>&1 | tail -3
el
OUT=$R timeout 60 bash bench/ab.sh .ab/base.tgz 1 full -- --layout batch-padded --lengths full --modes lstm,gru --hidden 64,256 --batch 8,64 --dtype half --seq 256 --pass inference,training --repeats 5 --warmup 1 2>&1 | tail -3
el
OUT=$R timeout $(left) bash tests/gpu/run.sh v8 training > $R/suites.log 2>&1; echo "suites rc $?"; tail -12 $R/suites.log | cut -c1-70
el
