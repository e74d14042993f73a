# issue 27: why the caller-rows kernels are slower: layouts at two points, then ncu warp stalls
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
for L in full varied; do
$BENCH --no-cudnn --layout packed,seq-padded,batch-padded --lengths $L --modes lstm --hidden 256 --batch 8 --dtype float,half --seq 256 --repeats 20 --warmup 3 --csv $R/lay-$L-a.csv > $R/lay-$L-a.log 2>&1
$BENCH --no-cudnn --layout packed,seq-padded,batch-padded --lengths $L --modes lstm,gru --hidden 64 --batch 64 --dtype half,float --seq 256 --repeats 20 --warmup 3 --csv $R/lay-$L-b.csv > $R/lay-$L-b.log 2>&1
done
el
which ncu nsys compute-sanitizer 2>&1 | head
NCU=$(which ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu=$NCU"
if [ -n "$NCU" ]; then
for L in packed seq-padded; do
timeout 90 $NCU -k regex:prnn_rnn_persistent --launch-skip 3 --launch-count 1 --section WarpStateStats --section InstructionStats --section SchedulerStats --section LaunchStats \
  $BENCH --no-cudnn --layout $L --lengths full --modes lstm --hidden 256 --batch 8 --dtype float --seq 256 --repeats 3 --warmup 1 > $R/ncu-$L.txt 2>&1
tail -5 $R/ncu-$L.txt
done
fi
el
