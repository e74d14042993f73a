# issue 27: where H 256 B 8's batch-padded cost goes (per-kernel durations), the layout A/B against main's moves
# (varied and full lengths separately; s124's failed on --lengths varied,full), the H 256 B 8 ratios x3;
# issue 22: the tiny-h step's per-instruction stalls.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
for i in 1 2 3; do
$BENCH --no-cudnn --layout packed,seq-padded,batch-padded --lengths full --modes lstm,gru --hidden 256 --batch 8 --dtype float,half --seq 256 --repeats 20 --warmup 2 > $R/h256-$i.log 2>&1
grep -E "padded +full +: prnn" $R/h256-$i.log | awk '{print $2,$3,$4,$5,$7,$10,$11,$12,$13}' | tr '\n' ';'; echo
done
el
for lay in packed seq-padded batch-padded; do for dt in float half; do
timeout 60 ncu --metrics gpu__time_duration.sum $BENCH --no-cudnn --layout $lay --lengths full --modes lstm --hidden 256 --batch 8 --dtype $dt --seq 256 --repeats 1 --warmup 0 > $R/k-$lay-$dt.txt 2>&1
echo "$lay $dt: $(awk '/^  [a-zA-Z_]+.*\(/{k=($1=="void")?$2:$1} /gpu__time_duration/{printf "%s=%s ", substr(k,1,28), $NF}' $R/k-$lay-$dt.txt | cut -c1-400)"
done; done
el
for len in varied full; do
OUT=$R timeout 120 bash bench/ab.sh .ab/base.tgz 1 lay-$len -- --layout batch-padded,seq-padded --lengths $len --modes lstm,gru --hidden 64,256 --batch 8,64 --dtype half,float --seq 256 --pass inference,training --repeats 5 --warmup 1 2>&1 | tail -3
el
done
timeout 90 ncu -k regex:prnn_tiny_forward --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats -o $R/tiny -f $BENCH --no-cudnn --modes lstm --hidden 64 --batch 1 --dtype float --seq 256 --repeats 2 --warmup 1 > $R/ncu-tiny2.txt 2>&1
ncu -i $R/tiny.ncu-rep --page source --csv --print-source sass > $R/tiny-src.csv 2>&1; ncu -i $R/tiny.ncu-rep --page details --print-details all > $R/tiny-details.txt 2>&1
grep -iE "stall" $R/tiny-details.txt | head -20
el
