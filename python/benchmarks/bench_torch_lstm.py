"""prnn.torch.LSTM against torch.nn.LSTM as PyTorch ships it, on the GPU, in
one process: inference and the training step (forward and backward), per
hidden size, batch and data type, and the Python layer's own cost per call
over the C API's.

  python bench_torch_lstm.py [--quick] [--json FILE] [--steps T]

Timing: CUDA events around `repeats` back-to-back calls after a warm-up,
median of 5 such runs, reported in microseconds per timestep and as the
ratio prnn / torch.nn. The overhead figure is measured on a one-step
sequence, where the GPU's work is a few microseconds and the host's cost
per call is what the loop's wall time shows: the module's call against a
direct ctypes call of prnnRNNForwardInference on the same buffers, both as
wall time per call in a loop and as host time alone.
"""

import argparse
import json
import statistics
import time

import torch
from torch import nn

import prnn.torch as pt
from prnn import _capi
from prnn._capi import api
from prnn.torch import _ops, _runtime


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


def _pair(hidden, dtype):
    torch.manual_seed(0)
    theirs = nn.LSTM(hidden, hidden).cuda().to(dtype)
    ours = pt.from_torch(theirs)
    return ours, theirs


def bench_point(hidden, batch, dtype, steps, repeats):
    ours, theirs = _pair(hidden, dtype)
    x = torch.randn(steps, batch, hidden, device="cuda", dtype=dtype)
    dy = torch.randn(steps, batch, hidden, device="cuda", dtype=dtype)
    row = {"hidden": hidden, "batch": batch, "dtype": str(dtype).replace("torch.", ""),
           "steps": steps}
    for name, module in (("prnn", ours), ("torch", theirs)):
        module.eval()
        with torch.no_grad():
            row[f"{name}_infer_us"] = _time_gpu(lambda: module(x), repeats) / steps
        module.train()
        xg = x.clone().requires_grad_(True)

        def train_step():
            y, _ = module(xg)
            y.backward(dy)
        row[f"{name}_train_us"] = _time_gpu(train_step, max(1, repeats // 2)) / steps
    row["infer_ratio"] = row["prnn_infer_us"] / row["torch_infer_us"]
    row["train_ratio"] = row["prnn_train_us"] / row["torch_train_us"]
    return row


def python_overhead(hidden=256, batch=1, dtype=torch.float32, calls=2000):
    """Host time per call: module (eager, no_grad) against the bare C call."""
    ours, _ = _pair(hidden, dtype)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="H 256, 1024; B 1, 16; fp32, fp16")
    ap.add_argument("--steps", type=int, default=256)
    ap.add_argument("--json")
    args = ap.parse_args()
    hs, bs = ([256, 1024], [1, 16]) if args.quick else ([256, 512, 1024], [1, 4, 16, 64])
    dts = [torch.float32, torch.float16] if args.quick else \
        [torch.float32, torch.float16, torch.bfloat16]
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}, T={args.steps}; us per step")
    rows = []
    print("| H | B | dtype | prnn infer | torch infer | ratio | prnn train | torch train | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dtype in dts:
        for h in hs:
            for b in bs:
                r = bench_point(h, b, dtype, args.steps, repeats=10)
                rows.append(r)
                print(f"| {h} | {b} | {r['dtype']} | {r['prnn_infer_us']:.2f} | "
                      f"{r['torch_infer_us']:.2f} | {r['infer_ratio']:.3f} | "
                      f"{r['prnn_train_us']:.2f} | {r['torch_train_us']:.2f} | "
                      f"{r['train_ratio']:.3f} |", flush=True)
    ov = python_overhead()
    print("per call, LSTM H=256 B=1 T=1 fp32 inference (wall until done / host only): bare C "
          f"call {ov['bare_c_wall_us']:.1f} / {ov['bare_c_host_us']:.1f} us, module (eager "
          f"path) {ov['module_wall_us']:.1f} / {ov['module_host_us']:.1f} us, prnn::rnn_forward "
          f"through the dispatcher {ov['operator_wall_us']:.1f} / {ov['operator_host_us']:.1f} "
          f"us: the module adds {ov['module_over_c_wall_us']:.1f} us of wall time "
          f"({ov['module_over_c_host_us']:.1f} us of host time)")
    small = [r for r in rows if r["batch"] <= 16]
    gm = lambda v: float(torch.tensor(v).log().mean().exp())  # noqa: E731
    print(f"geomean prnn/torch: inference {gm([r['infer_ratio'] for r in rows]):.3f} "
          f"(B<=16: {gm([r['infer_ratio'] for r in small]):.3f}), training "
          f"{gm([r['train_ratio'] for r in rows]):.3f} "
          f"(B<=16: {gm([r['train_ratio'] for r in small]):.3f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "overhead": ov, "torch": torch.__version__,
                       "device": torch.cuda.get_device_name()}, f, indent=1)


if __name__ == "__main__":
    main()
