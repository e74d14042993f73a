"""batch_first LSTM/GRU/RNN input in eager mode goes to prnn as it is
(the v8 calls, BATCH_MAJOR_UNPACKED, no transpose copies); the other
paths keep the time-major v5 calls. Outputs and every gradient against
torch.nn, which calls prnn's C function, dropout's reproducibility, the
kept ProblemV8."""

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence

import prnn.torch as pt
from prnn import _capi, _descriptors_v8
from prnn._descriptors_v8 import ProblemV8
from prnn.torch import _ops, _runtime

from _oracle import compare, make_pair, run

V5 = ("prnnRNNForwardTraining", "prnnRNNForwardInference", "prnnRNNBackwardData",
      "prnnRNNBackwardWeights")
V8 = ("prnnRNNForward", "prnnRNNBackwardData_v8", "prnnRNNBackwardWeights_v8")
BATCH_MAJOR = _capi.RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED


@pytest.fixture
def calls(monkeypatch):
    """The compute calls made, as (name, args): every C call goes through
    _capi.call (the v5 calls through _ops' name for it)."""
    made = []
    real = _capi.call

    def spy(name, *args):
        if name in V5 or name in V8:
            made.append((name, args))
        return real(name, *args)
    monkeypatch.setattr(_capi, "call", spy)
    monkeypatch.setattr(_ops, "call", spy)
    return made


def _names(calls):
    return [name for name, _ in calls]


# (mode, input, hidden, layers, bidirectional, hx)
CASES = [
    ("LSTM", 5, 7, 1, False, False),
    ("LSTM", 5, 7, 2, True, True),
    ("LSTM", 4, 6, 2, False, True),
    ("GRU", 5, 7, 1, True, True),
    ("GRU", 6, 5, 2, True, False),
    ("RNN_TANH", 5, 7, 2, True, True),
    ("RNN_TANH", 3, 4, 1, False, False),
    ("RNN_RELU", 6, 3, 2, False, True),
]


def _state(mode, layers, bidir, batch, hidden, g):
    dirs = 2 if bidir else 1
    return tuple(torch.randn(layers * dirs, batch, hidden, generator=g, dtype=torch.float64)
                 for _ in range(2 if mode == "LSTM" else 1))


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_matches_torch_nn_through_the_v8_calls(case, dtype, device, calls):
    mode, i, h, layers, bidir, with_hx = case
    ref, layer = make_pair(mode, i, h, layers, bidir, True, True, device, dtype)
    g = torch.Generator().manual_seed(5)
    batch, steps = 3, 6
    x = torch.randn(batch, steps, i, generator=g, dtype=torch.float64)
    state = _state(mode, layers, bidir, batch, h, g) if with_hx else None
    expect = run(ref, x, state, None, True)
    got = run(layer, x.to(device, dtype),
              None if state is None else tuple(s.to(device, dtype) for s in state), None, True)
    compare(got, expect, dtype, str(case))
    assert _names(calls) == list(V8)
    out = got["out"]
    assert out.shape == (batch, steps, (2 if bidir else 1) * h) and out.is_contiguous()


def test_x_and_y_are_the_callers_memory(device, calls):
    """No transpose copy: prnnRNNForward reads x's own memory and writes
    the very tensor returned, batch-major."""
    layer = pt.GRU(4, 5, num_layers=2, batch_first=True).to(device)
    x = torch.randn(3, 7, 4, device=device, requires_grad=True)
    y, _ = layer(x)
    (name, args), = [c for c in calls if c[0] == "prnnRNNForward"]
    assert args[5] == x.data_ptr()
    assert args[7] == y.data_ptr() and y.is_contiguous() and y.shape == (3, 7, 5)
    dy = torch.randn_like(y)
    y.backward(dy)
    (_, args), = [c for c in calls if c[0] == "prnnRNNBackwardData_v8"]
    assert args[4] == y.data_ptr() and args[5] == dy.data_ptr()     # dy as it is too


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
def test_inference_and_training_modes(mode, device, calls):
    _, layer = make_pair(mode, 4, 6, 2, True, True, True, device, torch.float32)
    x = torch.randn(2, 5, 4, device=device)
    with torch.no_grad():
        layer(x)
    assert calls[-1][0] == "prnnRNNForward" and calls[-1][1][2] == _capi.FWD_MODE_INFERENCE
    y, _ = layer(x)
    assert calls[-1][0] == "prnnRNNForward" and calls[-1][1][2] == _capi.FWD_MODE_TRAINING
    assert y.requires_grad


def test_gradients_only_where_asked(device, calls):
    """Frozen weights: no BackwardWeights; x without grad but h_0 with:
    h_0's gradient only, dx not asked for (layer 0's input product
    skipped); as on the v5 path."""
    ref, layer = make_pair("LSTM", 3, 4, 2, False, True, True, device, torch.float64)
    for p in layer.parameters():
        p.requires_grad_(False)
    x = torch.randn(2, 5, 3, dtype=torch.float64, device=device, requires_grad=True)
    y, _ = layer(x)
    y.sum().backward()
    assert "prnnRNNBackwardWeights_v8" not in _names(calls)
    x_ref = x.detach().cpu().requires_grad_()
    ref(x_ref)[0].sum().backward()
    torch.testing.assert_close(x.grad.cpu(), x_ref.grad)
    for p in layer.parameters():
        p.requires_grad_(True)
    h0 = torch.randn(2, 2, 4, dtype=torch.float64, device=device, requires_grad=True)
    c0 = torch.zeros(2, 2, 4, dtype=torch.float64, device=device)
    y, (h, c) = layer(x.detach(), (h0, c0))
    calls.clear()
    h.sum().backward()
    data = [args for name, args in calls if name == "prnnRNNBackwardData_v8"]
    assert len(data) == 1 and data[0][7] is None     # dx NULL
    h0_ref = h0.detach().cpu().requires_grad_()
    ref.zero_grad()
    ref(x.detach().cpu(), (h0_ref, c0.cpu()))[1][0].sum().backward()
    torch.testing.assert_close(h0.grad.cpu(), h0_ref.grad)
    for (name, p), q in zip(layer.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad.cpu(), q.grad, msg=name)


def _twins(cls, **kwargs):
    """A time-major layer and a batch_first one with the same weights."""
    torch.manual_seed(0)
    a = cls(4, 6, num_layers=3, dropout=0.5, bidirectional=True, **kwargs).double()
    b = cls(4, 6, num_layers=3, dropout=0.5, bidirectional=True, batch_first=True,
            **kwargs).double()
    b.load_state_dict(a.state_dict())
    return a, b


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.RNN])
def test_dropout_is_repeatable_and_the_time_major_mask(cls, device, calls):
    """The seed comes from torch's generator, as on the time-major path,
    and prnn's mask is defined on the time-major rows whatever the layout:
    the same seed drops the same elements in both, forward and backward
    (a backward after another call's forward runs with its own mask)."""
    a, b = (m.to(device) for m in _twins(cls))
    x = torch.randn(5, 3, 4, dtype=torch.float64, device=device)
    xb = x.transpose(0, 1).contiguous().requires_grad_()
    torch.manual_seed(7)
    y1, _ = b(xb)
    torch.manual_seed(7)
    y2, _ = b(xb)
    y3, _ = b(xb)
    assert torch.equal(y1, y2) and not torch.equal(y1, y3)
    b.eval()
    with torch.no_grad():
        assert not torch.equal(b(xb)[0], y1)
    assert "prnnRNNForwardTraining" not in _names(calls)
    xa = x.clone().requires_grad_()
    torch.manual_seed(7)
    ya, _ = a(xa)
    torch.testing.assert_close(y1, ya.transpose(0, 1), rtol=0, atol=1e-12)
    r = torch.randn_like(ya)
    ya.backward(r)
    y1.backward(r.transpose(0, 1))      # after y2's and y3's forwards (other seeds)
    torch.testing.assert_close(xb.grad, xa.grad.transpose(0, 1), rtol=0, atol=1e-12)
    for (name, p), q in zip(b.named_parameters(), a.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=0, atol=1e-12, msg=name)


def test_problem_v8_is_kept(device):
    """One ProblemV8 per shape, kept as the v5 Problems are (keyed by the
    layout too); dropout's seeded copies are not kept."""
    a, b = (m.to(device) for m in _twins(pt.GRU))
    x = torch.randn(3, 5, 4, dtype=torch.float64, device=device)
    for _ in range(3):
        b(x)[0].sum().backward()
    b(x[:, :2])
    kept = [(k, p) for k, p in b._problems.entries.items() if k[-1] == BATCH_MAJOR]
    assert len(kept) == 2 and all(isinstance(p, ProblemV8) for _, p in kept)
    assert sorted(k[3] for k, _ in kept) == [(3, 2), (3, 5)]
    b(x)[0].sum().backward()        # the same objects serve again
    assert all(b._problems.entries[k] is p for k, p in kept)
    assert len(b._problems.entries) == 2
    a(x.transpose(0, 1))           # the time-major layer keeps a v5 Problem
    assert [k[-1] for k in a._problems.entries] == [None]


def test_the_flat_buffer_is_the_v8_weight_space():
    for mode in (_capi.LSTM, _capi.GRU, _capi.RNN_TANH, _capi.RNN_RELU):
        for dtype in _runtime.DTYPES.values():
            for layers, bidir in ((1, False), (2, True), (3, False)):
                assert _runtime.WeightLayout(mode, dtype, 5, 7, layers,
                                             bidir).is_v8_weight_space()
    assert not _runtime.WeightLayout(_capi.SRU, _capi.DATA_FLOAT, 5, 7, 1,
                                     False).is_v8_weight_space()


def test_another_weight_space_layout_keeps_the_v5_calls(monkeypatch, calls):
    """Where the flat buffer were not the v8 weight space, the layer would
    transpose instead of handing prnn a buffer in the wrong layout."""
    monkeypatch.setattr(_runtime.WeightLayout, "is_v8_weight_space", lambda self: False)
    ref, layer = make_pair("LSTM", 3, 4, 2, True, True, True, "cpu", torch.float64)
    x = torch.randn(2, 5, 3, dtype=torch.float64)
    compare(run(layer, x, None, None, True), run(ref, x, None, None, True), torch.float64)
    assert _names(calls) == ["prnnRNNForwardTraining", "prnnRNNBackwardData",
                             "prnnRNNBackwardWeights"]


def test_other_paths_keep_the_transpose(device, calls):
    """Packed, unbatched and time-major input, SRU, and torch.func.grad
    keep the v5 calls (time-major; the operator's path is test_compile's)."""
    layer = pt.GRU(3, 4, batch_first=True).double().to(device)
    x = torch.randn(2, 5, 3, dtype=torch.float64, device=device)
    layer(pack_padded_sequence(x, [5, 3], batch_first=True))
    layer(x[0])
    pt.GRU(3, 4).double().to(device)(x)
    pt.SRU(3, 4, batch_first=True).double().to(device)(x)
    params = dict(layer.named_parameters())
    torch.func.grad(lambda p: torch.func.functional_call(layer, p, (x,))[0].sum())(params)
    assert set(_names(calls)) <= set(V5)


def test_autocast_runs_batch_major(calls):
    """Under autocast the layer runs batch-major in autocast's type, as the
    time-major layer does, and the weights' gradients come back in theirs."""
    torch.manual_seed(0)
    a = pt.LSTM(4, 8, num_layers=2)
    b = pt.LSTM(4, 8, num_layers=2, batch_first=True)
    b.load_state_dict(a.state_dict())
    x = torch.randn(3, 6, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        yb, (hb, _) = b(x)
        ya, (ha, _) = a(x.transpose(0, 1))
    assert yb.dtype == torch.bfloat16 and yb.shape == (3, 6, 8) and yb.is_contiguous()
    assert "prnnRNNForward" in _names(calls)
    torch.testing.assert_close(yb, ya.transpose(0, 1), rtol=0, atol=0)
    torch.testing.assert_close(hb, ha, rtol=0, atol=0)
    (yb.float().sum() + hb.float().sum()).backward()
    (ya.float().sum() + ha.float().sum()).backward()
    for (name, p), q in zip(b.named_parameters(), a.parameters()):
        assert p.grad.dtype == torch.float32
        torch.testing.assert_close(p.grad, q.grad, msg=name)


def test_inference_plans_no_training(monkeypatch):
    """An inference-only shape asks prnn for the inference sizes only (on
    the GPU that plans no training kernels), as the v5 Problem does; its
    first training call then asks for the training ones."""
    modes = []
    real = _capi.call

    def spy(name, *args):
        if name == "prnnGetRNNTempSpaceSizes":
            modes.append(args[2])
        return real(name, *args)
    layer = pt.LSTM(3, 4, num_layers=2, batch_first=True)
    layer._layout().is_v8_weight_space()        # (its own check, on the CPU handle)
    monkeypatch.setattr(_descriptors_v8, "call", spy)
    x = torch.randn(2, 5, 3)
    with torch.no_grad():
        layer(x)
    assert modes and _capi.FWD_MODE_TRAINING not in modes
    layer(x)[0].sum().backward()
    assert _capi.FWD_MODE_TRAINING in modes
