# issue 27: the persistent forward publishes h_t before its y/hy/cy/act stores. Padded/packed ratios, packed A/B against main, varied-lengths layout A/B against main's moves.
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
el
$BENCH --no-cudnn --layout packed,seq-padded,batch-padded --lengths full --modes lstm,gru --hidden 64,128,256,1024 --batch 8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 > $R/ratio-full2.log 2>&1
grep -E "geomean padded" $R/ratio-full2.log
grep -E "padded +full +: prnn" $R/ratio-full2.log | awk '{for(i=1;i<=NF;i++) if($i=="prnn") v=$(i+1); if (v>1.03) print}'
el
OUT=$R timeout 100 bash bench/ab.sh .ab/base.tgz 2 pk2 -- --modes lstm,gru --hidden 128,256,1024 --batch 1,8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 2>&1 | tail -3
awk '$NF>1.04 || $NF<0.96' $R/pk2-summary.txt | head -20
el
OUT=$R timeout 120 bash bench/ab.sh .ab/base.tgz 1 lay2-varied -- --layout batch-padded,seq-padded --lengths varied --modes lstm,gru --hidden 64,256 --batch 8,64 --dtype half,float --seq 256 --pass inference,training --repeats 5 --warmup 1 2>&1 | tail -3
awk '$NF>1.04' $R/lay2-varied-summary.txt | head -20
el
