"""The installed wheel as a Python user meets it, without PyTorch (run by
wheel_test.sh in a fresh virtual environment of each Python version, from
outside the source tree):

- `import prnn` is the installed package, with the library inside it;
  prnn.__version__, the library's version and the distribution's metadata
  agree (with the version given as argv[1]); py.typed and the licence files
  are installed;
- the C library in the wheel computes: a 2-layer LSTM's forward pass on the
  CPU reference backend through the ctypes binding, against the same LSTM
  written out here in plain Python;
- the cache command: `python -m prnn.cache` and the `prnn-cache` script.

usage: python wheel_smoke.py VERSION
"""

import ctypes
import importlib.metadata as metadata
import math
import os
import random
import subprocess
import sys
import sysconfig
import tempfile
from ctypes import byref, c_float, c_int, c_void_p

expected_version = sys.argv[1]
failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)


import prnn  # noqa: E402
from prnn import _capi  # noqa: E402
from prnn._capi import call  # noqa: E402
from prnn._descriptors import FilterDesc, Handle, Problem  # noqa: E402

package_dir = os.path.dirname(prnn.__file__)
site = sysconfig.get_paths()["platlib"]
check(os.path.realpath(package_dir).startswith(os.path.realpath(site)),
      f"prnn imported from the environment's site-packages ({package_dir})")
check(prnn.__version__ == expected_version,
      f"prnn.__version__ {prnn.__version__} is {expected_version}")
check(prnn.library_version() == expected_version,
      f"the loaded library's version {prnn.library_version()}")
check(os.path.dirname(os.path.realpath(prnn.library_path())) == os.path.realpath(package_dir),
      f"libprnn loaded from the package: {prnn.library_path()}")
check(metadata.version("prnn") == expected_version,
      f"the distribution's metadata says {metadata.version('prnn')}")
meta = metadata.metadata("prnn")
check(meta["License-Expression"] == "MIT", f"License-Expression {meta['License-Expression']}")
files = {str(f) for f in metadata.files("prnn") or []}
check(os.path.isfile(os.path.join(package_dir, "py.typed")), "py.typed is installed")
licences = sorted(f for f in files if "/licenses/" in f)
check(len(licences) == 2 and any(f.endswith("third_party/cjson/LICENSE") for f in licences),
      f"licence files installed: {licences}")


# ---- an LSTM on the CPU backend, against plain Python ------------------------

def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def reference_lstm(x, params, layers, hidden, steps, batch):
    """x[t][b] is a list; params[layer] = (W[g], R[g], bW[g], bR[g]) per gate
    i, f, g, o. Returns y[t][b] (the last layer's h)."""
    inputs = x
    for layer in range(layers):
        W, R, bW, bR = params[layer]
        h = [[0.0] * hidden for _ in range(batch)]
        c = [[0.0] * hidden for _ in range(batch)]
        out = []
        for t in range(steps):
            row = []
            for b in range(batch):
                pre = [[sum(W[g][u][k] * inputs[t][b][k] for k in range(len(inputs[t][b]))) +
                        sum(R[g][u][k] * h[b][k] for k in range(hidden)) + bW[g][u] + bR[g][u]
                        for u in range(hidden)] for g in range(4)]
                c[b] = [sigmoid(pre[1][u]) * c[b][u] + sigmoid(pre[0][u]) * math.tanh(pre[2][u])
                        for u in range(hidden)]
                h[b] = [sigmoid(pre[3][u]) * math.tanh(c[b][u]) for u in range(hidden)]
                row.append(list(h[b]))
            out.append(row)
        inputs = out
    return inputs


def run_lstm():
    layers, hidden, input_size, steps, batch = 2, 5, 3, 4, 2
    rng = random.Random(2026)
    handle = Handle(_capi.BACKEND_CPU_REFERENCE)
    p = Problem(handle, _capi.LSTM, _capi.DATA_FLOAT, input_size, hidden, layers, False,
                [batch] * steps, 0.0)
    n = p.params_bytes // 4
    w = (c_float * n)(*[rng.uniform(-0.5, 0.5) for _ in range(n)])
    base = ctypes.addressof(w)
    mat_desc, bias_desc = FilterDesc(), FilterDesc()
    x0 = p._keep[batch][0].ptr

    def block(fn, layer, lin, desc, rows, cols):
        ptr = c_void_p()
        call(fn, handle.ptr, p.rnn.ptr, layer, x0, p.w_desc.ptr, w, lin, desc.ptr, byref(ptr))
        at = (ptr.value - base) // 4
        return [[w[at + r * cols + k] for k in range(cols)] for r in range(rows)]

    params = []
    for layer in range(layers):
        k = input_size if layer == 0 else hidden
        W = [block("prnnGetRNNLinLayerMatrixParams", layer, g, mat_desc, hidden, k)
             for g in range(4)]
        R = [block("prnnGetRNNLinLayerMatrixParams", layer, 4 + g, mat_desc, hidden, hidden)
             for g in range(4)]
        bW = [block("prnnGetRNNLinLayerBiasParams", layer, g, bias_desc, hidden, 1)
              for g in range(4)]
        bR = [block("prnnGetRNNLinLayerBiasParams", layer, 4 + g, bias_desc, hidden, 1)
              for g in range(4)]
        params.append((W, R, [[v[0] for v in m] for m in bW], [[v[0] for v in m] for m in bR]))

    x = [[[rng.uniform(-1, 1) for _ in range(input_size)] for _ in range(batch)]
         for _ in range(steps)]
    xs = (c_float * (steps * batch * input_size))(*[v for t in x for b in t for v in b])
    y = (c_float * (steps * batch * hidden))()
    work = (ctypes.c_char * max(p.workspace_bytes, 1))()
    call("prnnRNNForwardInference", handle.ptr, p.rnn.ptr, steps, p.x_descs, xs, p.h_desc.ptr,
         None, p.h_desc.ptr, None, p.w_desc.ptr, w, p.y_descs, y, p.h_desc.ptr, None,
         p.h_desc.ptr, None, work, p.workspace_bytes)
    ref = reference_lstm(x, params, layers, hidden, steps, batch)
    worst = max(abs(y[(t * batch + b) * hidden + u] - ref[t][b][u])
                for t in range(steps) for b in range(batch) for u in range(hidden))
    check(worst < 1e-5 and any(abs(v) > 1e-3 for v in y),
          f"2-layer LSTM on the CPU backend matches plain Python (worst difference {worst:.1e})")


run_lstm()

# ---- the cache command ------------------------------------------------------

with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "cache")
    r = subprocess.run([sys.executable, "-m", "prnn.cache", "--dir", missing, "list"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "does not exist: no entries" in r.stdout,
          f"python -m prnn.cache list: exit {r.returncode}: {r.stdout.strip()}{r.stderr.strip()}")
    script = os.path.join(os.path.dirname(sys.executable), "prnn-cache")
    r = subprocess.run([script, "--version"], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.strip() == f"prnn-cache {expected_version}",
          f"the prnn-cache script: {r.stdout.strip()}{r.stderr.strip()}")
    r = subprocess.run([script, "verify"], capture_output=True, text=True,
                       env=dict(os.environ, PRNN_CACHE_DIR=missing))
    check(r.returncode == 0 and missing in r.stdout, "prnn-cache follows PRNN_CACHE_DIR")

print(f"{len(failures)} failed" if failures else
      f"wheel ok on Python {sys.version.split()[0]}")
sys.exit(1 if failures else 0)
