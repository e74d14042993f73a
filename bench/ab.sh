#!/usr/bin/env bash
# A/B of two builds on one GPU machine: a base tree (a tarball made where
# the git history is, since the device tool's copy has none) and this
# tree, each built in release mode, prnn-bench run on both alternately
# with --no-cudnn and the same arguments, then tools/bench_ab.py's
# best-of-runs comparison. Both builds share one kernel cache (its keys
# hold every kernel's source, so a kernel that differs compiles for each).
#
#   git archive --format=tar.gz -o .ab/base.tgz REV      # where git is
#   bench/ab.sh .ab/base.tgz RUNS NAME -- PRNN-BENCH-ARGS  # on the GPU machine
#
# Writes $OUT/NAME-{base,new}{1..RUNS}.csv and $OUT/NAME-summary.txt ($OUT
# as the device tool sets it, else ./ab-results); prints the summary's
# geometric means. BUILD: this tree's build directory (default build-gpu);
# BASE_DIR: where the base tree is unpacked, emptied first (default
# /tmp/prnn-ab-base). Both builds are release builds and share PRNN_CACHE_DIR
# (and so a user tuning DB there, if one exists).
set -euo pipefail
[ $# -ge 4 ] && [ "$4" = "--" ] || {
    echo "usage: $0 BASE.tgz RUNS NAME -- PRNN-BENCH-ARGS" >&2
    exit 2
}
tarball=$(realpath "$1") runs=$2 name=$3
shift 4
case $runs in '' | *[!0-9]* | 0) echo "ab.sh: RUNS must be a positive number, not '$runs'" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-$root/ab-results}
build=${BUILD:-build-gpu}
base_dir=${BASE_DIR:-/tmp/prnn-ab-base}
# a fresh base tree: git archive stamps files with the commit's time, so
# another base unpacked over an old one could look older than its build
rm -rf "$base_dir"
mkdir -p "$out" "$base_dir"
export PRNN_CACHE_DIR=${PRNN_CACHE_DIR:-/tmp/prnn-cache}
tar -xzf "$tarball" -C "$base_dir"
for tree in "$base_dir" "$root"; do
    dir=$build
    [ "$tree" = "$root" ] || dir=build-ab
    (cd "$tree" && { [ -d "$dir" ] || meson setup "$dir" >/dev/null; } &&
        meson configure "$dir" -Dbuildtype=release >/dev/null && ninja -C "$dir" >/dev/null) ||
        { echo "ab.sh: the build in $tree failed" >&2; exit 1; }
done
bench_base=$base_dir/build-ab/tools/bench/prnn-bench
bench_new=$root/$build/tools/bench/prnn-bench
for i in $(seq 1 "$runs"); do
    for side in base new; do
        bench=$bench_base
        [ $side = new ] && bench=$bench_new
        "$bench" --no-cudnn "$@" --csv "$out/$name-$side$i.csv" > "$out/$name-$side$i.log" 2>&1 ||
            { echo "ab.sh: $side run $i failed (its log: $out/$name-$side$i.log)" >&2; exit 1; }
    done
done
base_csv=() new_csv=()
for i in $(seq 1 "$runs"); do
    base_csv+=("$out/$name-base$i.csv")
    new_csv+=("$out/$name-new$i.csv")
done
python3 tools/bench_ab.py --base "${base_csv[@]}" --new "${new_csv[@]}" > "$out/$name-summary.txt"
grep -E "^==|geomean" "$out/$name-summary.txt"
