#!/bin/sh
# Builds the tuning-DB parser's libFuzzer target with clang (meson builds the
# project with gcc, so this compiles the few sources it needs directly) and
# runs it for a bounded time. Registered as the meson test "tuning-fuzz".
#
# usage: run_fuzz.sh SOURCE_ROOT WORK_DIR [--require]
#   PRNN_FUZZ_SECONDS  run time in seconds (default 60; 0: only replay the
#                      seed corpus)
#   PRNN_FUZZ_CC       compiler (default clang)
#   PRNN_FUZZ_INCLUDE  folder of the generated prnn.h (default: the build's
#                      include folder, three levels above WORK_DIR, which
#                      meson passes as <builddir>/tests/tuning/fuzz)
# Exit status: 0 no finding; 1 a finding or a build error (the crashing input
# is saved in WORK_DIR as crash-*, leak-*, timeout-* or oom-*); 77 (meson's
# SKIP) when clang or its libFuzzer runtime is missing, unless --require.
#
# Debian 12 needs: apt-get install clang libclang-rt-14-dev
set -u

src=${1:?usage: run_fuzz.sh SOURCE_ROOT WORK_DIR [--require]}
work=${2:?usage: run_fuzz.sh SOURCE_ROOT WORK_DIR [--require]}
require=${3:-}
seconds=${PRNN_FUZZ_SECONDS:-60}
cc=${PRNN_FUZZ_CC:-clang}
# prnn.h is generated from include/prnn.h.in into <builddir>/include.
include=${PRNN_FUZZ_INCLUDE:-$work/../../../include}

skip() {
    echo "tuning-fuzz: SKIP: $*"
    echo "tuning-fuzz: on Debian 12: apt-get install clang libclang-rt-14-dev"
    if [ "$require" = "--require" ]; then
        exit 1
    fi
    exit 77
}

case $seconds in
    ''|*[!0-9]*) echo "tuning-fuzz: PRNN_FUZZ_SECONDS must be a number of seconds"; exit 1 ;;
esac

command -v "$cc" >/dev/null 2>&1 || skip "$cc not found"
mkdir -p "$work/corpus" || exit 1

# Can this clang link a fuzzer at all? (Needs the compiler-rt archives.)
cat > "$work/probe.c" <<'PROBE'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
PROBE
if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" \
        -o "$work/probe" >"$work/probe.log" 2>&1; then
    cat "$work/probe.log"
    skip "$cc cannot build a libFuzzer target (-fsanitize=fuzzer,address,undefined)"
fi

cjson=$(pkg-config --cflags --libs libcjson 2>/dev/null) || cjson="-lcjson"
if [ ! -f "$include/prnn.h" ]; then
    echo "tuning_fuzz: FAIL: no generated prnn.h in $include (set PRNN_FUZZ_INCLUDE)"
    exit 1
fi

# The parser, search and formatter, and what they use: no file I/O, no
# embedded files, no CUDA.
# shellcheck disable=SC2086
if ! "$cc" -std=c99 -D_GNU_SOURCE -g -O1 -Wall -Wextra \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -I"$include" -I"$src/src" -I"$src/kernel_src" \
        "$src/tests/tuning/fuzz_tuning_db.c" \
        "$src/src/tuning/tuning_db_parse.c" \
        "$src/src/tuning/json_syntax.c" \
        "$src/src/tuning/tuning_db_bounds.c" \
        "$src/src/tuning/tuning_db_format.c" \
        "$src/src/tuning/tuning_entry.c" \
        "$src/src/tuning/tuning_search.c" \
        "$src/src/tuning/tile_config.c" \
        "$src/src/error.c" \
        "$src/src/dtype.c" \
        "$src/src/rnn_cell_traits.c" \
        "$src/src/rnn_pass.c" \
        $cjson -lm -lpthread -o "$work/fuzz_tuning_db"; then
    echo "tuning-fuzz: FAIL: the fuzz target does not build"
    exit 1
fi

if [ "$seconds" -eq 0 ]; then
    set -- -runs=0
else
    set -- -max_total_time="$seconds"
fi
echo "tuning-fuzz: fuzzing for ${seconds}s (set PRNN_FUZZ_SECONDS to change)"
# libFuzzer exits 77 on a finding by default, which meson would read as SKIP:
# every finding must be a failure.
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$work/fuzz_tuning_db" "$@" -timeout=10 -rss_limit_mb=2048 \
    -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
    -artifact_prefix="$work/" -dict="$src/tests/tuning/fuzz_tuning_db.dict" \
    "$work/corpus" "$src/tests/tuning/corpus"
rc=$?
if [ $rc -ne 0 ]; then
    echo "tuning-fuzz: FAIL (libFuzzer exit status $rc); reproduce with:"
    echo "  $work/fuzz_tuning_db $work/<crash file>"
    exit 1
fi
echo "tuning-fuzz: no finding"
exit 0
