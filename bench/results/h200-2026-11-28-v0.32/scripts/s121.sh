# issue 27: per-instruction stall samples, CR0 (packed) vs CR1 (batch-padded full), LSTM f32 H256 B8
. .ab/setup.sh
build build-gpu || exit 1
for L in packed batch-padded; do
timeout 100 ncu -k regex:prnn_rnn_persistent --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats --section InstructionStats -o $R/rep-$L \
  $BENCH --no-cudnn --layout $L --lengths full --modes lstm --hidden 256 --batch 8 --dtype float --seq 256 --repeats 2 --warmup 1 > $R/ncu3-$L.log 2>&1
ncu -i $R/rep-$L.ncu-rep --page source --csv --print-source sass > $R/src-$L.csv 2>&1
ncu -i $R/rep-$L.ncu-rep --page details > $R/det-$L.txt 2>&1
head -2 $R/src-$L.csv | cut -c1-600
grep -E "Duration|Executed Instructions  |Warp Cycles Per Issued" $R/det-$L.txt
done
rm -f $R/rep-*.ncu-rep
