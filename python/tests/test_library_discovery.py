"""NVRTC / cuBLASLt discovery in NVIDIA's pip wheels (prnn._library), issue #25:
sys.path's '' is the working directory, so a library planted there
(./nvidia/cu13/lib/libnvrtc.so.13) became PRNN_NVRTC_LIBRARY, as a relative
path that every child process inherits, and was loaded. Discovery now uses
absolute sys.path folders only, never the working directory, and sets the
variable to an absolute path.

The sonames are made up, so that the system's loader finds none of them and
the search always runs (this machine may have a real libnvrtc)."""

import os
import subprocess
import sys

import pytest

from prnn import _library

NO_SUCH_SONAMES = ["libprnn-test-no-such-library.so.0"]
# The wheel's layout, as _library searches it.
NVRTC_PATTERNS = getattr(_library, "NVRTC_PATTERNS",
                         ["nvidia/cu13/lib/libnvrtc.so.13"])
VARIABLE = "PRNN_TEST_DISCOVERED_LIBRARY"


def _plant(root):
    """A fake libnvrtc where the cu13 wheel puts it, under root."""
    lib = os.path.join(root, "nvidia", "cu13", "lib")
    os.makedirs(lib)
    path = os.path.join(lib, "libnvrtc.so.13")
    with open(path, "wb") as f:
        f.write(b"\x7fELF planted")
    return path


def _discover(monkeypatch, path_entries):
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.setattr(sys, "path", list(path_entries))
    _library._point_at_pip_cuda_library(VARIABLE, NO_SUCH_SONAMES,
                                        NVRTC_PATTERNS)
    return os.environ.get(VARIABLE)


def test_working_directory_never_searched(tmp_path, monkeypatch):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    _plant(str(cwd))
    monkeypatch.chdir(cwd)
    # '' as `python -c` and the REPL have it, a relative entry, and the
    # working directory spelled absolutely (python script.py run there).
    assert _discover(monkeypatch, ["", "."]) is None
    assert _discover(monkeypatch, ["nvidia/..", str(cwd)]) is None


def test_site_folder_found_absolute(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    wheel_lib = _plant(str(site))
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    _plant(str(cwd))  # a decoy where the user is
    monkeypatch.chdir(cwd)
    found = _discover(monkeypatch, ["", str(site)])
    assert found == os.path.realpath(wheel_lib)
    assert os.path.isabs(found)


def test_user_setting_kept(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    _plant(str(site))
    monkeypatch.setenv(VARIABLE, "/opt/my/libnvrtc.so.13")
    monkeypatch.setattr(sys, "path", [str(site)])
    _library._point_at_pip_cuda_library(VARIABLE, NO_SUCH_SONAMES,
                                        NVRTC_PATTERNS)
    assert os.environ[VARIABLE] == "/opt/my/libnvrtc.so.13"


def test_python_dash_c_in_planted_directory(tmp_path):
    """The issue's case end to end: `python -c` (sys.path[0] == '') started
    in a directory holding ./nvidia/cu13/lib/libnvrtc.so.13."""
    _plant(str(tmp_path))
    package_root = os.path.dirname(os.path.dirname(_library.__file__))
    env = dict(os.environ)
    env.pop(VARIABLE, None)
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    code = (
        "import os, sys\n"
        "assert sys.path[0] == '', sys.path[:3]\n"
        "from prnn import _library\n"
        f"_library._point_at_pip_cuda_library({VARIABLE!r}, {NO_SUCH_SONAMES!r},"
        f" {NVRTC_PATTERNS!r})\n"
        f"print(os.environ.get({VARIABLE!r}))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    found = out.stdout.strip()
    # None, or the real wheel of this environment's site-packages: never
    # the planted one, never a relative path.
    if found != "None":
        assert os.path.isabs(found), found
        assert not os.path.realpath(found).startswith(
            os.path.realpath(str(tmp_path)) + os.sep), found


@pytest.mark.parametrize("patterns", [NVRTC_PATTERNS,
                                      getattr(_library, "CUBLASLT_PATTERNS", [])])
def test_patterns_are_relative(patterns):
    """Joined under a site folder: a pattern that is absolute (or climbs
    out) would search somewhere else."""
    for p in patterns:
        assert not os.path.isabs(p) and ".." not in p.split("/")
