"""Trains a small character-level language model whose recurrent layer is
prnn.torch.LSTM, on the GPU, with a progress bar; then samples from it.

    python train_char_lm.py [--steps 400] [--hidden 512] [--dtype bfloat16] [--torch]

--torch trains the same model with torch.nn.LSTM instead, to compare the
time per step. The text is generated here (a tiny grammar), so nothing is
downloaded. Without a GPU it runs on prnn's CPU reference backend, slowly.
"""

import argparse
import sys
import time

import torch
from torch import nn

import prnn.torch as pt

WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to", "hat", "big", "red"]


def corpus(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    text = []
    while len(text) < n:
        sentence = [WORDS[i] for i in torch.randint(len(WORDS), (5,), generator=g).tolist()]
        text.append(" ".join(sentence) + ".\n")
    return "".join(text)[:n]


class CharLM(nn.Module):
    def __init__(self, vocab, hidden, layers, lstm):
        super().__init__()
        self.embed = nn.Embedding(vocab, 128)
        self.rnn = lstm(128, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens, state=None):
        y, state = self.rnn(self.embed(tokens), state)
        return self.head(y), state


def progress(i, total, loss, rate, width=30):
    done = int(width * i / total)
    sys.stdout.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{total} "
                     f"loss {loss:.3f}  {rate:.1f} steps/s")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    ap.add_argument("--torch", action="store_true", help="use torch.nn.LSTM instead")
    args = ap.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        print("no GPU: running on prnn's CPU reference backend (slow); try --steps 20 --hidden 64")
    dtype = getattr(torch, args.dtype)
    text = corpus(200_000)
    vocab = sorted(set(text))
    data = torch.tensor([vocab.index(c) for c in text], device=device)
    torch.manual_seed(0)
    model = CharLM(len(vocab), args.hidden, args.layers,
                   nn.LSTM if args.torch else pt.LSTM).to(device)
    # the recurrent layer in the chosen type; embedding and head stay float32
    model.rnn.to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    print(f"{'torch.nn' if args.torch else 'prnn.torch'}.LSTM: hidden {args.hidden}, "
          f"{args.layers} layers, batch {args.batch}, {args.seq} steps, {args.dtype}, on {device}")
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, len(data) - args.seq - 1, (args.batch,), device=device)
        chunk = data[idx[:, None] + torch.arange(args.seq + 1, device=device)]
        x = model.embed(chunk[:, :-1]).to(dtype)
        y, _ = model.rnn(x)
        logits = model.head(y.float())
        loss = nn.functional.cross_entropy(logits.reshape(-1, len(vocab)),
                                           chunk[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0 or step == args.steps:
            progress(step, args.steps, loss.item(), step / (time.perf_counter() - start))
    print()
    model.eval()
    with torch.no_grad():
        tok = torch.tensor([[vocab.index("t")]], device=device)
        state, out = None, ["t"]
        for _ in range(80):
            y, state = model.rnn(model.embed(tok).to(dtype), state)
            probs = torch.softmax(model.head(y.float())[0, -1], -1)
            tok = torch.multinomial(probs, 1)[None]
            out.append(vocab[tok.item()])
    print("sample:", "".join(out).replace("\n", " | "))


if __name__ == "__main__":
    main()
