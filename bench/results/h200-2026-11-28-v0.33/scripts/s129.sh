# s127's training failure rerun with its seed: the whole quick suite (new), the filtered case (new, head)
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
S=1795883557
build build-gpu || exit 1
rm -rf /tmp/b0; mkdir -p /tmp/b0; tar xzf .ab/head.tgz -C /tmp/b0; build build-gpu /tmp/b0 || exit 1
el
timeout 120 $ROOT/build-gpu/tests/gpu/test_training_gpu --quick --seed $S > $R/seed-new.log 2>&1; echo "new rc $?"; grep -E "^FAIL" $R/seed-new.log | cut -c1-160
el
timeout 60 /tmp/b0/build-gpu/tests/gpu/test_training_gpu --quick --seed $S --filter "H=72 B=3 L=2 bi T=8 in=20 varlen dropout" --verbose > $R/seed-head-f.log 2>&1; echo "head-f rc $?"; grep -E "^FAIL" $R/seed-head-f.log | cut -c1-160
el
