"""Drop-in replacements for torch.nn.LSTM, GRU and RNN on prnn.

Same constructor arguments, parameter names and shapes, inputs and outputs
as torch.nn's, so state_dicts load both ways. The parameters are views of
one flat buffer in prnn's layout (like torch.nn's cuDNN path keeps its
flat_weights): the layer hands that buffer to prnn as it is, and it is
rebuilt only when the parameters stop being views of it (.to(), a
replaced Parameter), as flatten_parameters() does in torch.nn.

A call reads the weights through the module's attribute access, so a
parametrization (weight_norm, weight drop), torch.func.functional_call or
a plain tensor attribute in a parameter's place is what runs; such weights
are packed into a temporary buffer per call. Under autocast the layer runs
in autocast's data type (_precision). Eager calls go to the C library
directly; torch.compile, torch.export, torch.jit.trace and torch.func
transforms see the prnn::rnn_forward operator (_ops), ONNX export standard
ONNX RNN nodes (_onnx).

Batched batch_first Tensor input of an eager LSTM, GRU or RNN call goes to
prnn as it is: the v8 calls (_v8) on the batch-major layout, which read x
and write y (and read dy) in place, with the flat buffer as the v8 weight
space; y comes back batch-major, contiguous. Every other call transposes
batch_first input to time-major and y back: the operator's schema, which
compiled, exported, traced and torch.func calls record, is time-major, as
the v5 calls are; PackedSequence and unbatched input are time-major
already; SRU's engine would move batch-major data into time-major order
anyway.
"""

import math
import threading
import warnings
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, NoReturn, Optional, Sequence,
                    Tuple, Type, TypeVar, Union, cast)

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence

from .. import _capi
from .._descriptors import Problem
from .._descriptors_v8 import ProblemV8
from . import _lstmp, _onnx, _ops, _precision, _runtime

if TYPE_CHECKING:     # typing.Self is Python 3.11's
    from typing_extensions import Self

_P = TypeVar("_P", Problem, ProblemV8)

# ATen's names of the data types, as torch.nn's device and dtype messages
# print them.
_SCALAR_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
                 torch.bfloat16: "BFloat16"}


def _scalar_name(dtype: torch.dtype) -> str:
    return _SCALAR_NAMES.get(dtype, str(dtype))


def _functorch_transforms() -> "List[torch._C._functorch.TransformType]":
    """The torch.func transforms running (grad, vmap, ...), outermost
    first: their tensors are wrappers without storage."""
    stack = torch._C._functorch.get_interpreter_stack()
    return [] if stack is None else [ci.key() for ci in stack]


def _check_functorch(transforms: "List[torch._C._functorch.TransformType]", name: str) -> None:
    if transforms != [torch._C._functorch.TransformType.Grad]:
        raise RuntimeError(
            f"prnn.torch.{name} runs under one torch.func.grad (or grad_and_value, vjp) "
            f"transform, not under {[t.name for t in transforms]}: prnn's C library computes "
            "on the tensors' memory, which only one level of torch.func.grad's wrappers lets "
            "it reach (vmap, jvp, jacrev/jacfwd, hessian and nested grads are not supported; "
            "torch.func.functional_call alone is)")


class _PrnnRNNBase(nn.Module):
    # A type comment, not an annotation: the TorchScript ONNX exporter reads a module class's
    # annotations (typing.get_type_hints) as its attributes.
    _mode_name = None  # type: Optional[str]

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Optional[Union[torch.device, str, int]] = None,
                 dtype: Optional[torch.dtype] = None) -> None:
        super().__init__()
        if proj_size:
            raise ValueError(f"prnn.torch.{type(self).__name__}: proj_size is for LSTM only")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout >= 1:
            raise ValueError("prnn.torch: dropout must be below 1 (prnn scales kept values by "
                             "1 / (1 - dropout))")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}")
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size),
                        ("num_layers", num_layers)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        self.mode = self._mode_name
        self._cell = self._cell_code()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = 0
        factory: Dict[str, Any] = {"device": device, "dtype": dtype}
        self._flat_weights_names = _runtime.weight_names(self._cell, num_layers, bidirectional,
                                                         bias)
        self._reset_call_cache()
        for name in self._flat_weights_names:
            setattr(self, name, nn.Parameter(torch.empty(self._parameter_shape(name), **factory)))
        self.reset_parameters()

    def _cell_code(self) -> int:
        """The mode value the operators take: the prnnRNNMode_t (SRU's
        carries its conventions: _sru.py)."""
        # the classes' own _mode_name is a str (None only on this base class)
        return _runtime.MODES[cast(str, self._mode_name)]

    def _parameter_shape(self, name: str) -> Tuple[int, ...]:
        """torch.nn's shape of parameter `name` (SRU: _sru.py)."""
        layer = int(name.split("_l")[-1].split("_")[0])
        h = self.hidden_size
        k = self.input_size if layer == 0 else (2 if self.bidirectional else 1) * h
        kind = name.split("_l")[0]
        gh = _runtime.GATES[self._cell] * h
        return {"weight_ih": (gh, k), "weight_hh": (gh, h), "bias_ih": (gh,),
                "bias_hh": (gh,)}[kind]

    # -- torch.nn's conventions -------------------------------------------------

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        with torch.no_grad():
            for w in self.parameters():
                w.uniform_(-stdv, stdv)
        self.flatten_parameters()

    def _weights(self) -> List[torch.Tensor]:
        """The weights, in _flat_weights_names' order, as the module's
        attribute access gives them: its parameters, or what a
        parametrization, torch.func.functional_call or a plain attribute
        puts in their place."""
        # the parameter dict first: Module.__getattr__ costs a failed
        # attribute lookup per name, on every call
        params = self._parameters
        try:
            # (every name is a Parameter, not None, where it is in the dict)
            return cast(List[torch.Tensor], [params[n] for n in self._flat_weights_names])
        except KeyError:
            return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def _flat_weights(self) -> List[torch.Tensor]:
        return self._weights()

    def __prepare_scriptable__(self) -> NoReturn:
        raise RuntimeError(
            f"prnn.torch.{type(self).__name__} cannot be compiled by torch.jit.script: its "
            "forward calls prnn's C library from Python (ctypes), which TorchScript cannot "
            "compile. torch.jit.trace records the layer as the prnn::rnn_forward operator "
            "(the traced module runs where prnn.torch is imported); torch.compile and "
            "torch.export trace it too; for deployment export to ONNX (standard LSTM/GRU/RNN "
            "nodes) or convert the layer with prnn.torch.to_torch")

    @property
    def all_weights(self) -> List[List[torch.Tensor]]:
        per = len(self._flat_weights_names) // (self.num_layers *
                                                (2 if self.bidirectional else 1))
        w = self._flat_weights
        return [w[i:i + per] for i in range(0, len(w), per)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _layout(self) -> _runtime.WeightLayout:
        w = cast(torch.Tensor, self.weight_ih_l0)    # (Module.__getattr__: Tensor or Module)
        return _runtime.WeightLayout(self._cell, _runtime.torch_dtype_code(w.dtype),
                                     self.input_size, self.hidden_size, self.num_layers,
                                     self.bidirectional)

    def _flat_base(self, weights: Optional[Sequence[torch.Tensor]] = None) -> Optional[int]:
        """The flat buffer's address, or None when the weights are not views
        of one buffer in prnn's layout."""
        layout = self._layout()
        return _runtime.flat_base(self._weights() if weights is None else weights,
                                  layout.offsets(self._flat_weights_names),
                                  layout.total_elements)

    def _is_flat(self) -> bool:
        return self._flat_base() is not None

    def _own_parameters(self) -> Optional[List[nn.Parameter]]:
        """The module's own Parameters for every weight, or None when a
        parametrization (or anything but a Parameter) takes a weight's
        place."""
        params = self._parameters
        weights = [params.get(n) for n in self._flat_weights_names]
        if any(not isinstance(w, nn.Parameter) for w in weights):
            return None
        return cast(List[nn.Parameter], weights)    # every one a Parameter (above)

    def flatten_parameters(self) -> None:
        """Makes the parameters views of one buffer in prnn's layout (a copy
        of their values; the Parameter objects stay the same, so optimizers
        keep them). Biases that the module does not have stay zero. Does
        nothing where a parametrization computes a weight (it is packed per
        call)."""
        weights = self._own_parameters()
        if weights is None:
            return
        dtype, device = weights[0].dtype, weights[0].device
        if any(w.dtype != dtype or w.device != device for w in weights):
            return      # forward reports the mismatch
        if dtype not in _runtime.DTYPES or device.type not in ("cpu", "cuda"):
            return
        _, views = self._layout().pack(weights, self._flat_weights_names)
        for w, v in zip(weights, views):
            w.data = v

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], *args: Any,
               **kwargs: Any) -> "Self":
        # nn.Module._apply has no annotations (it returns the module)
        result: Self = super()._apply(  # type: ignore[no-untyped-call]
            fn, *args, **kwargs)
        self._cast.clear()
        self.flatten_parameters()
        self._start_gpu()
        return result

    def _start_gpu(self) -> None:
        """On a CUDA device, this thread's prnn handle now rather than at
        the first forward: its creation starts prnn's warm-up (NVRTC's and
        cuBLASLt's loading, ~0.1 s) beside whatever the caller does before
        that first step (an optimizer, a data loader)."""
        weights = self._flat_weights
        if weights and weights[0] is not None and weights[0].device.type == "cuda":
            _runtime.handle(weights[0].device)

    # -- what eager calls keep ----------------------------------------------------

    def _reset_call_cache(self) -> None:
        # (weights' addresses, flat buffer address or None) once checked,
        # the Problem or ProblemV8 of each (thread, device, dtype, shape,
        # dropout, math, data layout): prnn handles are per thread
        # (_runtime), so a layer shared by threads keeps one each; and
        # autocast's converted weights.
        self._checked_weights: Tuple[Optional[Tuple[int, ...]], Optional[int]] = (None, None)
        self._problems: _runtime.ShapeCache[Union[Problem, ProblemV8]] = _runtime.ShapeCache()
        self._cast = _precision.CastWeights()

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        state["_checked_weights"] = (None, None)
        state["_problems"] = None     # made anew by __setstate__
        state["_cast"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        super().__setstate__(state)  # type: ignore[no-untyped-call]  # no annotations
        self._reset_call_cache()
        self.flatten_parameters()   # a copy's parameters are no longer views

    def _flat_address(self, weights: Sequence[torch.Tensor]) -> Optional[int]:
        """The address of the flat buffer `weights` are views of (None when
        they are not), checked once per set of weight addresses."""
        ptrs = tuple([w.data_ptr() for w in weights])
        known, base = self._checked_weights
        if ptrs == known:
            return base
        self._check_weights(weights)
        base = self._flat_base(weights)
        self._checked_weights = (ptrs, base)
        return base

    def _weight_buffer(self, weights: Sequence[torch.Tensor],
                       dtype: torch.dtype) -> Tuple[int, Optional[torch.Tensor]]:
        """(address, tensor to keep alive or None) of the flat weight buffer
        this call hands prnn, in `dtype`: the parameters' own buffer; under
        autocast, their converted copy (made once per change of the
        weights); else a packed copy. Parameters that stopped being views of
        the buffer (a replaced Parameter) are re-packed, with a warning."""
        w0 = weights[0]
        if dtype != w0.dtype:
            self._check_weights(weights)
            flat = self._cast.get(weights, self._flat_weights_names, self._layout(),
                                  self._layout_for(dtype), dtype)
            return flat.data_ptr(), flat
        self._cast.clear()          # autocast is off: its copy goes
        base = self._flat_address(weights)
        if base is not None:
            return base, None
        if self._own_parameters() is not None:
            warnings.warn("prnn.torch: the parameters are no longer views of one flat buffer "
                          "(a Parameter was replaced?); re-packing them", stacklevel=3)
            self.flatten_parameters()    # the same Parameter objects, new storage
            base = self._flat_address(weights)
            if base is not None:
                return base, None
        flat, _ = self._layout().pack(weights, self._flat_weights_names)
        return flat.data_ptr(), flat

    def _layout_for(self, dtype: torch.dtype) -> _runtime.WeightLayout:
        return _runtime.WeightLayout(self._cell, _runtime.torch_dtype_code(dtype),
                                     self.input_size, self.hidden_size, self.num_layers,
                                     self.bidirectional)

    def _kept(self, x: torch.Tensor, shape: Tuple[int, ...], dropout: float, math: int,
              layout: Optional[int], make: Callable[[], _P]) -> _P:
        """The kept Problem (layout None: the v5 calls, which have no data
        layout) or ProblemV8 (layout: its prnnRNNDataLayout_t) of this
        thread, x's device and type, `shape`, dropout and math; else
        make()'s, kept."""
        key = (threading.get_ident(), x.device, x.dtype, shape, dropout, math, layout)
        p = self._problems.get(key)
        if p is None:
            p = make()
            self._problems.put(key, p)
        return cast(_P, p)     # the layout in the key tells the two kinds apart

    def _problem(self, x: torch.Tensor, batch_sizes: Optional[torch.Tensor], dropout: float,
                 math: int, training: bool = False) -> Problem:
        shape = (x.shape[0], x.shape[1]) if batch_sizes is None else tuple(batch_sizes.tolist())
        return self._kept(x, shape, dropout, math, None, lambda: _runtime.problem(
            x.device, self._cell, _runtime.torch_dtype_code(x.dtype), self.input_size,
            self.hidden_size, self.num_layers, self.bidirectional,
            [x.shape[1]] * x.shape[0] if batch_sizes is None else list(shape), dropout, math,
            training))

    def _problem_v8(self, x: torch.Tensor, dropout: float, seed: Optional[torch.Tensor],
                    math: int, training: bool) -> ProblemV8:
        """The ProblemV8 of batch-major x ([B, T, I], every sequence T
        long), with both biases (the flat buffer has room for them, zeros
        where the module has none); with dropout's `seed` (given exactly
        when the call applies dropout), a seeded copy made for this call
        (ProblemV8.with_seed); made for training (ProblemV8's training)
        when it is new and `training`."""
        layout = _capi.RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED
        batch, steps = x.shape[0], x.shape[1]
        p = self._kept(x, (batch, steps), dropout, math, layout, lambda: ProblemV8(
            _runtime.handle(x.device), self._cell, _runtime.torch_dtype_code(x.dtype),
            self.input_size, self.hidden_size, self.hidden_size, self.num_layers,
            self.bidirectional, True, layout, steps, [steps] * batch, dropout, 0, math,
            training))
        return p if seed is None else p.with_seed(int(seed))

    def _takes_batch_major(self, dtype: torch.dtype) -> bool:
        """Whether an eager call in `dtype` hands prnn batch_first input as
        it is (the v8 calls): not SRU, whose engine would move the data
        into time-major order anyway (prnn.h, "What runs where"), and only
        where the flat buffer is the v8 weight space."""
        return not _runtime.is_sru(self._cell) and self._layout_for(dtype).is_v8_weight_space()

    # -- forward ------------------------------------------------------------------

    def _check_input(self, x: torch.Tensor, dtype: torch.dtype, device: torch.device,
                     cast: bool) -> None:
        """x against the data type the layer runs in (autocast's when
        `cast`) and the weights' device."""
        if x.dtype != dtype and cast:
            raise TypeError(f"prnn.torch.{type(self).__name__}: input is {x.dtype}, which "
                            f"autocast leaves as it is, but the layer runs in {dtype} under "
                            "autocast (convert the input)")
        if x.dtype != dtype:
            raise TypeError(f"prnn.torch.{type(self).__name__}: input is {x.dtype} but the "
                            f"parameters are {dtype} (convert one, or run under torch.autocast; "
                            "prnn runs one data type per layer)")
        if x.device != device:
            raise RuntimeError(f"Input and parameter tensors are not at the same device, found "
                               f"input tensor at {x.device} and parameter tensor at {device}")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"input.size(-1) must be equal to input_size. Expected "
                             f"{self.input_size}, got {x.shape[-1]}")

    def _check_weights(self, weights: Sequence[torch.Tensor]) -> None:
        _runtime.check_parameters(type(self).__name__, weights)

    def _recorded_weights(self, weights: Sequence[torch.Tensor], dtype: torch.dtype,
                          cast: Optional[torch.dtype]) -> Sequence[torch.Tensor]:
        """The weights for a call that autograd's graph, a tracer or a
        transform records: converted by recorded operations under
        autocast."""
        self._check_weights(weights)
        return [w.to(dtype) for w in weights] if cast is not None else weights

    def _initial_states(self, hx: Optional[Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]],
                        x: torch.Tensor, batched: bool, mb: int,
                        sorted_indices: Optional[torch.Tensor], cast: bool
                        ) -> Tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        """h_0 and c_0 (None when absent), as the C call takes them:
        checked against the input's device and data type with torch.nn's
        messages (converted to it first under autocast, when `cast`),
        batched (mb sequences), in the packed batch's order, contiguous."""
        lstm = self._cell == _capi.LSTM
        if hx is None:
            return None, None
        states: List[Any]    # what the caller passed: checked below
        if lstm:
            if not isinstance(hx, tuple) or len(hx) != 2:
                raise ValueError("prnn.torch.LSTM: hx must be a tuple (h_0, c_0)")
            states = list(hx)
        else:
            states = [hx]
        dirs = 2 if self.bidirectional else 1
        expect = (self.num_layers * dirs, mb, self.hidden_size)
        for i, s in enumerate(states):
            if not isinstance(s, torch.Tensor):
                raise TypeError(f"prnn.torch.{type(self).__name__}: hx must be a Tensor"
                                f"{' or a tuple of two' if lstm else ''}, got {type(s).__name__}")
            if not batched:
                if s.dim() != 2:
                    raise ValueError("For unbatched input, hx should be 2-D, got "
                                     f"{s.dim()}-D")
                s = s.unsqueeze(1)
            elif s.dim() != 3:
                raise ValueError(f"For batched input, hx should be 3-D, got {s.dim()}-D")
            if s.device != x.device:
                raise RuntimeError(f"Input and hidden tensors are not at the same device, found "
                                   f"input tensor at {x.device} and hidden tensor at {s.device}")
            if cast and _precision.autocast_eligible(s):
                s = s.to(x.dtype)
            if s.dtype != x.dtype:
                raise RuntimeError(f"Input and hidden tensors are not the same dtype, found "
                                   f"input tensor with {_scalar_name(x.dtype)} and hidden "
                                   f"tensor with {_scalar_name(s.dtype)}")
            if sorted_indices is not None:
                s = s.index_select(1, sorted_indices)
            if tuple(s.shape) != expect:
                raise RuntimeError(f"Expected hidden size {expect}, got {tuple(s.shape)}")
            states[i] = s.contiguous()
        return states[0], (states[1] if lstm else None)

    def forward(self, input: Union[torch.Tensor, PackedSequence],
                hx: Optional[Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]] = None
                ) -> Tuple[Union[torch.Tensor, PackedSequence],
                           Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]]:
        lstm = self._cell == _capi.LSTM
        sru = _runtime.is_sru(self._cell)
        packed = isinstance(input, PackedSequence)
        batch_sizes = sorted_indices = unsorted_indices = None
        x: torch.Tensor
        if packed:
            x, batch_sizes, sorted_indices, unsorted_indices = input
            batched = True
        else:
            x = input  # type: ignore[assignment]  # a Tensor: not `packed`
            if x.dim() not in (2, 3):
                raise ValueError(f"prnn.torch.{type(self).__name__}: expected 2-D (unbatched) "
                                 f"or 3-D input, got {x.dim()}-D")
            batched = x.dim() == 3
            if not batched:
                x = x.unsqueeze(1)
            if x.shape[0] == 0 or x.shape[1] == 0:
                raise ValueError(f"prnn.torch.{type(self).__name__}: empty input {tuple(x.shape)}")
        # batched batch_first input, [B, T, I]: as it is, or transposed below
        batch_major = batched and not packed and self.batch_first
        weights = self._weights()
        w0 = weights[0]
        device_type = "cuda" if x.is_cuda else ("cpu" if x.is_cpu else x.device.type)
        cast = _precision.autocast_dtype(device_type, w0.dtype) \
            if device_type in ("cuda", "cpu") else None
        if cast is not None and _precision.autocast_eligible(x):
            x = x.to(cast)
        self._check_input(x, cast or w0.dtype, w0.device, cast is not None)
        # torch.jit.is_tracing: not in torch.jit's __all__, and without annotations
        compiling, tracing = (torch.compiler.is_compiling(),
                              torch.jit.is_tracing())  # type: ignore[attr-defined,no-untyped-call]
        transforms = [] if compiling or tracing else _functorch_transforms()
        # Eager calls hand prnn batch_first input as it is: the v8 calls
        # read x and write y batch-major in place (no copy either way, nor
        # of dy in the backward). Every other path takes x time-major, as
        # the prnn::rnn_forward operator's schema (which torch.compile,
        # torch.export, tracing and ONNX export record, and whose autograd
        # formula the torch.func path shares) and the v5 calls have it.
        in_place = batch_major and not (compiling or tracing or transforms) and \
            self._takes_batch_major(x.dtype)
        if batch_major and not in_place:
            x = x.transpose(0, 1)
        x = x.contiguous()
        mb = int(batch_sizes[0]) if batch_sizes is not None else x.shape[0 if in_place else 1]
        h0, c0 = self._initial_states(hx, x, batched, mb, sorted_indices, cast is not None)
        if sru:     # SRU's state is the cell state only: hx is c_0
            h0, c0 = None, h0

        dropout = self.dropout if self.training else 0.0
        needs_grad = torch.is_grad_enabled() and (
            x.requires_grad or any(w.requires_grad for w in weights) or
            (h0 is not None and h0.requires_grad) or (c0 is not None and c0.requires_grad))
        train = needs_grad or dropout > 0
        seed = (torch.randint(0, 2 ** 62, (), dtype=torch.int64)
                if train and dropout > 0 else None)
        math = _precision.math_type(device_type, x.dtype)
        args = (self._cell, self.hidden_size, self.num_layers, self.bidirectional,
                self.bias, dropout)
        if compiling and _onnx.exporting():
            # torch.onnx.export(dynamo=True): standard ONNX RNN nodes
            y, hy, cy = _onnx.export_layer(self, x, h0, c0, weights, batch_sizes, dropout)
        elif compiling or tracing:
            # the operator, for torch.compile / torch.export and the tracer
            # (and the TorchScript ONNX exporter, which converts it)
            if not compiling:
                _onnx.tracing_a_layer()
            y, hy, cy, _ = _ops.rnn_forward(x, h0, c0,
                                            self._recorded_weights(weights, x.dtype, cast),
                                            batch_sizes, seed, *args, train, math)
        elif transforms:
            # torch.func.grad: the autograd Function (the operator's own
            # autograd does not support torch.func) finds or packs the
            # weights' buffer where the tensors are unwrapped
            _check_functorch(transforms, type(self).__name__)
            if seed is None and dropout > 0:
                seed = torch.randint(0, 2 ** 62, (), dtype=torch.int64)
            y, hy, cy, _ = _ops.FuncRNN.apply(x, h0, c0, batch_sizes, seed, args + (math,),
                                              None, None,
                                              *self._recorded_weights(weights, x.dtype, cast))
        else:
            # Eager: the operator's work without the dispatcher, with what
            # this layer keeps (its Problem, the weights' buffer; a ProblemV8
            # for batch-major x, whose descriptor carries dropout's seed).
            wbuf = self._weight_buffer(weights, x.dtype)
            problem: Union[Problem, ProblemV8] = (
                self._problem_v8(x, dropout, seed, math, training=needs_grad) if in_place else
                self._problem(x, batch_sizes, dropout, math, training=needs_grad))
            if needs_grad:
                y, hy, cy, _ = _ops.EagerRNN.apply(x, h0, c0, batch_sizes, seed, args + (math,),
                                                   problem, wbuf, *weights)
            else:
                y, hy, cy, _ = _ops.forward_impl(x, h0, c0, weights, batch_sizes, seed, *args,
                                                 train, math, problem, wbuf[0])
        # cy is a Tensor, not None, where lstm or sru (the ignores below; `cast` is a local here)
        if sru:
            hy = cy  # type: ignore[assignment]  # returned: c_n
        if unsorted_indices is not None:
            hy = hy.index_select(1, unsorted_indices)
            if lstm:
                cy = cy.index_select(1, unsorted_indices)  # type: ignore[union-attr]
        output: Union[torch.Tensor, PackedSequence]
        if packed:
            output = PackedSequence(y, batch_sizes, sorted_indices, unsorted_indices)
        elif not batched:
            output = y.squeeze(1)
            hy = hy.squeeze(1)
            cy = cy.squeeze(1) if lstm else cy  # type: ignore[union-attr]
        else:
            output = y.transpose(0, 1) if batch_major and not in_place else y
        return output, ((hy, cy) if lstm else hy)  # type: ignore[return-value]


class LSTM(_PrnnRNNBase):
    """torch.nn.LSTM on prnn. With proj_size > 0 the layer is a
    _ProjectedLSTMLayer (still an LSTM): prnn's v8 calls, on CUDA and CPU
    tensors (_lstmp.py)."""
    _mode_name = "LSTM"

    def __new__(cls, *args: Any, **kwargs: Any) -> "LSTM":
        proj = kwargs.get("proj_size", args[7] if len(args) > 7 else 0)
        if proj and cls is LSTM:
            hidden = kwargs.get("hidden_size", args[1] if len(args) > 1 else None)
            # without hidden_size, the constructor's own TypeError says what is missing
            if hidden is not None:
                _lstmp.check_proj_size(proj, hidden)
            return super().__new__(_ProjectedLSTMLayer)
        return super().__new__(cls)


# forward: ProjectedLSTM's takes LSTM's (h_0, c_0) only, _PrnnRNNBase's a Tensor too (GRU, RNN)
class _ProjectedLSTMLayer(_lstmp.ProjectedLSTM, LSTM):  # type: ignore[misc]
    """prnn.torch.LSTM(proj_size > 0): _lstmp.ProjectedLSTM's methods first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._init_projected(*args, **kwargs)


class GRU(_PrnnRNNBase):
    """torch.nn.GRU on prnn."""
    _mode_name = "GRU"


class RNN(_PrnnRNNBase):
    """torch.nn.RNN on prnn: nonlinearity 'tanh' (default) or 'relu'."""

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self._mode_name = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        self.nonlinearity = nonlinearity
        super().__init__(*args, **kwargs)

    def extra_repr(self) -> str:
        s = super().extra_repr()
        return s + (", nonlinearity='relu'" if self.nonlinearity == "relu" else "")


_CLASSES: Dict[Type[nn.RNNBase], Type[_PrnnRNNBase]] = {nn.LSTM: LSTM, nn.GRU: GRU, nn.RNN: RNN}
_TORCH_OF: Dict[Type[_PrnnRNNBase], Type[Union[nn.LSTM, nn.GRU, nn.RNN]]] = {
    LSTM: nn.LSTM, GRU: nn.GRU, RNN: nn.RNN}


def from_torch(module: nn.RNNBase) -> _PrnnRNNBase:
    """A prnn.torch layer with `module`'s configuration, weights, device,
    dtype and training mode (module: a torch.nn.LSTM, GRU or RNN)."""
    cls = _CLASSES.get(type(module))
    if cls is None:
        hint = (" (the sru package's: prnn.torch.from_sru converts it)"
                if type(module).__module__.split(".")[0] == "sru" else "")
        raise TypeError(f"prnn.torch.from_torch: expected torch.nn.LSTM, GRU or RNN, got "
                        f"{type(module).__name__}{hint}")
    w = next(module.parameters())
    kwargs: Dict[str, Any] = dict(num_layers=module.num_layers, bias=module.bias,
                                  batch_first=module.batch_first, dropout=module.dropout,
                                  bidirectional=module.bidirectional, device=w.device,
                                  dtype=w.dtype)
    if cls is RNN:
        kwargs["nonlinearity"] = module.nonlinearity
    if getattr(module, "proj_size", 0):
        kwargs["proj_size"] = module.proj_size
    layer = cls(module.input_size, module.hidden_size, **kwargs)
    layer.load_state_dict(module.state_dict())
    layer.train(module.training)
    return layer


def to_torch(layer: _PrnnRNNBase) -> nn.RNNBase:
    """The torch.nn.LSTM, GRU or RNN with `layer`'s configuration, weights
    (as its attribute access gives them now: a parametrization's result),
    device, dtype and training mode (layer: a prnn.torch LSTM, GRU or RNN;
    SRU has no torch.nn counterpart)."""
    cls = next((t for p, t in _TORCH_OF.items() if isinstance(layer, p)), None)
    if cls is None:
        raise TypeError(f"prnn.torch.to_torch: expected a prnn.torch LSTM, GRU or RNN, got "
                        f"{type(layer).__name__} (SRU has no torch.nn counterpart)")
    w = layer._weights()[0]
    kwargs: Dict[str, Any] = dict(num_layers=layer.num_layers, bias=layer.bias,
                                  batch_first=layer.batch_first, dropout=layer.dropout,
                                  bidirectional=layer.bidirectional, device=w.device,
                                  dtype=w.dtype)
    if cls is nn.RNN:
        kwargs["nonlinearity"] = layer.nonlinearity
    if getattr(layer, "proj_size", 0):
        kwargs["proj_size"] = layer.proj_size
    module = cls(layer.input_size, layer.hidden_size, **kwargs)
    module.load_state_dict({n: w.detach() for n, w in zip(layer._flat_weights_names,
                                                         layer._weights())})
    module.train(layer.training)
    return module
