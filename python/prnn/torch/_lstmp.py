"""prnn.torch.LSTM with proj_size > 0: torch.nn.LSTM's projected LSTM
(h_t = W_hr (o * tanh(c_t))) on prnn's cuDNN 8/9-shaped calls
(prnnRNNForward, prnnRNNBackwardData_v8, prnnRNNBackwardWeights_v8).

torch.nn's constructor arguments, parameter names (weight_hr_l{k} beside
weight_ih, weight_hh, bias_ih, bias_hh) and shapes, inputs and outputs
(h_n is proj_size wide, c_n hidden_size), so state_dicts load both ways.
batch_first input goes to prnn as it is (the batch-major layout), not
transposed; a PackedSequence runs as prnn's SEQ_MAJOR_PACKED layout, as it
is.

CUDA tensors run on prnn's GPU backend (float32, float64, float16,
bfloat16), on the calling thread's handle for the tensor's device and
torch's current stream, with every buffer (weight space, workspace,
reserve, outputs) from PyTorch's allocator on that device; CPU tensors on
prnn's CPU reference backend (on the GPU, the standard engine: the one
with a projection). A call prnn refuses raises prnn._capi.PrnnError, a
RuntimeError carrying prnn's message. Under
torch.autocast the layer runs in autocast's data type, as the other
layers do (input, states and weights converted; the weights' gradients
come back in their own type); float32 on CUDA follows PyTorch's TF32
switch for cuDNN's RNNs (_precision.math_type).

Each call packs the parameters into one weight space on their device (no
flat-buffer views as the other layers keep): a copy per call, and a
weight-space-sized gradient buffer per backward. The descriptors, sizes and
weight-space places of a shape are kept (a few shapes a module) and reused
while nothing they were made from changes.
"""

import copy
import math
import warnings
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union,
                    cast)

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence

from .. import _capi
from .._descriptors_v8 import ProblemV8
from . import _precision, _runtime, _v8

if TYPE_CHECKING:     # typing.Self is Python 3.11's
    from typing_extensions import Self

# linLayerIDs of an LSTM with a projection: W i f g o, R i f g o, W_proj
_W_IDS, _R_IDS, _PROJ_ID = range(0, 4), range(4, 8), 8

# where one parameter (or one of its row blocks) lives in the weight space:
# (offset in elements, shape there, the parameter's rows it holds)
_Block = Tuple[int, Tuple[int, ...], slice]


class _Spec:
    """What a call needs besides tensors: the module's configuration, the
    data type the call runs in, and the v8 descriptors for the shape."""

    def __init__(self, module: "ProjectedLSTM", dtype: torch.dtype, device: torch.device,
                 layout: int, max_seq: int, lengths: Sequence[int], record: bool) -> None:
        self.layers = module.num_layers
        self.dirs = 2 if module.bidirectional else 1
        self.hidden, self.proj = module.hidden_size, module.proj_size
        self.bias = module.bias
        self.dtype = dtype
        # ForwardTraining (reserve, dropout) where autograd records the call,
        # and for dropout in training mode (torch.nn applies it under no_grad
        # too), as the other layers
        dropout = module.dropout if module.training else 0.0
        self.training = record or dropout > 0
        # each call draws dropout's mask a seed of its own (for_call)
        self.seeded = dropout > 0
        self.p = ProblemV8(_runtime.handle(device), _capi.LSTM, _runtime.torch_dtype_code(dtype),
                           module.input_size, self.hidden, self.proj, self.layers,
                           module.bidirectional, self.bias, layout, max_seq, lengths, dropout,
                           0, _precision.math_type(device.type, dtype), self.training)
        es = torch.empty((), dtype=dtype).element_size()
        self.elements = self.p.weight_bytes // es
        self.blocks = self._blocks(self.p.places(es, _PROJ_ID + 1))

    def for_call(self) -> "_Spec":
        """This _Spec for one call: itself, or with dropout a copy whose
        descriptor carries a seed drawn from torch's generator for this
        call (ProblemV8.with_seed: the data descriptors, sizes and places
        shared; the kept _Spec's descriptor is never re-seeded under a call
        still to run its backward)."""
        if not self.seeded:
            return self
        spec = copy.copy(self)
        spec.p = self.p.with_seed(int(torch.randint(0, 2**62, (1,)).item()))
        return spec

    @staticmethod
    def key(module: "ProjectedLSTM", dtype: torch.dtype, device: torch.device, layout: int,
            max_seq: int, lengths: Sequence[int], record: bool) -> Tuple[Any, ...]:
        """Everything __init__ makes a _Spec from (the module's
        configuration, this thread's handle, the math type PyTorch's TF32
        switch gives): equal keys, interchangeable _Specs but for
        dropout's seed."""
        dropout = module.dropout if module.training else 0.0
        return (dtype, device, layout, max_seq, tuple(lengths), record, module.training,
                module.input_size, module.hidden_size, module.proj_size, module.num_layers,
                module.bidirectional, module.bias, dropout,
                _precision.math_type(device.type, dtype), id(_runtime.handle(device)))

    def _blocks(self, places: Dict[Tuple[int, int], Tuple[Any, Any]]) -> List[List[_Block]]:
        """Per torch.nn parameter (in _flat_weights_names' order), where it
        goes in the weight space: its gate blocks (i, f, g, o, torch.nn's
        order too) are one linLayerID each, merged into one block where
        prnn keeps them consecutive (one copy per parameter)."""
        h = self.hidden
        out: List[List[_Block]] = []
        for pl in range(self.layers * self.dirs):
            kinds = ["ih", "hh"] + (["bias_ih", "bias_hh"] if self.bias else []) + ["hr"]
            for kind in kinds:
                # (the places read here are there, not None: the projection always, the
                # biases where self.bias)
                if kind == "hr":
                    off, shape = places[(pl, _PROJ_ID)][0]
                    out.append([(off, shape, slice(None))])
                    continue
                ids = _W_IDS if kind in ("ih", "bias_ih") else _R_IDS
                parts: List[_Block] = []
                for g, lin in enumerate(ids):
                    mat, bias = places[(pl, lin)]
                    off, shape = mat if kind in ("ih", "hh") else (bias[0], (bias[1],))
                    parts.append((off, tuple(shape), slice(g * h, (g + 1) * h)))
                n = math.prod(parts[0][1])
                if all(o == parts[0][0] + g * n and s == parts[0][1]
                       for g, (o, s, _) in enumerate(parts)):
                    rows, *rest = parts[0][1]
                    parts = [(parts[0][0], (len(parts) * rows, *rest), slice(None))]
                out.append(parts)
        return out

    def pack(self, weights: Sequence[torch.Tensor], device: torch.device) -> torch.Tensor:
        """A weight space in the call's data type on `device`, holding
        `weights` (converted by the copies), zero elsewhere. Not recorded
        by autograd (the Function's backward gives the weights' gradients)."""
        flat = torch.zeros(self.elements, dtype=self.dtype, device=device)
        with torch.no_grad():
            for w, parts in zip(weights, self.blocks):
                for off, shape, rows in parts:
                    flat.narrow(0, off, math.prod(shape)).view(shape).copy_(w[rows])
        return flat

    def unpack(self, flat: torch.Tensor, dtype: torch.dtype) -> List[torch.Tensor]:
        """The parameters' gradients from a gradient weight space, in
        `dtype` (the weights' own): views of `flat` where it is in that
        type already and a parameter is one block."""
        grads = []
        for parts in self.blocks:
            views = [flat.narrow(0, off, math.prod(shape)).view(shape)
                     for off, shape, _ in parts]
            grads.append((views[0] if len(views) == 1 else torch.cat(views)).to(dtype))
        return grads


class _LSTMPFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, spec: _Spec, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor,
                *weights: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        flat = spec.pack(weights, x.device)
        y, hy, cy, rs = _v8.forward(spec.p, x, h0, c0, flat.data_ptr(), spec.training)
        ctx.spec = spec
        ctx.weight_dtype = weights[0].dtype
        if spec.training:
            ctx.save_for_backward(x, h0, c0, flat, y, rs)
        return y, hy, cast(torch.Tensor, cy)   # an LSTM's: not None

    @staticmethod
    def backward(ctx: Any, dy: Optional[torch.Tensor], dhy: Optional[torch.Tensor],
                 dcy: Optional[torch.Tensor]) -> Tuple[Optional[torch.Tensor], ...]:
        spec = ctx.spec
        if not spec.training:
            raise RuntimeError("prnn.torch.LSTM(proj_size): backward of a call that ran without "
                               "gradients (inference mode)")
        x, h0, c0, flat, y, rs = ctx.saved_tensors
        if dy is None:
            dy = torch.zeros_like(y)
        dx, dhx, dcx, dflat = _v8.backward(spec.p, x, h0, c0, flat.data_ptr(), y, dy, dhy, dcy,
                                           rs, any(ctx.needs_input_grad[4:]),
                                           ctx.needs_input_grad[1])
        dweights: List[Optional[torch.Tensor]]
        if dflat is not None:
            dweights = list(spec.unpack(dflat, ctx.weight_dtype))
        else:
            dweights = [None] * len(spec.blocks)
        return (None, dx, dhx, dcx, *dweights)


# shapes whose _Spec a module keeps (least recently used dropped first)
_SPECS_KEPT = 8


def check_proj_size(proj_size: int, hidden_size: int) -> None:
    """torch.nn.LSTM's rules for proj_size, with its messages."""
    if not isinstance(proj_size, int) or isinstance(proj_size, bool) or proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class ProjectedLSTM(nn.Module):
    """The body of prnn.torch.LSTM(proj_size > 0) (see the module's text);
    prnn.torch.LSTM makes one of its subclass, so isinstance holds."""

    def _init_projected(self, input_size: int, hidden_size: int, num_layers: int = 1,
                        bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                        bidirectional: bool = False, proj_size: int = 0,
                        device: Optional[Union[torch.device, str, int]] = None,
                        dtype: Optional[torch.dtype] = None) -> None:
        nn.Module.__init__(self)
        check_proj_size(proj_size, hidden_size)
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or \
                not 0 <= dropout < 1:
            raise ValueError("prnn.torch: dropout must be a number in [0, 1)")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}")
        # typed as _PrnnRNNBase's: one attribute of prnn.torch.LSTM's projected layer
        self.mode: Optional[str] = "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        dirs = 2 if bidirectional else 1
        names: List[str] = []
        shapes: List[Tuple[int, ...]] = []
        for layer in range(num_layers):
            k = input_size if layer == 0 else dirs * proj_size
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                names += ["weight_ih" + sfx, "weight_hh" + sfx]
                shapes += [(4 * hidden_size, k), (4 * hidden_size, proj_size)]
                if bias:
                    names += ["bias_ih" + sfx, "bias_hh" + sfx]
                    shapes += [(4 * hidden_size,), (4 * hidden_size,)]
                names.append("weight_hr" + sfx)
                shapes.append((proj_size, hidden_size))
        self._flat_weights_names = names
        for name, shape in zip(names, shapes):
            setattr(self, name, nn.Parameter(torch.empty(shape, device=device, dtype=dtype)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        with torch.no_grad():
            for w in self.parameters():
                w.uniform_(-stdv, stdv)

    def flatten_parameters(self) -> None:
        """Nothing to do: each call packs the parameters (see the module's
        text)."""

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], *args: Any,
               **kwargs: Any) -> "Self":
        self.__dict__.pop("_specs", None)
        # nn.Module._apply has no annotations (it returns the module)
        return nn.Module._apply(  # type: ignore[no-untyped-call,no-any-return]
            self, fn, *args, **kwargs)

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_specs", None)   # descriptors of this process's handles
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        nn.Module.__setstate__(self, state)  # type: ignore[no-untyped-call]  # no annotations

    def _weights(self) -> List[torch.Tensor]:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def _flat_weights(self) -> List[torch.Tensor]:
        return self._weights()

    @property
    def all_weights(self) -> List[List[torch.Tensor]]:
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional
                                                                     else 1))
        w = self._weights()
        return [w[i:i + per] for i in range(0, len(w), per)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s + f", proj_size={self.proj_size}"

    def _states(self, hx: Optional[Tuple[torch.Tensor, torch.Tensor]], batch: int, batched: bool,
                x: torch.Tensor, amp: bool) -> Tuple[torch.Tensor, ...]:
        """h_0 and c_0 as the call takes them: zeros when hx is None, else
        checked (converted to the input's type first under autocast, when
        `amp`), batched, contiguous."""
        ld = self.num_layers * (2 if self.bidirectional else 1)
        shapes = ((ld, batch, self.proj_size), (ld, batch, self.hidden_size))
        if hx is None:
            return tuple(x.new_zeros(s) for s in shapes)
        h0, c0 = hx
        if not batched:
            h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
        states = []
        for t, s, what in ((h0, shapes[0], "hidden"), (c0, shapes[1], "cell")):
            if tuple(t.shape) != s:
                raise RuntimeError(f"Expected {what} size {s}, got {list(t.shape)}")
            if amp and t.device == x.device and _precision.autocast_eligible(t):
                t = t.to(x.dtype)
            if t.dtype != x.dtype or t.device != x.device:
                raise TypeError(f"prnn.torch.LSTM: the {what} state must be {x.dtype} on "
                                f"{x.device}, like the input")
            states.append(t.contiguous())
        return tuple(states)

    def _run(self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor,
             weights: List[torch.Tensor], layout: int, max_seq: int,
             lengths: Sequence[int]) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The call in x's data type (autocast's, where it converted x) on
        x's device."""
        record = torch.is_grad_enabled() and any(
            t.requires_grad for t in [x, h0, c0] + weights)
        spec = self._spec(x.dtype, x.device, layout, max_seq, lengths, record)
        # autograd.Function.apply returns Any: forward's (y, h_n, c_n)
        return _LSTMPFunction.apply(spec, x, h0, c0, *weights)  # type: ignore[no-any-return]

    def _spec(self, dtype: torch.dtype, device: torch.device, layout: int, max_seq: int,
              lengths: Sequence[int], record: bool) -> _Spec:
        """The call's _Spec (_Spec.for_call): of a kept one of the same
        _Spec.key, else of a new one, kept."""
        key = _Spec.key(self, dtype, device, layout, max_seq, lengths, record)
        specs: Optional[_runtime.ShapeCache[_Spec]] = self.__dict__.get("_specs")
        if specs is None:
            specs = self.__dict__["_specs"] = _runtime.ShapeCache(_SPECS_KEPT)
        spec = specs.get(key)
        if spec is None:
            spec = _Spec(self, dtype, device, layout, max_seq, lengths, record)
            specs.put(key, spec)
        return spec.for_call()

    def _forward_packed(self, input: PackedSequence, x: torch.Tensor,
                        hx: Optional[Tuple[torch.Tensor, torch.Tensor]],
                        weights: List[torch.Tensor], amp: bool
                        ) -> Tuple[PackedSequence, Tuple[torch.Tensor, torch.Tensor]]:
        """A PackedSequence is SEQ_MAJOR_PACKED as it is (x: its data, in
        the call's data type); the states go in and out in the caller's
        order (sorted_indices / unsorted_indices)."""
        _, batch_sizes, sorted_indices, unsorted_indices = input
        steps, batch = len(batch_sizes), int(batch_sizes[0])
        lengths = (batch_sizes.unsqueeze(1) > torch.arange(batch)).sum(0).tolist()
        h0, c0 = self._states(hx, batch, True, x, amp)
        if hx is not None and sorted_indices is not None:
            h0, c0 = h0.index_select(1, sorted_indices), c0.index_select(1, sorted_indices)
        y, hy, cy = self._run(x, h0, c0, weights, _capi.RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, steps,
                              lengths)
        if unsorted_indices is not None:
            hy, cy = hy.index_select(1, unsorted_indices), cy.index_select(1, unsorted_indices)
        return PackedSequence(y, batch_sizes, sorted_indices, unsorted_indices), (hy, cy)

    def _input(self, data: torch.Tensor, weights: List[torch.Tensor]
               ) -> Tuple[torch.Tensor, bool]:
        """The input converted to the data type the call runs in (the
        weights', or autocast's), and whether autocast converts; with the
        device and data-type checks (torch.nn's messages where it has
        them)."""
        _runtime.check_parameters("LSTM", weights)
        w0 = weights[0]
        device = data.device
        if device.type not in ("cpu", "cuda"):
            raise RuntimeError(f"prnn.torch.LSTM(proj_size=...) runs on CUDA and CPU tensors, "
                               f"not on {device}")
        if device != w0.device:
            raise RuntimeError(f"Input and parameter tensors are not at the same device, found "
                               f"input tensor at {device} and parameter tensor at {w0.device}")
        amp = _precision.autocast_dtype(device.type, w0.dtype)
        dtype = amp or w0.dtype
        if amp is not None and _precision.autocast_eligible(data):
            data = data.to(amp)
        if data.dtype != dtype:
            if amp is not None:
                raise TypeError(f"prnn.torch.LSTM: input is {data.dtype}, which autocast "
                                f"leaves as it is, but the layer runs in {dtype} under "
                                "autocast (convert the input)")
            raise TypeError(f"prnn.torch.LSTM: input is {data.dtype} but the parameters are "
                            f"{dtype}")
        _runtime.torch_dtype_code(dtype)        # prnn's four types only, saying so
        if data.shape[-1] != self.input_size:
            raise ValueError(f"input.size(-1) must be equal to input_size. Expected "
                             f"{self.input_size}, got {data.shape[-1]}")
        return data, amp is not None

    def forward(self, input: Union[torch.Tensor, PackedSequence],
                hx: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
                ) -> Tuple[Union[torch.Tensor, PackedSequence],
                           Tuple[torch.Tensor, torch.Tensor]]:
        packed = isinstance(input, PackedSequence)
        weights = self._weights()
        # (`packed` tells Tensor and PackedSequence apart: the casts say so to mypy)
        data, amp = self._input(cast(torch.Tensor, input.data if packed else input), weights)
        if packed:
            return self._forward_packed(cast(PackedSequence, input), data.contiguous(), hx,
                                        weights, amp)
        if data.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {data.dim()}D instead")
        batched = data.dim() == 3
        x = data if batched else data.unsqueeze(0 if self.batch_first else 1)
        x = x.contiguous()
        steps, batch = (x.shape[1], x.shape[0]) if self.batch_first else x.shape[:2]
        h0, c0 = self._states(hx, batch, batched, x, amp)
        # batch_first goes to prnn as it is: the batch-major layout
        layout = (_capi.RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED if self.batch_first
                  else _capi.RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED)
        y, hy, cy = self._run(x, h0, c0, weights, layout, steps, [steps] * batch)
        if not batched:
            y = y.squeeze(0 if self.batch_first else 1)
            hy, cy = hy.squeeze(1), cy.squeeze(1)
        return y, (hy, cy)
