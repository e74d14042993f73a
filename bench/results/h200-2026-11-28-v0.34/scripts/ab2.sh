#!/usr/bin/env bash
# ab2.sh A.tgz B.tgz RUNS NAME -- PRNN-BENCH-ARGS: like bench/ab.sh, both sides from tarballs
# (built in /tmp/ab2-A and /tmp/ab2-B, kept when the tarball is unchanged), alternated, bench_ab.py's summary.
set -euo pipefail
a=$(realpath "$1") b=$(realpath "$2") runs=$3 name=$4; shift 5
out=${OUT:-/tmp/r}; mkdir -p "$out"
export PRNN_CACHE_DIR=${PRNN_CACHE_DIR:-/tmp/prnn-cache}
root=$PWD
for side in A B; do
  tb=$a; [ $side = B ] && tb=$b
  d=/tmp/ab2-$side
  if [ ! -f $d/.tgz ] || ! cmp -s $d/.tgz "$tb"; then rm -rf $d; mkdir -p $d; tar -xzf "$tb" -C $d; cp "$tb" $d/.tgz; fi
  (cd $d && { [ -d build ] || meson setup build --buildtype=release >/dev/null; } && ninja -C build >/dev/null) || { echo "ab2: build $side failed"; exit 1; }
done
for i in $(seq 1 $runs); do for side in A B; do
  /tmp/ab2-$side/build/tools/bench/prnn-bench --no-cudnn "$@" --csv $out/$name-$side$i.csv > $out/$name-$side$i.log 2>&1 || { echo "ab2: $side run $i failed"; exit 1; }
done; done
python3 $root/tools/bench_ab.py --base $out/$name-A*.csv --new $out/$name-B*.csv > $out/$name-summary.txt
grep -E "^==|geomean" $out/$name-summary.txt
