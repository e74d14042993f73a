"""No silent wrong results at the edges of autograd and of the states
(issue 25, item 4): a double backward raises (as cuDNN's RNNs, whose
backward is once differentiable) instead of dropping the second-order term;
hx/cx on another device or of another data type raise torch.nn's errors
instead of being read through a pointer that is not the input's kind."""

import pytest
import torch
from torch import nn

import prnn.torch as pt
from prnn.torch import _ops


def _penalty_setup(cls, device, compiled=False):
    torch.manual_seed(0)
    layer = cls(3, 4, num_layers=2).to(device, torch.float64)
    x = torch.randn(5, 2, 3, dtype=torch.float64, device=device, requires_grad=True)
    run = torch.compile(lambda z: layer(z)[0], backend="aot_eager", dynamic=False) \
        if compiled else (lambda z: layer(z)[0])
    return layer, x, run


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.RNN, pt.SRU])
def test_gradient_penalty_raises_instead_of_dropping_the_second_order_term(cls, device):
    layer, x, run = _penalty_setup(cls, device)
    y = run(x)
    grad_w, = torch.autograd.grad(y.square().sum(), layer.weight_ih_l0, create_graph=True)
    loss = y.sum() + grad_w.square().sum()
    with pytest.raises(RuntimeError, match="double backward"):
        loss.backward()
    # the same through the input's gradient (gradient penalty on x)
    y = run(x)
    grad_x, = torch.autograd.grad(y.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward"):
        grad_x.square().sum().backward()


def test_gradient_penalty_raises_through_torch_compile(device):
    layer, x, run = _penalty_setup(pt.LSTM, device, compiled=True)
    torch._dynamo.reset()
    y = run(x)
    grad_w, = torch.autograd.grad(y.square().sum(), layer.weight_hh_l1, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward"):
        (y.sum() + grad_w.square().sum()).backward()


def test_first_order_with_create_graph_still_works(device):
    """create_graph=True alone (e.g. a Hessian-vector product elsewhere in the
    model) gives the right first-order gradient."""
    layer, x, run = _penalty_setup(pt.GRU, device)
    g1, = torch.autograd.grad(run(x).square().sum(), layer.weight_hh_l0, create_graph=True)
    g2, = torch.autograd.grad(run(x).square().sum(), layer.weight_hh_l0)
    torch.testing.assert_close(g1.detach(), g2, rtol=0, atol=0)


def _torch_nn_error(module, x, hx):
    try:
        module(x, hx)
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("which", ["h", "c"])
def test_state_on_another_device_raises_torch_nns_error(which):
    torch.manual_seed(0)
    ours, theirs = pt.LSTM(3, 4), nn.LSTM(3, 4)
    x = torch.randn(5, 2, 3)
    h, c = torch.zeros(1, 2, 4), torch.zeros(1, 2, 4)
    hx = (h.to("meta"), c) if which == "h" else (h, c.to("meta"))
    expect = _torch_nn_error(theirs, x, hx)
    assert expect is not None
    with pytest.raises(RuntimeError) as err:
        ours(x, hx)
    assert str(err.value) == expect


def test_gru_state_on_another_device():
    with pytest.raises(RuntimeError, match="Input and hidden tensors are not at the same "
                       "device, found input tensor at cpu and hidden tensor at meta"):
        pt.GRU(3, 4)(torch.randn(5, 2, 3), torch.zeros(1, 2, 4, device="meta"))


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.RNN, pt.SRU])
def test_state_of_another_dtype_raises(cls):
    layer = cls(3, 4)
    x = torch.randn(5, 2, 3)
    h = torch.zeros(1, 2, 4, dtype=torch.float64)
    hx = (h, torch.zeros(1, 2, 4)) if cls is pt.LSTM else h
    with pytest.raises(RuntimeError, match="Input and hidden tensors are not the same dtype, "
                       "found input tensor with Float and hidden tensor with Double"):
        layer(x, hx)


def test_host_state_with_cuda_input_raises(device):
    if device != "cuda":
        pytest.skip("needs a GPU")
    layer = pt.GRU(3, 4).cuda()
    with pytest.raises(RuntimeError, match="found input tensor at cuda:0 and hidden tensor at "
                       "cpu"):
        layer(torch.randn(5, 2, 3, device="cuda"), torch.zeros(1, 2, 4))
    lstm = pt.LSTM(3, 4).cuda()
    h = torch.zeros(1, 2, 4, device="cuda")
    with pytest.raises(RuntimeError, match="not at the same device"):
        lstm(torch.randn(5, 2, 3, device="cuda"), (h, torch.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match="Input and parameter tensors are not at the same "
                       "device"):
        layer(torch.randn(5, 2, 3))


@pytest.mark.parametrize("make", [
    lambda: pt.LSTM(6, 4, num_layers=2, bidirectional=True),
    lambda: pt.GRU(6, 4, num_layers=2),
    lambda: pt.SRU(8, 4, num_layers=2, bidirectional=True, convention="sru"),
    lambda: pt.SRU(6, 4, num_layers=2, bidirectional=True)],
    ids=["lstm", "gru", "sru-package", "sru-prnn"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_input_without_grad_skips_dx_and_keeps_the_other_gradients(make, compiled, device,
                                                                    monkeypatch):
    """An input that needs no gradient (a model's first layer fed data): the
    backward asks prnn for no dx (prnnRNNBackwardData's dx NULL skips the
    first layer's input product) and the weights' and state's gradients are
    those of the same step with the input's gradient computed."""
    torch.manual_seed(0)
    layer = make().to(device, torch.float64)
    x = torch.randn(5, 3, layer.input_size, dtype=torch.float64, device=device)
    h0 = torch.randn(layer.num_layers * (2 if layer.bidirectional else 1), 3, 4,
                     dtype=torch.float64, device=device, requires_grad=True)
    run = (torch.compile(lambda z, h: layer(z, h)[0], backend="aot_eager", dynamic=False)
           if compiled else (lambda z, h: layer(z, h)[0]))
    if compiled:
        torch._dynamo.reset()
    dx_args = []
    real_call = _ops.call

    def spy(name, *args):
        if name == "prnnRNNBackwardData":
            dx_args.append(args[18])
        return real_call(name, *args)

    monkeypatch.setattr(_ops, "call", spy)
    grads = []
    for needs in (True, False):
        xi = x.clone().requires_grad_(needs)
        layer.zero_grad()
        h0.grad = None
        state = (h0, h0.detach() * 2) if isinstance(layer, pt.LSTM) else h0
        run(xi, state).square().sum().backward()
        assert (xi.grad is not None) == needs
        assert (dx_args.pop() is not None) == needs
        grads.append([h0.grad.clone()] + [p.grad.clone() for p in layer.parameters()])
    for with_dx, without in zip(*grads):
        torch.testing.assert_close(without, with_dx, rtol=0, atol=0)
