# Next session's first call for issue 27 (branch `inplace` checked out, .ab/base.tgz = git archive main):
# the forward kernels' steps compiled per combination of in-place rows (PRNN_IO_LAYOUTS).
# Packed A/B (CR0's SASS is identical to the branch's 34343d7, measured 1.006), in place vs main's moves,
# padded/packed ratios (issue 27's 3 % target), then the suites.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
left() { echo $(( 560 - ($(date +%s)-t0) )); }
build build-gpu || exit 1
el
$BENCH --no-cudnn --layout packed,seq-padded,batch-padded --lengths full --modes lstm,gru --hidden 64,128,256,1024 --batch 8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 > $R/ratio-full.log 2>&1
grep -A40 "^padded / packed" $R/ratio-full.log | grep -E "geomean padded|batch-padded|seq-padded" | head -40
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 2 pk -- --modes lstm,gru --hidden 128,256,1024 --batch 1,8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 2>&1 | tail -3
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 1 lay -- --layout batch-padded,seq-padded --lengths varied,full --modes lstm,gru --hidden 64,256 --batch 8,64 --dtype half,float --seq 256 --pass inference,training --repeats 5 --warmup 1 2>&1 | tail -3
el
OUT=$R timeout $(left) bash tests/gpu/run.sh v8 forward training > $R/suites.log 2>&1; echo "suites rc $?"; tail -12 $R/suites.log | cut -c1-70
el
