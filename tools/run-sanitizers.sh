#!/usr/bin/env bash
# The CPU suites under AddressSanitizer and UndefinedBehaviorSanitizer, in
# one command: configures a separate build (-Db_sanitize=address,undefined),
# builds it and runs every suite that needs no GPU, except the minute-long
# NVRTC compiles (suite slow) and the GPU suites (which would only SKIP).
# Any sanitizer report fails the run: UBSan halts on its first finding, ASan
# always does, and LeakSanitizer reports leaks. What CI runs after
# tools/run-tests.sh (.ci/run). Arguments go to meson test.
#
# usage: tools/run-sanitizers.sh [meson test arguments]
#        build directory: $PRNN_SAN_BUILD_DIR, default build-san
set -eu
. "$(dirname "$0")/setup.sh"
cd "$prnn_root"
build=${PRNN_SAN_BUILD_DIR:-build-san}
prnn_install build tests
# b_lundef=false: the sanitizer runtimes resolve some symbols at load time.
# fuzz disabled: the fuzzer has its own ASan/UBSan build (tests/tuning).
prnn_configure "$build" -Dtools=true -Dtests=true -Dfuzz=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
prnn_build "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
set -- --suite api --suite ref --suite jit --suite tuning --suite plan \
    --suite tools --no-suite slow --no-suite gpu "$@"
meson test -C "$build" --print-errorlogs "$@"
