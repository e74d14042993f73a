# issue 24: bwd-an (the partial-sum product's first shared-memory k-steps read before the barrier) against bwd-first;
# its quick training suite (the partial-sum tiles' correctness).
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
OUT=$R timeout 240 bash .ab/ab2.sh .ab/bwdfirst.tgz .ab/bwdan.tgz 2 psum -- --pass training --modes lstm,gru --hidden 768,1024 --batch 8,16 --dtype half,bfloat16 --seq 256 --repeats 5 --warmup 1 2>&1 | tail -8
grep -E "bwd_data|lstm.*(768|1024) B  16" $R/psum-summary.txt | head -12
el
OUT=$R timeout 100 bash .ab/ab2.sh .ab/bwdfirst.tgz .ab/bwdan.tgz 1 flash -- --pass training --modes lstm --hidden 768 --batch 16 --dtype bfloat16 --seq 1024 --repeats 3 --warmup 1 2>&1 | tail -6
el
(cd /tmp/ab2-B && OUT=$R/an BUILD=build timeout 200 bash tests/gpu/run.sh training > $R/an-suite.log 2>&1; echo "bwd-an training suite rc $?"; tail -3 $R/an-suite.log | cut -c1-100)
el
