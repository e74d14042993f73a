#!/usr/bin/env bash
# The main job on a fresh Debian or Ubuntu machine, in one command: installs
# what is missing (as root; otherwise prints the apt-get command to run and
# stops), builds the two tools the job needs (no tests), and runs
# tools/main.sh: on a GPU the quick benchmark against cuDNN, without one the
# CPU reference demo and its verdict. Run it again: it installs and rebuilds
# nothing.
#
# usage: tools/run-main.sh      build directory: $PRNN_BUILD_DIR, default build
set -eu
. "$(dirname "$0")/setup.sh"
cd "$prnn_root"
build=${PRNN_BUILD_DIR:-build}
needs=(build)
# The plot of the benchmark needs matplotlib; only a GPU machine makes one.
if prnn_gpu_driver_present; then
    needs+=(plot)
fi
prnn_install "${needs[@]}"
# A new build directory leaves the tests out; an existing one keeps them.
prnn_configure "$build" -Dtools=true -- -Dtests=false
prnn_build "$build" tools/demo/prnn-demo tools/bench/prnn-bench
echo
exec tools/main.sh "$build"
