"""Time to the first training step, each in a fresh process (issue 26):
prnn.torch.LSTM with an empty kernel cache, again with the cache that run
filled, with a cache filled ahead by `prnn-cache warm` (when the tool is
found), and torch.nn.LSTM, on the same shape (default: 2 layers, H 1024,
B 16, T 256, fp16, the issue's DDP shape).

  python bench_first_step.py [--hidden 1024] [--batch 16] [--steps 256]
                             [--layers 2] [--dtype half] [--repeats 3]
                             [--json FILE] [--prnn-cache PATH] [--device cuda]

Each child process times, with a wall clock and torch.cuda.synchronize():
  torch     importing torch (a first process after boot reads its
            libraries from disk: seconds, whichever row it belongs to)
  prnn      importing prnn.torch after it (0 for torch.nn)
  cuda      CUDA's set-up: torch.cuda.init() and a first allocation
  build     the module on the GPU and an SGD optimizer (also in parts: the
            module on the CPU, moving it to the device, the optimizer, the
            input)
  first     the first training step: forward, loss, backward, optimizer
            step (prnn: its planning, compiles or cache reads, loads)
  second    the next step (what a warm step costs)
and the parent adds `process`, its own wall time from starting the child
to the end of the child's first step (interpreter start and imports
included). The issue's targets: cuda + build + first <= 1.0 s with a cold
cache and <= 0.3 s with a warm one, on an H100. The median of --repeats
fresh processes per row; the kernel cache directory is a new one per cold
run (PRNN_CACHE_DIR), so nothing outside it is touched.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PHASES = ("torch", "prnn", "cuda", "build", "first", "second")
# build's parts, each also a key of a child's line
BUILD_PARTS = ("build.module", "build.to_device", "build.optimizer", "build.input")


def child(args):
    """One fresh process's measurements, printed as one JSON line."""
    t = {}
    t0 = time.perf_counter()
    import torch
    t["torch"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if args.kind == "prnn":
        import prnn.torch as pt
    t["prnn"] = time.perf_counter() - t0

    dev = torch.device(args.device)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    t0 = time.perf_counter()
    if dev.type == "cuda":
        torch.cuda.init()
    torch.empty(1, device=dev)
    sync()
    t["cuda"] = time.perf_counter() - t0

    dtype = getattr(torch, args.dtype)
    t0 = time.perf_counter()
    torch.manual_seed(0)
    cls = pt.LSTM if args.kind == "prnn" else torch.nn.LSTM
    model = cls(args.hidden, args.hidden, num_layers=args.layers)
    t["build.module"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    model = model.to(dev, dtype)
    sync()
    t["build.to_device"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    t["build.optimizer"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    x = torch.randn(args.steps, args.batch, args.hidden, device=dev, dtype=dtype)
    sync()
    t["build.input"] = time.perf_counter() - t1
    t["build"] = time.perf_counter() - t0

    def step():
        opt.zero_grad(set_to_none=True)
        y, _ = model(x)
        y.float().square().mean().backward()
        opt.step()
        sync()

    for phase in ("first", "second"):
        t0 = time.perf_counter()
        step()
        t[phase] = time.perf_counter() - t0
    t["done_at"] = time.time()
    print(json.dumps(t), flush=True)


def run_child(argv, env):
    start = time.time()
    p = subprocess.run([sys.executable, __file__, "--child"] + argv, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"child {' '.join(argv)} failed ({p.returncode}):\n{p.stderr}")
    t = json.loads(p.stdout.strip().splitlines()[-1])
    t["process"] = t.pop("done_at") - start - t["second"]
    return t


def find_prnn_cache(given):
    if given:
        return given if os.access(given, os.X_OK) else None
    found = shutil.which("prnn-cache")
    if found:
        return found
    lib = os.environ.get("PRNN_LIBRARY", "")
    near = os.path.join(os.path.dirname(lib), "tools", "cache", "prnn-cache") if lib else ""
    return near if near and os.access(near, os.X_OK) else None


def warm_ahead(tool, cache_dir, args_device):
    """Fills cache_dir with `prnn-cache warm` for this GPU's architecture;
    False when there is no tool or no GPU to name the architecture."""
    import torch
    if not tool or args_device != "cuda" or not torch.cuda.is_available():
        return False
    major, minor = torch.cuda.get_device_capability()
    subprocess.run([tool, "--dir", cache_dir, "--arch", f"sm_{major}{minor}", "warm"],
                   check=True, stdout=subprocess.DEVNULL)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--steps", type=int, default=256)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dtype", default="half", choices=("half", "bfloat16", "float"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--device", default="cuda", help="cuda, or cpu to try the script itself "
                    "(prnn's CPU reference: no compiles)")
    ap.add_argument("--prnn-cache", help="the prnn-cache tool (default: on PATH, or beside "
                    "PRNN_LIBRARY's build)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--kind", default="prnn", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return

    shape = ["--hidden", str(args.hidden), "--batch", str(args.batch), "--steps",
             str(args.steps), "--layers", str(args.layers), "--dtype", args.dtype,
             "--device", args.device]
    rows = {}
    with tempfile.TemporaryDirectory(prefix="prnn-first-step.") as tmp:
        def measure(name, kind, make_dir):
            samples = []
            for i in range(args.repeats):
                env = dict(os.environ)
                if kind == "prnn":
                    env["PRNN_CACHE_DIR"] = make_dir(i)
                samples.append(run_child(shape + ["--kind", kind], env))
            rows[name] = {k: statistics.median(s[k] for s in samples)
                          for k in PHASES + BUILD_PARTS + ("process",)}

        warm_dir = os.path.join(tmp, "warm")
        measure("prnn, cold cache", "prnn", lambda i: os.path.join(tmp, f"cold{i}"))
        # the cache the first cold run filled (none on the CPU)
        cold0 = os.path.join(tmp, "cold0")
        if os.path.isdir(cold0):
            shutil.copytree(cold0, warm_dir)
        else:
            os.makedirs(warm_dir)
        measure("prnn, warm cache", "prnn", lambda i: warm_dir)
        ahead_dir = os.path.join(tmp, "ahead")
        if warm_ahead(find_prnn_cache(args.prnn_cache), ahead_dir, args.device):
            measure("prnn, prnn-cache warm", "prnn", lambda i: ahead_dir)
        measure("torch.nn", "torch", None)

    print(f"time to the first training step: {args.layers}-layer LSTM H {args.hidden} "
          f"B {args.batch} T {args.steps} {args.dtype}, median of {args.repeats} fresh "
          "processes (ms)")
    cols = PHASES + ("process",)
    print(f"{'':24}" + "".join(f"{c:>9}" for c in cols) + f"{'cuda+build+first':>18}")
    for name, r in rows.items():
        total = r["cuda"] + r["build"] + r["first"]
        print(f"{name:24}" + "".join(f"{r[c] * 1e3:9.0f}" for c in cols) + f"{total * 1e3:18.0f}")
    print("build, in parts (ms): the module on the CPU, moving it to the device (prnn: its "
          "handle, NVRTC and cuBLASLt; torch.nn: cuDNN's weights), the optimizer (PyTorch's "
          "own: the first one imports more of torch), the input")
    print(f"{'':24}" + "".join(f"{c.split('.')[1]:>11}" for c in BUILD_PARTS)
          + f"{'to_device+first':>17}")
    for name, r in rows.items():
        own = r["build.to_device"] + r["first"]
        print(f"{name:24}" + "".join(f"{r[c] * 1e3:11.0f}" for c in BUILD_PARTS)
              + f"{own * 1e3:17.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"shape": vars(args), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
