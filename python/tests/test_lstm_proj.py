"""prnn.torch.LSTM(proj_size=...) against torch.nn.LSTM(proj_size=...):
outputs, states and every gradient (input, h0, c0, each parameter) in
float64 on the CPU (prnn's v8 calls on its CPU reference), over layers,
directions, batch_first, bias and unbatched input; torch.nn's parameter
names; PackedSequence, sorted or not; conversions both ways. On every
device (the GPU's tests skip without one): float32, float16 and bfloat16
against torch.nn on the same device, autocast, dropout, the TF32 switch,
torch's current stream, and the device and shape checks."""

import ctypes

import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import prnn.torch as pt
from prnn import _capi
from prnn.torch import _lstmp, _precision, _runtime

from _oracle import compare, run

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


def test_kept_specs(monkeypatch):
    """A shape's descriptors (_Spec) are made once and reused while nothing
    they come from changes: the module's configuration, recording, the math
    type, dtype and device (_apply drops them); with dropout, each call a
    seeded copy of the kept one (the seeds differ, the kept descriptor is
    never re-seeded); results stay torch.nn's through weight changes in
    place, and the module copies and pickles without them."""
    import copy
    import pickle
    made = []

    class counting(_lstmp._Spec):
        def __init__(self, *args, **kwargs):
            made.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(_lstmp, "_Spec", counting)
    ref, layer = _pair(2, True, True, True, seed=5)
    x = torch.randn(4, 6, 5, dtype=torch.float64)
    with torch.no_grad():
        layer(x)
        layer(x)
        assert len(made) == 1
        layer(x[:, :3])                             # another length
        assert len(made) == 2
        for module in (layer, ref):                 # weights changed in place
            module.weight_hh_l0.mul_(0.5)
            module.bias_ih_l1_reverse.add_(0.25)
        y, (h, c) = layer(x)
        assert len(made) == 2
        y2, (h2, c2) = ref(x)
        for a, b in ((y, y2), (h, h2), (c, c2)):
            torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)
    layer(x.requires_grad_())[0].sum().backward()    # recorded: its own
    layer(x)[0].sum().backward()
    assert len(made) == 3
    monkeypatch.setattr(_precision, "math_type", lambda *a: _capi.TF32_RECURRENCE_MATH)
    with torch.no_grad():
        layer(x)                                    # another math type
    assert len(made) == 4
    monkeypatch.undo()
    monkeypatch.setattr(_lstmp, "_Spec", counting)
    for clone in (copy.deepcopy(layer), pickle.loads(pickle.dumps(layer))):
        assert "_specs" not in clone.__dict__
        with torch.no_grad():
            torch.testing.assert_close(clone(x)[0], y, rtol=0, atol=0)
    layer.float()                                   # _apply drops them
    assert "_specs" not in layer.__dict__
    dropped = pt.LSTM(5, 7, num_layers=2, dropout=0.5, proj_size=3).double().train()
    made.clear()
    seeded = []
    real_for_call = _lstmp._Spec.for_call

    def for_call(spec):
        call = real_for_call(spec)
        seeded.append((spec.p.rnn, call.p.rnn))      # (kept alive: compared by identity)
        return call
    monkeypatch.setattr(_lstmp._Spec, "for_call", for_call)
    with torch.no_grad():
        a = dropped(x.detach())[0]
        b = dropped(x.detach())[0]
    assert len(made) == 1                           # kept; a seed a call
    (kept, first), (kept2, second) = seeded
    assert kept is kept2 and len({id(kept), id(first), id(second)}) == 3
    assert not torch.equal(a, b)                    # two masks
    dropped.eval()
    with torch.no_grad():
        dropped(x.detach())
        dropped(x.detach())
    assert len(made) == 2


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
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        layer(x, (torch.zeros(1, 2, 7, device=device), torch.zeros(1, 2, 7, device=device)))
    with pytest.raises(TypeError, match="float64"):
        layer(x.double())
    if device == "cuda":
        with pytest.raises(RuntimeError, match="not at the same device"):
            layer(x.cpu())
        with pytest.raises(TypeError, match="hidden state"):
            layer(x, (torch.zeros(1, 2, 3), torch.zeros(1, 2, 7, device=device)))


# -- every device: torch.nn on the same device -------------------------------------

# layers, bidirectional, batch_first, lengths (a PackedSequence of them, else padded)
DEVICE_CASES = [
    (1, False, False, None),
    (2, True, False, None),
    (2, False, True, None),
    (1, True, True, [6, 2, 4]),
    (2, True, False, [6, 6, 1, 3]),
]
IN, H, P, T, B = 8, 16, 5, 6, 3


def _device_case_id(case):
    layers, bidirectional, batch_first, lengths = case
    return f"l{layers}" + ("-bi" if bidirectional else "") + ("-bf" if batch_first else "") + \
        ("-packed" if lengths else "")


def _device_pair(layers, bidirectional, batch_first, device, dtype, seed=0):
    """torch.nn's layer in float32 on `device`, its parameters rounded to
    `dtype` (the values prnn's layer holds), and prnn's in `dtype`."""
    torch.manual_seed(seed)
    ref = nn.LSTM(IN, H, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first,
                  proj_size=P)
    with torch.no_grad():     # torch.nn's biases start uniform; make them clearly nonzero
        for name, p in ref.named_parameters():
            if name.startswith("bias"):
                p.uniform_(-0.5, 0.5)
            p.copy_(p.to(dtype).float())
    layer = pt.from_torch(ref).to(device, dtype)
    return ref.to(device), layer


def _device_inputs(case, dtype, seed=3):
    """x, (h0, c0): seeded, rounded to `dtype`, in float32 on the CPU."""
    layers, bidirectional, batch_first, lengths = case
    batch = len(lengths) if lengths else B
    g = torch.Generator().manual_seed(seed)
    x = torch.randn((batch, T, IN) if batch_first else (T, batch, IN), generator=g)
    ld = layers * (2 if bidirectional else 1)
    state = (torch.randn(ld, batch, P, generator=g), torch.randn(ld, batch, H, generator=g))
    return x.to(dtype).float(), tuple(s.to(dtype).float() for s in state)


@pytest.mark.parametrize("case", DEVICE_CASES, ids=_device_case_id)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_matches_torch_nn_on_device(case, dtype, device):
    """Outputs, h_n, c_n and the gradients of the input, h_0, c_0 and every
    parameter against torch.nn.LSTM(proj_size) on the same device, which
    runs in float32 on the values rounded to `dtype` (prnn's half types
    are compared with exact math on what they hold, at _oracle's
    tolerances, relative to the largest value)."""
    layers, bidirectional, batch_first, lengths = case
    ref, layer = _device_pair(layers, bidirectional, batch_first, device, dtype)
    x, state = _device_inputs(case, dtype)
    expect = run(ref, x.to(device), tuple(s.to(device) for s in state), lengths, batch_first)
    got = run(layer, x.to(device, dtype), tuple(s.to(device, dtype) for s in state), lengths,
              batch_first)
    compare(got, expect, dtype, _device_case_id(case))
    assert got["out"].dtype == dtype and got["dweight_hr_l0"].dtype == dtype


AMP_DTYPE = {"cpu": torch.bfloat16, "cuda": torch.float16}


def test_autocast_runs_in_the_autocast_dtype(device):
    """Under autocast the layer runs in autocast's dtype (as prnn.torch's
    other layers: test_amp.py), equal to the layer converted by hand, with
    the gradients reaching the fp32 parameters and states; on the GPU also
    close to torch.nn.LSTM under autocast (cuDNN in float16)."""
    dtype = AMP_DTYPE[device]
    torch.manual_seed(0)
    ref = nn.LSTM(IN, H, num_layers=2, bidirectional=True, proj_size=P).to(device)
    layer = pt.from_torch(ref)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(T, B, IN, generator=g).to(device)
    h0 = torch.randn(4, B, P, generator=g).to(device).requires_grad_(True)
    c0 = torch.randn(4, B, H, generator=g).to(device).requires_grad_(True)

    def step(module, inp, hx, amp):
        with torch.autocast(device, dtype=dtype, enabled=amp):
            y, (h, c) = module(inp, hx)
        (y.float().sin().sum() + h.float().square().sum() + c.float().sum()).backward()
        return y, h, c

    y, h, c = step(layer, x, (h0, c0), True)
    assert y.dtype == h.dtype == c.dtype == dtype
    assert all(p.grad.dtype == torch.float32 for p in layer.parameters())
    assert h0.grad.dtype == c0.grad.dtype == torch.float32

    twin = pt.from_torch(ref).to(dtype)
    hx_twin = tuple(s.detach().to(dtype).requires_grad_(True) for s in (h0, c0))
    y2, h2, c2 = step(twin, x.to(dtype), hx_twin, False)
    for a, b in ((y, y2), (h, h2), (c, c2), (h0.grad, hx_twin[0].grad.float()),
                 (c0.grad, hx_twin[1].grad.float())):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    for (n, p), p2 in zip(layer.named_parameters(), twin.parameters()):
        torch.testing.assert_close(p.grad, p2.grad.float(), rtol=0, atol=0, msg=n)

    if device == "cuda":
        got = {"out": y, "h": h, "c": c, "dh0": h0.grad.clone(), "dc0": c0.grad.clone()}
        got.update({"d" + n: p.grad for n, p in layer.named_parameters()})
        h0.grad = c0.grad = None
        y3, h3, c3 = step(ref, x, (h0, c0), True)
        expect = {"out": y3, "h": h3, "c": c3, "dh0": h0.grad, "dc0": c0.grad}
        expect.update({"d" + n: p.grad for n, p in ref.named_parameters()})
        compare(got, expect, torch.float16, "autocast")


def test_dropout_in_training_mode(device):
    """Dropout between layers in training mode, under no_grad too (as
    torch.nn), from torch's generator; none in eval mode."""
    torch.manual_seed(0)
    layer = pt.LSTM(IN, H, num_layers=2, dropout=0.5, proj_size=P).to(device)
    x = torch.randn(T, B, IN, device=device)
    layer.eval()
    y_eval = layer(x)[0]
    layer.train()
    with torch.no_grad():
        torch.manual_seed(7)
        y1 = layer(x)[0]
        torch.manual_seed(7)
        y2 = layer(x)[0]
        y3 = layer(x)[0]
    assert torch.equal(y1, y2) and not torch.equal(y1, y3) and not torch.equal(y1, y_eval)
    torch.manual_seed(7)
    y4 = layer(x)[0]
    assert torch.equal(y4, y1)
    y4.sum().backward()                 # and the backward runs with the same mask
    assert layer.weight_hr_l1.grad is not None


def _spec_math(layer, device):
    spec = _lstmp._Spec(layer, torch.float32, torch.device(device),
                        _capi.RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T, [T] * B, False)
    math = ctypes.c_int()
    _capi.call("prnnGetRNNMatrixMathType", spec.p.rnn.ptr, ctypes.byref(math))
    return math.value


def test_tf32_follows_pytorchs_switch(device):
    """float32 on the GPU: TF32 where PyTorch lets cuDNN's RNN use it (as
    the other layers: _precision.math_type), strict FP32 otherwise; the CPU
    is always strict."""
    cudnn = torch.backends.cudnn
    saved = cudnn.allow_tf32
    layer = pt.LSTM(IN, H, proj_size=P).to(device)
    try:
        cudnn.allow_tf32 = False
        assert _spec_math(layer, device) == _capi.DEFAULT_MATH
        cudnn.allow_tf32 = True
        assert _spec_math(layer, device) == (_capi.TF32_RECURRENCE_MATH if device == "cuda"
                                             else _capi.DEFAULT_MATH)
        if device == "cuda":
            x = torch.randn(T, B, IN, device=device, requires_grad=True)
            y, _ = layer(x)
            y.sum().backward()          # runs, forward and backward under TF32
            assert x.grad is not None and torch.isfinite(x.grad).all()
    finally:
        cudnn.allow_tf32 = saved


def test_runs_on_torchs_current_stream(device):
    """On the GPU the calls go to torch's current stream (a side stream
    here), forward and backward, and give what the default stream gives."""
    if device != "cuda":
        pytest.skip("streams are a GPU matter")
    torch.manual_seed(0)
    layer = pt.LSTM(IN, H, num_layers=2, proj_size=P).to(device)
    x = torch.randn(T, B, IN, device=device, requires_grad=True)
    y, _ = layer(x)
    y.square().sum().backward()
    expect = (y.detach().clone(), x.grad.clone(), layer.weight_hr_l0.grad.clone())
    x.grad = None
    layer.zero_grad()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y2, _ = layer(x)
        assert _runtime.handle(x.device)._stream == side.cuda_stream
        y2.square().sum().backward()
    torch.cuda.current_stream().wait_stream(side)
    for a, b in zip((y2, x.grad, layer.weight_hr_l0.grad), expect):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_constructor_errors():
    """torch.nn.LSTM's rules for proj_size, and a missing hidden_size said
    as such (not as a failed comparison with None)."""
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        pt.LSTM(5, 7, proj_size=7)
    with pytest.raises(TypeError, match="hidden_size"):
        pt.LSTM(5, proj_size=3)
