# issue 27: CR0 (packed) vs CR1 (batch-padded full) persistent kernel: warp stalls and hot SASS
. .ab/setup.sh
build build-gpu || exit 1
for L in packed batch-padded; do
timeout 100 ncu -k regex:prnn_rnn_persistent --launch-skip 2 --launch-count 1 --section WarpStateStats --section InstructionStats --section SourceCounters --print-details all \
  $BENCH --no-cudnn --layout $L --lengths full --modes lstm --hidden 256 --batch 8 --dtype float --seq 256 --repeats 2 --warmup 1 > $R/ncu2-$L.txt 2>&1
timeout 60 ncu -k regex:prnn_rnn_persistent --launch-skip 2 --launch-count 1 --page source --csv --print-source sass \
  $BENCH --no-cudnn --layout $L --lengths full --modes lstm --hidden 256 --batch 8 --dtype float --seq 256 --repeats 2 --warmup 1 > $R/sass-$L.csv 2>&1
echo "== $L"; grep -E "Executed Instructions  |Warp Cycles Per Issued|Stall|Duration" $R/ncu2-$L.txt | head -30
done
