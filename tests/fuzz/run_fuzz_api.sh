#!/bin/sh
# Builds the API fuzzer (tests/fuzz/fuzz_api.c over all of libprnn, both
# compiled by clang with libFuzzer, AddressSanitizer and UBSan:
# fuzz_build.py) and runs it for a bounded time from its seed corpus.
# Registered as the meson test "api-fuzz".
#
# usage: run_fuzz_api.sh SOURCE_ROOT BUILD_DIR WORK_DIR [--require]
#   PRNN_FUZZ_API_SECONDS  run time in seconds (default 30, CI's run; 0:
#                          only replay the seed corpus)
#   PRNN_FUZZ_API_RUNS     stop after this many executions instead (the
#                          nightly-sized run: 1000000, README "Testing")
#   PRNN_FUZZ_JOBS         parallel fuzzing processes (default 1)
#   PRNN_FUZZ_CC           compiler (default clang)
# Exit status: 0 no finding; 1 a finding or a build error (the input is
# saved in WORK_DIR as crash-*, leak-*, timeout-* or oom-*; replay it with
# WORK_DIR/fuzz_api FILE); 77 (meson's SKIP) when clang or its libFuzzer
# runtime is missing, unless --require.
set -u

src=${1:?usage: run_fuzz_api.sh SOURCE_ROOT BUILD_DIR WORK_DIR [--require]}
build=${2:?usage: run_fuzz_api.sh SOURCE_ROOT BUILD_DIR WORK_DIR [--require]}
work=${3:?usage: run_fuzz_api.sh SOURCE_ROOT BUILD_DIR WORK_DIR [--require]}
require=${4:-}
seconds=${PRNN_FUZZ_API_SECONDS:-30}
runs=${PRNN_FUZZ_API_RUNS:-}
jobs=${PRNN_FUZZ_JOBS:-1}
cc=${PRNN_FUZZ_CC:-clang}

skip() {
    echo "api-fuzz: SKIP: $*"
    echo "api-fuzz: on Debian 12: apt-get install clang libclang-rt-14-dev"
    [ "$require" = "--require" ] && exit 1
    exit 77
}

case $seconds$runs$jobs in
    *[!0-9]*) echo "api-fuzz: PRNN_FUZZ_API_SECONDS, PRNN_FUZZ_API_RUNS and PRNN_FUZZ_JOBS must be numbers"; exit 1 ;;
esac
command -v "$cc" >/dev/null 2>&1 || skip "$cc not found"
command -v ninja >/dev/null 2>&1 || skip "ninja not found"
mkdir -p "$work/corpus" || exit 1
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$work/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" >"$work/probe.log" 2>&1; then
    cat "$work/probe.log"
    skip "$cc cannot build a libFuzzer target (-fsanitize=fuzzer,address,undefined)"
fi

PRNN_FUZZ_LIBS="$(pkg-config --libs libcjson 2>/dev/null || echo -lcjson) -lm -ldl -lpthread" \
python3 "$src/tests/fuzz/fuzz_build.py" "$build" "$work" \
    "$src/tests/fuzz/fuzz_api.c" fuzz_api "$cc" || exit 1
start=$(date +%s)
if ! ninja -C "$work" > "$work/build.log" 2>&1; then
    tail -n 40 "$work/build.log"
    echo "api-fuzz: FAIL: the fuzz target does not build (log: $work/build.log)"
    exit 1
fi
echo "api-fuzz: built in $(( $(date +%s) - start )) s"

if [ -n "$runs" ]; then
    set -- -runs="$runs"
    echo "api-fuzz: fuzzing for $runs executions"
elif [ "$seconds" -eq 0 ]; then
    set -- -runs=0
    echo "api-fuzz: replaying the seed corpus"
else
    set -- -max_total_time="$seconds"
    echo "api-fuzz: fuzzing for ${seconds}s (PRNN_FUZZ_API_SECONDS changes it)"
fi
if [ "$jobs" -gt 1 ]; then
    set -- "$@" -jobs="$jobs" -workers="$jobs"
fi
# Every finding must fail the test: libFuzzer's default exit status 77 would
# read as SKIP. detect_leaks: a leak is a finding too.
cd "$work" || exit 1
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
PRNN_CACHE_DIR="$work/cache" \
./fuzz_api "$@" -timeout=10 -rss_limit_mb=2048 -max_len=512 \
    -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" "$src/tests/fuzz/corpus"
rc=$?
if [ $rc -ne 0 ]; then
    echo "api-fuzz: FAIL (libFuzzer exit status $rc); reproduce with:"
    echo "  $work/fuzz_api $work/<crash file>"
    exit 1
fi
echo "api-fuzz: no finding"
exit 0
