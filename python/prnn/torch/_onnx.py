"""ONNX export of prnn's layers as the standard ONNX LSTM, GRU and RNN
operators (one node per layer, as torch.nn's layers export), so that any
ONNX runtime runs them without prnn.

Three ways in, one graph builder (`_build`) written against a small set of
ONNX operators, with an emitter per way:
  - torch.onnx.export(..., dynamo=False): torch.jit.trace records the
    prnn::rnn_forward operator and `_legacy_symbolic` (registered with
    torch.onnx.register_custom_op_symbolic when an export traces a layer)
    turns it into ONNX nodes. PackedSequence input exports as the RNN
    nodes' sequence_lens, as torch.nn's does.
  - torch.onnx.export(..., dynamo=True): the layer's forward, seeing the
    export (torch.onnx.is_in_onnx_export), builds the nodes itself with
    torch operators and torch.onnx.ops.symbolic_multi_out, so that plain
    export needs nothing more.
  - An ExportedProgram that already holds prnn::rnn_forward (torch.export
    of a model with a prnn layer): torch.onnx.export(program,
    custom_translation_table=prnn.torch.onnx_translation_table()), whose
    function builds the nodes with onnxscript.
What ONNX cannot express (SRU; dropout in training mode) raises at export.
"""

import sys
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch

from .. import _capi, _sru_mode

if TYPE_CHECKING:     # the annotations' only: _modules imports this module
    from ._modules import _PrnnRNNBase

# The graph builder's values are torch tensors, TorchScript graph values or onnxscript values
# (neither of the latter two typed), hence Any for them below.

# For each ONNX gate, the torch.nn gate it is: ONNX orders LSTM's gates
# i, o, f, c (torch.nn: i, f, g, o) and GRU's z, r, h (torch.nn: r, z, n).
_ONNX_GATES = {_capi.LSTM: (0, 3, 1, 2), _capi.GRU: (1, 0, 2), _capi.RNN_TANH: (0,),
               _capi.RNN_RELU: (0,)}
_ONNX_OP = {_capi.LSTM: "LSTM", _capi.GRU: "GRU", _capi.RNN_TANH: "RNN", _capi.RNN_RELU: "RNN"}


def exporting() -> bool:
    """Whether torch.onnx.export is running. torch.onnx.is_in_onnx_export()
    says so, except under Dynamo (torch.export's strict mode, the dynamo
    exporter's second attempt), which folds it to False: there the flag it
    reads is read directly."""
    if torch.onnx.is_in_onnx_export():
        return True
    flags = sys.modules.get("torch.onnx._internal.exporter._flags")
    return bool(getattr(flags, "_is_onnx_exporting", False))


def _refuse(mode: int, dropout: float, what: str = "prnn.torch") -> None:
    if _sru_mode.is_sru(mode):
        raise RuntimeError(f"{what}: SRU cannot be exported to ONNX: ONNX has no SRU operator "
                           "(and an SRU written out in elementary ONNX operators would be a "
                           "loop over time); export the model without it")
    if dropout > 0:
        raise RuntimeError(f"{what}: a layer with dropout in training mode cannot be exported "
                           "to ONNX: ONNX's RNN operators have no dropout. Export in eval mode "
                           "(model.eval(), torch.onnx.export's default)")


def tracing_a_layer() -> None:
    """Called while torch.jit.trace records a layer: in a TorchScript ONNX
    export, makes sure the operator's symbolic is registered (what ONNX
    cannot express is refused there, once the trace is done: an exception
    inside the exporter's trace leaves autocast's cache switched off)."""
    if exporting():
        register_symbolic()


def _build(em: "Union[_TorchEmitter, _GraphEmitter, _ScriptEmitter]", x: Any, h0: Any,
           c0: Any, weights: Sequence[Any], seq_lens: Any, mode: int, hidden: int, layers: int,
           dirs: int, has_bias: bool) -> Tuple[Any, Any, Any]:
    """The ONNX nodes of a prnn layer: x time-major [T, B, I] (or packed,
    with seq_lens), h0/c0 [layers * dirs, B, hidden] or None, weights in
    torch.nn's order. Returns (y [T, B, dirs * hidden], h_n, c_n or None)."""
    per = 4 if has_bias else 2
    order = _ONNX_GATES[mode]
    lstm = mode == _capi.LSTM

    def gates(t: Any) -> Any:
        if len(order) == 1:
            return t
        return em.concat([em.rows(t, g * hidden, (g + 1) * hidden) for g in order])

    def stack(ts: List[Any]) -> Any:
        return ts[0] if len(ts) == 1 else em.concat(ts)

    attrs: Dict[str, Any] = {"hidden_size": hidden,
                             "direction": "bidirectional" if dirs == 2 else "forward"}
    if mode in (_capi.RNN_TANH, _capi.RNN_RELU):
        attrs["activations"] = ["Tanh" if mode == _capi.RNN_TANH else "Relu"] * dirs
    if mode == _capi.GRU:
        attrs["linear_before_reset"] = 1      # torch.nn's GRU applies r after R h
    out: Any = x
    hs: List[Any] = []
    cs: List[Any] = []
    for layer in range(layers):
        w: List[Any] = []
        r: List[Any] = []
        b: List[Any] = []
        for d in range(dirs):
            p = weights[(layer * dirs + d) * per:(layer * dirs + d + 1) * per]
            w.append(em.unsqueeze0(gates(p[0])))
            r.append(em.unsqueeze0(gates(p[1])))
            if has_bias:
                b.append(em.unsqueeze0(em.concat([gates(p[2]), gates(p[3])])))
        states = [em.rows(s, layer * dirs, (layer + 1) * dirs) if s is not None else None
                  for s in ((h0, c0) if lstm else (h0,))]
        y, *finals = em.rnn(_ONNX_OP[mode],
                            [out, stack(w), stack(r), stack(b) if has_bias else None, seq_lens,
                             *states], attrs, 3 if lstm else 2)
        # [T, dirs, B, H] -> [T, B, dirs * H]: the Transpose + Reshape or the
        # Squeeze torch.nn's export writes (the TorchScript exporter's
        # PackedSequence pass looks for them)
        out = em.reshape(em.transpose(y, [0, 2, 1, 3]), [0, 0, -1]) if dirs == 2 \
            else em.squeeze1(y)
        hs.append(finals[0])
        if lstm:
            cs.append(finals[1])
    return out, stack(hs), (stack(cs) if lstm else None)


# -- torch.onnx.export(..., dynamo=True): torch operators ----------------------

class _TorchEmitter:
    """The ONNX operators as torch operators (which the exporter turns into
    ONNX), the RNN node through torch.onnx.ops.symbolic_multi_out."""

    def rows(self, t: torch.Tensor, start: int, stop: int) -> torch.Tensor:
        return t[start:stop]

    def concat(self, ts: List[torch.Tensor]) -> torch.Tensor:
        return torch.cat(ts, 0)

    def unsqueeze0(self, t: torch.Tensor) -> torch.Tensor:
        return t.unsqueeze(0)

    def transpose(self, t: torch.Tensor, perm: List[int]) -> torch.Tensor:
        return t.permute(perm)

    def reshape(self, t: torch.Tensor, shape: List[int]) -> torch.Tensor:
        return t.reshape([t.shape[i] if s == 0 else s for i, s in enumerate(shape)])

    def squeeze1(self, t: torch.Tensor) -> torch.Tensor:
        return t.squeeze(1)

    def rnn(self, op: str, inputs: List[Any], attrs: Dict[str, Any],
            n_out: int) -> Sequence[torch.Tensor]:
        x = inputs[0]
        dirs = 2 if attrs["direction"] == "bidirectional" else 1
        state = [dirs, x.shape[1], attrs["hidden_size"]]
        shapes = [[x.shape[0], dirs, x.shape[1], attrs["hidden_size"]]] + [state] * (n_out - 1)
        return torch.onnx.ops.symbolic_multi_out(op, inputs, attrs, dtypes=[x.dtype] * n_out,
                                                 shapes=shapes)


def export_layer(layer: "_PrnnRNNBase", x: torch.Tensor, h0: Optional[torch.Tensor],
                 c0: Optional[torch.Tensor], weights: Sequence[torch.Tensor],
                 batch_sizes: Optional[torch.Tensor],
                 dropout: float) -> Tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
    """The layer's outputs (y, h_n, c_n) during torch.onnx.export(...,
    dynamo=True), as ONNX nodes."""
    name = f"prnn.torch.{type(layer).__name__}"
    _refuse(layer._cell, dropout, name)
    if batch_sizes is not None:
        raise RuntimeError(f"{name}: PackedSequence input exports with torch.onnx.export(..., "
                           "dynamo=False) only (as the RNN nodes' sequence_lens); torch.export "
                           "cannot trace pack_padded_sequence's data-dependent sizes")
    weights = [w.to(x.dtype) for w in weights]
    return _build(_TorchEmitter(), x, h0, c0, weights, None, layer._cell, layer.hidden_size,
                  layer.num_layers, 2 if layer.bidirectional else 1, layer.bias)


# -- torch.onnx.export(..., dynamo=False): the operator's symbolic -------------

class _GraphEmitter:
    """The ONNX operators through the TorchScript exporter's GraphContext
    (g.op), in the form of its opset (Slice, Squeeze and Unsqueeze took
    attributes before opsets 10 and 13)."""

    def __init__(self, g: Any) -> None:
        self.g = g
        self.opset = g.opset

    def _ints(self, values: Sequence[int]) -> Any:
        return self.g.op("Constant", value_t=torch.tensor(values, dtype=torch.int64))

    def rows(self, t: Any, start: int, stop: int) -> Any:
        if self.opset < 10:
            return self.g.op("Slice", t, axes_i=[0], starts_i=[start], ends_i=[stop])
        return self.g.op("Slice", t, self._ints([start]), self._ints([stop]), self._ints([0]))

    def concat(self, ts: Sequence[Any]) -> Any:
        return self.g.op("Concat", *ts, axis_i=0)

    def unsqueeze0(self, t: Any) -> Any:
        if self.opset < 13:
            return self.g.op("Unsqueeze", t, axes_i=[0])
        return self.g.op("Unsqueeze", t, self._ints([0]))

    def transpose(self, t: Any, perm: List[int]) -> Any:
        return self.g.op("Transpose", t, perm_i=perm)

    def reshape(self, t: Any, shape: List[int]) -> Any:
        return self.g.op("Reshape", t, self._ints(shape))

    def squeeze1(self, t: Any) -> Any:
        if self.opset < 13:
            return self.g.op("Squeeze", t, axes_i=[1])
        return self.g.op("Squeeze", t, self._ints([1]))

    def rnn(self, op: str, inputs: List[Any], attrs: Dict[str, Any], n_out: int) -> Any:
        while inputs[-1] is None:
            inputs = inputs[:-1]
        values = [self._none() if v is None else v for v in inputs]
        kwargs = {"hidden_size_i": attrs["hidden_size"], "direction_s": attrs["direction"]}
        if "activations" in attrs:
            kwargs["activations_s"] = attrs["activations"]
        if "linear_before_reset" in attrs:
            kwargs["linear_before_reset_i"] = attrs["linear_before_reset"]
        return self.g.op(op, *values, outputs=n_out, **kwargs)

    def _none(self) -> Any:
        # an omitted optional input, as torch.nn's symbolic writes it
        n = self.g.op("prim::Constant")
        n.setType(torch._C.OptionalType.ofTensor())
        return n


def _is_none(value: Any) -> bool:
    return isinstance(value.type(), torch._C.NoneType)


def _legacy_symbolic(g: Any, x: Any, hx: Any, cx: Any, weights: Any, batch_sizes: Any, seed: Any,
                     cell: int, hidden: int, layers: int, bidirectional: bool, has_bias: bool,
                     dropout: float, train: bool, math: int) -> Tuple[Any, Any, Any, Any]:
    """prnn::rnn_forward's symbolic (its scalar arguments parsed by
    torch.onnx.symbolic_helper.parse_args, see register_symbolic)."""
    _refuse(cell, dropout if train else 0.0, "prnn::rnn_forward")
    if weights.node().kind() != "prim::ListConstruct":
        raise RuntimeError("prnn::rnn_forward: the weights are not a list the exporter can "
                           "read (they must be the layer's parameters or tensors computed "
                           "from them)")
    ws = list(weights.node().inputs())
    h0 = None if _is_none(hx) else hx
    c0 = None if _is_none(cx) else cx
    seq_lens = None if _is_none(batch_sizes) else batch_sizes
    y, hy, cy = _build(_GraphEmitter(g), x, h0, c0, ws, seq_lens, cell, hidden, layers,
                       2 if bidirectional else 1, has_bias)
    empty = g.op("Constant", value_t=torch.zeros(0))
    return y, hy, cy if cy is not None else empty, empty


_registered: bool = False


def register_symbolic() -> None:
    """Registers prnn::rnn_forward's symbolic with the TorchScript ONNX
    exporter (for every opset from 9): done by the layers when an export
    traces them; callable by hand for a module traced before and exported
    later."""
    global _registered
    if not _registered:
        from torch.onnx import symbolic_helper
        symbolic = symbolic_helper.parse_args("v", "v", "v", "v", "v", "v", "i", "i", "i", "b",
                                              "b", "f", "b", "i")(_legacy_symbolic)
        # not in torch.onnx's __all__ (but documented, and there)
        torch.onnx.register_custom_op_symbolic(  # type: ignore[attr-defined]
            "prnn::rnn_forward", symbolic, 9)
        _registered = True


# -- an ExportedProgram's prnn::rnn_forward: onnxscript ------------------------

class _ScriptEmitter:
    """The ONNX operators through onnxscript (the dynamo exporter's custom
    translation functions)."""

    def __init__(self, op: Any) -> None:
        self.op = op

    def _ints(self, values: Sequence[int]) -> Any:
        return self.op.Constant(value_ints=list(values))

    def rows(self, t: Any, start: int, stop: int) -> Any:
        return self.op.Slice(t, self._ints([start]), self._ints([stop]), self._ints([0]))

    def concat(self, ts: Sequence[Any]) -> Any:
        return self.op.Concat(*ts, axis=0)

    def unsqueeze0(self, t: Any) -> Any:
        return self.op.Unsqueeze(t, self._ints([0]))

    def transpose(self, t: Any, perm: List[int]) -> Any:
        return self.op.Transpose(t, perm=perm)

    def reshape(self, t: Any, shape: List[int]) -> Any:
        return self.op.Reshape(t, self._ints(shape))

    def squeeze1(self, t: Any) -> Any:
        return self.op.Squeeze(t, self._ints([1]))

    def rnn(self, op: str, inputs: List[Any], attrs: Dict[str, Any], n_out: int) -> Any:
        while inputs[-1] is None:
            inputs = inputs[:-1]
        return getattr(self.op, op)(*inputs, **attrs)


def _translate_rnn_forward(x, hx, cx, weights, batch_sizes, seed, cell, hidden, layers,
                           bidirectional, has_bias, dropout, train, math):
    # type: (Any, Any, Any, Sequence[Any], Any, Any, int, int, int, bool, bool, float, bool, int) -> Tuple[Any, Any, Any, Any]  # noqa: E501
    # (A type comment, not annotations: the dynamo exporter builds the function's ONNX signature
    # from its annotations; an int one would make `cell` an attribute, not an input.)
    from onnxscript import opset18 as op

    _refuse(cell, dropout if train else 0.0, "prnn::rnn_forward")
    if batch_sizes is not None:
        raise RuntimeError("prnn::rnn_forward: packed input (batch_sizes) cannot be translated "
                           "from an ExportedProgram; export PackedSequence models with "
                           "torch.onnx.export(..., dynamo=False)")
    em = _ScriptEmitter(op)
    y, hy, cy = _build(em, x, hx, cx, list(weights), None, cell, hidden, layers,
                       2 if bidirectional else 1, has_bias)
    # the outputs ONNX has no use for (GRU/RNN's c_n, the training
    # reserve): empty tensors of their types
    empty = op.Shape(x, start=0, end=0)
    return y, hy, cy if cy is not None else op.CastLike(empty, x), op.Cast(empty, to=2)


def onnx_translation_table() -> Dict[torch._ops.OpOverload,
                                        Callable[..., Tuple[Any, Any, Any, Any]]]:
    """{torch.ops.prnn.rnn_forward.default: function} for torch.onnx.export's
    custom_translation_table (dynamo=True): needed only to convert an
    ExportedProgram that already holds prnn's operator, e.g.

        program = torch.export.export(model, (x,))
        torch.onnx.export(program, custom_translation_table=
                          prnn.torch.onnx_translation_table())

    (torch.onnx.export(model, ...) of a module needs no table: the layers
    write ONNX nodes themselves). Needs the onnxscript package."""
    return {torch.ops.prnn.rnn_forward.default: _translate_rnn_forward}
