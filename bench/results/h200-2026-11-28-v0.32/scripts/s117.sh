# issue 27: per-kernel durations of one call, seq-padded full vs varied vs packed (LSTM f32 H256 B8)
. .ab/setup.sh
build build-gpu || exit 1
for L in "packed full" "seq-padded full" "seq-padded varied" "batch-padded full"; do set -- $L
timeout 60 ncu --metrics gpu__time_duration.sum --launch-count 24 \
  $BENCH --no-cudnn --layout $1 --lengths $2 --modes lstm --hidden 256 --batch 8 --dtype float --seq 256 --repeats 2 --warmup 1 > $R/ncu-$1-$2.txt 2>&1
echo "== $1 $2"; grep -E "^  [a-z_A-Z].*\(|gpu__time_duration" $R/ncu-$1-$2.txt | paste - - | awk "{print \$1, \$(NF)}" | head -24 | tr "\n" ";"; echo
done
