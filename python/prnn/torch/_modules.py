"""Drop-in replacements for torch.nn.LSTM, GRU and RNN on prnn.

Same constructor arguments, parameter names and shapes, inputs and outputs
as torch.nn's, so state_dicts load both ways. The parameters are views of
one flat buffer in prnn's layout (like torch.nn's cuDNN path keeps its
flat_weights): the layer hands that buffer to prnn as it is, and it is
rebuilt only when the parameters stop being views of it (.to(), a
replaced Parameter), as flatten_parameters() does in torch.nn.
"""

import math
import threading
import warnings

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence

from .. import _capi
from . import _ops, _runtime


class _PrnnRNNBase(nn.Module):
    _mode_name = None

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if proj_size:
            raise ValueError("prnn.torch: proj_size is not supported (prnn has no projection "
                             "layer); use torch.nn.LSTM for projected LSTMs")
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
        factory = {"device": device, "dtype": dtype}
        self._flat_weights_names = _runtime.weight_names(self._cell, num_layers, bidirectional,
                                                         bias)
        self._reset_call_cache()
        for name in self._flat_weights_names:
            setattr(self, name, nn.Parameter(torch.empty(self._parameter_shape(name), **factory)))
        self.reset_parameters()

    def _cell_code(self):
        """The mode value the operators take: the prnnRNNMode_t (SRU's
        carries its conventions: _sru.py)."""
        return _runtime.MODES[self._mode_name]

    def _parameter_shape(self, name):
        """torch.nn's shape of parameter `name` (SRU: _sru.py)."""
        layer = int(name.split("_l")[-1].split("_")[0])
        h = self.hidden_size
        k = self.input_size if layer == 0 else (2 if self.bidirectional else 1) * h
        kind = name.split("_l")[0]
        gh = _runtime.GATES[self._cell] * h
        return {"weight_ih": (gh, k), "weight_hh": (gh, h), "bias_ih": (gh,),
                "bias_hh": (gh,)}[kind]

    # -- torch.nn's conventions -------------------------------------------------

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size)
        with torch.no_grad():
            for w in self.parameters():
                w.uniform_(-stdv, stdv)
        self.flatten_parameters()

    @property
    def _flat_weights(self):
        # the parameter dict directly: Module.__getattr__ costs a failed
        # attribute lookup per name, on every call
        params = self._parameters
        return [params[n] for n in self._flat_weights_names]

    @property
    def all_weights(self):
        per = len(self._flat_weights_names) // (self.num_layers *
                                                (2 if self.bidirectional else 1))
        w = self._flat_weights
        return [w[i:i + per] for i in range(0, len(w), per)]

    def extra_repr(self):
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

    def _layout(self):
        w = self.weight_ih_l0
        return _runtime.WeightLayout(self._cell, _runtime.torch_dtype_code(w.dtype),
                                     self.input_size, self.hidden_size, self.num_layers,
                                     self.bidirectional)

    def _flat_base(self):
        """The flat buffer's address, or None when the parameters are no
        longer views of one buffer in prnn's layout."""
        layout = self._layout()
        return _runtime.flat_base(self._flat_weights, layout.offsets(self._flat_weights_names),
                                  layout.total_elements)

    def _is_flat(self):
        return self._flat_base() is not None

    def flatten_parameters(self):
        """Makes the parameters views of one buffer in prnn's layout (a copy
        of their values; the Parameter objects stay the same, so optimizers
        keep them). Biases that the module does not have stay zero."""
        weights = self._flat_weights
        dtype, device = weights[0].dtype, weights[0].device
        if any(w.dtype != dtype or w.device != device for w in weights):
            return      # forward reports the mismatch
        if dtype not in _runtime.DTYPES or device.type not in ("cpu", "cuda"):
            return
        _, views = self._layout().pack(weights, self._flat_weights_names)
        for w, v in zip(weights, views):
            w.data = v

    def _apply(self, fn, *args, **kwargs):
        result = super()._apply(fn, *args, **kwargs)
        self.flatten_parameters()
        return result

    # -- what eager calls keep ----------------------------------------------------

    def _reset_call_cache(self):
        # (weights' addresses, flat buffer address) once checked, and the
        # Problem of each (thread, device, dtype, shape): prnn handles are
        # per thread (_runtime), so a layer shared by threads keeps one each.
        self._checked_weights = (None, None)
        self._problems = _runtime.ShapeCache()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_checked_weights"] = (None, None)
        state["_problems"] = None     # made anew by __setstate__
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._reset_call_cache()
        self.flatten_parameters()   # a copy's parameters are no longer views

    def _weights_address(self, weights):
        """The flat buffer's address and the weights, checked against the
        weights' own addresses; re-packs (with a warning) when a parameter
        was replaced."""
        ptrs = tuple([w.data_ptr() for w in weights])
        known, base = self._checked_weights
        if ptrs == known:
            return base, weights
        self._check_weights(weights)
        base = self._flat_base()
        if base is None:
            warnings.warn("prnn.torch: the parameters are no longer views of one flat buffer "
                          "(a Parameter was replaced?); re-packing them", stacklevel=3)
            self.flatten_parameters()
            weights = self._flat_weights
            ptrs = tuple(w.data_ptr() for w in weights)
            base = self._flat_base()
        self._checked_weights = (ptrs, base)
        return base, weights

    def _problem(self, x, batch_sizes, dropout):
        shape = (x.shape[0], x.shape[1]) if batch_sizes is None else tuple(batch_sizes.tolist())
        key = (threading.get_ident(), x.device, x.dtype, shape, dropout)
        p = self._problems.get(key)
        if p is None:
            sizes = [x.shape[1]] * x.shape[0] if batch_sizes is None else list(shape)
            p = _runtime.problem(x.device, self._cell, _runtime.torch_dtype_code(x.dtype),
                                 self.input_size, self.hidden_size, self.num_layers,
                                 self.bidirectional, sizes, dropout)
            self._problems.put(key, p)
        return p

    # -- forward ------------------------------------------------------------------

    def _check_input(self, x, w):
        if x.dtype != w.dtype:
            raise TypeError(f"prnn.torch.{type(self).__name__}: input is {x.dtype} but the "
                            f"parameters are {w.dtype} (convert one; prnn runs one data type "
                            "per layer)")
        if x.device != w.device:
            raise ValueError(f"prnn.torch.{type(self).__name__}: input is on {x.device} but the "
                             f"parameters are on {w.device}")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"input.size(-1) must be equal to input_size. Expected "
                             f"{self.input_size}, got {x.shape[-1]}")

    def _check_weights(self, weights):
        w = weights[0]
        for w2 in weights:
            if w2.dtype != w.dtype or w2.device != w.device:
                raise TypeError(f"prnn.torch.{type(self).__name__}: every parameter must have "
                                f"one dtype and device ({w2.dtype} on {w2.device} beside "
                                f"{w.dtype} on {w.device})")

    def forward(self, input, hx=None):
        lstm = self._cell == _capi.LSTM
        sru = _runtime.is_sru(self._cell)
        dirs = 2 if self.bidirectional else 1
        packed = isinstance(input, PackedSequence)
        batch_sizes = sorted_indices = unsorted_indices = None
        if packed:
            x, batch_sizes, sorted_indices, unsorted_indices = input
            batched = True
        else:
            x = input
            if x.dim() not in (2, 3):
                raise ValueError(f"prnn.torch.{type(self).__name__}: expected 2-D (unbatched) "
                                 f"or 3-D input, got {x.dim()}-D")
            batched = x.dim() == 3
            if not batched:
                x = x.unsqueeze(1)
            elif self.batch_first:
                x = x.transpose(0, 1)
            if x.shape[0] == 0 or x.shape[1] == 0:
                raise ValueError(f"prnn.torch.{type(self).__name__}: empty input {tuple(x.shape)}")
        weights = self._flat_weights
        self._check_input(x, weights[0])
        x = x.contiguous()

        h0 = c0 = None
        if hx is not None:
            if lstm:
                if not isinstance(hx, tuple) or len(hx) != 2:
                    raise ValueError("prnn.torch.LSTM: hx must be a tuple (h_0, c_0)")
                h0, c0 = hx
            else:
                h0 = hx
            states = [h0, c0] if lstm else [h0]
            for i, s in enumerate(states):
                if not batched:
                    if s.dim() != 2:
                        raise ValueError("For unbatched input, hx should be 2-D, got "
                                         f"{s.dim()}-D")
                    s = s.unsqueeze(1)
                elif s.dim() != 3:
                    raise ValueError(f"For batched input, hx should be 3-D, got {s.dim()}-D")
                if sorted_indices is not None:
                    s = s.index_select(1, sorted_indices)
                mb = int(batch_sizes[0]) if packed else x.shape[1]
                expect = (self.num_layers * dirs, mb, self.hidden_size)
                if tuple(s.shape) != expect:
                    raise RuntimeError(f"Expected hidden size {expect}, got {tuple(s.shape)}")
                states[i] = s.contiguous().to(x.dtype)
            h0 = states[0]
            c0 = states[1] if lstm else None
            if sru:     # SRU's state is the cell state only: hx is c_0
                h0, c0 = None, h0

        dropout = self.dropout if self.training else 0.0
        needs_grad = torch.is_grad_enabled() and (
            x.requires_grad or any(w.requires_grad for w in weights) or
            (h0 is not None and h0.requires_grad) or (c0 is not None and c0.requires_grad))
        train = needs_grad or dropout > 0
        seed = (torch.randint(0, 2 ** 62, (), dtype=torch.int64)
                if train and dropout > 0 else None)
        args = (self._cell, self.hidden_size, self.num_layers, self.bidirectional,
                self.bias, dropout)
        if torch.compiler.is_compiling():
            self._check_weights(weights)
            y, hy, cy, _ = _ops.rnn_forward(x, h0, c0, weights, batch_sizes, seed, *args, train)
        else:
            # Eager: the operator's work without the dispatcher, with what
            # this layer keeps (its Problem, the checked weight address).
            w_ptr, weights = self._weights_address(weights)
            problem = self._problem(x, batch_sizes, dropout)
            if needs_grad:
                y, hy, cy, _ = _ops.EagerRNN.apply(x, h0, c0, batch_sizes, seed, args, problem,
                                                   w_ptr, *weights)
            else:
                y, hy, cy, _ = _ops.forward_impl(x, h0, c0, weights, batch_sizes, seed, *args,
                                                 train, problem, w_ptr)
        if sru:
            hy = cy     # returned: c_n
        if unsorted_indices is not None:
            hy = hy.index_select(1, unsorted_indices)
            if lstm:
                cy = cy.index_select(1, unsorted_indices)
        if packed:
            output = PackedSequence(y, batch_sizes, sorted_indices, unsorted_indices)
        elif not batched:
            output = y.squeeze(1)
            hy = hy.squeeze(1)
            cy = cy.squeeze(1) if lstm else cy
        else:
            output = y.transpose(0, 1) if self.batch_first else y
        return output, ((hy, cy) if lstm else hy)


class LSTM(_PrnnRNNBase):
    """torch.nn.LSTM on prnn (no proj_size)."""
    _mode_name = "LSTM"


class GRU(_PrnnRNNBase):
    """torch.nn.GRU on prnn."""
    _mode_name = "GRU"


class RNN(_PrnnRNNBase):
    """torch.nn.RNN on prnn: nonlinearity 'tanh' (default) or 'relu'."""

    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self._mode_name = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        self.nonlinearity = nonlinearity
        super().__init__(*args, **kwargs)

    def extra_repr(self):
        s = super().extra_repr()
        return s + (", nonlinearity='relu'" if self.nonlinearity == "relu" else "")


_CLASSES = {nn.LSTM: LSTM, nn.GRU: GRU, nn.RNN: RNN}


def from_torch(module):
    """A prnn.torch layer with `module`'s configuration, weights, device,
    dtype and training mode (module: a torch.nn.LSTM, GRU or RNN)."""
    cls = _CLASSES.get(type(module))
    if cls is None:
        hint = (" (the sru package's: prnn.torch.from_sru converts it)"
                if type(module).__module__.split(".")[0] == "sru" else "")
        raise TypeError(f"prnn.torch.from_torch: expected torch.nn.LSTM, GRU or RNN, got "
                        f"{type(module).__name__}{hint}")
    if getattr(module, "proj_size", 0):
        raise ValueError("prnn.torch.from_torch: proj_size is not supported by prnn")
    w = next(module.parameters())
    kwargs = dict(num_layers=module.num_layers, bias=module.bias,
                  batch_first=module.batch_first, dropout=module.dropout,
                  bidirectional=module.bidirectional, device=w.device, dtype=w.dtype)
    if cls is RNN:
        kwargs["nonlinearity"] = module.nonlinearity
    layer = cls(module.input_size, module.hidden_size, **kwargs)
    layer.load_state_dict(module.state_dict())
    layer.train(module.training)
    return layer
