"""A training step under torch.autocast(fp16), prnn against itself built in
fp16 and against torch.nn under the same autocast, on the GPU (issue 23's
target: LSTM(1024, 1024, 2), B 16, T 256: within 10 % of the fp16-built
module, and at least as fast as torch.nn).

  python bench_torch_amp.py [--hidden H] [--layers L] [--batch B] [--steps T]
                            [--dtype float16|bfloat16] [--json FILE]

A step is forward, backward (a fixed output gradient) and an SGD update of
the parameters: the update changes the weights, so the autocast step pays
for converting them again, as a real training step does. Timing as
bench_torch_modules.py's: CUDA events around repeated steps after a warm-up,
median of 5 runs, in milliseconds per step.
"""

import argparse
import json

import torch
from torch import nn

import prnn.torch as pt
from bench_torch_modules import _time_gpu


def _step(module, x, dy, opt, autocast, dtype, device="cuda"):
    def step():
        with torch.autocast(device, dtype=dtype, enabled=autocast):
            y, _ = module(x)
        y.backward(dy)
        opt.step()
        opt.zero_grad(set_to_none=False)
    return step


def bench(hidden, layers, batch, steps, dtype, repeats):
    torch.manual_seed(0)
    theirs = nn.LSTM(hidden, hidden, num_layers=layers).cuda()
    variants = {
        "prnn autocast": (pt.from_torch(theirs), True),
        "prnn built in half": (pt.from_torch(theirs).to(dtype), False),
        "torch.nn autocast": (theirs, True),
        "torch.nn built in half": (nn.LSTM(hidden, hidden, num_layers=layers).cuda().to(dtype),
                                   False),
    }
    x32 = torch.randn(steps, batch, hidden, device="cuda")
    dy = torch.randn(steps, batch, hidden, device="cuda", dtype=dtype)
    out = {}
    for name, (module, autocast) in variants.items():
        opt = torch.optim.SGD(module.parameters(), lr=1e-6)
        x = x32 if autocast else x32.to(dtype)
        out[name] = _time_gpu(_step(module, x, dy, opt, autocast, dtype), repeats) / 1000.0
    ours = variants["prnn autocast"][0]
    kinds = {key[2] for key in ours._problems.entries}
    problem = next(iter(ours._problems.values()))
    info = problem.plan_info()
    return out, kinds, info


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=256)
    ap.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--json")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}; LSTM({args.hidden}, {args.hidden}, "
          f"{args.layers}) B={args.batch} T={args.steps}, autocast {args.dtype}; "
          "ms per training step (forward, backward, SGD update)")
    times, kinds, info = bench(args.hidden, args.layers, args.batch, args.steps, dtype,
                               args.repeats)
    print("| variant | ms / step |")
    print("|---|---|")
    for name, ms in times.items():
        print(f"| {name} | {ms:.3f} |")
    vs_half = times["prnn autocast"] / times["prnn built in half"]
    vs_torch = times["prnn autocast"] / times["torch.nn autocast"]
    print(f"prnn's data types under autocast: {sorted(str(k) for k in kinds)}; plan: path "
          f"{info.path}, tensor cores {info.tensorCores}, config {info.config.decode()}")
    print(f"prnn autocast / prnn built in half = {vs_half:.3f} (target <= 1.10: "
          f"{'met' if vs_half <= 1.10 else 'NOT met'})")
    print(f"prnn autocast / torch.nn autocast = {vs_torch:.3f} (target <= 1.00: "
          f"{'met' if vs_torch <= 1.0 else 'NOT met'})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ms_per_step": times, "vs_half": vs_half, "vs_torch": vs_torch,
                       "args": vars(args), "torch": torch.__version__,
                       "device": torch.cuda.get_device_name()}, f, indent=1)


if __name__ == "__main__":
    main()
