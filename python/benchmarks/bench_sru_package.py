"""prnn.torch.SRU against the sru package (asappresearch/sru 2.6) at equal
math, on the GPU, in one process: the training step (forward and backward)
of the same stack, converted from the package's module with
prnn.torch.from_sru (convention "sru": the package's highway and
parametrization), and cuDNN's LSTM of the same shape (torch.nn.LSTM, its
default algorithm: prnn-bench times all four) as a yardstick.

  python bench_sru_package.py [--hidden 256,512,1024] [--batch 32] [--seq 128]
      [--layers 2] [--unidirectional] [--dtype float32,float16,bfloat16]
      [--repeats 20] [--input-grad] [--sru-src DIR] [--patch-sru-cuda]
      [--no-lstm] [--json FILE]

float32 is strict FP32 in all three (PyTorch's TF32 switches off for
matmul and cuDNN). The package runs its own SRU defaults (rescale=False,
use_tanh=False); its fp16 / bf16 runs fail where the package fails (the
message is reported). By default the input needs no gradient, as at a
model's first layer over data (the package's autograd then skips the
first layer's input-gradient GEMM; prnn's BackwardData computes dx
always); --input-grad makes it need one.

The package compiles its CUDA kernels with torch.utils.cpp_extension when
imported. --sru-src DIR imports it from DIR (a folder holding the `sru`
package folder, e.g. copied from a site-packages where pip installed it);
--patch-sru-cuda imports a patched copy whose CUDA sources build on
current PyTorch (AT_DISPATCH takes a ScalarType: `U.type()` ->
`U.scalar_type()`; `x.type().is_cuda()` -> `x.is_cuda()`), changing
nothing else.

Timing: CUDA events around `repeats` back-to-back steps after warm-up
steps, median of 5 such runs, gradients set to None before each run;
reported in ms per training step and as ratios (the package's time over
prnn's: above 1 means prnn is faster).
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import warnings

import torch
from torch import nn

import prnn.torch as pt
from prnn.torch import _precision

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _strict_fp32():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def import_sru(src, patch):
    """The sru package, from src (or the installed one), patched first when
    asked (see the module's docstring)."""
    if src:
        sys.path.insert(0, os.path.abspath(src))
    if patch:
        spec = importlib.util.find_spec("sru")
        if spec is None:
            raise SystemExit("bench_sru_package: the sru package is not found (--sru-src DIR)")
        where = tempfile.mkdtemp(prefix="sru-patched-")
        shutil.copytree(os.path.dirname(spec.origin), os.path.join(where, "sru"))
        csrc = os.path.join(where, "sru", "csrc")
        for name, subs in (("sru_cuda_kernel.cu", [(r"\bU\.type\(\)", "U.scalar_type()")]),
                           ("sru_cuda_impl.cpp", [(r"x\.type\(\)\.is_cuda\(\)", "x.is_cuda()")])):
            path = os.path.join(csrc, name)
            with open(path) as f:
                text = f.read()
            for pattern, repl in subs:
                text, n = re.subn(pattern, repl, text)
                print(f"patched {name}: {pattern} -> {repl} ({n} places)")
            with open(path, "w") as f:
                f.write(text)
        sys.path.insert(0, where)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import sru
    failed = [str(w.message) for w in caught if "CUDA kernels of SRU" in str(w.message)]
    if failed:
        raise SystemExit("bench_sru_package: the sru package's CUDA kernels did not build "
                         f"(try --patch-sru-cuda):\n{failed[0]}")
    print(f"sru {sru.__version__} from {os.path.dirname(sru.__file__)}")
    return sru


def _time_step(step, params, repeats, warmup=3, runs=5):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        for p in params:
            p.grad = None
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(repeats):
            step()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / repeats)
    return statistics.median(samples)


def _timed(module, x, dy, repeats):
    """ms per training step of module (forward, backward of y against dy),
    or the exception's message."""
    def step():
        y = module(x)[0]
        y.backward(dy)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _time_step(step, list(module.parameters()), repeats), None
    except Exception as e:  # noqa: BLE001 (the package's fp16 failure is a result)
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"


def bench_point(sru, hidden, batch, seq, layers, bidir, dtype, repeats, input_grad, lstm):
    torch.manual_seed(0)
    package = sru.SRU(hidden, hidden, num_layers=layers, bidirectional=bidir).cuda()
    ours = pt.from_sru(package).to(dtype)      # converted in float32, then cast
    package = package.to(dtype)
    dirs = 2 if bidir else 1
    x = torch.randn(seq, batch, hidden, device="cuda", dtype=dtype).requires_grad_(input_grad)
    dy = torch.randn(seq, batch, dirs * hidden, device="cuda", dtype=dtype)
    row = {"hidden": hidden, "batch": batch, "seq": seq, "layers": layers, "dirs": dirs,
           "dtype": str(dtype).replace("torch.", ""), "input_grad": input_grad,
           "plan": ours._problem(x, None, 0.0, _precision.math_type("cuda", dtype))
           .plan_info().config.decode()}
    if dtype == torch.float32:   # the same math: outputs agree before anything is timed
        with torch.no_grad():
            a, b = ours(x)[0], package(x)[0]
        row["max_rel_err_y"] = ((a - b).abs().max() / b.abs().max()).item()
    row["prnn_ms"], row["prnn_error"] = _timed(ours, x, dy, repeats)
    row["package_ms"], row["package_error"] = _timed(package, x, dy, repeats)
    if lstm:
        cudnn = nn.LSTM(hidden, hidden, num_layers=layers, bidirectional=bidir).cuda().to(dtype)
        row["cudnn_lstm_ms"], row["cudnn_lstm_error"] = _timed(cudnn, x, dy, repeats)
    for name in ("package", "cudnn_lstm"):
        if row.get(f"{name}_ms") and row["prnn_ms"]:
            row[f"{name}_over_prnn"] = row[f"{name}_ms"] / row["prnn_ms"]
    return row


def _fmt(v, spec):
    return format(v, spec) if isinstance(v, float) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden", default="256,512,1024")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--unidirectional", action="store_true")
    ap.add_argument("--dtype", default="float32,float16,bfloat16")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--input-grad", action="store_true")
    ap.add_argument("--sru-src")
    ap.add_argument("--patch-sru-cuda", action="store_true")
    ap.add_argument("--no-lstm", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("bench_sru_package: needs a CUDA device")
    _strict_fp32()
    sru = import_sru(a.sru_src, a.patch_sru_cuda)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, strict FP32, "
          f"{a.layers} layers, {'uni' if a.unidirectional else 'bi'}directional, B {a.batch}, "
          f"T {a.seq}, input needs grad: {a.input_grad}")
    rows = []
    print("\n| H | dtype | prnn ms | package ms | package / prnn | cuDNN LSTM ms | LSTM / prnn "
          "| y err (f32) | prnn plan |\n|---|---|---|---|---|---|---|---|---|")
    for h in (int(v) for v in a.hidden.split(",")):
        for name in a.dtype.split(","):
            r = bench_point(sru, h, a.batch, a.seq, a.layers, not a.unidirectional,
                            DTYPES[name], a.repeats, a.input_grad, not a.no_lstm)
            rows.append(r)
            print(f"| {h} | {name} | {_fmt(r['prnn_ms'], '.3f')} | "
                  f"{_fmt(r['package_ms'], '.3f') if r['package_ms'] else r['package_error']} | "
                  f"{_fmt(r.get('package_over_prnn'), '.2f')} | "
                  f"{_fmt(r.get('cudnn_lstm_ms'), '.3f')} | "
                  f"{_fmt(r.get('cudnn_lstm_over_prnn'), '.2f')} | "
                  f"{_fmt(r.get('max_rel_err_y'), '.1e')} | {r['plan']} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
