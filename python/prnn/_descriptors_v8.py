"""Python owners of the descriptors of prnn's cuDNN 8/9-shaped calls
(prnnRNNForward and the _v8 backward calls), and the set one problem shape
needs (a `ProblemV8`): an RNN descriptor set by prnnSetRNNDescriptor_v8,
RNN data descriptors for x and y, the state descriptors, and the sizes and
weight places prnn gives for them.
"""

import copy
import ctypes
from ctypes import byref, c_int, c_size_t, c_void_p
from typing import Dict, Optional, Sequence, Tuple

from . import _capi, _sru_mode
from ._capi import call
from ._descriptors import DropoutDesc, Handle, TensorDesc, _Owned


class RNNDataDesc(_Owned):
    _destroy = "prnnDestroyRNNDataDescriptor"

    def __init__(self, dtype: int, layout: int, max_seq: int, batch: int, vector: int,
                 lengths: Sequence[int]) -> None:
        super().__init__("prnnCreateRNNDataDescriptor")
        call("prnnSetRNNDataDescriptor", self.ptr, dtype, layout, max_seq, batch, vector,
             (c_int * batch)(*lengths), None)


class RNNDescV8(_Owned):
    """An RNN descriptor set by prnnSetRNNDescriptor_v8 (padded IO on, so
    every layout serves). proj: projSize (hidden for none); math: the
    prnnMathType_t."""
    _destroy = "prnnDestroyRNNDescriptor"

    def __init__(self, mode: int, dtype: int, input_size: int, hidden: int, proj: int,
                 layers: int, bidirectional: bool, bias: bool, dropout: float = 0.0,
                 seed: int = 0, math: int = _capi.DEFAULT_MATH) -> None:
        super().__init__("prnnCreateRNNDescriptor")
        prec = _capi.DATA_FLOAT if dtype in (_capi.DATA_HALF, _capi.DATA_BFLOAT16) else dtype
        drop = DropoutDesc(dropout, seed) if dropout > 0 else None
        call("prnnSetRNNDescriptor_v8", self.ptr, 0, mode,
             _capi.RNN_DOUBLE_BIAS if bias else _capi.RNN_NO_BIAS,
             _capi.BIDIRECTIONAL if bidirectional else _capi.UNIDIRECTIONAL, _capi.LINEAR_INPUT,
             dtype, prec, math, input_size, hidden, proj, layers,
             drop.ptr if drop else None, _capi.RNN_PADDED_IO_ENABLED)


class ProblemV8:
    """One shape of the v8 calls: len(lengths) sequences of lengths[b]
    steps (up to max_seq) in `layout`, with the sizes prnn asks for on
    `handle` and where each matrix and bias lives in the weight space (in
    elements). The descriptors serve any handle of the backend (a backward
    on another thread, with that thread's handle: temp_space). training:
    the shape is for training, so its training sizes are asked for (and
    on the GPU its training kernels planned) at once.
    y_size, h_shape, c_shape: the widths and state shapes the calls take;
    cell: whether the mode has a cell state (cx / cy)."""

    def __init__(self, handle: Handle, mode: int, dtype: int, input_size: int, hidden: int,
                 proj: int, layers: int, bidirectional: bool, bias: bool, layout: int,
                 max_seq: int, lengths: Sequence[int], dropout: float = 0.0,
                 seed: int = 0, math: int = _capi.DEFAULT_MATH,
                 training: bool = True) -> None:
        self.handle = handle
        self.dirs = 2 if bidirectional else 1
        self._rnn_args = (mode, dtype, input_size, hidden, proj, layers, bidirectional, bias,
                          dropout)
        self.math = math
        self.rnn = RNNDescV8(*self._rnn_args, seed=seed, math=math)
        batch = len(lengths)
        self.cell = mode == _capi.LSTM or _sru_mode.is_sru(mode)
        self.y_size = self.dirs * proj
        self.h_shape = (layers * self.dirs, batch, proj)
        self.c_shape = (layers * self.dirs, batch, hidden)
        self.x_desc = RNNDataDesc(dtype, layout, max_seq, batch, input_size, lengths)
        self.y_desc = RNNDataDesc(dtype, layout, max_seq, batch, self.y_size, lengths)
        self.h_desc = TensorDesc(dtype, list(self.h_shape))
        self.c_desc = TensorDesc(dtype, list(self.c_shape))
        size = c_size_t()
        call("prnnGetRNNWeightSpaceSize", handle.ptr, self.rnn.ptr, byref(size))
        self.weight_bytes = size.value
        self._sizes: Dict[bool, Tuple[int, int]] = {}   # temp_space's on self.handle
        self.temp_space(handle, training)
        self._places: Optional[Dict[Tuple[int, int], Tuple[Optional[Tuple[int, Tuple[int, ...]]],
                                                           Optional[Tuple[int, int]]]]] = None

    def with_seed(self, seed: int) -> "ProblemV8":
        """This problem with dropout's mask drawn from `seed`: an RNN
        descriptor of its own (a v8 descriptor holds its dropout settings,
        and a reserve is recorded with the seed its forward ran with, so a
        kept descriptor is not re-seeded under a call still to run its
        backward); the data descriptors, sizes and places, which do not
        depend on the seed, shared."""
        p = copy.copy(self)
        p.rnn = RNNDescV8(*self._rnn_args, seed=seed, math=self.math)
        return p

    def temp_space(self, handle: Handle, training: bool) -> Tuple[int, int]:
        """(workspace, reserve) bytes of a call on `handle`
        (prnnGetRNNTempSpaceSizes; kept for the problem's own handle).
        Inference: INFERENCE mode's workspace, no reserve; asking no more
        plans no training kernels (an inference-only shape does not compile
        them on the GPU, as the v5 Problem's does not). Training (the
        forward and both backward calls): the larger workspace of the two
        modes (the API promises each mode its own, though the GPU backend
        reports one size for every call of a shape) and the reserve, the
        training mode asked first (prnn then plans both at once)."""
        sizes = self._sizes.get(training) if handle is self.handle else None
        if sizes is None:
            train, reserve, inference = c_size_t(), c_size_t(), c_size_t()
            if training:
                call("prnnGetRNNTempSpaceSizes", handle.ptr, self.rnn.ptr,
                     _capi.FWD_MODE_TRAINING, self.x_desc.ptr, byref(train), byref(reserve))
            call("prnnGetRNNTempSpaceSizes", handle.ptr, self.rnn.ptr, _capi.FWD_MODE_INFERENCE,
                 self.x_desc.ptr, byref(inference), None)
            sizes = (max(train.value, inference.value), reserve.value)
            if handle is self.handle:
                self._sizes[training] = sizes
        return sizes

    def places(self, element_size: int, ids: int
               ) -> Dict[Tuple[int, int], Tuple[Optional[Tuple[int, Tuple[int, ...]]],
                                                Optional[Tuple[int, int]]]]:
        """{(pseudoLayer, linLayerID): ((offset, (rows, cols)) or None,
        (offset, count) or None)} for linLayerID < ids, offsets in elements
        (prnnGetRNNWeightParams on a base address it does not read)."""
        if self._places is None:
            base = 1 << 20
            m_desc, b_desc = TensorDesc(_capi.DATA_FLOAT, [1, 1, 1]), \
                TensorDesc(_capi.DATA_FLOAT, [1, 1, 1])
            places: Dict[Tuple[int, int], Tuple[Optional[Tuple[int, Tuple[int, ...]]],
                                                Optional[Tuple[int, int]]]] = {}
            layers = ctypes.c_int()
            call("prnnGetRNNDescriptor_v8", self.rnn.ptr, None, None, None, None, None, None,
                 None, None, None, None, None, byref(layers), None, None)
            for pl in range(layers.value * self.dirs):
                for lin in range(ids):
                    m, b = c_void_p(), c_void_p()
                    call("prnnGetRNNWeightParams", self.handle.ptr, self.rnn.ptr, pl,
                         self.weight_bytes, c_void_p(base), lin, m_desc.ptr, byref(m),
                         b_desc.ptr, byref(b))
                    dims = (c_int * 3)()
                    strides = (c_int * 3)()
                    n = c_int()
                    call("prnnGetTensorNdDescriptor", m_desc.ptr, 3, None, byref(n), dims,
                         strides)
                    mat = ((m.value - base) // element_size, (dims[1], dims[2])) \
                        if m.value else None
                    call("prnnGetTensorNdDescriptor", b_desc.ptr, 3, None, byref(n), dims,
                         strides)
                    bias = ((b.value - base) // element_size, dims[1]) if b.value else None
                    places[(pl, lin)] = (mat, bias)
            self._places = places
        return self._places
