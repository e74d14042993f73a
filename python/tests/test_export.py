"""Export and deployment paths: ONNX (both exporters) as standard ONNX
LSTM/GRU/RNN nodes that onnxruntime runs, torch.jit.trace recording the
prnn::rnn_forward operator (never a graph that returns garbage),
torch.jit.script refusing with a clear message, torch.export. On the CPU
(the issue's scope for ONNX)."""

import io
import warnings

import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import prnn.torch as pt

onnx = pytest.importorskip("onnx", reason="the ONNX tests need onnx (pip install onnx)")
ort = pytest.importorskip("onnxruntime", reason="the ONNX tests need onnxruntime")

# (class, constructor arguments, initial state)
CASES = [
    (pt.LSTM, dict(num_layers=2, bidirectional=True), True),
    (pt.LSTM, dict(bias=False, batch_first=True), False),
    (pt.GRU, dict(num_layers=2), True),
    (pt.GRU, dict(bidirectional=True, batch_first=True), False),
    (pt.RNN, dict(nonlinearity="relu", bidirectional=True), True),
    (pt.RNN, dict(num_layers=3), False),
]
IDS = [f"{c.__name__}-{'-'.join(f'{k}={v}' for k, v in kw.items())}-{'hx' if hx else 'nohx'}"
       for c, kw, hx in CASES]


class _WithState(nn.Module):
    """The layer with its initial state as graph inputs (LSTM's as two)."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h0=None, c0=None):
        hx = h0 if c0 is None else (h0, c0)
        y, h = self.rnn(x, hx)
        return (y, *h) if isinstance(h, tuple) else (y, h)


def _inputs(cls, kw, with_state, batch=3, steps=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn((batch, steps, 4) if kw.get("batch_first") else (steps, batch, 4),
                    generator=g)
    if not with_state:
        return (x,)
    n = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    states = [torch.randn(n, batch, 6, generator=g) for _ in range(2 if cls is pt.LSTM else 1)]
    return (x, *states)


def _onnx_run(model_bytes, inputs):
    sess = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    assert len(names) == len(inputs), names
    return [torch.from_numpy(o) for o in sess.run(None, {n: t.numpy() for n, t in
                                                        zip(names, inputs)})]


def _export(model, args, dynamo, **kwargs):
    if dynamo:
        pytest.importorskip("onnxscript", reason="the dynamo exporter needs onnxscript")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, verbose=False, **kwargs)
            return program.model_proto.SerializeToString()
        f = io.BytesIO()
        torch.onnx.export(model, args, f, dynamo=False, **kwargs)
        return f.getvalue()


def _rnn_nodes(model_bytes):
    graph = onnx.load_from_string(model_bytes).graph
    return [n for n in graph.node if n.op_type in ("LSTM", "GRU", "RNN")]


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("cls,kw,with_state", CASES, ids=IDS)
def test_onnx_export_as_standard_rnn_nodes(cls, kw, with_state, dynamo):
    torch.manual_seed(0)
    model = _WithState(cls(4, 6, **kw)).eval()
    args = _inputs(cls, kw, with_state)
    data = _export(model, args, dynamo)
    nodes = _rnn_nodes(data)
    assert len(nodes) == kw.get("num_layers", 1)            # one standard node per layer
    assert {n.op_type for n in nodes} == {{pt.LSTM: "LSTM", pt.GRU: "GRU",
                                            pt.RNN: "RNN"}[cls]}
    assert not [n for n in onnx.load_from_string(data).graph.node if "prnn" in n.op_type]
    with torch.no_grad():
        expect = model(*args)
    got = _onnx_run(data, args)
    assert len(got) == len(expect)
    for a, b in zip(got, expect):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    # the graph is general: other inputs of the same shape
    other = _inputs(cls, kw, with_state, seed=1)
    with torch.no_grad():
        expect = model(*other)
    for a, b in zip(_onnx_run(data, other), expect):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


class _Packed(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, lengths, h0):
        p = pack_padded_sequence(x, lengths, enforce_sorted=False)
        y, h = self.rnn(p, h0)
        y, _ = pad_packed_sequence(y, total_length=x.shape[0])
        return y, h


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU])
def test_onnx_packed_sequence_becomes_sequence_lens(cls):
    """PackedSequence input exports (TorchScript exporter) as the RNN nodes'
    sequence_lens, as torch.nn's does, and the graph follows other lengths."""
    torch.manual_seed(0)
    model = _Packed(cls(3, 5, num_layers=2, bidirectional=True)).eval()
    x = torch.randn(6, 3, 3)
    h = torch.randn(4, 3, 5)
    h0 = (h, torch.randn(4, 3, 5)) if cls is pt.LSTM else h
    lengths = torch.tensor([6, 2, 4])
    data = _export(model, (x, lengths, h0), dynamo=False)
    for node in _rnn_nodes(data):
        assert node.input[4], "sequence_lens not wired"
    flat = (x, lengths, *(h0 if isinstance(h0, tuple) else (h0,)))
    for lens in (lengths, torch.tensor([3, 6, 1])):
        with torch.no_grad():
            y, hy = model(x, lens, h0)
        expect = [y, *(hy if isinstance(hy, tuple) else (hy,))]
        got = _onnx_run(data, (x, lens, *flat[2:]))
        for a, b in zip(got, expect):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_onnx_refuses_what_onnx_cannot_express(dynamo):
    sru = pt.SRU(4, 4).eval()
    x = torch.randn(5, 2, 4)
    with pytest.raises(Exception, match="SRU cannot be exported to ONNX"):
        _export(sru, (x,), dynamo)
    lstm = pt.LSTM(4, 4, num_layers=2, dropout=0.3).train()
    with pytest.raises(Exception, match="dropout in training mode"):
        _export(lstm, (x,), dynamo, training=torch.onnx.TrainingMode.TRAINING) \
            if not dynamo else _export(lstm, (x,), dynamo)
    # refused after the trace: an exception inside the TorchScript exporter's
    # trace leaves autocast's cache off for the rest of the process
    assert torch.is_autocast_cache_enabled()


def test_exported_program_converts_with_the_translation_table():
    """An ExportedProgram holding prnn::rnn_forward converts to ONNX with
    prnn.torch.onnx_translation_table() (and says what is missing
    without it)."""
    pytest.importorskip("onnxscript")
    torch.manual_seed(0)
    model = _WithState(pt.LSTM(4, 6, num_layers=2, bidirectional=True)).eval()
    args = _inputs(pt.LSTM, dict(num_layers=2, bidirectional=True), True)
    program = torch.export.export(model, args)
    assert any(n.target == torch.ops.prnn.rnn_forward.default for n in program.graph.nodes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx_program = torch.onnx.export(program, custom_translation_table=
                                         pt.onnx_translation_table(), verbose=False)
    data = onnx_program.model_proto.SerializeToString()
    assert len(_rnn_nodes(data)) == 2
    with torch.no_grad():
        expect = model(*args)
    for a, b in zip(_onnx_run(data, args), expect):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


# -- torch.jit, torch.export ----------------------------------------------------

@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.SRU])
def test_jit_trace_records_the_operator(cls, device):
    """The trace holds prnn::rnn_forward, so the traced module computes what
    the layer computes on new inputs, gradients included (it used to
    return uninitialised memory)."""
    torch.manual_seed(0)
    layer = cls(3, 4, num_layers=2, bidirectional=True).to(device)
    x = torch.randn(5, 2, 3, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(layer, (x,), check_trace=False)
    assert "prnn::rnn_forward" in str(traced.graph)
    x2 = torch.randn(5, 2, 3, device=device, requires_grad=True)
    x3 = x2.detach().clone().requires_grad_(True)
    y_traced, y_eager = traced(x2)[0], layer(x3)[0]
    torch.testing.assert_close(y_traced, y_eager, rtol=0, atol=0)
    y_traced.square().sum().backward()
    y_eager.square().sum().backward()
    torch.testing.assert_close(x2.grad, x3.grad, rtol=1e-6, atol=1e-6)


def test_jit_script_refuses_clearly():
    with pytest.raises(RuntimeError, match="cannot be compiled by torch.jit.script"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.jit.script(nn.Sequential(nn.Linear(3, 3), pt.GRU(3, 4)))


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.SRU])
def test_torch_export_keeps_working(cls, device):
    torch.manual_seed(0)
    model = _WithState(cls(3, 4, num_layers=2)).to(device).eval()
    x = torch.randn(5, 2, 3, device=device)
    program = torch.export.export(model, (x,))
    x2 = torch.randn(5, 2, 3, device=device)
    with torch.no_grad():
        for a, b in zip(program.module()(x2), model(x2)):
            torch.testing.assert_close(a, b, rtol=0, atol=0)
