"""prnn.torch's modules against torch.nn's as PyTorch ships them, in one
process: inference and the training step (forward, backward and an SGD
step), per mode, layers, hidden size, batch, sequence length and data type,
and the Python layer's own cost per call over the C API's.

  python bench_torch_modules.py [--grid quick|default|edges|full]
      [--modes lstm,gru,tanh] [--steps T] [--json FILE] [--device cuda|cpu]

Grids (input size = hidden size):
  default  LSTM, 1 layer, H 256 512 1024, B 1 4 16 64, fp32 fp16 bf16, T --steps
  quick    LSTM, 1 layer, H 256 1024, B 1 16, fp32 fp16, T --steps
  edges    the corners of issue 22's module target (1-3 layers, H 64-1024,
           B 1-256, T 1-1024): L 1 3, H 64 256 1024, B 1 64 256, T 1 16 1024,
           fp32 fp16, each --modes (LSTM by default): 108 points a mode
  full     the whole target: L 1 2 3, H 64 128 256 512 1024, B 1 16 64 256,
           T 1 16 256 1024, fp32 fp16: 480 points a mode
Points whose sequence holds more than --max-tokens rows (T x B) are skipped
and listed (their activations alone outgrow the card).

Timing: CUDA events around back-to-back calls after a warm-up (on a GPU 3
to 10 calls, about --run-ms of them: prnn captures its calls' graphs
there), as many calls per run as make about --run-ms, median of --runs
runs; µs per
timestep and the ratio prnn / torch.nn. The last lines give each ratio's
geometric mean and the worst training-step ratio with its point. The
overhead figure (default and quick grids) is measured on a one-step
sequence, where the host's cost per call is what the loop's wall time
shows: the module's call against a direct ctypes call of
prnnRNNForwardInference on the same buffers, as wall time per call in a
loop and as host time alone.

--device cpu runs the same code on the CPU (prnn's reference backend against
torch.nn's CPU kernels, wall-clock timing): a check that the script works,
not a benchmark.
"""

import argparse
import itertools
import json
import math
import statistics
import time

import torch
from torch import nn

import prnn.torch as pt
from prnn import _capi
from prnn._capi import api
from prnn.torch import _ops, _runtime

MODES = {"lstm": lambda h, layers: nn.LSTM(h, h, layers),
         "gru": lambda h, layers: nn.GRU(h, h, layers),
         "tanh": lambda h, layers: nn.RNN(h, h, layers, nonlinearity="tanh"),
         "relu": lambda h, layers: nn.RNN(h, h, layers, nonlinearity="relu")}
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def _time_gpu(fn, repeats, runs=5):
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeats):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1000.0 / repeats)
    return statistics.median(samples)


def _time_cpu(fn, repeats, runs=5):
    fn()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        samples.append((time.perf_counter() - t0) * 1e6 / repeats)
    return statistics.median(samples)


def _time(fn, device, run_ms, runs):
    """Microseconds per call in steady state: a first call (planning and
    compiling), on a GPU warm-up calls for about run_ms (3 to 10 of them,
    each timer also running one untimed call first), then `runs` runs of as
    many calls as take about run_ms. The first few calls of a training step
    on a GPU are where prnn captures its calls' CUDA graphs, as the caching
    allocator settles the buffers' addresses (bench/NOTES.md, "Sixteenth
    session"), and where cuDNN picks its algorithms: a loop that repeats
    thousands of times is timed past them. The CPU run is a check, not a
    benchmark: no warm-up."""
    timer = _time_gpu if device.type == "cuda" else _time_cpu
    once = timer(fn, 1, runs=1)
    if device.type == "cuda":
        timer(fn, max(3, min(10, round(run_ms * 1000.0 / max(once, 1.0)))), runs=1)
        once = timer(fn, 1, runs=1)
    repeats = max(1, min(50, round(run_ms * 1000.0 / max(once, 1.0))))
    return timer(fn, repeats, runs)


def _pair(mode, hidden, layers, dtype, device):
    torch.manual_seed(0)
    theirs = MODES[mode](hidden, layers).to(device=device, dtype=dtype)
    ours = pt.from_torch(theirs)
    return ours, theirs


def bench_point(point, device, run_ms=20.0, runs=5):
    """One point {mode, layers, hidden, batch, dtype, steps}: inference and
    the training step of both modules, µs per timestep."""
    mode, layers, hidden = point["mode"], point["layers"], point["hidden"]
    batch, steps, dtype = point["batch"], point["steps"], DTYPES[point["dtype"]]
    ours, theirs = _pair(mode, hidden, layers, dtype, device)
    x = torch.randn(steps, batch, hidden, device=device, dtype=dtype)
    dy = torch.randn(steps, batch, hidden, device=device, dtype=dtype)
    row = dict(point)
    for name, module in (("prnn", ours), ("torch", theirs)):
        module.eval()
        with torch.no_grad():
            row[f"{name}_infer_us"] = _time(lambda: module(x), device, run_ms, runs) / steps
        module.train()
        xg = x.clone().requires_grad_(True)
        opt = torch.optim.SGD(module.parameters(), lr=1e-6)

        def train_step():
            opt.zero_grad(set_to_none=True)
            y, _ = module(xg)
            y.backward(dy)
            opt.step()
        row[f"{name}_train_us"] = _time(train_step, device, run_ms, runs) / steps
    row["infer_ratio"] = row["prnn_infer_us"] / row["torch_infer_us"]
    row["train_ratio"] = row["prnn_train_us"] / row["torch_train_us"]
    return row


def grid_points(grid, modes, steps):
    """The points of a named grid, in the order they run."""
    if grid in ("default", "quick"):
        quick = grid == "quick"
        hs, bs = ([256, 1024], [1, 16]) if quick else ([256, 512, 1024], [1, 4, 16, 64])
        dts = ["fp32", "fp16"] if quick else ["fp32", "fp16", "bf16"]
        axes = (modes, [1], hs, bs, [steps], dts)
    elif grid == "edges":
        axes = (modes, [1, 3], [64, 256, 1024], [1, 64, 256], [1, 16, 1024], ["fp32", "fp16"])
    elif grid == "full":
        axes = (modes, [1, 2, 3], [64, 128, 256, 512, 1024], [1, 16, 64, 256],
                [1, 16, 256, 1024], ["fp32", "fp16"])
    else:
        raise ValueError(f"unknown grid {grid!r}")
    keys = ("mode", "layers", "hidden", "batch", "steps", "dtype")
    return [dict(zip(keys, p)) for p in itertools.product(*axes)]


def python_overhead(hidden=256, batch=1, dtype=torch.float32, calls=2000):
    """Host time per call: module (eager, no_grad) against the bare C call."""
    ours, _ = _pair("lstm", hidden, 1, dtype, torch.device("cuda"))
    ours.eval()
    x = torch.randn(1, batch, hidden, device="cuda", dtype=dtype)
    with torch.no_grad():
        ours(x)
    p = _runtime.problem(x.device, _runtime.MODES["LSTM"], _runtime.torch_dtype_code(dtype),
                         hidden, hidden, 1, False, [batch], 0.0)
    names = _runtime.weight_names(_runtime.MODES["LSTM"], 1, False, True)
    w, _ = _ops.flat_weights(ours._flat_weights, ours._layout(), names)
    p.handle.set_stream(torch.cuda.current_stream().cuda_stream)
    y = torch.empty(1, batch, hidden, device="cuda", dtype=dtype)
    hy, cy = (torch.empty(1, batch, hidden, device="cuda", dtype=dtype) for _ in range(2))
    ws = torch.empty(p.workspace_bytes, dtype=torch.uint8, device="cuda")
    args = (p.handle.ptr, p.rnn.ptr, 1, p.x_descs, x.data_ptr(), p.h_desc.ptr, None, p.h_desc.ptr,
            None, p.w_desc.ptr, w, p.y_descs, y.data_ptr(), p.h_desc.ptr, hy.data_ptr(),
            p.h_desc.ptr, cy.data_ptr(), ws.data_ptr(), p.workspace_bytes)
    fn = api().prnnRNNForwardInference

    def wall_us(f):
        """Per call, until the GPU is done: what a loop of calls costs."""
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            torch.cuda.synchronize()
            best = min(best, (time.perf_counter() - t0) * 1e6 / calls)
        return best

    def host_us(f, n=200):
        """Per call, on the host only: n calls enqueue in fewer than the
        launch queue's 1024 entries, timed before synchronizing."""
        best = float("inf")
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best = min(best, (time.perf_counter() - t0) * 1e6 / n)
            torch.cuda.synchronize()
        return best

    out = {}
    with torch.no_grad():
        for name, f in (("bare_c", lambda: fn(*args)), ("module", lambda: ours(x)),
                        ("operator", lambda: _ops.rnn_forward(
                            x, None, None, ours._flat_weights, None, None,
                            _runtime.MODES["LSTM"], hidden, 1, False, True, 0.0, False,
                            _capi.DEFAULT_MATH))):
            out[f"{name}_wall_us"] = wall_us(f)
            out[f"{name}_host_us"] = host_us(f)
    out["module_over_c_wall_us"] = out["module_wall_us"] - out["bare_c_wall_us"]
    out["module_over_c_host_us"] = out["module_host_us"] - out["bare_c_host_us"]
    return out


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _point_name(r):
    return (f"{r['mode']} L{r['layers']} H{r['hidden']} B{r['batch']} T{r['steps']} "
            f"{r['dtype']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default="default", choices=["default", "quick", "edges", "full"])
    ap.add_argument("--quick", action="store_true", help="the quick grid (as --grid quick)")
    ap.add_argument("--modes", default="lstm", help="comma-separated: lstm, gru, tanh, relu")
    ap.add_argument("--steps", type=int, default=256, help="T of the default and quick grids")
    ap.add_argument("--max-tokens", type=int, default=65536,
                    help="skip points with more than this many rows T x B")
    ap.add_argument("--run-ms", type=float, default=20.0, help="length of one timed run")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per figure (median)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--limit", type=int, default=0, help="run only the first N points")
    ap.add_argument("--json")
    args = ap.parse_args()
    grid = "quick" if args.quick else args.grid
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            ap.error(f"--modes: {m!r} is not one of {', '.join(MODES)}")
    device = torch.device(args.device)
    points = grid_points(grid, modes, args.steps)
    if args.limit:
        points = points[:args.limit]
    where = torch.cuda.get_device_name() if device.type == "cuda" else "CPU"
    cudnn = torch.backends.cudnn.version() if device.type == "cuda" else None
    print(f"torch {torch.__version__}, cuDNN {cudnn}, {where}, grid {grid}: {len(points)} "
          f"points; us per timestep; training = forward + backward + SGD step")
    rows, skipped = [], []
    print("| mode | L | H | B | T | dtype | prnn infer | torch infer | ratio | prnn train "
          "| torch train | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for point in points:
        if point["steps"] * point["batch"] > args.max_tokens:
            skipped.append(point)
            continue
        r = bench_point(point, device, args.run_ms, args.runs)
        rows.append(r)
        print(f"| {r['mode']} | {r['layers']} | {r['hidden']} | {r['batch']} | {r['steps']} | "
              f"{r['dtype']} | {r['prnn_infer_us']:.2f} | {r['torch_infer_us']:.2f} | "
              f"{r['infer_ratio']:.3f} | {r['prnn_train_us']:.2f} | {r['torch_train_us']:.2f} | "
              f"{r['train_ratio']:.3f} |", flush=True)
        if device.type == "cuda":
            torch.cuda.empty_cache()
    if skipped:
        print(f"skipped ({len(skipped)}, T x B > --max-tokens {args.max_tokens}): "
              + ", ".join(_point_name(p) for p in skipped))
    ov = None
    if grid in ("default", "quick") and device.type == "cuda":
        ov = python_overhead()
        print("per call, LSTM H=256 B=1 T=1 fp32 inference (wall until done / host only): "
              f"bare C call {ov['bare_c_wall_us']:.1f} / {ov['bare_c_host_us']:.1f} us, module "
              f"(eager path) {ov['module_wall_us']:.1f} / {ov['module_host_us']:.1f} us, "
              f"prnn::rnn_forward through the dispatcher {ov['operator_wall_us']:.1f} / "
              f"{ov['operator_host_us']:.1f} us: the module adds "
              f"{ov['module_over_c_wall_us']:.1f} us of wall time "
              f"({ov['module_over_c_host_us']:.1f} us of host time)")
    if rows:
        small = [r for r in rows if r["batch"] <= 16]
        print(f"geomean prnn/torch: inference {_geomean([r['infer_ratio'] for r in rows]):.3f} "
              f"(B<=16: {_geomean([r['infer_ratio'] for r in small]):.3f}), training "
              f"{_geomean([r['train_ratio'] for r in rows]):.3f} "
              f"(B<=16: {_geomean([r['train_ratio'] for r in small]):.3f})")
        worst = max(rows, key=lambda r: r["train_ratio"])
        slower = sum(1 for r in rows if r["train_ratio"] > 1.0)
        print(f"training step: worst ratio {worst['train_ratio']:.3f} at {_point_name(worst)}; "
              f"prnn slower at {slower} of {len(rows)} points")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"grid": grid, "rows": rows, "skipped": skipped, "overhead": ov,
                       "torch": torch.__version__, "device": where}, f, indent=1)


if __name__ == "__main__":
    main()
