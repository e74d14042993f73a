"""torch.compile traces through a prnn layer without a graph break (the
layer is the prnn::rnn_forward operator, with a fake implementation and an
autograd formula), and the compiled model computes what eager mode does;
CUDA graphs capture it."""

import pytest
import torch
from torch import nn

import prnn.torch as pt


class Tagger(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn
        self.head = nn.Linear(rnn.hidden_size * 2, 3)

    def forward(self, x):
        y, _ = self.rnn(torch.tanh(x))
        return self.head(y).sum(-1)


def _model(cls, device):
    torch.manual_seed(0)
    return Tagger(cls(6, 8, num_layers=2, bidirectional=True, batch_first=True)).to(device)


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.RNN, pt.SRU])
def test_no_graph_break(cls, device):
    model = _model(cls, device)
    x = torch.randn(3, 5, 6, device=device, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    assert explanation.graph_count == 1


@pytest.mark.parametrize("cls", [pt.LSTM, pt.GRU, pt.SRU])
def test_compiled_equals_eager(cls, device):
    model = _model(cls, device)
    x = torch.randn(3, 5, 6, device=device)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True, dynamic=False)
    x1 = x.clone().requires_grad_(True)
    x2 = x.clone().requires_grad_(True)
    y_eager = model(x1)
    y_eager.square().sum().backward()
    grads_eager = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    y_comp = compiled(x2)
    y_comp.square().sum().backward()
    torch.testing.assert_close(y_comp, y_eager, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(x2.grad, x1.grad, rtol=1e-6, atol=1e-6)
    for p, g in zip(model.parameters(), grads_eager):
        torch.testing.assert_close(p.grad, g, rtol=1e-6, atol=1e-6)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-6, atol=1e-6)


def test_inductor(device):
    model = _model(pt.LSTM, device)
    x = torch.randn(3, 5, 6, device=device)
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True, dynamic=False)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)


def test_cuda_graph_capture(device):
    if device != "cuda":
        pytest.skip("CUDA graphs need a GPU")
    model = _model(pt.LSTM, device).eval()
    static_x = torch.randn(3, 5, 6, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(2):                      # warm-up plans and compiles outside capture
            model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        static_y = model(static_x)
    for _ in range(3):
        new_x = torch.randn(3, 5, 6, device=device)
        static_x.copy_(new_x)
        graph.replay()
        with torch.no_grad():
            torch.testing.assert_close(static_y, model(new_x), rtol=0, atol=0)


def test_training_step_in_a_cuda_graph(device):
    if device != "cuda":
        pytest.skip("CUDA graphs need a GPU")
    model = _model(pt.LSTM, device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    static_x = torch.randn(3, 5, 6, device=device)

    def step():
        opt.zero_grad(set_to_none=False)
        loss = model(static_x).square().mean()
        loss.backward()
        return loss

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = step()
    grads = []
    for _ in range(2):
        graph.replay()
        grads.append([p.grad.clone() for p in model.parameters()])
    eager_loss = step()
    torch.testing.assert_close(static_loss, eager_loss, rtol=1e-6, atol=1e-6)
    for a, b in zip(grads[1], [p.grad for p in model.parameters()]):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)


def test_compile_with_cuda_graphs(device):
    """torch.compile's "reduce-overhead" mode records the model, prnn's
    operator included, in a CUDA graph and replays it."""
    if device != "cuda":
        pytest.skip("CUDA graphs need a GPU")
    model = _model(pt.GRU, device).eval()
    torch._dynamo.reset()
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False)
    with torch.no_grad():
        for _ in range(4):       # warm-up runs, then recorded, then replayed
            x = torch.randn(3, 5, 6, device=device)
            torch.testing.assert_close(compiled(x).clone(), model(x), rtol=1e-5, atol=1e-5)


def test_packed_input_compiles_with_a_graph_break(device):
    """PackedSequence input: the layer's output sizes depend on batch_sizes'
    values, so torch.compile breaks the graph there (said in the README);
    the result is still eager mode's."""
    from torch.nn.utils.rnn import pack_padded_sequence
    torch.manual_seed(0)
    layer = pt.LSTM(3, 4, num_layers=2).to(device)

    def f(x, lengths):
        y, (h, c) = layer(pack_padded_sequence(x, lengths, enforce_sorted=False))
        return h, c

    x = torch.randn(5, 3, 3, device=device)
    lengths = torch.tensor([5, 2, 4])
    torch._dynamo.reset()
    got = torch.compile(f, backend="aot_eager")(x, lengths)
    for a, b in zip(got, f(x, lengths)):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
