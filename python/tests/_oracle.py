"""Runs a prnn.torch layer and its torch.nn twin on the same weights and
inputs and returns both sets of outputs and gradients, the twin in float64
on the CPU (the oracle), prnn on the device and dtype under test."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import prnn.torch as pt

TOLERANCE = {torch.float64: 1e-9, torch.float32: 2e-5, torch.float16: 2e-2,
             torch.bfloat16: 5e-2}

TORCH_CLASSES = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN_TANH": nn.RNN, "RNN_RELU": nn.RNN}


def make_pair(mode, input_size, hidden, layers, bidirectional, batch_first, bias, device,
              dtype, seed=0):
    torch.manual_seed(seed)
    cls = TORCH_CLASSES[mode]
    kwargs = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first,
                  bias=bias)
    if cls is nn.RNN:
        kwargs["nonlinearity"] = "relu" if mode == "RNN_RELU" else "tanh"
    ref = cls(input_size, hidden, **kwargs).double()
    if bias:     # torch.nn's biases start uniform; make them clearly nonzero
        with torch.no_grad():
            for name, p in ref.named_parameters():
                if name.startswith("bias"):
                    p.uniform_(-0.5, 0.5)
    layer = pt.from_torch(ref).to(device=device, dtype=dtype)
    return ref, layer


def run(module, x, state, lengths, batch_first, grad_seed=1):
    """Forward and backward of sum(output * r) + sum(h * r') (+ c): returns
    outputs and the gradients of x, state and every parameter (by name)."""
    params = dict(module.named_parameters())
    x = x.detach().clone().requires_grad_(True)
    state_in = None
    if state is not None:
        state_in = tuple(s.detach().clone().requires_grad_(True) for s in state)
    inp = x
    if lengths is not None:
        inp = pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=False)
    hx = None
    if state_in is not None:
        hx = state_in if len(state_in) == 2 else state_in[0]
    out, h = module(inp, hx)
    if lengths is not None:
        out, _ = pad_packed_sequence(out, batch_first=batch_first, total_length=x.shape[
            1 if batch_first else 0])
    hs = list(h) if isinstance(h, tuple) else [h]
    g = torch.Generator().manual_seed(grad_seed)
    loss = 0
    results = {"out": out}
    for i, t in enumerate([out] + hs):
        r = torch.randn(t.shape, generator=g, dtype=torch.float64).to(t.device, t.dtype)
        loss = loss + (t * r).float().sum()
        if i:
            results[f"state{i - 1}"] = t
    loss.backward()
    results["dx"] = x.grad
    if state_in is not None:
        for i, s in enumerate(state_in):
            results[f"dstate{i}"] = s.grad
    for name, p in params.items():
        results["d" + name] = p.grad
    return results


def compare(ours, ref, dtype, what=""):
    tol = TOLERANCE[dtype]
    assert set(ours) == set(ref), (sorted(ours), sorted(ref))
    for key in ref:
        a = ours[key].detach().double().cpu()
        b = ref[key].detach().double().cpu()
        assert a.shape == b.shape, f"{what} {key}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
        err = (a - b).abs().max().item() / max(b.abs().max().item(), 1e-3)
        assert err <= tol, f"{what} {key}: relative error {err:.2e} > {tol:.0e}"
