#!/bin/sh
# The main job: a quick benchmark against cuDNN on a GPU machine; without a
# GPU (prnn-bench exits 2 and says why), the CPU reference demo instead.
# usage: tools/main.sh [build-dir]
B=${1:-build}
"$B/tools/bench/prnn-bench" --quick
rc=$?
if [ "$rc" -eq 2 ]; then
    exec "$B/tools/demo/prnn-demo"
fi
exit "$rc"
