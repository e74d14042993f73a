"""prnn.torch.SRU, and its converters from and to the sru package
(asappresearch/sru 2.x: sru.SRU, sru.SRUCell).

The layer has torch.nn's conventions (nn.LSTM's constructor arguments,
per layer and direction parameters, c_0 / c_n shaped (num_layers *
num_directions, batch, hidden_size)); its math is prnn's SRU (prnn.h,
PRNN_SRU) under one of two conventions (prnnSetRNNSRUConvention):

  convention="prnn"  (default) x' = the layer's input where it is
                     hidden_size wide (both directions read all of it),
                     else u3; g = tanh unless activation says otherwise.
  convention="sru"   the sru package's: x' = the input where it is
                     num_directions * hidden_size wide, direction d
                     reading its d-th hidden_size columns, else u3; g the
                     identity unless activation="tanh" (its use_tanh).

highway_scale multiplies x' where x' is the input (the package's
rescale=True multiplies by its scale_x buffer, sqrt(1 + 2 exp(highway_bias))
at initialisation); it is kept as a float32, as scale_x is.

Where the package and prnn parametrize the same layer differently is only
in layout, which from_sru / to_sru translate: the package's weight
(input_size, num_directions * hidden * k) holds, column by column, matrix
q of unit j of direction d at (d * hidden + j) * k + q (sru/ops.py views U
as (length, batch, bidir, d, k)), prnn's weight_ih of a direction is the
(k * hidden, input_size) stack of matrices q = 0..k-1; the package's
weight_c and bias are (2, num_directions, hidden): forget then reset
(highway) gate, which prnn keeps per direction as weight_c = (v_f, v_r)
and bias = (b_f, b_r).
"""

from typing import Any, Dict, List, NoReturn, Optional, Sequence, Tuple, Union

import torch
from torch import nn

from .. import _capi, _sru_mode
from . import _runtime
from ._modules import _PrnnRNNBase


class SRU(_PrnnRNNBase):
    """Simple Recurrent Unit (Lei et al. 2018) on prnn, with torch.nn's
    conventions: the constructor takes nn.LSTM's arguments (no proj_size);
    forward(input, c_0=None) returns (output, c_n), c_0 and c_n shaped
    (num_layers * num_directions, batch, hidden_size) like nn.LSTM's c. Per
    layer and direction: weight_ih (3 * hidden_size, K) stacks the matrices
    of u0 (the candidate), f and r, and a fourth, the highway projection,
    where the layer's input width K is not the highway's (see convention);
    bias holds b_f and b_r (absent with bias=False), weight_c the peepholes
    v_f and v_r. The math (prnn.h, PRNN_SRU): f = sigmoid(u1 + v_f c + b_f),
    r = sigmoid(u2 + v_r c + b_r), c' = f c + (1 - f) u0,
    h = r g(c') + (1 - r) x', with x' the layer's input (times
    highway_scale) or u3.

    Keyword-only: convention "prnn" (x' is the input where K == hidden_size,
    the default) or "sru" (the sru package's: where K == num_directions *
    hidden_size, split across the directions); activation "tanh" or
    "identity" for g (default: tanh for "prnn", identity for "sru", as the
    package's default use_tanh=False); highway_scale, positive (default 1;
    kept as a float32). from_sru converts an sru package module to this
    layer, to_sru back."""
    _mode_name = "SRU"

    def __init__(self, *args: Any, convention: str = "prnn", activation: Optional[str] = None,
                 highway_scale: float = 1.0, **kwargs: Any) -> None:
        if convention not in _sru_mode.CONVENTIONS:
            raise ValueError(f"prnn.torch.SRU: convention = {convention!r}: must be 'prnn' "
                             "(prnn's) or 'sru' (the sru package's)")
        if activation is None:
            activation = "identity" if convention == "sru" else "tanh"
        if activation not in _sru_mode.ACTIVATIONS:
            raise ValueError(f"prnn.torch.SRU: activation = {activation!r}: must be 'tanh' or "
                             "'identity'")
        if isinstance(highway_scale, bool) or not isinstance(highway_scale, (int, float)):
            raise ValueError(f"prnn.torch.SRU: highway_scale = {highway_scale!r}: must be a "
                             "number")
        code = _sru_mode.encode(_sru_mode.CONVENTIONS[convention],
                                _sru_mode.ACTIVATIONS[activation], highway_scale)
        # Set before nn.Module's __init__ (plain attributes are allowed
        # there): the base class's __init__ sizes the parameters by them.
        self.convention = convention
        self.activation = activation
        self.highway_scale = _sru_mode.float32(highway_scale)
        self._code = code
        super().__init__(*args, **kwargs)

    def _cell_code(self) -> int:
        return self._code

    def _parameter_shape(self, name: str) -> Tuple[int, ...]:
        """The shape of parameter `name`: weight_ih (M * hidden, K), with M
        by the convention; bias and weight_c (2 * hidden,)."""
        layer = int(name.split("_l")[-1].split("_")[0])
        h = self.hidden_size
        dirs = 2 if self.bidirectional else 1
        k = self.input_size if layer == 0 else dirs * h
        kind = name.split("_l")[0]
        return {"weight_ih": (_runtime.sru_matrices(k, h, dirs, self._code) * h, k),
                "bias": (2 * h,), "weight_c": (2 * h,)}[kind]

    def extra_repr(self) -> str:
        s = super().extra_repr()
        if self.convention != "prnn":
            s += f", convention={self.convention!r}"
        if self.activation != ("identity" if self.convention == "sru" else "tanh"):
            s += f", activation={self.activation!r}"
        if self.highway_scale != 1.0:
            s += f", highway_scale={self.highway_scale!r}"
        return s

    def __setstate__(self, state: Dict[str, Any]) -> None:
        # pickles of before the conventions existed: prnn's
        state.setdefault("convention", "prnn")
        state.setdefault("activation", "tanh")
        state.setdefault("highway_scale", 1.0)
        state.setdefault("_code", _capi.SRU)
        super().__setstate__(state)


# ---- the sru package -------------------------------------------------------------------------

# The sru package has no type information: its modules and cells are Any here.
def _is_package(module: object, name: str) -> bool:
    t = type(module)
    return t.__name__ == name and t.__module__.split(".")[0] == "sru"


def _refuse(what: str, why: str) -> NoReturn:
    raise ValueError(f"prnn.torch.from_sru: {what}: {why}")


def _package_cells(module: Any) -> List[Any]:
    """The SRUCells of an sru.SRU, an sru.SRUCell, or a list / tuple /
    nn.ModuleList of SRUCells stacked in order; refuses what prnn does not
    compute."""
    if _is_package(module, "SRU"):
        if getattr(module, "input_to_hidden", None) is not None:
            _refuse("proj_input_to_hidden_first=True",
                    "prnn has no input projection before the first layer (apply an "
                    "nn.Linear(input_size, output_size, bias=False) yourself: "
                    "module.input_to_hidden)")
        cells = list(module.rnn_lst)
    elif _is_package(module, "SRUCell"):
        cells = [module]
    elif isinstance(module, (list, tuple, nn.ModuleList)) and len(module) > 0 and \
            all(_is_package(c, "SRUCell") for c in module):
        cells = list(module)
    else:
        raise TypeError("prnn.torch.from_sru: expected an sru.SRU, an sru.SRUCell, or a list of "
                        f"SRUCells (the sru package's), got {type(module).__name__}")
    first = cells[0]
    for i, c in enumerate(cells):
        at = f"layer {i}" if len(cells) > 1 else "the cell"
        if getattr(c, "custom_m", None) is not None:
            _refuse(f"{at} has custom_m", "prnn computes U = x W itself")
        if getattr(c, "projection_size", 0) or getattr(c, "weight_proj", None) is not None:
            _refuse(f"{at} has n_proj / projection_size = {c.projection_size}",
                    "prnn has no factorised projection")
        if getattr(c, "layer_norm", None) is not None:
            _refuse(f"{at} has layer_norm=True", "prnn has no layer normalisation")
        if c.rnn_dropout > 0:
            _refuse(f"{at} has rnn_dropout = {c.rnn_dropout}",
                    "prnn has no variational input dropout (the package deprecates it too)")
        if not c.has_skip_term:
            _refuse(f"{at} has has_skip_term=False", "prnn's SRU always has the highway term")
        if c.v1:
            _refuse(f"{at} has v1=True", "prnn has no frozen-zero weight_c (SRU v1)")
        if c.activation_type not in (0, 1):
            _refuse(f"{at} has activation_type {c.activation_type}",
                    "prnn's g is the identity or tanh")
        if c.hidden_size != first.hidden_size or c.bidirectional != first.bidirectional:
            _refuse(f"{at} has hidden_size {c.hidden_size}, bidirectional {c.bidirectional}",
                    f"layer 0 has {first.hidden_size}, {first.bidirectional}: prnn's layers "
                    "share them")
        if c.activation_type != first.activation_type:
            _refuse(f"{at} has use_tanh {bool(c.activation_type)}",
                    "prnn's layers share one activation")
        if i and c.input_size != cells[i - 1].output_size:
            _refuse(f"{at} has input_size {c.input_size}",
                    f"the layer below outputs {cells[i - 1].output_size}: not a stack")
        if c.weight.dtype != first.weight.dtype or c.weight.device != first.weight.device:
            _refuse(f"{at} is {c.weight.dtype} on {c.weight.device}",
                    f"layer 0 is {first.weight.dtype} on {first.weight.device}")
    return cells


def _package_scale(cells: Sequence[Any]) -> float:
    """The highway scale of the layers whose x' is their input (the package
    scales nothing else): scale_x where rescale, else 1; one value for all
    of them, as prnn has one."""
    scales: Dict[float, List[int]] = {}
    for i, c in enumerate(cells):
        if c.num_matrices == 3:
            s = float(c.scale_x.reshape(-1)[0]) if c.rescale else 1.0
            scales.setdefault(_sru_mode.float32(s), []).append(i)
    if len(scales) > 1:
        _refuse("scale_x", "the layers whose highway is their input have different scales ("
                + ", ".join(f"{s!r} at layers {v}" for s, v in scales.items())
                + "); prnn has one per stack")
    return next(iter(scales), 1.0)


def _dropout_of(cells: Sequence[Any], dropout: Optional[float], who: str) -> Optional[float]:
    used = [c.dropout for c in cells if c.dropout > 0]
    if used and dropout is None:
        raise ValueError(
            f"prnn.torch.{who}: dropout = {used[0]}: the sru package drops out inside the cell "
            "(a mask per sequence and unit, the same at every step, on the (g(c) - x') r term), "
            "prnn between layers (a fresh mask per element of a layer's output); pass "
            "dropout=<p> to use prnn's kind with probability p (0 for none). Evaluation is "
            "unaffected.")
    return dropout


def from_sru(module: Union[nn.Module, Sequence[nn.Module]], *,
             dropout: Optional[float] = None) -> SRU:
    """A prnn.torch.SRU that computes what `module` does (an sru.SRU, an
    sru.SRUCell, or a list of SRUCells; its parameters, device, dtype and
    training mode): convention "sru", its activation (use_tanh) and highway
    scale (scale_x where rescale). The result has torch.nn's interface:
    time-major unless batch_first, c_0 and c_n shaped (num_layers *
    num_directions, batch, hidden_size), as the package's with
    nn_rnn_compatible_return=True (its default c of (num_layers, batch,
    num_directions * hidden_size) is c.view(L, B, D, H).transpose(1, 2)
    .reshape(L * D, B, H) here); its mask_pad is a PackedSequence here.
    Refused, with a message naming the option: layer_norm, n_proj /
    projection_size, custom_m, proj_input_to_hidden_first, rnn_dropout,
    has_skip_term=False, v1, and dropout > 0 unless `dropout` says which
    dropout prnn should use (prnn's kind differs from the package's).
    amp_recurrence_fp16 has no counterpart: prnn's recurrence runs in the
    input's dtype."""
    cells = _package_cells(module)
    first = cells[0]
    dirs = 2 if first.bidirectional else 1
    scale = _package_scale(cells)
    drop = _dropout_of(cells, dropout, "from_sru")
    w = first.weight
    layer = SRU(first.input_size, first.hidden_size, num_layers=len(cells), bias=True,
                dropout=drop or 0.0, bidirectional=first.bidirectional, device=w.device,
                dtype=w.dtype, convention="sru",
                activation="tanh" if first.activation_type else "identity",
                highway_scale=scale)
    h = first.hidden_size
    with torch.no_grad():
        for i, c in enumerate(cells):
            k, m = c.input_size, c.num_matrices
            if m != _runtime.sru_matrices(k, h, dirs, layer._code):
                raise RuntimeError(f"prnn.torch.from_sru: layer {i} has {m} matrices where prnn "
                                   "has " f"{_runtime.sru_matrices(k, h, dirs, layer._code)}")
            weight = c.weight.view(k, dirs, h, m)
            bias, weight_c = c.bias.view(2, dirs, h), c.weight_c.view(2, dirs, h)
            for d in range(dirs):
                sfx = f"_l{i}" + ("_reverse" if d else "")
                getattr(layer, "weight_ih" + sfx).copy_(
                    weight[:, d].permute(2, 1, 0).reshape(m * h, k))
                getattr(layer, "bias" + sfx).copy_(bias[:, d].reshape(2 * h))
                getattr(layer, "weight_c" + sfx).copy_(weight_c[:, d].reshape(2 * h))
    layer.train(module.training if isinstance(module, nn.Module) else first.training)
    return layer


def to_sru(layer: SRU, *, dropout: Optional[float] = None) -> nn.Module:
    """An sru.SRU that computes what `layer` (a prnn.torch.SRU) does, with
    its parameters, device, dtype and training mode: use_tanh for the tanh
    activation, rescale with scale_x = highway_scale where that is not 1.
    Refused: a layer whose highway the package cannot place (prnn's
    convention on a bidirectional layer whose input is hidden_size or
    2 * hidden_size wide, i.e. any deeper bidirectional layer: build it with
    convention="sru"), batch_first (the package is time-major), and
    dropout > 0 unless `dropout` gives the package's (its kind differs from
    prnn's). A layer without bias gets zero biases (the package always has
    them)."""
    if not isinstance(layer, SRU):
        raise TypeError(f"prnn.torch.to_sru: expected a prnn.torch.SRU, got "
                        f"{type(layer).__name__}")
    if layer.batch_first:
        raise ValueError("prnn.torch.to_sru: batch_first=True: the sru package is time-major "
                         "only")
    if layer.dropout > 0 and dropout is None:
        raise ValueError(f"prnn.torch.to_sru: dropout = {layer.dropout}: prnn drops out between "
                         "layers, the sru package inside the cell (a mask per sequence and unit "
                         "on the (g(c) - x') r term); pass dropout=<p> for the package's kind "
                         "with probability p (0 for none)")
    h, dirs, L = layer.hidden_size, 2 if layer.bidirectional else 1, layer.num_layers
    for i in range(L):
        k = layer.input_size if i == 0 else dirs * h
        ours = _runtime.sru_matrices(k, h, dirs, layer._code)
        theirs = 4 if k != dirs * h else 3
        if ours != theirs:
            raise ValueError(
                f"prnn.torch.to_sru: layer {i} (input {k} wide, {'bi' if dirs == 2 else 'uni'}"
                f"directional) has {ours} matrices under convention {layer.convention!r}, the "
                f"sru package's has {theirs}: the package cannot compute this layer (use "
                "convention='sru')")
    # Its import compiles its CPU kernels on first use. No type information: untyped where
    # installed, not found where not (unused-ignore: only one of the two applies).
    import sru as sru_package  # type: ignore[import-untyped,import-not-found,unused-ignore]

    w = layer.weight_ih_l0
    scale = layer.highway_scale
    module = sru_package.SRU(layer.input_size, h, num_layers=L, dropout=dropout or 0.0,
                             bidirectional=layer.bidirectional,
                             use_tanh=layer.activation == "tanh", rescale=scale != 1.0,
                             has_skip_term=True)
    module.to(device=w.device, dtype=w.dtype)
    with torch.no_grad():
        for i, c in enumerate(module.rnn_lst):
            k, m = c.input_size, c.num_matrices
            weight = c.weight.view(k, dirs, h, m)
            bias, weight_c = c.bias.view(2, dirs, h), c.weight_c.view(2, dirs, h)
            for d in range(dirs):
                sfx = f"_l{i}" + ("_reverse" if d else "")
                weight[:, d].copy_(getattr(layer, "weight_ih" + sfx).reshape(m, h, k)
                                   .permute(2, 1, 0))
                b = getattr(layer, "bias" + sfx, None)
                bias[:, d].copy_(b.reshape(2, h) if b is not None else torch.zeros(2, h))
                weight_c[:, d].copy_(getattr(layer, "weight_c" + sfx).reshape(2, h))
            c.scale_x.fill_(scale)
    module.train(layer.training)
    # an sru.SRU: Any (unused-ignore: Any from a failed import, where sru is not installed,
    # is not reported)
    return module  # type: ignore[no-any-return,unused-ignore]

