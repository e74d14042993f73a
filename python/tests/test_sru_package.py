"""prnn.torch.SRU under the sru package's convention (convention="sru"),
and prnn.torch.from_sru / to_sru against the package itself
(asappresearch/sru 2.6).

Without the package: the layer against the package's equations written out
here in plain PyTorch (sru/ops.py, elementwise_recurrence_naive: U viewed as
(length, batch, bidir, hidden, k); x' = U[..., 3], or the input split
across directions times scale_x; c = u0 + (c' - u0) f; h = x' + (g(c) - x')
r), outputs and every gradient; the parameters' shapes per convention; the
arguments' validation. With the package (skipped, saying why, where it
cannot be imported): conversion both ways value for value against its CPU
path (its autograd path in float64, its C++ inference kernel in float32),
prnn on every device against it, the options prnn refuses, and a model
trained 100 steps with the package whose conversion gives its outputs and
gradients.
"""

import pickle
import warnings

import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import prnn.torch as pt

from _oracle import TOLERANCE


# ---- the package's equations, in prnn's parameter names -----------------------------------

def package_reference(params, x, lengths, c0, hidden, layers, dirs, identity, scale):
    """y (T, B, dirs*H; zeros past each row's length) and c_n (L*dirs, B, H)
    as the sru package computes them, from prnn.torch.SRU's parameters
    (weight_ih: the k stacked matrices of a direction)."""
    T, B, _ = x.shape
    lengths = torch.tensor(lengths if lengths is not None else [T] * B)
    inp, c_n = x, []
    for layer in range(layers):
        k_in = inp.shape[-1]
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = params["weight_ih" + sfx]
            k = w.shape[0] // hidden
            assert k == (3 if k_in == dirs * hidden else 4)   # the package's num_matrices
            u = (inp @ w.t()).view(T, B, k, hidden)
            b_f, b_r = params["bias" + sfx].view(2, hidden)
            v_f, v_r = params["weight_c" + sfx].view(2, hidden)
            xp = u[:, :, 3] if k == 4 else scale * inp[..., d * hidden:(d + 1) * hidden]
            c = c0[layer * dirs + d] if c0 is not None else x.new_zeros(B, hidden)
            h = [None] * T
            for t in (range(T) if d == 0 else range(T - 1, -1, -1)):
                active = (t < lengths).unsqueeze(1)
                f = torch.sigmoid(u[t, :, 1] + c * v_f + b_f)
                r = torch.sigmoid(u[t, :, 2] + c * v_r + b_r)
                c_new = u[t, :, 0] + (c - u[t, :, 0]) * f
                g = c_new if identity else torch.tanh(c_new)
                h_new = xp[t] + (g - xp[t]) * r
                c = torch.where(active, c_new, c)
                h[t] = torch.where(active, h_new, torch.zeros_like(h_new))
            outs.append(torch.stack(h))
            c_n.append(c)
        inp = torch.cat(outs, -1)
    return inp, torch.stack(c_n)


def _loss_weights(tensors):
    g = torch.Generator().manual_seed(5)
    return [torch.randn(t.shape, generator=g, dtype=torch.float64) for t in tensors]


def _grads(y, c, inputs):
    """Gradients of a fixed random projection of (y, c) with respect to
    inputs (a dict of leaves)."""
    wy, wc = _loss_weights((y, c))
    loss = (y.double() * wy.to(y.device)).sum() + (c.double() * wc.to(c.device)).sum()
    names = list(inputs)
    got = torch.autograd.grad(loss, [inputs[n] for n in names], allow_unused=True)
    return dict(zip(names, got))


def _rel(a, b):
    a, b = a.detach().double().cpu(), b.detach().double().cpu()
    assert a.shape == b.shape, (tuple(a.shape), tuple(b.shape))
    return (a - b).abs().max().item() / max(b.abs().max().item(), 1e-3)


def _prnn_run(layer, x, c0, lengths, device, dtype):
    """y, c_n and the gradients of x, c0 and every parameter of prnn's
    layer, moved to device and dtype, on x (padded, time-major; packed when
    lengths are given) and c0."""
    layer = layer.to(device, dtype)
    xg = x.to(device, dtype, copy=True).requires_grad_(True)
    cg = c0.to(device, dtype, copy=True).requires_grad_(True)
    inp = xg if lengths is None else pack_padded_sequence(xg, lengths, enforce_sorted=False)
    yg, cgn = layer(inp, cg)
    if lengths is not None:
        yg, _ = pad_packed_sequence(yg, total_length=x.shape[0])
    return {"y": yg, "c": cgn,
            **_grads(yg, cgn, {"x": xg, "c0": cg, **dict(layer.named_parameters())})}


def _assert_close(got, want, tol, what):
    for key in want:
        err = _rel(got[key], want[key])
        assert err <= tol, f"{what} {key}: relative error {err:.2e} > {tol:.0e}"


CASES = [  # input, hidden, layers, bidirectional, lengths, activation, scale
    (6, 6, 2, True, None, "identity", 1.0),        # u3 at layer 0, the split at layer 1
    (12, 6, 2, True, [5, 3, 3], "tanh", 1.7),      # the split at both layers
    (5, 7, 2, False, None, "identity", 1.25),       # u3 at 0, x' = x at 1
    (7, 7, 1, False, [5, 1], "identity", 0.5),     # x' = x, unidirectional
    (3, 4, 3, True, [5, 5, 2, 1], "identity", 1.0),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:4])) + (
    "-packed" if c[4] else "") + f"-{c[5]}-{c[6]}")
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_matches_the_package_equations(case, dtype, device):
    i, h, layers, bidir, lengths, activation, scale = case
    dirs = 2 if bidir else 1
    torch.manual_seed(0)
    layer = pt.SRU(i, h, num_layers=layers, bidirectional=bidir, convention="sru",
                   activation=activation, highway_scale=scale).double()
    with torch.no_grad():
        for p in layer.parameters():
            p.uniform_(-0.6, 0.6)
    batch = len(lengths) if lengths else 3
    g = torch.Generator().manual_seed(1)
    x = torch.randn(5, batch, i, generator=g, dtype=torch.float64)
    c0 = torch.randn(layers * dirs, batch, h, generator=g, dtype=torch.float64)

    params = {k: v.detach().clone().requires_grad_(True) for k, v in layer.named_parameters()}
    xr, cr = x.clone().requires_grad_(True), c0.clone().requires_grad_(True)
    y, c = package_reference(params, xr, lengths, cr, h, layers, dirs,
                             activation == "identity", layer.highway_scale)
    want = {"y": y, "c": c, **_grads(y, c, {"x": xr, "c0": cr, **params})}
    got = _prnn_run(layer, x, c0, lengths, device, dtype)
    _assert_close(got, want, TOLERANCE[dtype], "prnn")


def test_parameter_shapes_follow_the_convention():
    # 2 layers, bidirectional, input = hidden: prnn projects x' at layer 1
    # (input 2H != H), the package at layer 0 (input H != 2H)
    ours = pt.SRU(6, 6, num_layers=2, bidirectional=True)
    pkg = pt.SRU(6, 6, num_layers=2, bidirectional=True, convention="sru")
    assert ours.weight_ih_l0.shape == (18, 6) and ours.weight_ih_l1.shape == (24, 12)
    assert pkg.weight_ih_l0.shape == (24, 6) and pkg.weight_ih_l1_reverse.shape == (18, 12)
    # per token and direction pair: 20 H^2 against 22 H^2
    n = lambda m: sum(p.numel() for k, p in m.named_parameters() if "weight_ih" in k)  # noqa
    assert (n(ours), n(pkg)) == (2 * (3 * 36 + 4 * 72), 2 * (4 * 36 + 3 * 72))
    assert pkg.activation == "identity" and ours.activation == "tanh"
    assert "convention='sru'" in repr(pkg) and "highway_scale" not in repr(pkg)
    assert "highway_scale=1.5" in repr(pt.SRU(4, 4, convention="sru", highway_scale=1.5))


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="convention = 'cudnn': must be 'prnn'"):
        pt.SRU(4, 4, convention="cudnn")
    with pytest.raises(ValueError, match="activation = 'relu': must be 'tanh' or 'identity'"):
        pt.SRU(4, 4, activation="relu")
    for bad in (0.0, -1.0, float("nan"), float("inf"), 1e-60, 1e39):
        with pytest.raises(ValueError, match="highway_scale"):
            pt.SRU(4, 4, highway_scale=bad)
    with pytest.raises(ValueError, match="highway_scale = True: must be a number"):
        pt.SRU(4, 4, highway_scale=True)


def test_state_dict_and_pickle():
    torch.manual_seed(0)
    a = pt.SRU(6, 5, num_layers=2, bidirectional=True, convention="sru", highway_scale=1.3)
    b = pt.SRU(6, 5, num_layers=2, bidirectional=True, convention="sru", highway_scale=1.3)
    b.load_state_dict(a.state_dict())
    x = torch.randn(4, 3, 6)
    torch.testing.assert_close(b(x)[0], a(x)[0], rtol=0, atol=0)
    c = pickle.loads(pickle.dumps(a))
    assert (c.convention, c.activation, c.highway_scale) == ("sru", "identity", a.highway_scale)
    torch.testing.assert_close(c(x)[0], a(x)[0], rtol=0, atol=0)
    # a state_dict of the other convention does not fit
    with pytest.raises(RuntimeError, match="size mismatch"):
        pt.SRU(6, 5, num_layers=2, bidirectional=True).load_state_dict(a.state_dict())


def test_conventions_are_distinct_problems():
    """Two layers that differ only in activation or scale give different
    outputs (the convention reaches the library, not only the shapes)."""
    torch.manual_seed(0)
    base = pt.SRU(8, 4, bidirectional=True, convention="sru")
    x = torch.randn(3, 2, 8)
    outs = []
    for kw in ({}, {"activation": "tanh"}, {"highway_scale": 2.0}):
        m = pt.SRU(8, 4, bidirectional=True, convention="sru", **kw)
        m.load_state_dict(base.state_dict())
        outs.append(m(x)[0])
    assert not torch.equal(outs[0], outs[1]) and not torch.equal(outs[0], outs[2])


# ---- against the package --------------------------------------------------------------------

_SRU = {}


def sru_package():
    """The sru package, imported once (its import compiles its C++ CPU
    kernels with torch.utils.cpp_extension, and tries its CUDA ones), and
    whether its CUDA kernels loaded; skips the test, saying why, where it
    cannot be imported."""
    if "module" not in _SRU:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                import sru
            _SRU["module"] = sru
            _SRU["cuda"] = not any("CUDA kernels of SRU was unsuccessful" in str(w.message)
                                   for w in caught)
        except Exception as e:     # noqa: BLE001 (any failure of its JIT build)
            _SRU["module"] = None
            _SRU["why"] = f"the sru package cannot be imported here: {type(e).__name__}: {e}"
    if _SRU["module"] is None:
        pytest.skip(_SRU["why"])
    return _SRU["module"]


def _package_run(module, x, c0, lengths):
    """The package's outputs in prnn's shapes: y (T, B, D*H), c (L*D, B, H);
    c0 in prnn's shape. Its autograd path (grad enabled)."""
    L = len(module.rnn_lst) if hasattr(module, "rnn_lst") else 1
    B = x.shape[1]
    D = 2 if module.bidirectional else 1
    H = module.hidden_size
    c0p = c0.view(L, D, B, H).transpose(1, 2).reshape(L, B, D * H) if c0 is not None else None
    mask = None
    if lengths is not None:
        mask = torch.tensor([[t >= n for n in lengths] for t in range(x.shape[0])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "Running SRU on CPU with grad_enabled=True"
        if hasattr(module, "rnn_lst"):
            y, c = module(x, c0p, mask_pad=mask)
        else:
            y, c = module(x, None if c0p is None else c0p[0], mask_pad=mask)
            c = c.unsqueeze(0)
    if lengths is not None:   # the package's h past a sequence's end is 0 as well
        y = y * (~mask).unsqueeze(-1)
    return y, c.view(L, B, D, H).transpose(1, 2).reshape(L * D, B, H)


def _package_params_as_prnn(module, layer):
    """The package's parameter gradients in prnn's names and layout."""
    cells = list(module.rnn_lst) if hasattr(module, "rnn_lst") else [module]
    out = {}
    for i, c in enumerate(cells):
        D = 2 if c.bidirectional else 1
        k, m, h = c.input_size, c.num_matrices, c.hidden_size
        w = c.weight.grad.view(k, D, h, m)
        b, wc = c.bias.grad.view(2, D, h), c.weight_c.grad.view(2, D, h)
        for d in range(D):
            sfx = f"_l{i}" + ("_reverse" if d else "")
            out["weight_ih" + sfx] = w[:, d].permute(2, 1, 0).reshape(m * h, k)
            out["bias" + sfx] = b[:, d].reshape(2 * h)
            out["weight_c" + sfx] = wc[:, d].reshape(2 * h)
    return out


def _compare_with_package(module, layer, x, c0, lengths, tol, device="cpu", dtype=None):
    """The package (float64, CPU) against prnn's layer (on device, dtype):
    y, c_n and the gradients of x, c0 and every parameter."""
    xr = x.detach().clone().requires_grad_(True)
    cr = c0.detach().clone().requires_grad_(True)
    module.zero_grad()
    y, c = _package_run(module, xr, cr, lengths)
    wy, wc = _loss_weights((y, c))
    ((y.double() * wy).sum() + (c.double() * wc).sum()).backward()
    want = {"y": y, "c": c, "x": xr.grad, "c0": cr.grad,
            **_package_params_as_prnn(module, layer)}

    dtype = dtype or x.dtype
    got = _prnn_run(layer, x, c0, lengths, device, dtype)
    assert set(got) <= set(want), sorted(set(got) - set(want))
    # (a prnn layer without bias: the package's zero biases have gradients)
    want = {k: v for k, v in want.items() if k in got}
    _assert_close(got, want, tol, f"prnn ({device}, {dtype}) against the package")


PACKAGE_CASES = [  # input, hidden, layers, bidirectional, lengths, kwargs
    (8, 8, 2, True, None, {}),                                     # its SRU's defaults
    (16, 8, 2, True, [6, 4, 4], {"rescale": True, "highway_bias": -1.0}),
    (5, 6, 3, True, None, {"rescale": True, "use_tanh": True}),
    (6, 6, 2, False, [6, 2, 5], {"rescale": True, "highway_bias": 0.5}),
    (4, 7, 1, False, None, {}),
]


@pytest.mark.parametrize("case", PACKAGE_CASES, ids=lambda c: "-".join(map(str, c[:4])) + (
    "-padded" if c[4] else "") + "".join(f"-{k}={v}" for k, v in c[5].items()))
def test_from_sru_matches_the_package(case, device):
    sru = sru_package()
    i, h, layers, bidir, lengths, kw = case
    torch.manual_seed(0)
    module = sru.SRU(i, h, num_layers=layers, bidirectional=bidir, **kw).double()
    with torch.no_grad():   # away from the initialisation's zero biases
        for c in module.rnn_lst:
            c.bias.uniform_(-0.5, 0.5)
    layer = pt.from_sru(module)
    assert layer.convention == "sru" and layer.num_layers == layers
    assert layer.activation == ("tanh" if kw.get("use_tanh") else "identity")
    B = len(lengths) if lengths else 3
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, B, i, generator=g, dtype=torch.float64)
    c0 = torch.randn(layers * (2 if bidir else 1), B, h, generator=g, dtype=torch.float64)
    _compare_with_package(module, layer, x, c0, lengths, TOLERANCE[torch.float64])
    for dtype in (torch.float32,) + ((torch.float16, torch.bfloat16) if device == "cuda"
                                     else ()):
        _compare_with_package(module, pt.from_sru(module), x, c0, lengths, TOLERANCE[dtype],
                              device, dtype)


def test_against_the_package_on_the_gpu():
    """The package's own CUDA kernels against prnn's, float32, where the
    package's kernels built when it was imported (its sources need
    python/benchmarks/bench_sru_package.py's --patch-sru-cuda on current
    PyTorch)."""
    sru = sru_package()
    if not torch.cuda.is_available():
        pytest.skip("no cuda device here")
    if not _SRU["cuda"]:
        pytest.skip("the sru package's CUDA kernels did not build when it was imported "
                    "(on current PyTorch its sources need the patch of "
                    "python/benchmarks/bench_sru_package.py --patch-sru-cuda)")
    torch.manual_seed(0)
    module = sru.SRU(64, 64, num_layers=2, bidirectional=True, rescale=True).cuda()
    layer = pt.from_sru(module)
    x = torch.randn(16, 8, 64, device="cuda", requires_grad=True)
    y, c = module(x)
    dy = torch.randn_like(y)
    (y * dy).sum().backward()
    want = {"y": y, "x": x.grad, **_package_params_as_prnn(module, layer)}
    x2 = x.detach().clone().requires_grad_(True)
    y2, _ = layer(x2)
    (y2 * dy).sum().backward()
    got = {"y": y2, "x": x2.grad, **{n: p.grad for n, p in layer.named_parameters()}}
    _assert_close(got, want, 1e-4, "prnn against the package's CUDA kernels")


def test_from_sru_cells():
    """A single SRUCell (SRUCell's own default is rescale=True), and a list
    of cells stacked by hand."""
    sru = sru_package()
    torch.manual_seed(0)
    cell = sru.SRUCell(10, 5, bidirectional=True, highway_bias=-0.5).double()
    layer = pt.from_sru(cell)
    assert abs(layer.highway_scale - float(cell.scale_x)) < 1e-6
    x = torch.randn(4, 2, 10, dtype=torch.float64)
    c0 = torch.randn(2, 2, 5, dtype=torch.float64)
    _compare_with_package(cell, layer, x, c0, None, TOLERANCE[torch.float64])
    cells = [sru.SRUCell(3, 4, bidirectional=False, rescale=False).double(),
             sru.SRUCell(4, 4, bidirectional=False, rescale=False).double()]
    layer = pt.from_sru(cells)
    y, _ = layer(x[..., :3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "Running SRU on CPU with grad_enabled=True"
        want = cells[1](cells[0](x[..., :3])[0])[0]
    torch.testing.assert_close(y, want, rtol=1e-10, atol=1e-12)


def test_from_sru_matches_its_cpu_kernel():
    """The package's C++ inference kernel (float32, no grad: the path its
    CPU users run) against prnn in float32."""
    sru = sru_package()
    torch.manual_seed(0)
    for kw in ({}, {"rescale": True, "highway_bias": -2.0}, {"use_tanh": True}):
        module = sru.SRU(12, 6, num_layers=3, bidirectional=True, **kw).eval()
        layer = pt.from_sru(module)
        assert not layer.training
        x = torch.randn(7, 4, 12)
        with torch.no_grad():
            want, c = module(x)
            got, cn = layer(x)
        err = _rel(got, want)
        assert err < TOLERANCE[torch.float32], f"{kw}: y relative error {err:.2e}"
        err = _rel(cn.view(3, 2, 4, 6).transpose(1, 2).reshape(3, 4, 12), c)
        assert err < TOLERANCE[torch.float32], f"{kw}: c relative error {err:.2e}"


def test_to_sru_round_trip():
    sru = sru_package()
    torch.manual_seed(0)
    for kw in ({"convention": "sru"}, {"convention": "sru", "activation": "tanh",
                                        "highway_scale": 1.5},
               {"convention": "prnn", "bidirectional": False, "bias": False}):
        kw = {"bidirectional": True, **kw}
        layer = pt.SRU(6, 6, num_layers=2, **kw).double()
        with torch.no_grad():
            for p in layer.parameters():
                p.uniform_(-0.5, 0.5)
        module = pt.to_sru(layer)
        assert isinstance(module, sru.SRU)
        x = torch.randn(5, 3, 6, dtype=torch.float64)
        c0 = torch.randn(2 * (2 if kw["bidirectional"] else 1), 3, 6, dtype=torch.float64)
        _compare_with_package(module, layer, x, c0, None, TOLERANCE[torch.float64])
        back = pt.from_sru(module)
        if kw.get("bias", True):
            for (n, a), (m, b) in zip(layer.named_parameters(), back.named_parameters()):
                assert n == m
                torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_to_sru_refuses():
    sru_package()
    with pytest.raises(ValueError, match="layer 0 .* has 3 matrices under convention 'prnn'"):
        pt.to_sru(pt.SRU(6, 6, num_layers=2, bidirectional=True))
    with pytest.raises(ValueError, match="batch_first=True: the sru package is time-major"):
        pt.to_sru(pt.SRU(6, 6, convention="sru", batch_first=True))
    with pytest.raises(ValueError, match="dropout = 0.25: prnn drops out between layers"):
        pt.to_sru(pt.SRU(6, 6, num_layers=2, convention="sru", dropout=0.25))
    assert pt.to_sru(pt.SRU(6, 6, num_layers=2, convention="sru", dropout=0.25),
                     dropout=0.1).rnn_lst[0].dropout == 0.1
    with pytest.raises(TypeError, match="expected a prnn.torch.SRU"):
        pt.to_sru(torch.nn.LSTM(3, 3))


@pytest.mark.parametrize("kwargs,needle", [
    ({"layer_norm": True}, "layer_norm=True: prnn has no layer normalisation"),
    ({"projection_size": 3}, "n_proj / projection_size = 3"),
    ({"rnn_dropout": 0.1}, "rnn_dropout = 0.1"),
    ({"has_skip_term": False}, "has_skip_term=False"),
    ({"v1": True}, "v1=True"),
    ({"proj_input_to_hidden_first": True, "input_size": 6}, "proj_input_to_hidden_first=True"),
    ({"custom_m": torch.nn.Linear(8, 3 * 2 * 4, bias=False)}, "custom_m"),
    ({"dropout": 0.2}, "dropout = 0.2: the sru package drops out inside the cell"),
], ids=lambda v: next(iter(v)) if isinstance(v, dict) else None)
def test_from_sru_refuses(kwargs, needle):
    sru = sru_package()
    kwargs = dict(kwargs)
    input_size = kwargs.pop("input_size", 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # the package's deprecation warnings
        module = sru.SRU(input_size, 4, num_layers=2, bidirectional=True, **kwargs)
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        pt.from_sru(module)


def test_from_sru_dropout_and_scales():
    sru = sru_package()
    module = sru.SRU(8, 4, num_layers=2, bidirectional=True, dropout=0.2)
    assert pt.from_sru(module, dropout=0.3).dropout == 0.3
    assert pt.from_sru(module, dropout=0).dropout == 0.0
    cells = [sru.SRUCell(8, 4, bidirectional=True, highway_bias=0.0),
             sru.SRUCell(8, 4, bidirectional=True, highway_bias=-3.0)]
    with pytest.raises(ValueError, match="scale_x: the layers whose highway is their input "
                                         "have different scales"):
        pt.from_sru(cells)
    with pytest.raises(TypeError, match="expected an sru.SRU, an sru.SRUCell"):
        pt.from_sru(torch.nn.GRU(3, 3))
    with pytest.raises(TypeError, match="got SRU .the sru package's: prnn.torch.from_sru"):
        pt.from_torch(module)
    with pytest.raises(ValueError, match="layer 1 has input_size 8: the layer below outputs 4"):
        pt.from_sru([sru.SRUCell(8, 4), sru.SRUCell(8, 4)])


def test_trained_with_the_package_then_converted():
    """A model trained 100 steps with the package (its CPU autograd path,
    float32, Adam), converted: prnn's outputs and gradients are the
    package's within fp32 tolerance."""
    sru = sru_package()
    torch.manual_seed(0)
    T, B, D, H = 12, 6, 10, 8
    module = sru.SRU(D, H, num_layers=2, bidirectional=True, rescale=True, highway_bias=-1.0)
    head = torch.nn.Linear(2 * H, 1)
    opt = torch.optim.Adam(list(module.parameters()) + list(head.parameters()), lr=1e-2)
    g = torch.Generator().manual_seed(3)
    # a task of both directions' context: at every step, a fixed mix of
    # the step's input and its neighbours'
    v = torch.randn(D, 1, generator=g) / D ** 0.5
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(100):
            x = torch.randn(T, B, D, generator=g)
            s = x @ v
            target = torch.tanh(s + 0.5 * torch.roll(s, 1, 0) + 0.5 * torch.roll(s, -1, 0))
            loss = ((head(module(x)[0]) - target) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    print(f"loss over the 100 steps: {first:.3f} -> {last:.3f}")
    assert last < 0.5 * first, f"the package did not train: {first:.3f} -> {last:.3f}"
    layer = pt.from_sru(module)
    x = torch.randn(T, B, D, generator=g)
    c0 = torch.randn(4, B, H, generator=g)
    _compare_with_package(module.double(), pt.from_sru(module.double()), x.double(),
                          c0.double(), None, TOLERANCE[torch.float64])
    module.float()
    _compare_with_package(module, layer, x, c0, None, TOLERANCE[torch.float32])


def test_compiled_equals_eager(device):
    """torch.compile traces the layer under the package's convention (its
    mode value carries the convention through the operators) without a
    graph break, and computes what eager mode does."""
    torch.manual_seed(0)
    layer = pt.SRU(6, 8, num_layers=2, bidirectional=True, batch_first=True, convention="sru",
                   highway_scale=1.5).to(device)
    head = torch.nn.Linear(16, 3).to(device)

    def model(x):
        return head(layer(torch.tanh(x))[0]).sum(-1)
    x = torch.randn(3, 5, 6, device=device)
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True, dynamic=False)
    params = list(layer.parameters())
    x1, x2 = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    y_eager = model(x1)
    g_eager = torch.autograd.grad(y_eager.square().sum(), [x1] + params)
    y_comp = compiled(x2)
    g_comp = torch.autograd.grad(y_comp.square().sum(), [x2] + params)
    torch.testing.assert_close(y_comp, y_eager, rtol=1e-6, atol=1e-6)
    for a, b in zip(g_comp, g_eager):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
