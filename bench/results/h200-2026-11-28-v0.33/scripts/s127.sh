# issue 27: the publish-first persistent forward through the suites; the full-length layout A/B against main.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
OUT=$R timeout 360 bash tests/gpu/run.sh v8 forward training > $R/suites2.log 2>&1; echo "suites rc $?"; tail -12 $R/suites2.log | cut -c1-70
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 1 lay2-full -- --layout batch-padded,seq-padded --lengths full --modes lstm,gru --hidden 64,256 --batch 8,64 --dtype half,float --seq 256 --pass inference,training --repeats 5 --warmup 1 2>&1 | tail -3
awk '$NF>1.04' $R/lay2-full-summary.txt | head -20
el
