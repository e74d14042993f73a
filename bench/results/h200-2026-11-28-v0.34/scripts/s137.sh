# issue 24: branch bwd-regk's newly legal partial-sum mma backward tiles (more register k-steps), forced against the
# shipped-equivalent tile in the same build, alternated twice; the FlashRNN shape; the training suite on that build.
# run: mkdir -p /tmp/r; timeout -k 5 560 bash .ab/s137.sh 2>&1 | tail -40; tar -czf $OUT/r.tgz -C /tmp r
. .ab/setup.sh
t0=$(date +%s)
el() { echo "t $(( $(date +%s)-t0 )) s"; }
d=/tmp/regk
if [ ! -f $d/.tgz ] || ! cmp -s $d/.tgz .ab/bwdregk.tgz; then rm -rf $d; mkdir -p $d; tar -xzf .ab/bwdregk.tgz -C $d; cp .ab/bwdregk.tgz $d/.tgz; fi
build build $d || exit 1
B=$d/build/tools/bench/prnn-bench
T="threads=256 ksplit=1 lanes_k=1 batch_chunk=4 mma=1 handoff=0 batch_groups=4 partial_sums=1"
pt() { # mode dtype H blocks slots seq round
  PRNN_TILE_BACKWARD="blocks=$4 $T reg_slots=${5%:*} smem_slots=${5#*:}" timeout 60 $B --pass training --modes $1 --dtype $2 \
    --hidden $3 --batch 16 --seq $6 --repeats 5 --warmup 1 --no-cudnn --csv $R/regk-$7-$1-$2-$3-$4-${5%:*}-T$6.csv > /dev/null 2>&1 || echo "fail $*"
}
for round in 1 2; do
  for m in "lstm half 1024 32 96:160 128:128 160:96" "gru half 1024 32 96:96 128:64 160:32" \
           "lstm bfloat16 768 24 120:72 144:48 168:24" "lstm bfloat16 768 32 120:24 144:0"; do
    set -- $m; for rs in ${@:5}; do pt $1 $2 $3 $4 $rs 256 $round; done
  done
  el
done
for v in "24 120:72" "24 168:24" "32 144:0"; do set -- $v; pt lstm bfloat16 768 $1 $2 1024 1; done
python3 - $R <<'PY'
import csv,glob,sys,os
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/regk-*.csv')):
    r=list(csv.DictReader(open(f)))
    if not r: continue
    r=r[0]; k=os.path.basename(f).split('-',2)[2][:-4]
    rows.setdefault(k,[]).append((float(r['prnn_bwd_data_us'] or 'nan'), r['prnn_median_us'], r.get('prnn_fwd_training_us','')))
for k,v in sorted(rows.items()): print(f"{k:40s} bwd_data {' '.join('%.3f'%x[0] for x in v)}  step {' '.join(x[1][:6] for x in v)}")
PY
el
(cd $d && OUT=$R/regk-suite BUILD=build timeout 200 bash tests/gpu/run.sh training > $R/regk-suite.log 2>&1; echo "bwd-regk training suite rc $?"; tail -3 $R/regk-suite.log | cut -c1-100)
el
