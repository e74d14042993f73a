"""prnn.torch.LSTM(proj_size=...) against torch.nn.LSTM(proj_size=...):
outputs, states and every gradient (input, h0, c0, each parameter) in
float64 on the CPU (prnn's v8 calls on its CPU reference), over layers,
directions, batch_first, bias and unbatched input; torch.nn's parameter
names; PackedSequence, sorted or not; conversions both ways; and the loud
refusal of CUDA tensors (the GPU engines have no projection yet)."""

import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import prnn.torch as pt

CASES = [  # layers, bidirectional, batch_first, bias, unbatched
    (1, False, False, True, False),
    (1, False, True, True, False),
    (2, True, False, True, False),
    (2, True, True, False, False),
    (3, False, True, True, False),
    (2, True, False, True, True),
]


def _pair(layers, bidirectional, batch_first, bias, seed=0):
    torch.manual_seed(seed)
    ref = nn.LSTM(5, 7, num_layers=layers, bidirectional=bidirectional, proj_size=3,
                  batch_first=batch_first, bias=bias).double()
    return ref, pt.from_torch(ref)


def _loss(y, h, c):
    return (y * torch.sin(y)).sum() + (h * h).sum() + c.sum()


@pytest.mark.parametrize("layers,bidirectional,batch_first,bias,unbatched", CASES)
def test_matches_torch_nn(layers, bidirectional, batch_first, bias, unbatched):
    ref, layer = _pair(layers, bidirectional, batch_first, bias)
    dirs = 2 if bidirectional else 1
    T, B = 6, 4
    x = torch.randn((T, 5) if unbatched else ((B, T, 5) if batch_first else (T, B, 5)),
                    dtype=torch.float64, requires_grad=True)
    states = (layers * dirs,) if unbatched else (layers * dirs, B)
    h0 = torch.randn(states + (3,), dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(states + (7,), dtype=torch.float64, requires_grad=True)
    results = []
    for module in (layer, ref):
        y, (h, c) = module(x, (h0, c0))
        grads = torch.autograd.grad(_loss(y, h, c), [x, h0, c0] + list(module.parameters()))
        results.append(((y, h, c), grads))
    (got, gg), (want, gw) = results
    for a, b in zip(got, want):
        assert a.shape == b.shape
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
    for a, b in zip(gg, gw):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


def test_parameter_names_and_state_dict():
    ref, layer = _pair(2, True, False, True)
    assert [n for n, _ in layer.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert "weight_hr_l1_reverse" in dict(layer.named_parameters())
    for (n, a), (_, b) in zip(layer.named_parameters(), ref.named_parameters()):
        assert a.shape == b.shape, n
    back = pt.to_torch(layer)
    assert back.proj_size == 3
    x = torch.randn(5, 2, 5, dtype=torch.float64)
    torch.testing.assert_close(back(x)[0], ref(x)[0])
    assert isinstance(layer, pt.LSTM) and layer.proj_size == 3


def test_without_states_and_without_grad():
    ref, layer = _pair(1, True, True, True)
    x = torch.randn(3, 4, 5, dtype=torch.float64)
    with torch.no_grad():
        y, (h, c) = layer(x)
        y2, (h2, c2) = ref(x)
    torch.testing.assert_close(y, y2)
    torch.testing.assert_close(h, h2)
    torch.testing.assert_close(c, c2)


def test_float32_gradients_close():
    ref, layer = _pair(2, False, False, True)
    ref, layer = ref.float(), layer.float()
    x = torch.randn(7, 3, 5, requires_grad=True)
    y, _ = layer(x)
    y2, _ = ref(x)
    torch.testing.assert_close(y, y2, rtol=1e-5, atol=1e-6)
    (gx,) = torch.autograd.grad(y.sum(), [x])
    (gx2,) = torch.autograd.grad(y2.sum(), [x])
    torch.testing.assert_close(gx, gx2, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequence(enforce_sorted):
    ref, layer = _pair(2, True, False, True, seed=3)
    lengths = [5, 3, 4, 1] if not enforce_sorted else [5, 4, 3, 1]
    x = torch.randn(5, 4, 5, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(4, 4, 3, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(4, 4, 7, dtype=torch.float64, requires_grad=True)
    results = []
    for module in (layer, ref):
        packed = pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        y, (h, c) = module(packed, (h0, c0))
        grads = torch.autograd.grad(_loss(y.data, h, c), [x, h0, c0] + list(module.parameters()))
        results.append(((y.data, h, c), grads))
    (got, gg), (want, gw) = results
    for a, b in zip(got + gg, want + gw):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


def test_refusals(device):
    layer = pt.LSTM(5, 7, proj_size=3).to(device)
    x = torch.randn(4, 2, 5, device=device)
    if device == "cuda":
        with pytest.raises(NotImplementedError, match="NOT_SUPPORTED"):
            layer(x)
    if device == "cpu":
        with pytest.raises(RuntimeError, match="Expected hidden size"):
            layer(x, (torch.zeros(1, 2, 7), torch.zeros(1, 2, 7)))


def test_constructor_errors():
    """torch.nn.LSTM's rules for proj_size, and a missing hidden_size said
    as such (not as a failed comparison with None)."""
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        pt.LSTM(5, 7, proj_size=7)
    with pytest.raises(TypeError, match="hidden_size"):
        pt.LSTM(5, proj_size=3)
