#!/usr/bin/env bash
# The whole test suite under sanitizers, in one command (issue #25):
#  1. AddressSanitizer + UndefinedBehaviorSanitizer: a separate build
#     (-Db_sanitize=address,undefined) and every meson test of it, the slow
#     ones included (the GPU suites report SKIP without a GPU), with the
#     timeouts multiplied by $PRNN_SAN_TIMEOUT_MULTIPLIER (default 4: the
#     NVRTC compiles run about three times slower when ASan's allocator
#     serves NVRTC's allocations). examples-install runs apart, with
#     CC="cc -fsanitize=address,undefined": the examples are built against
#     the installed, instrumented libprnn as a user would build them, and
#     an uninstrumented program cannot load an ASan library ("ASan runtime
#     does not come first"). The fuzzers are left out of this build: they
#     build themselves with clang and ASan (tests/fuzz, tests/tuning). So is
#     the package suite: it checks what ships (the wheel's contents, which
#     must not need libasan; consumers and python3, uninstrumented programs
#     that cannot load an ASan library) and runs in tools/run-tests.sh.
#  2. ThreadSanitizer: a third build (-Db_sanitize=thread) of the tests that
#     run threads (concurrent lookups and stores, parallel compiles, the
#     reserve registry, the fault tests), and those tests.
# Any sanitizer report fails the run: UBSan and TSan halt on their first
# finding, ASan always does, LeakSanitizer reports leaks. What CI runs after
# tools/run-tests.sh (.ci/run).
#
# usage: tools/run-sanitizers.sh [meson test arguments]
#   with arguments, only step 1, with them (e.g. --suite jit)
#   build directories: $PRNN_SAN_BUILD_DIR (default build-san) and
#                      $PRNN_TSAN_BUILD_DIR (default <that>-tsan)
#   PRNN_SAN_SKIP_SLOW=1  leaves the minute-long suite (slow) out of step 1
set -eu
. "$(dirname "$0")/setup.sh"
cd "$prnn_root"
build=${PRNN_SAN_BUILD_DIR:-build-san}
tbuild=${PRNN_TSAN_BUILD_DIR:-$build-tsan}
mult=${PRNN_SAN_TIMEOUT_MULTIPLIER:-4}
prnn_install build tests
# b_lundef=false: the sanitizer runtimes resolve some symbols at load time.
prnn_configure "$build" -Dtools=true -Dtests=true -Dfuzz=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
prnn_build "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
rc=0
if [ $# -ne 0 ]; then
    meson test -C "$build" --print-errorlogs --timeout-multiplier "$mult" "$@"
    exit
fi
skip_slow=()
[ "${PRNN_SAN_SKIP_SLOW:-0}" = 1 ] && skip_slow=(--no-suite slow)
say "sanitizers: ASan+UBSan, every suite (timeouts x$mult)"
meson test -C "$build" --print-errorlogs --timeout-multiplier "$mult" \
    --no-suite examples --no-suite package "${skip_slow[@]}" || rc=$?
say "sanitizers: ASan+UBSan, examples-install (examples built with the sanitizers)"
CC="${CC:-cc} -fsanitize=address,undefined" \
    meson test -C "$build" --print-errorlogs --timeout-multiplier "$mult" \
    --suite examples || rc=$?

# ThreadSanitizer: the threaded tests only (a full TSan build would double
# the time for tests that start no thread).
tsan_tests=(tuning-env tuning-store api-basic api-reserve jit-cache-concurrency
            jit-cache-killed-writers jit-cubin-batch faults-alloc)
tsan_targets=(tests/tuning/test_tuning_env tests/tuning/test_tuning_store
              tests/api/test_api_basic tests/api/test_reserve
              tests/jit/test_cache_concurrency tests/jit/test_cache_killed_writers
              tests/jit/test_cubin_batch tests/fuzz/test_alloc_failures)
if [ "${PRNN_SAN_SKIP_SLOW:-0}" != 1 ]; then
    tsan_tests+=(plan-compile jit-nvrtc-compile)
    tsan_targets+=(tests/plan/test_plan_compile tests/jit/test_nvrtc_compile)
fi
say "sanitizers: TSan: ${tsan_tests[*]}"
prnn_configure "$tbuild" -Dtools=false -Dtests=true -Dfuzz=disabled \
    -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug
prnn_build "$tbuild" "${tsan_targets[@]}"
# setarch -R: gcc 12's TSan cannot map its shadow under the 28+ bits of
# mmap randomness newer kernels use ("unexpected memory mapping").
norandom=()
if have setarch && setarch "$(uname -m)" -R true 2>/dev/null; then
    norandom=(setarch "$(uname -m)" -R)
fi
# tests/tsan.supp: races TSan imagines inside the uninstrumented NVRTC.
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$prnn_root/tests/tsan.supp} \
    "${norandom[@]}" meson test -C "$tbuild" --no-rebuild --print-errorlogs \
    --timeout-multiplier "$mult" "${tsan_tests[@]}" || rc=$?
exit $rc
