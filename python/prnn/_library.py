"""Finding and loading libprnn, and the CUDA libraries of NVIDIA's pip wheels.

The binding is ctypes over the C API rather than a compiled extension: the
calls it makes are few and coarse (one per layer and pass, each enqueuing a
whole sequence), so ctypes' cost of a few microseconds per call is small
beside the work, and the package then has nothing to compile against a
particular Python or PyTorch: one wheel serves every CPython 3 and every
PyTorch version, and the library it loads is the same libprnn the C users
get. Every function is declared with its exact argument and result types
(_capi.py, checked against prnn.h by the tests): an undeclared 64-bit
argument is how a hand-written ctypes shim crashes.
"""

import ctypes
import glob
import importlib
import os
import sys
from typing import List, Tuple

_LIBRARY_NAME = "libprnn.so"


def _candidates() -> List[str]:
    override = os.environ.get("PRNN_LIBRARY")
    if override:
        # An explicit choice (a build tree, a test): no fallback, so that a
        # wrong path is an error rather than a different library.
        return [override]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, _LIBRARY_NAME), _system_soname()]


def _system_soname() -> str:
    """The SONAME of the libprnn this package goes with, for a system
    install beside it: libprnn.so.MAJOR.MINOR before 1.0 (meson.build's
    SONAME policy), libprnn.so.MAJOR after."""
    try:
        version: str = importlib.import_module("._version", __package__).__version__
    except ImportError:  # a source tree: PRNN_LIBRARY names the library
        return "libprnn.so"
    major, minor = version.split(".")[:2]
    return f"libprnn.so.{major}.{minor}" if major == "0" else f"libprnn.so.{major}"


def _loadable(name: str) -> bool:
    try:
        ctypes.CDLL(name, mode=ctypes.RTLD_LOCAL)
        return True
    except OSError:
        return False


# Where NVIDIA's pip wheels put the libraries, relative to a site-packages
# folder: nvidia-cuda-nvrtc / nvidia-cublas for CUDA 13 (one nvidia/cu13
# folder) and for CUDA 12.
NVRTC_SONAMES = ["libnvrtc.so.13", "libnvrtc.so.12"]
NVRTC_PATTERNS = ["nvidia/cu13/lib/libnvrtc.so.13",
                  "nvidia/cuda_nvrtc/lib/libnvrtc.so.1[23]"]
CUBLASLT_SONAMES = ["libcublasLt.so.13", "libcublasLt.so.12"]
CUBLASLT_PATTERNS = ["nvidia/cu13/lib/libcublasLt.so.13",
                     "nvidia/cublas/lib/libcublasLt.so.1[23]"]


def _search_roots() -> List[str]:
    """The folders of sys.path that may hold the wheels: absolute paths only,
    never the working directory. sys.path's '' (and any relative entry)
    means the working directory, which is wherever the user happens to be:
    a library planted there (./nvidia/cu13/lib/libnvrtc.so.13) would be
    loaded into the process, and the relative path handed on to every child
    process through the variable. An absolute entry that is the working
    directory (python script.py run where the script is) is left out for
    the same reason; the wheels live in site-packages."""
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:  # the working directory was removed
        cwd = None
    roots: List[str] = []
    for base in sys.path:
        if not base or not os.path.isabs(base):
            continue
        real = os.path.realpath(base)
        if real == cwd or real in roots:
            continue
        roots.append(real)
    return roots


def _point_at_pip_cuda_library(variable: str, sonames: List[str], patterns: List[str]) -> None:
    """Sets PRNN_NVRTC_LIBRARY / PRNN_CUBLASLT_LIBRARY to a library from
    NVIDIA's pip wheels (nvidia-cuda-nvrtc, nvidia-cublas: what PyTorch's
    CUDA wheels install) when the user set nothing and the system's loader
    finds none of the names libprnn searches. libprnn reads the variable
    when it first loads the library, after this runs. The value is always
    an absolute path, found under an absolute sys.path folder that is not
    the working directory (_search_roots)."""
    if os.environ.get(variable):
        return
    if any(_loadable(name) for name in sonames):
        return
    for base in _search_roots():
        for pattern in patterns:
            found = [f for f in glob.glob(os.path.join(base, pattern))
                     if os.path.isfile(f)]
            if found:
                os.environ[variable] = os.path.abspath(sorted(found)[-1])
                return


def load() -> Tuple[ctypes.CDLL, str]:
    """Loads libprnn once; raises OSError naming every path tried."""
    _point_at_pip_cuda_library("PRNN_NVRTC_LIBRARY", NVRTC_SONAMES,
                               NVRTC_PATTERNS)
    _point_at_pip_cuda_library("PRNN_CUBLASLT_LIBRARY", CUBLASLT_SONAMES,
                               CUBLASLT_PATTERNS)
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise OSError("prnn: cannot load libprnn (set PRNN_LIBRARY to its path): "
                  + "; ".join(errors))
