#!/usr/bin/env bash
# Line and branch coverage of src/ by the CPU suites (the README's figure):
# configures a separate build with gcov instrumentation
# (-Db_coverage=true), runs every suite but the GPU ones (which would only
# skip) and the fuzzers (built apart, with clang), then prints gcovr's
# summary twice: all of src/, and src/ outside src/gpu and src/cuda (the GPU
# planner and the CUDA loaders, which need a GPU to run). gcovr comes from
# Debian (apt-get install gcovr) or PyPI (pip install gcovr).
#
# usage: tools/coverage.sh [meson test arguments]
#        build directory: $PRNN_COV_BUILD_DIR, default build-cov
#        HTML report: $PRNN_COV_HTML=FILE also writes one
set -eu
. "$(dirname "$0")/setup.sh"
cd "$prnn_root"
build=${PRNN_COV_BUILD_DIR:-build-cov}
prnn_install build tests
if ! have gcovr; then
    if [ "$(id -u)" -eq 0 ] && have apt-get; then
        say "setup: apt-get install gcovr"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcovr >/dev/null
    else
        say "coverage: gcovr is missing: apt-get install gcovr (or pip install gcovr)"
        exit 1
    fi
fi
prnn_configure "$build" -Dtools=true -Dtests=true -Dfuzz=disabled \
    -Db_coverage=true -Dbuildtype=debug
prnn_build "$build"
find "$build" -name '*.gcda' -delete
# Failures are reported but do not stop the figure: a failing test still
# ran its lines.
meson test -C "$build" --no-suite gpu --print-errorlogs "$@" || say "coverage: some tests failed (above)"
common=(--root "$prnn_root" --object-directory "$build" --print-summary
        --exclude-unreachable-branches --exclude-throw-branches)
say "coverage of src/ (all of it):"
gcovr "${common[@]}" --filter 'src/' -o /dev/null
say "coverage of src/ outside src/gpu and src/cuda:"
gcovr "${common[@]}" --filter 'src/' --exclude 'src/gpu/' --exclude 'src/cuda/' \
    ${PRNN_COV_HTML:+--html-details "$PRNN_COV_HTML"} -o /dev/null
