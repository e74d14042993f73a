"""prnn.torch.SRU against an SRU written here in plain PyTorch from prnn.h's
equations (there is no torch.nn.SRU): outputs, c_n and every gradient, on
the CPU backend and the GPU."""

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import prnn.torch as pt

from _oracle import TOLERANCE


def sru_reference(params, x, lengths, c0, hidden, layers, bidirectional):
    """x: (T, B, I) time-major float64; lengths: per row, or None. Returns
    y (T, B, dirs*H, zeros past each row's length) and c_n."""
    T, B, _ = x.shape
    dirs = 2 if bidirectional else 1
    lengths = torch.tensor(lengths if lengths is not None else [T] * B)
    inp = x
    c_n = []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = params["weight_ih" + sfx]
            b = params.get("bias" + sfx, torch.zeros(2 * hidden, dtype=x.dtype))
            b_f, b_r = b[:hidden], b[hidden:]
            v_f, v_r = params["weight_c" + sfx][:hidden], params["weight_c" + sfx][hidden:]
            u = inp @ w.t()
            u0, u1, u2 = u[..., :hidden], u[..., hidden:2 * hidden], u[..., 2 * hidden:3 * hidden]
            xp = u[..., 3 * hidden:] if w.shape[0] == 4 * hidden else inp
            c = c0[layer * dirs + d] if c0 is not None else torch.zeros(B, hidden, dtype=x.dtype)
            h = [None] * T
            for t in (range(T) if d == 0 else range(T - 1, -1, -1)):
                active = (t < lengths).unsqueeze(1)
                f = torch.sigmoid(u1[t] + v_f * c + b_f)
                r = torch.sigmoid(u2[t] + v_r * c + b_r)
                c_new = f * c + (1 - f) * u0[t]
                h_new = r * torch.tanh(c_new) + (1 - r) * xp[t]
                c = torch.where(active, c_new, c)
                h[t] = torch.where(active, h_new, torch.zeros_like(h_new))
            outs.append(torch.stack(h))
            c_n.append(c)
        inp = torch.cat(outs, -1)
    return inp, torch.stack(c_n)


def _run(module_or_ref, x, c0, lengths, params=None, spec=None):
    x = x.detach().clone().requires_grad_(True)
    c0 = c0.detach().clone().requires_grad_(True) if c0 is not None else None
    if params is None:
        inp = x if lengths is None else pack_padded_sequence(x, lengths, enforce_sorted=False)
        y, c = module_or_ref(inp, c0)
        if lengths is not None:
            y, _ = pad_packed_sequence(y, total_length=x.shape[0])
        named = dict(module_or_ref.named_parameters())
    else:
        named = {k: v.detach().clone().requires_grad_(True) for k, v in params.items()}
        y, c = sru_reference(named, x, lengths, c0, *spec)
    g = torch.Generator().manual_seed(5)
    loss = sum((t * torch.randn(t.shape, generator=g, dtype=torch.float64).to(t.device, t.dtype)
                ).float().sum() for t in (y, c))
    loss.backward()
    out = {"y": y, "c_n": c, "dx": x.grad}
    if c0 is not None:
        out["dc0"] = c0.grad
    out.update({"d" + k: v.grad for k, v in named.items()})
    return out


CASES = [  # input, hidden, layers, bidirectional, bias, lengths, with c0
    (7, 7, 1, False, True, None, False),        # x' = x
    (5, 7, 1, False, True, None, True),         # x' projected (u3)
    (6, 6, 2, True, True, None, True),          # deeper layers' input 2H: u3
    (4, 6, 2, False, False, [5, 2, 4], True),   # variable lengths, no bias
    (3, 5, 3, True, True, [5, 5, 1, 3], False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:5])) + (
    "-packed" if c[5] else "") + ("-c0" if c[6] else ""))
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_matches_the_equations(case, dtype, device):
    i, h, layers, bidir, bias, lengths, with_c0 = case
    torch.manual_seed(0)
    layer = pt.SRU(i, h, num_layers=layers, bidirectional=bidir, bias=bias).double()
    with torch.no_grad():
        for p in layer.parameters():
            p.uniform_(-0.6, 0.6)
    params = {k: v.detach().clone() for k, v in layer.named_parameters()}
    batch = len(lengths) if lengths else 3
    g = torch.Generator().manual_seed(1)
    x = torch.randn(5, batch, i, generator=g, dtype=torch.float64)
    dirs = 2 if bidir else 1
    c0 = torch.randn(layers * dirs, batch, h, generator=g, dtype=torch.float64) \
        if with_c0 else None
    expect = _run(None, x, c0, lengths, params, (h, layers, bidir))
    layer = layer.to(device, dtype)
    got = _run(layer, x.to(device, dtype), None if c0 is None else c0.to(device, dtype), lengths)
    tol = TOLERANCE[dtype]
    for key, ref in expect.items():
        a, b = got[key].detach().double().cpu(), ref.detach()
        err = (a - b).abs().max().item() / max(b.abs().max().item(), 1e-3)
        assert err <= tol, f"{key}: relative error {err:.2e} > {tol:.0e}"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_types(dtype, device):
    torch.manual_seed(0)
    layer = pt.SRU(8, 16, num_layers=2, bidirectional=True).double()
    layer.load_state_dict({k: v.to(dtype).double() for k, v in layer.state_dict().items()})
    params = {k: v.detach().clone() for k, v in layer.named_parameters()}
    x = torch.randn(6, 3, 8, dtype=torch.float64).to(dtype).double()
    expect = _run(None, x, None, None, params, (16, 2, True))
    got = _run(layer.to(device, dtype), x.to(device, dtype), None, None)
    for key, ref in expect.items():
        a, b = got[key].detach().double().cpu(), ref.detach()
        err = (a - b).abs().max().item() / max(b.abs().max().item(), 1e-3)
        assert err <= TOLERANCE[dtype], f"{key}: relative error {err:.2e}"


def test_gradcheck_double():
    torch.manual_seed(0)
    layer = pt.SRU(3, 4, num_layers=2, bidirectional=True).double()
    x = torch.randn(4, 2, 3, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(4, 2, 4, dtype=torch.float64, requires_grad=True)

    def f(x, c0, w, v):
        return layer(x, c0)
    assert torch.autograd.gradcheck(f, (x, c0, layer.weight_ih_l1, layer.weight_c_l0),
                                    eps=1e-6, atol=1e-7)


def test_parameters_and_state(device):
    layer = pt.SRU(5, 6, num_layers=2, bidirectional=True, batch_first=True).to(device)
    shapes = {n: tuple(p.shape) for n, p in layer.named_parameters()}
    assert shapes["weight_ih_l0"] == (24, 5)            # u0, f, r, and x' (5 != 6)
    assert shapes["weight_ih_l1_reverse"] == (24, 12)   # input 2H
    assert shapes["bias_l0"] == (12,) and shapes["weight_c_l1"] == (12,)
    assert pt.SRU(6, 6).weight_ih_l0.shape == (18, 6)   # x' = x: three matrices
    y, c = layer(torch.randn(3, 4, 5, device=device))
    assert y.shape == (3, 4, 12) and c.shape == (4, 3, 6)
    twin = pt.SRU(5, 6, num_layers=2, bidirectional=True, batch_first=True).to(device)
    twin.load_state_dict(layer.state_dict())
    x = torch.randn(3, 4, 5, device=device)
    torch.testing.assert_close(twin(x)[0], layer(x)[0], rtol=0, atol=0)
