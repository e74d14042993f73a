#!/usr/bin/env bash
# The Python package's tests (python/tests: prnn.torch against torch.nn) in
# a virtual environment under the build directory: PyTorch, pytest and
# meson-python come from PyPI (the first run downloads PyTorch with its
# CUDA libraries, about 3 GB; later runs find them), with onnx, onnxruntime
# and onnxscript for the ONNX export tests (about 60 MB), and ruff for the
# lint of python/ and tools/*.py (pyproject.toml's [tool.ruff]); then the
# package is installed the way a user installs it (pip install of this
# repository, which builds libprnn through meson-python) and tested from
# outside the source tree. Run by tools/run-tests.sh after the C suites.
#
# Without a way to make the environment or to install PyTorch it says so
# and exits 0 (the C tests are what ran); a package that fails to build, a
# failing test or a lint finding exits 1. Without a GPU the GPU cases skip.
#
# usage: tools/run-python-tests.sh BUILD_DIR [pytest arguments]
set -u
prnn_root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: $0 BUILD_DIR [pytest arguments]}" && pwd)
shift
venv=$build/python-venv
say() { printf 'python tests: %s\n' "$*"; }

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    say "not run: python3 cannot make a virtual environment (Debian: apt-get install python3-venv)"
    exit 0
fi
if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv"; then
    say "not run: python3 -m venv $venv failed (above)"
    exit 0
fi
py=$venv/bin/python
if ! "$py" -c 'import torch, pytest, mesonpy' >/dev/null 2>&1; then
    say "installing PyTorch, pytest and meson-python from PyPI into $venv"
    if ! "$py" -m pip install -q --disable-pip-version-check torch pytest meson-python \
            'meson>=1.1' ninja; then
        say "not run: PyTorch could not be installed (pip's message above); the C tests ran"
        exit 0
    fi
fi
# The sru package (asappresearch/sru), which test_sru_package.py compares
# prnn.torch.SRU with; without it those tests skip, saying so. --no-deps:
# its requirements (torch, ninja) are the ones installed above.
if ! "$py" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("sru") is None)'; then
    say "installing the sru package 2.6.0 from PyPI (python/tests/test_sru_package.py)"
    "$py" -m pip install -q --disable-pip-version-check --no-deps 'sru==2.6.0' ||
        say "the sru package could not be installed (pip's message above): its tests will skip"
fi
# The lint (pyproject.toml's [tool.ruff]), pinned so that a new release's
# rules cannot fail a build that passed; without it the lint is skipped,
# saying so.
if ! "$py" -m ruff --version >/dev/null 2>&1; then
    say "installing ruff 0.17.6 from PyPI into $venv"
    "$py" -m pip install -q --disable-pip-version-check 'ruff==0.17.6' ||
        say "ruff could not be installed (pip's message above): the lint is skipped"
fi
# The export tests (python/tests/test_export.py) run the ONNX files they
# write in onnxruntime; without these packages they are skipped, not failed.
if ! "$py" -c 'import onnx, onnxruntime, onnxscript' >/dev/null 2>&1; then
    say "installing onnx, onnxruntime and onnxscript from PyPI into $venv"
    "$py" -m pip install -q --disable-pip-version-check onnx onnxruntime onnxscript ||
        say "onnx/onnxruntime/onnxscript could not be installed (above): the ONNX tests skip"
fi
lint=0
if "$py" -m ruff --version >/dev/null 2>&1; then
    say "ruff check python tools"
    "$py" -m ruff check --quiet --no-cache "$prnn_root/python" "$prnn_root/tools" || lint=1
fi
say "pip install $prnn_root (builds libprnn with meson-python)"
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall \
    --no-deps "$prnn_root" || { say "FAILED: the package did not build or install"; exit 1; }
# From the build directory, so that `import prnn` finds the installed
# package, not python/prnn in the source tree.
cd "$build"
rc=0
"$py" -m pytest -q -p no:cacheprovider "$prnn_root/python/tests" "$@" || rc=$?
if [ $lint -ne 0 ]; then
    say "FAILED: ruff's findings above (ruff check --fix python tools mends some)"
    [ $rc -ne 0 ] || rc=1
fi
exit $rc
