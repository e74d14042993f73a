"""prnn.torch layers against torch.nn: outputs and every gradient, on the
CPU backend and (when present) the GPU."""


import pytest
import torch
from torch import nn

import prnn.torch as pt

from _oracle import compare, make_pair, run

MODES = ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"]

# (mode, input, hidden, layers, bidirectional, batch_first, bias, lengths, hx)
CASES = [
    ("LSTM", 5, 7, 1, False, False, True, None, False),
    ("LSTM", 5, 7, 2, True, True, True, None, True),
    ("LSTM", 9, 4, 2, False, False, False, [6, 2, 4], True),
    ("LSTM", 3, 6, 3, True, True, True, [6, 6, 1, 3], False),
    ("GRU", 5, 7, 1, False, True, True, None, True),
    ("GRU", 6, 5, 2, True, False, True, [6, 3, 5], True),
    ("GRU", 4, 9, 1, True, False, False, None, False),
    ("RNN_TANH", 5, 7, 2, True, False, True, None, True),
    ("RNN_TANH", 3, 5, 1, False, True, True, [2, 6, 4], False),
    ("RNN_RELU", 5, 7, 2, False, False, True, [6, 5, 1], True),
    ("RNN_RELU", 6, 3, 1, True, True, False, None, True),
]
T, B = 6, 3


def _inputs(case, device, dtype, seed=3):
    mode, i, h, layers, bidir, batch_first, bias, lengths, with_hx = case
    batch = len(lengths) if lengths else B
    g = torch.Generator().manual_seed(seed)
    shape = (batch, T, i) if batch_first else (T, batch, i)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    state = None
    if with_hx:
        dirs = 2 if bidir else 1
        n = 2 if mode == "LSTM" else 1
        state = tuple(torch.randn(layers * dirs, batch, h, generator=g, dtype=torch.float64)
                      for _ in range(n))
    return x, state


def _cast(t, device, dtype):
    return None if t is None else t.to(device, dtype)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:7])) + (
    "-packed" if c[7] else "") + ("-hx" if c[8] else ""))
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_matches_torch_nn(case, dtype, device):
    mode, i, h, layers, bidir, batch_first, bias, lengths, with_hx = case
    ref, layer = make_pair(mode, i, h, layers, bidir, batch_first, bias, device, dtype)
    x, state = _inputs(case, device, dtype)
    expect = run(ref, x, state, lengths, batch_first)
    got = run(layer, x.to(device, dtype),
              None if state is None else tuple(_cast(s, device, dtype) for s in state),
              lengths, batch_first)
    compare(got, expect, dtype, str(case))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_types(mode, dtype, device):
    case = (mode, 8, 16, 2, True, False, True, None, True)
    ref, layer = make_pair(mode, 8, 16, 2, True, False, True, device, dtype)
    # the oracle sees the weights and inputs as rounded to the data type
    ref.load_state_dict({k: v.to(dtype).double() for k, v in ref.state_dict().items()})
    x, state = _inputs(case, device, dtype)
    x = x.to(dtype).double()
    state = tuple(s.to(dtype).double() for s in state)
    expect = run(ref, x, state, None, False)
    got = run(layer, x.to(device, dtype), tuple(s.to(device, dtype) for s in state), None,
              False)
    compare(got, expect, dtype, mode)


def test_unbatched_input(device):
    ref, layer = make_pair("GRU", 4, 5, 2, True, False, True, device, torch.float64)
    x = torch.randn(7, 4, dtype=torch.float64)
    h0 = torch.randn(4, 5, dtype=torch.float64)
    y1, h1 = ref(x, h0)
    y2, h2 = layer(x.to(device), h0.to(device))
    assert y2.shape == y1.shape and h2.shape == h1.shape
    torch.testing.assert_close(y2.cpu(), y1, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(h2.cpu(), h1, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_inference_under_no_grad_and_eval(mode, device):
    ref, layer = make_pair(mode, 6, 8, 2, True, True, True, device, torch.float32)
    x = torch.randn(3, 5, 6, dtype=torch.float64)
    layer.eval()
    with torch.no_grad():
        y, _ = layer(x.to(device, torch.float32))
    assert not y.requires_grad
    torch.testing.assert_close(y.double().cpu(), ref(x)[0].detach(), rtol=1e-4, atol=2e-5)


def test_state_dict_both_ways(device):
    torch.manual_seed(0)
    theirs = nn.LSTM(5, 6, num_layers=2, bidirectional=True).double()
    ours = pt.LSTM(5, 6, num_layers=2, bidirectional=True).double().to(device)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for (n1, p1), (_, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert p1.shape == p2.shape, n1
    ours.load_state_dict(theirs.state_dict())
    assert ours._is_flat()           # loading copies into the flat buffer's views
    x = torch.randn(4, 2, 5, dtype=torch.float64)
    torch.testing.assert_close(ours(x.to(device))[0].cpu(), theirs(x)[0].detach())
    torch.manual_seed(1)
    ours2 = pt.LSTM(5, 6, num_layers=2, bidirectional=True).double()
    theirs.load_state_dict(ours2.state_dict())
    torch.testing.assert_close(theirs(x)[0], ours2(x)[0])


def test_parameters_stay_flat_through_to_and_optimizer(device):
    layer = pt.GRU(4, 6, num_layers=2)
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer.to(device)
    assert layer._is_flat()
    x = torch.randn(5, 3, 4, device=device)
    layer(x)[0].sum().backward()
    opt.step()                        # in-place updates keep the views
    assert layer._is_flat()
    layer.double()
    assert layer._is_flat()
    assert layer.weight_hh_l1.dtype == torch.float64


def test_replaced_parameter_is_repacked(device):
    layer = pt.RNN(3, 4).to(device, torch.float64)
    ref = nn.RNN(3, 4).double()
    ref.load_state_dict(layer.state_dict())
    layer.weight_ih_l0 = nn.Parameter(torch.randn(4, 3, device=device, dtype=torch.float64))
    ref.weight_ih_l0 = nn.Parameter(layer.weight_ih_l0.detach().cpu().clone())
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    with pytest.warns(UserWarning, match="re-packing"):
        y = layer(x.to(device))[0]
    torch.testing.assert_close(y.cpu(), ref(x)[0], rtol=1e-9, atol=1e-9)
    assert layer._is_flat()


def test_from_torch_keeps_configuration():
    for m in (nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True, dropout=0.25),
              nn.GRU(3, 4, bias=False), nn.RNN(3, 4, nonlinearity="relu")):
        p = pt.from_torch(m)
        assert type(p).__name__ == type(m).__name__
        for attr in ("input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional"):
            assert getattr(p, attr) == getattr(m, attr), attr
    assert pt.from_torch(nn.RNN(3, 4, nonlinearity="relu")).nonlinearity == "relu"


def test_clear_errors():
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        pt.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size is for LSTM only"):
        pt.GRU(3, 4, proj_size=2)
    with pytest.raises(TypeError, match="expected torch.nn.LSTM"):
        pt.from_torch(nn.Linear(3, 4))
    layer = pt.LSTM(3, 4)
    with pytest.raises(TypeError, match="float64"):
        layer(torch.randn(2, 1, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="input_size"):
        layer(torch.randn(2, 1, 5))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        layer(torch.randn(2, 1, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4)))
    with pytest.raises(TypeError, match="int32"):
        pt.GRU(3, 4)(torch.randn(2, 1, 3).to(torch.int32))


def test_dropout_is_applied_in_training_and_repeatable(device):
    torch.manual_seed(0)
    layer = pt.LSTM(8, 16, num_layers=3, dropout=0.5).to(device)
    x = torch.randn(5, 4, 8, device=device)
    layer.eval()
    y_eval = layer(x)[0]
    layer.train()
    torch.manual_seed(7)
    y1 = layer(x)[0]
    torch.manual_seed(7)
    y2 = layer(x)[0]
    y3 = layer(x)[0]
    assert torch.equal(y1, y2)                 # the seed comes from torch's generator
    assert not torch.equal(y1, y3)
    assert not torch.equal(y1, y_eval)
    y1.sum().backward()                         # and the backward runs with the same mask
    assert layer.weight_ih_l0.grad is not None


def test_gradcheck_double():
    torch.manual_seed(0)
    for cls in (pt.LSTM, pt.GRU, pt.RNN):
        layer = cls(3, 4, num_layers=2, bidirectional=True).double()
        x = torch.randn(4, 2, 3, dtype=torch.float64, requires_grad=True)
        h0 = torch.randn(4, 2, 4, dtype=torch.float64, requires_grad=True)
        params = list(layer.parameters())

        if cls is pt.LSTM:
            c0 = torch.randn(4, 2, 4, dtype=torch.float64, requires_grad=True)

            def f(x, h0, c0, w):
                y, (h, c) = layer(x, (h0, c0))
                return y, h, c
            args = (x, h0, c0, params[0])
        else:
            def f(x, h0, w):
                y, h = layer(x, h0)
                return y, h
            args = (x, h0, params[0])
        assert torch.autograd.gradcheck(f, args, eps=1e-6, atol=1e-7)


def test_deepcopy_and_pickle(device):
    import copy
    import io
    import warnings as w
    layer = pt.LSTM(3, 5, num_layers=2).to(device)
    x = torch.randn(4, 2, 3, device=device)
    y = layer(x)[0]
    with w.catch_warnings():
        w.simplefilter("error")             # a copy is flat again: no re-packing warning
        twin = copy.deepcopy(layer)
        assert twin._is_flat()
        torch.testing.assert_close(twin(x)[0], y, rtol=0, atol=0)
        buf = io.BytesIO()
        torch.save(layer, buf)
        buf.seek(0)
        loaded = torch.load(buf, weights_only=False)
        torch.testing.assert_close(loaded(x)[0], y, rtol=0, atol=0)
    with torch.no_grad():
        twin.weight_hh_l1.add_(1.0)         # the copy owns its weights
    assert not torch.equal(twin(x)[0], y)


def test_many_sequence_lengths_keep_a_bounded_cache(device):
    layer = pt.GRU(3, 4).to(device)
    for t in range(1, 100):
        layer(torch.randn(t, 2, 3, device=device))
    assert len(layer._problems.entries) <= layer._problems.capacity
    y = layer(torch.randn(1, 2, 3, device=device))[0]     # an evicted shape works again
    assert y.shape == (1, 2, 4)
