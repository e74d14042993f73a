#!/usr/bin/env bash
# The wheel on several Pythons, as users install it: tools/check-wheel.py
# on the file (built here, with the sdist where this is a git tree: both
# checked by tools/build-wheel.sh), then for each interpreter a fresh
# virtual environment, `pip install --no-index` of the wheel (it needs
# nothing else), and wheel_smoke.py run from outside the source tree
# (version, metadata, licences, an LSTM on the CPU backend against plain
# Python, the cache command). Then:
# - typing: mypy --strict on a small program using the installed package
#   (py.typed honoured, the public API typed), and on the package's own
#   modules (pyproject.toml's [tool.mypy]: the whole package; prnn.torch's
#   modules, which need PyTorch's type information, in the PyTorch part
#   below, else left out), with mypy from PyPI (without PyPI this part is
#   said to be skipped);
# - PyTorch: python/tests (CPU, and CUDA where PyTorch sees a GPU) against
#   the installed wheel, in an environment that borrows PyTorch from
#   TORCH_VENV (a virtual environment with torch and pytest, e.g.
#   build/python-venv, which tools/run-python-tests.sh makes); its Python
#   is then one more version tested. Without TORCH_VENV this part is said to
#   be skipped.
#
# usage: tests/package/wheel_test.sh [WHEEL]
#   WHEEL: default, the one tools/build-wheel.sh builds now (a minute).
#   PYTHONS="python3.9 python3.12" (the default): the interpreters, each a
#     command or a path; pyenv's versions are found without a shim.
#   TORCH_VENV=build/python-venv: the PyTorch tests' environment.
# Exit status 0 when everything ran and passed, 1 on a failure, 77 when an
# interpreter of PYTHONS is missing (nothing is failed for lack of one).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/prnn-wheel-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { printf 'wheel-test: %s\n' "$*"; }
version=$(sed -n "s/^  version: '\([^']*\)'.*/\1/p" "$root/meson.build")

# A command or path that runs; pyenv's shims only run the versions pyenv
# is set to, so its versions folder is looked in directly.
find_python() {
    local want=$1 v d
    v=${want#python}
    for d in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*; do
        if [ -x "$d/bin/python$v" ]; then
            echo "$d/bin/python$v"
            return
        fi
    done
    if "$want" -c 'import venv' >/dev/null 2>&1; then
        command -v "$want"
        return
    fi
    return 1
}

wheel=${1:-}
if [ -z "$wheel" ]; then
    say "building the wheel (tools/build-wheel.sh)"
    # The sdist too where there is git's tree to make it from (meson dist).
    sdist=
    git -C "$root" rev-parse --git-dir >/dev/null 2>&1 && sdist=--sdist
    rc=0
    "$root/tools/build-wheel.sh" $sdist --outdir "$work/dist" || rc=$?
    if [ "$rc" = 3 ]; then
        say "SKIP: the wheel's build tools could not be installed from PyPI"
        exit 77
    fi
    [ "$rc" = 0 ] || exit 1
    wheel=$(ls "$work"/dist/prnn-*.whl)
fi
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")
python3 "$root/tools/check-wheel.py" "$wheel"

status=0
pythons=${PYTHONS:-python3.9 python3.12}
first_env=
for want in $pythons; do
    if ! py=$(find_python "$want"); then
        say "SKIP: no $want here (set PYTHONS to the interpreters to test)"
        exit 77
    fi
    env_dir=$work/env-$(basename "$py")
    "$py" -m venv "$env_dir"
    say "$("$env_dir/bin/python" --version): pip install $(basename "$wheel")"
    "$env_dir/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"
    (cd "$work" && "$env_dir/bin/python" "$root/tests/package/wheel_smoke.py" "$version") ||
        status=1
    first_env=${first_env:-$env_dir}
done

# Typing, as a user's type checker sees the installed package.
if "$first_env/bin/python" -m pip install -q --disable-pip-version-check mypy >/dev/null 2>&1
then
    if (cd "$work" && "$first_env/bin/python" -m mypy --strict --no-incremental \
            "$root/tests/package/typed_consumer.py"); then
        say "ok - mypy --strict on a program using the installed prnn"
    else
        say "not ok - mypy --strict on a program using the installed prnn"
        status=1
    fi
    # The package's own modules, as pyproject.toml's [tool.mypy] lists them,
    # but prnn.torch's: this environment has no PyTorch (they are checked
    # with TORCH_VENV's, below).
    if (cd "$root" && "$first_env/bin/python" -m mypy --no-incremental \
            --cache-dir "$work/mypy-cache" --exclude '^python/prnn/torch/'); then
        say "ok - mypy (strict, pyproject.toml) on prnn's own modules but prnn.torch"
    else
        say "not ok - mypy on prnn's own modules"
        status=1
    fi
else
    say "SKIP: typing: mypy could not be installed from PyPI"
fi

# PyTorch's tests against the installed wheel.
if [ -n "${TORCH_VENV:-}" ]; then
    tv=$(cd "$TORCH_VENV" && pwd)
    tsite=$("$tv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    base=$("$tv/bin/python" -c 'import sys; print(sys._base_executable)')
    env_dir=$work/env-torch
    "$base" -m venv "$env_dir"
    "$env_dir/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"
    # After the environment's own site-packages: prnn is the wheel's, torch
    # and pytest are TORCH_VENV's (a prnn installed there is hidden).
    esite=$("$env_dir/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$tsite" > "$esite/zz-torch-venv.pth"
    say "$("$env_dir/bin/python" --version) with PyTorch from $tv: python/tests"
    # Every device PyTorch sees: the CUDA cases skip without a GPU (and
    # fail with PRNN_REQUIRE_GPU=1 where one should be).
    if (cd "$work" && PRNN_LIBRARY= "$env_dir/bin/python" -m pytest -q -p no:cacheprovider \
            "$root/python/tests"); then
        say "ok - python/tests against the installed wheel"
    else
        say "not ok - python/tests against the installed wheel"
        status=1
    fi
    # The whole package's typing (pyproject.toml's [tool.mypy]), prnn.torch's
    # modules included, against TORCH_VENV's PyTorch: after the tests, as
    # mypy's own dependencies (typing_extensions) go into this environment.
    if "$env_dir/bin/python" -m pip install -q --disable-pip-version-check mypy >/dev/null 2>&1
    then
        if (cd "$root" && "$env_dir/bin/python" -m mypy --no-incremental \
                --cache-dir "$work/mypy-cache-torch"); then
            say "ok - mypy (strict, pyproject.toml) on prnn's own modules, with PyTorch"
        else
            say "not ok - mypy on prnn's own modules, with PyTorch"
            status=1
        fi
    else
        say "SKIP: typing with PyTorch: mypy could not be installed from PyPI"
    fi
else
    say "SKIP: PyTorch tests: set TORCH_VENV to an environment with torch and pytest"
fi
[ "$status" = 0 ] && say "ok: $(basename "$wheel") on $pythons" || say "FAILED"
exit $status
