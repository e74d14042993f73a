"""prnn: persistent RNN kernels for NVIDIA GPUs.

`prnn.torch` holds drop-in replacements for torch.nn.LSTM, GRU and RNN.
This module gives the C library's version and error type; the C API binding
itself is internal (`prnn._capi`), declared function by function.
"""

from ._capi import PrnnError, STATUS_NAMES  # noqa: F401

__all__ = ["PrnnError", "library_version", "library_path"]


def library_version():
    """The loaded libprnn's version as 'MAJOR.MINOR.PATCH'."""
    from . import _capi
    v = _capi.api().prnnGetVersion()
    return f"{v // 10000}.{v // 100 % 100}.{v % 100}"


def library_path():
    """The path libprnn was loaded from."""
    from . import _capi
    return _capi.api().path
