# the training suite's one failure in s127 (gru double H=72 B=3 L=2 bi T=8 in=20 varlen dropout, small-h, dw):
# repeated with the publish-first kernel (working tree) and without it (HEAD of the branch)
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
F="H=72 B=3 L=2 bi T=8 in=20 varlen"
build build-gpu || exit 1
el
timeout 90 $ROOT/build-gpu/tests/gpu/test_training_gpu --quick --filter "$F" --repeat 25 > $R/rep-new.log 2>&1; echo "new rc $?"; grep -cE "^FAIL" $R/rep-new.log; grep -E "^FAIL" $R/rep-new.log | cut -c1-150 | sort | uniq -c | head
el
rm -rf /tmp/b0; mkdir -p /tmp/b0; tar xzf .ab/head.tgz -C /tmp/b0; build build-gpu /tmp/b0 || exit 1
el
timeout 90 /tmp/b0/build-gpu/tests/gpu/test_training_gpu --quick --filter "$F" --repeat 25 > $R/rep-head.log 2>&1; echo "head rc $?"; grep -cE "^FAIL" $R/rep-head.log; grep -E "^FAIL" $R/rep-head.log | cut -c1-150 | sort | uniq -c | head
el
