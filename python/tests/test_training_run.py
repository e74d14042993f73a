"""A short real training run: a character-level language model on text
generated here, trained with prnn.torch.LSTM and with torch.nn.LSTM from
the same initial weights. The losses follow each other step by step and
both models learn."""

import pytest
import torch
from torch import nn

import prnn.torch as pt

VOCAB = "abcdefgh .\n"


def _corpus(n, seed=0):
    """Words from a tiny grammar: learnable structure, no download."""
    g = torch.Generator().manual_seed(seed)
    words = ["abc", "bad", "cafe", "dead", "face", "bead", "fade", "head"]
    out = []
    while len(out) < n:
        w = words[torch.randint(len(words), (1,), generator=g).item()]
        out.extend(w + (" " if torch.rand(1, generator=g).item() < 0.8 else ".\n"))
    return torch.tensor([VOCAB.index(c) for c in out[:n]])


class CharLM(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.embed = nn.Embedding(len(VOCAB), 16)
        self.rnn = rnn
        self.head = nn.Linear(rnn.hidden_size * (2 if rnn.bidirectional else 1), len(VOCAB))

    def forward(self, tokens):
        y, _ = self.rnn(self.embed(tokens))
        return self.head(y)


def _train(model, data, steps, device, batch=16, seq=24, lr=3e-3):
    g = torch.Generator().manual_seed(1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        starts = torch.randint(0, len(data) - seq - 1, (batch,), generator=g)
        chunk = torch.stack([data[s:s + seq + 1] for s in starts.tolist()]).to(device)
        x, target = chunk[:, :-1].t(), chunk[:, 1:].t()      # time-major
        logits = model(x)
        loss = nn.functional.cross_entropy(logits.reshape(-1, len(VOCAB)), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_losses_follow_torch_nn(device, dtype):
    if device == "cpu" and dtype == torch.float32:
        pytest.skip("the CPU backend computes in double either way: float64 covers it")
    torch.manual_seed(0)
    theirs = CharLM(nn.LSTM(16, 32)).to(device, dtype)
    ours = CharLM(pt.LSTM(16, 32)).to(device, dtype)
    ours.load_state_dict(theirs.state_dict())
    data = _corpus(6000)
    steps = 300
    l_ours = _train(ours, data, steps, device)
    l_theirs = _train(theirs, data, steps, device)
    tol = 1e-9 if dtype == torch.float64 else 1e-4
    for i in range(20):
        assert abs(l_ours[i] - l_theirs[i]) <= tol * abs(l_theirs[i]), (i, l_ours[i], l_theirs[i])
    # both learn: the last 20 steps' mean is far below the first step's loss
    for losses in (l_ours, l_theirs):
        assert sum(losses[-20:]) / 20 < 0.5 * losses[0], losses[::30]
    assert abs(sum(l_ours[-20:]) - sum(l_theirs[-20:])) / 20 < 0.05
