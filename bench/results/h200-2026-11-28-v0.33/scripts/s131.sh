# tiny-exp (issue 22) against main, forced tiny-h; bwd-first's forward (y addresses before the wait) against inplace in inference, packed and batch-padded;
# batch-major H 256: cuDNN's own batch-major/packed ratio beside prnn's
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
build build-gpu || exit 1
PRNN_ENGINE=tiny-h OUT=$R timeout 240 bash .ab/ab2.sh .ab/main.tgz .ab/tiny.tgz 2 tiny -- --modes lstm,gru,tanh --hidden 64 --batch 1,8,64,256 --dtype float,half --seq 256 --repeats 7 --warmup 1 2>&1 | tail -4
el
PRNN_ENGINE=tiny-h OUT=$R timeout 120 bash .ab/ab2.sh .ab/tiny1.tgz .ab/tiny.tgz 2 tinyw -- --modes lstm,gru --hidden 32,64 --batch 1,8 --dtype float,half --seq 64 --repeats 7 --warmup 1 2>&1 | tail -4
el
OUT=$R timeout 150 bash .ab/ab2.sh .ab/inplace.tgz .ab/bwdfirst.tgz 2 yat -- --layout packed,batch-padded --lengths full --modes lstm,gru --hidden 128,256,1024 --batch 1,8,64 --dtype float,half --seq 256 --repeats 7 --warmup 1 2>&1 | tail -4
el
$BENCH --layout packed,batch-padded --lengths full --modes lstm,gru --hidden 256,1024 --batch 8,64 --dtype float,half --seq 256 --repeats 10 --warmup 2 > $R/bm.log 2>&1
grep -E "padded +full|geomean padded" $R/bm.log | sed -E 's/ +/ /g' | cut -c1-160
el
