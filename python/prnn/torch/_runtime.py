"""What the PyTorch layer keeps between calls: prnn handles (one per thread
and device, each on the stream the call runs on), Problems (descriptor sets
and sizes, one per shape), and where each torch.nn parameter lives in prnn's
flat weight buffer.

Everything here is host-side bookkeeping done on the first call of a shape;
later calls find it in a dict.
"""

import contextlib
import threading
from collections import OrderedDict
from typing import (Any, Dict, Generic, Iterable, List, Optional, Sequence, Set, Tuple,
                    TypeVar, ValuesView, cast)

import torch

from .. import _capi, _sru_mode
from .._descriptors import FilterDesc, Handle, Problem, element_size
from .._descriptors_v8 import ProblemV8

MODES = {"LSTM": _capi.LSTM, "GRU": _capi.GRU, "RNN_TANH": _capi.RNN_TANH,
         "RNN_RELU": _capi.RNN_RELU, "SRU": _capi.SRU}
GATES = {_capi.LSTM: 4, _capi.GRU: 3, _capi.RNN_TANH: 1, _capi.RNN_RELU: 1}


class _ModesWithCell:
    """`mode in WITH_CELL`: LSTM and SRU, the latter under any of its
    conventions (an SRU's mode value carries them: _sru_mode)."""

    def __contains__(self, mode: int) -> bool:
        return mode == _capi.LSTM or is_sru(mode)


# the modes with a cell state (cx / cy)
WITH_CELL = _ModesWithCell()
is_sru = _sru_mode.is_sru


def sru_matrices(k: int, hidden: int, dirs: int = 1, mode: int = _capi.SRU) -> int:
    """SRU's matrices in a layer whose input is k wide: u0, f, r, and the
    highway projection u3 where k differs from the highway's width (hidden;
    dirs * hidden under the sru package's convention, which `mode` may
    carry: prnn.h, PRNN_SRU)."""
    return _sru_mode.matrices(mode, k, hidden, dirs)


def weight_names(mode: int, layers: int, bidirectional: bool, has_bias: bool) -> List[str]:
    """The module's parameter names, in the order the operators take them:
    per layer and direction, torch.nn's weight_ih, weight_hh, bias_ih,
    bias_hh; for SRU weight_ih (its M stacked matrices), bias (b_f, b_r) and
    weight_c (v_f, v_r)."""
    names: List[str] = []
    for layer in range(layers):
        for d in range(2 if bidirectional else 1):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            if is_sru(mode):
                names += ["weight_ih" + sfx] + (["bias" + sfx] if has_bias else []) + \
                    ["weight_c" + sfx]
            else:
                names += ["weight_ih" + sfx, "weight_hh" + sfx]
                if has_bias:
                    names += ["bias_ih" + sfx, "bias_hh" + sfx]
    return names
DTYPES = {torch.float32: _capi.DATA_FLOAT, torch.float64: _capi.DATA_DOUBLE,
          torch.float16: _capi.DATA_HALF, torch.bfloat16: _capi.DATA_BFLOAT16}

_local = threading.local()


def _device_key(device: torch.device) -> Tuple[str, int]:
    if device.type == "cpu":
        return ("cpu", 0)
    if device.type != "cuda":
        raise ValueError(f"prnn runs on CUDA devices and the CPU, not on {device}")
    return ("cuda", device.index if device.index is not None else torch.cuda.current_device())


def handle(device: torch.device) -> Handle:
    """This thread's prnn handle for `device`. A GPU handle binds to the
    device current when it is created, so it is made inside
    torch.cuda.device(index), after PyTorch has initialised that device's
    primary context (the one prnn's handle uses too)."""
    handles: Optional[Dict[Tuple[str, int], Handle]] = getattr(_local, "handles", None)
    if handles is None:
        handles = _local.handles = {}
    key = _device_key(device)
    h = handles.get(key)
    if h is None:
        if key[0] == "cpu":
            h = Handle(_capi.BACKEND_CPU_REFERENCE)
        else:
            with torch.cuda.device(key[1]):
                torch.cuda.current_stream().synchronize()   # the context exists
                h = Handle(_capi.BACKEND_GPU)
        handles[key] = h
    return h


_P = TypeVar("_P")


class ShapeCache(Generic[_P]):
    """The most recently used Problems (or ProblemV8s, or the projected
    LSTM's _Specs), by key: a training loop over
    sequences of varying length (packed batches, bucketed lengths) meets a
    new shape at almost every step, and each Problem holds descriptors.
    Forgetting one costs only its re-creation (prnn's plans are per batch
    size, kept by the handle). A layer's cache serves every thread that
    calls it (their keys hold the thread or its handle)."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self.entries: "OrderedDict[Tuple[Any, ...], _P]" = OrderedDict()

    def get(self, key: Tuple[Any, ...]) -> Optional[_P]:
        p = self.entries.get(key)
        if p is not None:
            with contextlib.suppress(KeyError):   # (another thread's put dropped it)
                self.entries.move_to_end(key)
        return p

    def put(self, key: Tuple[Any, ...], p: _P) -> None:
        self.entries[key] = p
        if len(self.entries) > self.capacity:
            self.entries.popitem(last=False)

    def devices(self) -> Set[Any]:
        return {key[1] for key in self.entries}

    def values(self) -> ValuesView[_P]:
        return self.entries.values()


def problem(device: torch.device, mode: int, dtype: int, input_size: int, hidden: int,
            layers: int, bidirectional: bool, batch_sizes: Sequence[int], dropout: float,
            math: int = _capi.DEFAULT_MATH, training: bool = False) -> Problem:
    """The Problem for this shape on this thread's handle for `device`, its
    RNN descriptor set to the prnnMathType_t `math`; made for training
    (Problem's training) when it is new and `training`."""
    h = handle(device)
    problems: Optional[ShapeCache[Problem]] = getattr(_local, "problems", None)
    if problems is None:
        problems = _local.problems = ShapeCache[Problem]()
    key = (_device_key(device), mode, dtype, input_size, hidden, layers, bidirectional,
           tuple(batch_sizes), dropout, math)
    p = problems.get(key)
    if p is None:
        p = Problem(h, mode, dtype, input_size, hidden, layers, bidirectional, batch_sizes,
                    dropout, math, training)
        problems.put(key, p)
    return p


def address(t: Optional[torch.Tensor]) -> Optional[int]:
    """t's data address for a C call; None (NULL) for no tensor."""
    return t.data_ptr() if t is not None else None


def current_stream(device: torch.device) -> int:
    """torch's current stream on CUDA `device`, as prnnSetStream takes it."""
    try:    # the raw pointer without building a torch.cuda.Stream object
        return torch._C._cuda_getCurrentRawStream(device.index)
    except AttributeError:
        return torch.cuda.current_stream(device).cuda_stream


def check_parameters(layer: str, weights: Sequence[torch.Tensor]) -> None:
    """TypeError unless every parameter of `layer` (its class name) has one
    dtype and one device: a call packs them into one weight space."""
    w = weights[0]
    for w2 in weights:
        if w2.dtype != w.dtype or w2.device != w.device:
            raise TypeError(f"prnn.torch.{layer}: every parameter must have one dtype and "
                            f"device ({w2.dtype} on {w2.device} beside {w.dtype} on "
                            f"{w.device})")


def torch_dtype_code(dtype: torch.dtype) -> int:
    try:
        return DTYPES[dtype]
    except KeyError:
        raise TypeError(f"prnn supports float32, float64, float16 and bfloat16, not {dtype}")


def flat_base(weights: Sequence[torch.Tensor], offsets: Sequence[int],
              total_elements: int) -> Optional[int]:
    """The address of the flat buffer that `weights` are views of, when each
    weight is contiguous at its element offset in one storage that holds
    the whole buffer (total_elements); None otherwise."""
    w0 = weights[0]
    es = w0.element_size()
    base = w0.data_ptr() - offsets[0] * es
    storage = w0.untyped_storage()
    start = storage.data_ptr()
    if base < start or base + total_elements * es > start + storage.nbytes():
        return None
    for w, o in zip(weights, offsets):
        if (w.data_ptr() != base + o * es or not w.is_contiguous()
                or w.untyped_storage().data_ptr() != start):
            return None
    return base


class WeightLayout:
    """Where torch.nn's parameters live in prnn's flat weight buffer, in
    elements: for pseudo-layer (layer * dirs + direction), weight_ih is the
    G*hidden x K block starting at linLayerID 0's matrix (prnn stores a
    layer's gate matrices consecutively, in torch's gate order), weight_hh
    at linLayerID G's, bias_ih / bias_hh at biases 0 and G. SRU: weight_ih
    the M*hidden x K block of matrices 0..M-1, bias (b_f, b_r) at vector 0,
    weight_c (v_f, v_r) at vector 2. Asked of the C library through the
    LinLayer calls, with a dummy base address (they do not dereference w),
    and checked for that contiguity."""

    _cache: Dict[Tuple[int, int, int, int, int, bool], "WeightLayout"] = {}

    def __new__(cls, mode: int, dtype: int, input_size: int, hidden: int, layers: int,
                bidirectional: bool) -> "WeightLayout":
        key = (mode, dtype, input_size, hidden, layers, bidirectional)
        layout = cls._cache.get(key)
        if layout is None:
            layout = super().__new__(cls)
            layout._build(*key)
            cls._cache[key] = layout
        return layout

    def _build(self, mode: int, dtype: int, input_size: int, hidden: int, layers: int,
               bidirectional: bool) -> None:
        import ctypes
        self._key = (mode, dtype, input_size, hidden, layers, bidirectional)
        self._v8: Optional[bool] = None     # is_v8_weight_space's answer, once asked
        cpu = handle(torch.device("cpu"))
        p = Problem(cpu, mode, dtype, input_size, hidden, layers, bidirectional, [1], 0.0)
        es = element_size(dtype)
        g = GATES.get(mode, 0)
        base = 1 << 20      # any non-NULL address: w is not dereferenced
        self.total_elements = p.params_bytes // es
        dirs = 2 if bidirectional else 1
        mat, bias = FilterDesc(), FilterDesc()
        out = ctypes.c_void_p()
        x_desc = p.x_descs[0]

        def offset(fn: str, pseudo: int, lin: int, desc: FilterDesc) -> Optional[int]:
            _capi.call(fn, cpu.ptr, p.rnn.ptr, pseudo, x_desc, p.w_desc.ptr, base, lin, desc.ptr,
                       ctypes.byref(out))
            return None if out.value is None else (out.value - base) // es

        def consecutive(fn: str, pseudo: int, first: int, count: int, desc: FilterDesc,
                        stride: int) -> int:
            # the first matrix or bias of a block is always there: the layout's Problem has
            # biases (None would fail at the sum below, as it did untyped)
            start = cast(int, offset(fn, pseudo, first, desc))
            for i in range(1, count):
                if offset(fn, pseudo, first + i, desc) != start + i * stride:
                    raise RuntimeError("prnn: this libprnn's weight layout does not keep a "
                                       "layer's matrices consecutive; prnn.torch needs it")
            return start

        matrix, vector = "prnnGetRNNLinLayerMatrixParams", "prnnGetRNNLinLayerBiasParams"
        self.entries: List[Tuple[str, int, Tuple[int, ...]]] = []   # (name, offset, shape)
        for layer in range(layers):
            k = input_size if layer == 0 else dirs * hidden
            for d in range(dirs):
                pseudo = layer * dirs + d
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                if is_sru(mode):
                    m = sru_matrices(k, hidden, dirs, mode)
                    self.entries += [
                        ("weight_ih" + sfx, consecutive(matrix, pseudo, 0, m, mat, hidden * k),
                         (m * hidden, k)),
                        ("bias" + sfx, consecutive(vector, pseudo, 0, 2, bias, hidden),
                         (2 * hidden,)),
                        ("weight_c" + sfx, consecutive(vector, pseudo, 2, 2, bias, hidden),
                         (2 * hidden,))]
                    continue
                self.entries += [
                    ("weight_ih" + sfx, consecutive(matrix, pseudo, 0, g, mat, hidden * k),
                     (g * hidden, k)),
                    ("weight_hh" + sfx, consecutive(matrix, pseudo, g, g, mat, hidden * hidden),
                     (g * hidden, hidden)),
                    ("bias_ih" + sfx, consecutive(vector, pseudo, 0, g, bias, hidden),
                     (g * hidden,)),
                    ("bias_hh" + sfx, consecutive(vector, pseudo, g, g, bias, hidden),
                     (g * hidden,))]

    def is_v8_weight_space(self) -> bool:
        """Whether a buffer in this layout is, as it is, the weight space of
        the v8 calls (prnnSetRNNDescriptor_v8) for the same configuration
        with both biases and no projection: as large, and every matrix and
        bias where prnnGetRNNWeightParams puts it. It is in this libprnn
        (both families lay weights out alike); a build where it is not
        keeps the layers on the v5 calls rather than hand prnn a buffer in
        the wrong layout. Asked once per layout. False for SRU (the layers
        keep it on the v5 calls)."""
        if self._v8 is None:
            self._v8 = not is_sru(self._key[0]) and self._v8_places_match()
        return self._v8

    def _v8_places_match(self) -> bool:
        mode, dtype, input_size, hidden, layers, bidirectional = self._key
        dirs, g, es = 2 if bidirectional else 1, GATES[mode], element_size(dtype)
        p = ProblemV8(handle(torch.device("cpu")), mode, dtype, input_size, hidden, hidden,
                      layers, bidirectional, True, _capi.RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 1,
                      [1], training=False)
        if p.weight_bytes != self.total_elements * es:
            return False
        places = p.places(es, 2 * g)
        at = {n: (o, s) for n, o, s in self.entries}
        for layer in range(layers):
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                for lin in range(2 * g):
                    # linLayerIDs 0..g-1: W's gates (weight_ih, bias_ih), g..2g-1: R's
                    w, b = ("weight_ih", "bias_ih") if lin < g else ("weight_hh", "bias_hh")
                    (w_off, (_, cols)), (b_off, _) = at[w + sfx], at[b + sfx]
                    gate = lin % g
                    if places[(layer * dirs + d, lin)] != (
                            (w_off + gate * hidden * cols, (hidden, cols)),
                            (b_off + gate * hidden, hidden)):
                        return False
        return True

    def pack(self, weights: Sequence[torch.Tensor], names: Iterable[str],
             dtype: Optional[torch.dtype] = None) -> Tuple[torch.Tensor, List[torch.Tensor]]:
        """A new flat buffer in prnn's layout holding `weights` (those named
        `names`; converted to `dtype` when given), zero where no parameter
        lives (the biases of a module without them), and its views for
        `names`. Not recorded by autograd."""
        w0 = weights[0]
        flat = torch.zeros(self.total_elements, dtype=dtype or w0.dtype, device=w0.device)
        views = self.views(flat, names)
        with torch.no_grad():
            for v, w in zip(views, weights):
                v.copy_(w)
        return flat, views

    def views(self, flat: torch.Tensor, names: Iterable[str]) -> List[torch.Tensor]:
        """Views of the flat buffer for the parameters `names`, in order."""
        by_name = {n: (o, s) for n, o, s in self.entries}
        out = []
        for n in names:
            o, s = by_name[n]
            numel = 1
            for x in s:
                numel *= x
            out.append(flat.narrow(0, o, numel).view(s))
        return out

    def offsets(self, names: Iterable[str]) -> List[int]:
        by_name = {n: o for n, o, _ in self.entries}
        return [by_name[n] for n in names]

    def same_places(self, other: "WeightLayout") -> bool:
        """Whether `other` (a layout of another data type) puts every
        parameter at the same element offset in a buffer of as many
        elements: then one buffer converts into the other element by
        element."""
        return (self.total_elements == other.total_elements and
                self.entries == other.entries)

    def buffer(self, weights: Sequence[torch.Tensor],
               names: Iterable[str]) -> Optional[torch.Tensor]:
        """The flat buffer that `weights` are views of, as one tensor (no
        copy), or None when they are not views of one."""
        base = flat_base(weights, self.offsets(names), self.total_elements)
        if base is None:
            return None
        w0 = weights[0]
        storage = w0.untyped_storage()
        offset = (base - storage.data_ptr()) // w0.element_size()
        # stride is optional in ATen's set_ (contiguous), required by PyTorch's stubs
        return w0.new_empty(0).set_(storage, offset,  # type: ignore[call-overload,no-any-return]
                                    (self.total_elements,))
