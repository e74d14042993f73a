# bm256p against main, packed, training (every pass: forward inference, graph, forward training, backward-data):
# the index read in every persistent kernel (predicted forward ~0.94, backward-data ~0.98).
# run (bm256p checked out, build-gpu kept from s136): mkdir -p /tmp/r; timeout -k 5 400 bash .ab/s138.sh 2>&1 | tail -30; tar -czf $OUT/r.tgz -C /tmp r
. .ab/setup.sh
t0=$(date +%s)
build build-gpu || exit 1
OUT=$R timeout 360 bash bench/ab.sh .ab/main.tgz 2 idx -- --pass training --modes tanh,lstm,gru --hidden 128,256,1024 --batch 1,8,64 --dtype float,half --seq 256 --repeats 5 --warmup 1 2>&1 | grep -E "^==|geomean"
grep -A55 "prnn_graph_median_us" $R/idx-summary.txt | sort -k12 -n | tail -4
echo "t $(( $(date +%s)-t0 )) s"
