"""prnn: persistent RNN kernels for NVIDIA GPUs.

`prnn.torch` holds drop-in replacements for torch.nn.LSTM, GRU and RNN (and
prnn's SRU). This module gives the package's and the C library's version
and the error type; `python -m prnn.cache` (or the `prnn-cache` command)
looks after the kernel cache. The C API binding itself is internal
(`prnn._capi`), declared function by function.
"""

import importlib
from typing import Any

from ._capi import PrnnError, STATUS_NAMES  # noqa: F401

__all__ = ["PrnnError", "__version__", "library_version", "library_path"]

# __version__ (a str) is written into _version.py by the build from the
# project's version; in a source tree, where no build wrote it, it is the
# loaded library's version (module __getattr__ below), so that running from
# the tree against a build directory (PRNN_LIBRARY) still reports one.
try:
    __version__: str = importlib.import_module("._version", __name__).__version__
except ImportError:
    pass


def library_version() -> str:
    """The loaded libprnn's version as 'MAJOR.MINOR.PATCH'."""
    from . import _capi
    v = int(_capi.api().prnnGetVersion())
    return f"{v // 10000}.{v // 100 % 100}.{v % 100}"


def library_path() -> str:
    """The path libprnn was loaded from."""
    from . import _capi
    return _capi.api().path


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return library_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
