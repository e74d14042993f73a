"""Python owners of prnn's handle and descriptors, and of the descriptor
set one problem shape needs (a `Problem`).

A Problem is built once per shape and kept: the compute calls then pass
ready-made descriptor arrays, so a call costs one ctypes call and no
allocation. Padded (equal-length) input uses one x and one y descriptor
for every step (the C API takes an array of pointers, which may repeat);
packed input one per distinct batch size.
"""

import ctypes
from ctypes import byref, c_int, c_size_t, c_void_p
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _capi, _sru_mode
from ._capi import call


class _Owned:
    """Holds one prnn object and destroys it with its Destroy function."""
    _destroy = ""

    def __init__(self, create: str) -> None:
        self.ptr: Optional[c_void_p] = c_void_p()
        call(create, byref(self.ptr))

    def __del__(self) -> None:
        ptr = getattr(self, "ptr", None)
        if ptr and ptr.value and _capi._api is not None:
            getattr(_capi._api, self._destroy)(ptr)
            self.ptr = None


class Handle(_Owned):
    """A prnn handle. backend: _capi.BACKEND_GPU (bound to the calling
    thread's current CUDA device) or _capi.BACKEND_CPU_REFERENCE."""
    _destroy = "prnnDestroy"

    def __init__(self, backend: int) -> None:
        self.ptr = c_void_p()
        call("prnnCreateWithBackend", byref(self.ptr), backend)
        self._stream: Optional[int] = None

    def set_stream(self, stream: int) -> None:
        if stream != self._stream:
            call("prnnSetStream", self.ptr, c_void_p(stream))
            self._stream = stream


class TensorDesc(_Owned):
    _destroy = "prnnDestroyTensorDescriptor"

    def __init__(self, dtype: int, dims: Sequence[int]) -> None:
        super().__init__("prnnCreateTensorDescriptor")
        n = len(dims)
        strides = [1] * n
        for i in range(n - 2, -1, -1):
            strides[i] = strides[i + 1] * dims[i + 1]
        call("prnnSetTensorNdDescriptor", self.ptr, dtype, n, (c_int * n)(*dims),
             (c_int * n)(*strides))


class FilterDesc(_Owned):
    _destroy = "prnnDestroyFilterDescriptor"

    def __init__(self, dtype: Optional[int] = None, dims: Optional[Sequence[int]] = None) -> None:
        super().__init__("prnnCreateFilterDescriptor")
        if dims is not None:
            call("prnnSetFilterNdDescriptor", self.ptr, dtype, _capi.TENSOR_NCHW, len(dims),
                 (c_int * len(dims))(*dims))


class DropoutDesc(_Owned):
    _destroy = "prnnDestroyDropoutDescriptor"

    def __init__(self, probability: float, seed: int) -> None:
        super().__init__("prnnCreateDropoutDescriptor")
        call("prnnSetDropoutDescriptor", self.ptr, None, float(probability), int(seed))


class RNNDesc(_Owned):
    _destroy = "prnnDestroyRNNDescriptor"

    def __init__(self, hidden: int, layers: int, bidirectional: bool, mode: int, dtype: int,
                 dropout: float = 0.0, seed: int = 0, math: int = _capi.DEFAULT_MATH) -> None:
        super().__init__("prnnCreateRNNDescriptor")
        self.settings = (hidden, layers, bidirectional, mode, dtype, math)
        self.seed: Optional[int] = None
        self.set(dropout, seed)

    def set(self, dropout: float, seed: int) -> None:
        """(Re)sets the descriptor; only the dropout seed changes between
        training calls, and prnn's plans do not depend on it. mode may
        carry SRU's conventions (_sru_mode); they and the math type are set
        again after prnnSetRNNDescriptor, which resets both."""
        hidden, layers, bidirectional, mode, dtype, math = self.settings
        base, sru = _sru_mode.decode(mode)
        drop = DropoutDesc(dropout, seed) if dropout > 0 else None
        call("prnnSetRNNDescriptor", self.ptr, hidden, layers, drop.ptr if drop else None,
             _capi.LINEAR_INPUT, _capi.BIDIRECTIONAL if bidirectional else _capi.UNIDIRECTIONAL,
             base, dtype)
        if sru is not None and base != mode:
            call("prnnSetRNNSRUConvention", self.ptr, *sru)
        if math != _capi.DEFAULT_MATH:
            call("prnnSetRNNMatrixMathType", self.ptr, math)
        self.seed = seed


class Problem:
    """Everything the compute calls need for one shape: the RNN descriptor,
    per-step x and y descriptor arrays, the state and weight descriptors,
    and the sizes prnn asked for. math: the prnnMathType_t of the
    GEMMs (prnn.h). training: the shape is for training, so the
    training reserve is asked for first: prnn then plans the inference and
    the training kernels at once, compiling all of them in parallel,
    instead of in two rounds."""

    def __init__(self, handle: Handle, mode: int, dtype: int, input_size: int, hidden: int,
                 layers: int, bidirectional: bool, batch_sizes: Iterable[int],
                 dropout: float, math: int = _capi.DEFAULT_MATH, training: bool = False) -> None:
        self.handle = handle
        self.mode = mode
        self.dtype = dtype
        self.hidden = hidden
        self.layers = layers
        self.dirs = 2 if bidirectional else 1
        self.batch_sizes = tuple(int(b) for b in batch_sizes)
        self.seq_length = len(self.batch_sizes)
        self.mini_batch = self.batch_sizes[0]
        self.dropout = dropout
        self.math = math
        self.rnn = RNNDesc(hidden, layers, bidirectional, mode, dtype, dropout, 0, math)
        by_batch: Dict[int, Tuple[TensorDesc, TensorDesc]] = {}
        xs: List[Any] = []
        ys: List[Any] = []
        for b in self.batch_sizes:
            if b not in by_batch:
                by_batch[b] = (TensorDesc(dtype, [b, input_size, 1]),
                               TensorDesc(dtype, [b, hidden * self.dirs, 1]))
            xs.append(by_batch[b][0].ptr)
            ys.append(by_batch[b][1].ptr)
        self._keep = by_batch
        self.x_descs = (c_void_p * self.seq_length)(*xs)
        self.y_descs = (c_void_p * self.seq_length)(*ys)
        self.h_desc = TensorDesc(dtype, [layers * self.dirs, self.mini_batch, hidden])
        size = c_size_t()
        call("prnnGetRNNParamsSize", handle.ptr, self.rnn.ptr, by_batch[self.mini_batch][0].ptr,
             byref(size), dtype)
        self.params_bytes = size.value
        self.w_desc = FilterDesc(dtype, [size.value // element_size(dtype), 1, 1])
        self._reserve_bytes: Optional[int] = None
        if training:
            self.reserve_bytes()
        call("prnnGetRNNWorkspaceSize", handle.ptr, self.rnn.ptr, self.seq_length,
             self.x_descs, byref(size))
        self.workspace_bytes = size.value

    def reserve_bytes(self) -> int:
        """The training reserve's size (also prepares the training kernels,
        so asked only when training)."""
        if self._reserve_bytes is None:
            size = c_size_t()
            call("prnnGetRNNTrainingReserveSize", self.handle.ptr, self.rnn.ptr,
                 self.seq_length, self.x_descs, byref(size))
            self._reserve_bytes = size.value
        return self._reserve_bytes

    def set_seed(self, seed: int) -> None:
        if self.dropout > 0 and seed != self.rnn.seed:
            self.rnn.set(self.dropout, seed)

    def plan_info(self) -> _capi.PlanInfo:
        info = _capi.PlanInfo()
        info.structSize = ctypes.sizeof(info)
        call("prnnGetRNNPlanInfo", self.handle.ptr, self.rnn.ptr, self.mini_batch, self.dtype,
             byref(info))
        return info


def element_size(dtype: int) -> int:
    return {_capi.DATA_FLOAT: 4, _capi.DATA_DOUBLE: 8, _capi.DATA_HALF: 2,
            _capi.DATA_BFLOAT16: 2}[dtype]

