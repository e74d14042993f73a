#!/usr/bin/env bash
# The tests on a fresh Debian or Ubuntu machine, in one command: installs
# what is missing (as root; otherwise prints the apt-get command to run and
# stops), builds everything and runs every suite (the GPU ones report SKIP
# without a GPU), then the Python package's tests (tools/run-python-tests.sh:
# PyTorch from PyPI into a virtual environment in the build directory). What
# CI runs (.ci/run). Arguments go to meson test, e.g. tools/run-tests.sh
# --suite api, and then the Python tests are left out.
#
# usage: tools/run-tests.sh [meson test arguments]
#        build directory: $PRNN_BUILD_DIR, default build
set -eu
. "$(dirname "$0")/setup.sh"
cd "$prnn_root"
build=${PRNN_BUILD_DIR:-build}
prnn_install build tests python
# -Dwerror=true: a warning (meson.build's list) fails the build here, and so
# in CI; builds by hand and the Python package's keep warnings warnings.
prnn_configure "$build" -Dtools=true -Dtests=true -Dwerror=true
prnn_build "$build"
rc=0
meson test -C "$build" --print-errorlogs "$@" || rc=$?
# One closing line in the plain form every log reader knows.
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {}
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if line.strip():
            r = json.loads(line).get("result", "?")
            counts[r] = counts.get(r, 0) + 1
passed = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
skipped = counts.get("SKIP", 0)
print(f"{passed} passed, {sum(counts.values()) - passed - skipped} failed, {skipped} skipped")
PY
# The Python package and its PyTorch modules, installed as a user installs
# them (needs the network for PyPI on the first run).
prc=0
[ $# -ne 0 ] || tools/run-python-tests.sh "$build" || prc=$?
[ $rc -ne 0 ] || rc=$prc
exit $rc
