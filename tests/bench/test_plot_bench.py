#!/usr/bin/env python3
"""tools/plot_bench.py on a JSON file written by prnn-bench's own writer.

usage: test_plot_bench.py data|png PLOT_SCRIPT SYNTH_EXE WORKDIR

data: the series the script reads from the JSON (no matplotlib needed).
png:  a PNG is written (exit 77, SKIP, when matplotlib is missing).
"""
import os
import subprocess
import sys


def main():
    mode, script, synth, workdir = sys.argv[1:5]
    os.makedirs(workdir, exist_ok=True)
    js = os.path.join(workdir, "synth-%s.json" % mode)
    subprocess.run([synth, js], check=True)

    if mode == "data":
        r = subprocess.run([sys.executable, script, "--json", js, "--dry-run"],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        assert r.returncode == 0, r.returncode
        out = r.stdout
        assert "NVIDIA H100" in out and "2026-11-21" in out, out
        assert "inference lstm f32:" in out, out
        assert "inference gru f16:" in out, out
        assert "training tanh f32:" in out, out
        # lstm f32 H=256: batches 1 and 8, prnn 0.50 and 8.00, best cuDNN
        # 1.00 and 4.00; H=1024 has no cuDNN.
        assert "batch [1, 8]" in out, out
        assert "['0.50', '8.00']" in out and "['1.00', '4.00']" in out, out
        assert "['3.00']" in out and "['-']" in out, out
        # Where a training step goes: prnn's phases, its forward inference
        # and the ratio, the best cuDNN algorithm's phases.
        assert "phases lstm f16" in out and "phases tanh f32" in out, out
        assert ("H=512 B=1      prnn  ['0.60', '0.90', '0.40'] 0.50 1.80"
                in out), out
        assert ("cuDNN ['1.50', '1.75', '1.00'] cudnn-persist-static"
                in out), out
        assert "H=512 B=16     prnn  ['2.50', '3.00', '2.00'] 2.50 1.20" \
            in out, out
        # prnn's step n/a: no phases, its forward inference still there.
        assert "H=512 B=16     prnn  ['-', '-', '-'] 1.10 -" in out, out
        assert "phases lstm f32" not in out, out
        # A file that is not prnn-bench JSON is refused with status 2.
        bad = os.path.join(workdir, "bad.json")
        with open(bad, "w") as f:
            f.write('{"points": 3}')
        r = subprocess.run([sys.executable, script, "--json", bad,
                            "--dry-run"], capture_output=True, text=True)
        assert r.returncode == 2 and "points" in r.stderr, (r.returncode,
                                                            r.stderr)
        print("plot_bench data: ok")
        return 0

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("SKIP: matplotlib is not installed")
        return 77
    png = os.path.join(workdir, "synth.png")
    if os.path.exists(png):
        os.remove(png)
    r = subprocess.run([sys.executable, script, "--json", js, "--out", png],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.returncode
    with open(png, "rb") as f:
        head = f.read(8)
    assert head == b"\x89PNG\r\n\x1a\n", head
    assert os.path.getsize(png) > 10000, os.path.getsize(png)
    print("plot_bench png: ok, %d bytes" % os.path.getsize(png))
    return 0


if __name__ == "__main__":
    sys.exit(main())
