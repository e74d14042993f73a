#!/bin/sh
# The main job on a built tree (tools/run-main.sh builds it and calls this):
# first what this machine offers prnn, then on a GPU the quick benchmark
# against cuDNN (table, plot, geometric mean; files in BUILD/main-job/),
# without one a sentence saying so and the CPU reference demo, which ends with
# its verdict. The exit status is the benchmark's or the demo's.
#
# usage: tools/main.sh [build-dir]
set -eu
build=${1:-build}
out=$build/main-job
# The probe decides (exit 0: prnn can use the GPU; 3: it cannot), so the
# benchmark never runs only to report a missing driver.
rc=0
"$build/tools/demo/prnn-demo" --probe || rc=$?
echo
case $rc in
0)
    mkdir -p "$out"
    echo "prnn against cuDNN 9, quick sweep (prnn-bench --quick):"
    exec "$build/tools/bench/prnn-bench" --quick --csv "$out/bench-quick.csv" \
        --json "$out/bench-quick.json" --plot "$out/bench-quick.png"
    ;;
3)
    echo "No GPU that prnn can use here (see above), so nothing to benchmark: the CPU reference runs a training step instead, its gradients checked against finite differences."
    echo
    exec "$build/tools/demo/prnn-demo" --cpu
    ;;
*)
    exit "$rc"
    ;;
esac
