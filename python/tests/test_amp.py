"""Mixed precision: torch.autocast runs a prnn layer in autocast's data type
(its inputs, states and weights converted; the weights once per change,
kept while their version counters stand still), with gradients reaching the
fp32 parameters; torch.amp.GradScaler works; fp32 layers follow PyTorch's
TF32 switches as torch.nn's cuDNN RNN does."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import prnn.torch as pt
from prnn import _capi

from _oracle import make_pair

AMP_DTYPE = {"cpu": torch.bfloat16, "cuda": torch.float16}


def _amp(device, dtype=None):
    return torch.autocast(device, dtype=dtype or AMP_DTYPE[device])


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.RNN, pt.SRU])
def test_layer_runs_in_the_autocast_dtype(cls, device):
    """Linear -> layer under autocast: output and states in autocast's
    dtype, equal to the layer run in that dtype by hand; the gradients
    reach the fp32 parameters, equal to those of the by-hand run converted
    back."""
    torch.manual_seed(0)
    dtype = AMP_DTYPE[device]
    lin = nn.Linear(5, 6).to(device)
    layer = cls(6, 7, num_layers=2, bidirectional=True).to(device)
    x = torch.randn(4, 3, 5, device=device)
    h0 = torch.randn(4, 3, 7, device=device, requires_grad=True)
    hx = (h0, torch.zeros_like(h0)) if cls is pt.LSTM else h0
    with _amp(device):
        y, h = layer(lin(x), hx)
    states = h if isinstance(h, tuple) else (h,)
    assert y.dtype == dtype and all(s.dtype == dtype for s in states)
    (y.float().sum() + states[0].float().square().sum()).backward()
    grads = {n: p.grad.clone() for n, p in layer.named_parameters()}
    assert all(g.dtype == torch.float32 for g in grads.values())
    assert h0.grad is not None and h0.grad.dtype == torch.float32

    twin = type(layer)(6, 7, num_layers=2, bidirectional=True).to(device, dtype)
    twin.load_state_dict(layer.state_dict())
    h0_twin = h0.detach().to(dtype).requires_grad_(True)
    hx_twin = (h0_twin, torch.zeros_like(h0_twin)) if cls is pt.LSTM else h0_twin
    with _amp(device):
        xin = lin(x)
    y2, h2 = twin(xin.detach(), hx_twin)
    states2 = h2 if isinstance(h2, tuple) else (h2,)
    torch.testing.assert_close(y, y2, rtol=0, atol=0)
    (y2.float().sum() + states2[0].float().square().sum()).backward()
    for n, p in twin.named_parameters():
        torch.testing.assert_close(grads[n], p.grad.float(), rtol=0, atol=0)
    torch.testing.assert_close(h0.grad, h0_twin.grad.float(), rtol=0, atol=0)


def test_weights_converted_once_while_unchanged(device):
    """The converted weights are made once and reused while the weights
    stay the same (version counter); an in-place update inside the same
    autocast region is seen; autocast's cache_enabled=False and leaving
    autocast drop the copy."""
    torch.manual_seed(0)
    layer = pt.LSTM(4, 5, num_layers=2).to(device)
    x = torch.randn(3, 2, 4, device=device)
    with _amp(device):
        y1 = layer(x)[0]
        first = layer._cast.flat
        y2 = layer(x)[0]
        assert layer._cast.flat is first
        torch.testing.assert_close(y1, y2, rtol=0, atol=0)
        with torch.no_grad():
            layer.weight_hh_l1.mul_(-1.0)      # an optimizer's step, inside the region
        y3 = layer(x)[0]
        assert layer._cast.flat is not first
    twin = pt.LSTM(4, 5, num_layers=2).to(device, AMP_DTYPE[device])
    twin.load_state_dict(layer.state_dict())
    torch.testing.assert_close(y3, twin(x.to(AMP_DTYPE[device]))[0], rtol=0, atol=0)
    assert not torch.equal(y3, y1)
    layer(x)
    assert layer._cast.flat is None
    with torch.autocast(device, dtype=AMP_DTYPE[device], cache_enabled=False):
        layer(x)
        assert layer._cast.flat is None


def test_autocast_under_torch_compile(device):
    """torch.compile traces the autocast conversion with the layer, without a
    graph break, and computes what eager autocast does."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), pt.GRU(6, 5, num_layers=2)).to(device)
    x = torch.randn(7, 3, 4, device=device)

    def f(inp):
        with _amp(device):
            return model(inp)[0]

    torch._dynamo.reset()
    explanation = torch._dynamo.explain(f)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    torch._dynamo.reset()
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True, dynamic=False)
    y = compiled(x)
    assert y.dtype == AMP_DTYPE[device]
    torch.testing.assert_close(y, f(x), rtol=0, atol=0)


def test_autocast_under_torch_func_grad(device):
    torch.manual_seed(0)
    layer = pt.GRU(3, 4, num_layers=2).to(device)
    x = torch.randn(5, 2, 3, device=device)

    def loss(params):
        with _amp(device):
            y = torch.func.functional_call(layer, params, (x,))[0]
        return y.float().square().sum()

    grads = torch.func.grad(loss)({n: p.detach() for n, p in layer.named_parameters()})
    loss(dict(layer.named_parameters())).backward()
    for n, p in layer.named_parameters():
        assert grads[n].dtype == torch.float32
        torch.testing.assert_close(grads[n], p.grad, rtol=0, atol=0, msg=n)


def test_float64_layer_is_left_alone_by_autocast():
    layer = pt.GRU(3, 4).double()
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y, h = layer(x)
    assert y.dtype == torch.float64 and h.dtype == torch.float64


class _Regressor(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.inp = nn.Linear(3, 8)
        self.rnn = rnn
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        y, _ = self.rnn(torch.tanh(self.inp(x)))
        return self.out(y).squeeze(-1)


def _task(device, steps, batch=8, t=12, seed=0):
    """A sequence task a small LSTM learns in a few hundred steps: the
    running mean of the first input feature."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        x = torch.randn(t, batch, 3, generator=g)
        target = x[..., 0].cumsum(0) / torch.arange(1, t + 1).unsqueeze(1)
        yield x.to(device), target.to(device)


def _train(model, device, steps):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler(device)
    losses = []
    for x, target in _task(device, steps):
        opt.zero_grad(set_to_none=True)
        with _amp(device):
            loss = F.mse_loss(model(x).float(), target)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return torch.tensor(losses)


def test_training_under_autocast_and_grad_scaler_follows_torch_nn(device):
    """200 steps of autocast + GradScaler + Adam beside the same torch.nn
    model: the two loss curves agree within what half precision allows and
    both learn."""
    torch.manual_seed(0)
    theirs = _Regressor(nn.LSTM(8, 16, num_layers=2)).to(device)
    ours = _Regressor(nn.LSTM(8, 16, num_layers=2)).to(device)
    ours.load_state_dict(theirs.state_dict())
    ours.rnn = pt.from_torch(ours.rnn)
    a, b = _train(ours, device, 200), _train(theirs, device, 200)
    assert b[-20:].mean() < 0.2 * b[:20].mean()          # the task is learnt
    # Same curve: per-step losses within half precision's drift, and the
    # same place reached
    assert ((a - b).abs() <= 0.1 * b + 2e-3).all(), (a - b).abs().max()
    assert abs(a[-20:].mean() - b[-20:].mean()) <= 0.15 * b[-20:].mean()


def test_grad_scaler_sees_overflow_and_skips_the_step(device):
    """A non-finite scaled loss reaches the prnn layer's fp32 gradients (so
    GradScaler finds it), the step is skipped leaving every weight as it
    was, and the scale is lowered."""
    torch.manual_seed(0)
    model = _Regressor(pt.LSTM(8, 16, num_layers=2)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(device, init_scale=2.0 ** 10)
    x = torch.randn(6, 4, 3, device=device)
    target = torch.zeros(6, 4, device=device)
    target[2, 1] = float("nan")
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    with _amp(device):
        loss = F.mse_loss(model(x).float(), target)
    scaler.scale(loss).backward()
    g = model.rnn.weight_hh_l0.grad
    assert g.dtype == torch.float32 and not torch.isfinite(g).all()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() < 2.0 ** 10
    for n, p in model.named_parameters():
        assert torch.equal(p.detach(), before[n]), n


def test_cuda_autocast_step_runs_half_kernels_only(device):
    """On the GPU, a training step under autocast(fp16) plans only fp16
    problems (no fp32 kernel of prnn runs) and launches the same prnn
    kernels as the layer built in fp16: one half-precision kernel set per
    layer and pass."""
    if device != "cuda":
        pytest.skip("kernel launches are a GPU matter")
    from torch.profiler import ProfilerActivity, profile

    torch.manual_seed(0)
    amp_layer = pt.LSTM(64, 64, num_layers=2).cuda()
    half_layer = pt.LSTM(64, 64, num_layers=2).cuda().half()
    x = torch.randn(16, 4, 64, device="cuda")

    def step(layer, autocast):
        with torch.autocast("cuda", dtype=torch.float16, enabled=autocast):
            y = layer(x if autocast else x.half())[0]
        y.float().sum().backward()

    def prnn_kernels(layer, autocast):
        step(layer, autocast)                    # plans and compiles outside the profile
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step(layer, autocast)
            torch.cuda.synchronize()
        return sorted(e.name for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA and
                      e.name.startswith("prnn_"))

    ours, reference = prnn_kernels(amp_layer, True), prnn_kernels(half_layer, False)
    assert ours == reference and ours
    assert {key[2] for key in amp_layer._problems.entries} == {torch.float16}


# -- TF32 ------------------------------------------------------------------------

@pytest.fixture
def restore_precision_flags():
    cudnn = torch.backends.cudnn
    saved = (torch.backends.fp32_precision, cudnn.fp32_precision, cudnn.conv.fp32_precision,
             cudnn.rnn.fp32_precision, cudnn.allow_tf32, torch.get_float32_matmul_precision(),
             cudnn.enabled)
    yield
    # parents first: setting one changes its children
    (torch.backends.fp32_precision, cudnn.fp32_precision, cudnn.conv.fp32_precision,
     cudnn.rnn.fp32_precision) = saved[:4]
    # PyTorch refuses to read the legacy allow_tf32 once the new settings
    # were used, until the legacy setter is called again
    cudnn.allow_tf32 = saved[4]
    torch.set_float32_matmul_precision(saved[5])
    cudnn.enabled = saved[6]
    assert cudnn.allow_tf32 == saved[4]


def test_tf32_follows_pytorchs_switches_for_cudnn_rnns(restore_precision_flags):
    """PRNN_TF32_RECURRENCE_MATH exactly where PyTorch lets cuDNN's RNN use TF32:
    torch.backends.cudnn.allow_tf32 / cudnn.rnn.fp32_precision (and the
    settings it inherits); torch.set_float32_matmul_precision only when
    cuDNN is off (torch.nn's RNN then runs on matrix products). Never for
    other data types or the CPU."""
    from prnn.torch import _precision
    cudnn = torch.backends.cudnn
    if not cudnn.is_available():
        pytest.skip("this PyTorch has no cuDNN: torch.nn's RNN never uses it")
    tensor_op, default = _capi.TF32_RECURRENCE_MATH, _capi.DEFAULT_MATH

    def math():
        return _precision.math_type("cuda", torch.float32)

    torch.backends.fp32_precision = "none"
    cudnn.fp32_precision = "none"
    cudnn.allow_tf32 = True                         # PyTorch's default
    assert math() == tensor_op
    assert _precision.math_type("cuda", torch.float16) == default
    assert _precision.math_type("cuda", torch.float64) == default
    assert _precision.math_type("cpu", torch.float32) == default
    torch.set_float32_matmul_precision("highest")   # does not touch cuDNN
    assert math() == tensor_op
    cudnn.allow_tf32 = False
    assert math() == default
    cudnn.rnn.fp32_precision = "tf32"
    assert math() == tensor_op
    cudnn.conv.fp32_precision = "ieee"              # another operator's setting
    assert math() == tensor_op
    cudnn.rnn.fp32_precision = "ieee"
    assert math() == default
    cudnn.rnn.fp32_precision = "none"               # inherits cuDNN's, then the generic one
    cudnn.fp32_precision = "tf32"
    assert math() == tensor_op
    cudnn.enabled = False                           # torch.nn's RNN without cuDNN
    torch.set_float32_matmul_precision("highest")
    assert math() == default
    torch.set_float32_matmul_precision("high")
    assert math() == tensor_op


def _descriptor_maths(layer):
    """(the math type each of the layer's Problems was made for, the one its
    RNN descriptor holds in the C library)."""
    import ctypes
    out = set()
    for p in layer._problems.values():
        math = ctypes.c_int()
        _capi.call("prnnGetRNNMatrixMathType", p.rnn.ptr, ctypes.byref(math))
        out.add((p.math, math.value))
    return out


def test_math_type_is_kept_from_forward_to_backward(monkeypatch):
    """The backward runs with the forward's math type even when the switch
    changed in between (prnn refuses a reserve made under another one), and
    the descriptor keeps it through a new dropout seed (which re-sets the
    descriptor)."""
    from prnn.torch import _precision
    layer = pt.GRU(3, 4, num_layers=2, dropout=0.25)
    x = torch.randn(5, 2, 3, requires_grad=True)
    monkeypatch.setattr(_precision, "math_type", lambda *_: _capi.TENSOR_OP_MATH)
    y, _ = layer(x)
    monkeypatch.setattr(_precision, "math_type", lambda *_: _capi.DEFAULT_MATH)
    y.sum().backward()
    assert x.grad is not None
    assert _descriptor_maths(layer) == {(_capi.TENSOR_OP_MATH, _capi.TENSOR_OP_MATH)}


def test_cuda_fp32_strict_or_tf32_as_pytorch_says(device, restore_precision_flags):
    if device != "cuda":
        pytest.skip("TF32 is a GPU matter")
    cudnn = torch.backends.cudnn
    ref, layer = make_pair("LSTM", 256, 256, 1, False, False, True, "cuda", torch.float32)
    x = torch.randn(32, 8, 256, dtype=torch.float64)
    expect = ref(x)[0].detach()
    results = {}
    for allow in (False, True):
        cudnn.allow_tf32 = allow
        with torch.no_grad():
            results[allow] = layer(x.cuda().float())[0].double().cpu()
    scale = expect.abs().max().item()
    assert (results[False] - expect).abs().max().item() <= 2e-5 * scale
    assert (results[True] - expect).abs().max().item() <= 1e-2 * scale     # TF32's rounding
    assert _descriptor_maths(layer) == {(_capi.DEFAULT_MATH, _capi.DEFAULT_MATH),
                                        (_capi.TF32_RECURRENCE_MATH, _capi.TF32_RECURRENCE_MATH)}


def test_amp_benchmark_step_runs():
    """python/benchmarks/bench_torch_amp.py's step (timed on the GPU by the
    lead) does what it says on a small CPU layer: the autocast step trains
    the fp32 weights through bf16."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    try:
        import bench_torch_amp
    finally:
        sys.path.pop(0)
    torch.manual_seed(0)
    layer = pt.LSTM(8, 8, num_layers=2)
    before = layer.weight_hh_l1.detach().clone()
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    step = bench_torch_amp._step(layer, torch.randn(5, 2, 8),
                                 torch.randn(5, 2, 8, dtype=torch.bfloat16), opt, True,
                                 torch.bfloat16, device="cpu")
    step()
    step()
    assert layer.weight_hh_l1.dtype == torch.float32
    assert not torch.equal(layer.weight_hh_l1.detach(), before)
    assert {key[2] for key in layer._problems.entries} == {torch.bfloat16}


def test_tf32_switch_is_marked_as_the_decorator_marks_it():
    """_precision marks tf32_allowed constant for torch.compile by hand, to
    keep torch._dynamo out of `import prnn.torch`: the mark must be what
    torch.compiler.assume_constant_result sets."""
    from prnn.torch import _precision

    def probe():
        return True

    before = dict(vars(probe))
    torch.compiler.assume_constant_result(probe)
    added = {k: v for k, v in vars(probe).items() if k not in before}
    assert added == {"_dynamo_marked_constant": True}
    assert _precision.tf32_allowed._dynamo_marked_constant is True


def test_import_loads_no_compiler_that_torch_does_not():
    """`import prnn.torch` costs about what `import torch` does: it does not
    pull in torch._dynamo (about 1 s) where `import torch` alone does not."""
    import subprocess
    import sys

    def loaded(code):
        out = subprocess.run([sys.executable, "-c", code + "; import sys; "
                              "print('torch._dynamo' in sys.modules)"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip() == "True"

    assert loaded("import prnn.torch") == loaded("import torch")
