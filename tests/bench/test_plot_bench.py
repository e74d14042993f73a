#!/usr/bin/env python3
"""tools/plot_bench.py on files written by prnn-bench's own writers.

usage: test_plot_bench.py data|csv|png PLOT_SCRIPT SYNTH_EXE WORKDIR

data: the series the script reads from the JSON (no matplotlib needed),
      a projected point (--proj) a series of its own.
csv:  the same series from the CSV of the same results, a projected row a
      series of its own, and every CSV the repository ships under
      bench/results/ read (no matplotlib needed).
png:  a PNG is written from the JSON and from the CSV, and no legend
      covers a plot (exit 77, SKIP, when matplotlib is missing).
"""
import copy
import csv
import glob
import json
import re
import importlib.util
import os
import subprocess
import sys

SHIPPED = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       os.pardir, os.pardir, "bench", "results")


def dry_run(script, flag, path):
    r = subprocess.run([sys.executable, script, flag, path, "--dry-run"],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def expect_proj_series(script, flag, path):
    """The file's first point (lstm f32 H=256 B=1) has a twin with an LSTM
    projection of 128: it is a series of its own, "H=256 P=128", beside
    the unprojected H=256 one, whose figures are unchanged."""
    rc, out, err = dry_run(script, flag, path)
    print(out, err)
    assert rc == 0, (rc, err)
    assert "H=256 P=128 batch [1]" in out, out
    assert "['0.75']" in out, out
    assert "H=256      batch [1, 8]" in out, out
    assert "['0.50', '8.00']" in out, out


def check_proj_json(script, js, workdir):
    with open(js, encoding="utf-8") as f:
        data = json.load(f)
    twin = copy.deepcopy(data["points"][0])
    assert twin["mode"] == "lstm" and twin["hidden"] == 256, twin
    assert twin["proj"] == 0, twin
    twin["proj"] = 128
    twin["impls"]["prnn"]["state"] = "n/a"
    twin["best_cudnn"] = "cudnn-standard"
    twin["best_cudnn_us"] = 0.75
    data["points"].append(twin)
    path = os.path.join(workdir, "proj.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    expect_proj_series(script, "--json", path)
    print("plot_bench data: a projected point is a series of its own")


def check_proj_csv(script, csv_path, workdir):
    with open(csv_path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    assert header[-1] == "proj", header[-1]
    twin = list(rows[1])
    assert twin[header.index("hidden")] == "256" and twin[-1] == "0", twin
    twin[-1] = "128"
    twin[header.index("prnn_state")] = "n/a"
    twin[header.index("best_cudnn")] = "cudnn-standard"
    twin[header.index("best_cudnn_us")] = "0.75"
    path = os.path.join(workdir, "proj.csv")
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows + [twin])
    expect_proj_series(script, "--csv", path)
    print("plot_bench csv: a projected row is a series of its own")


def check_data(script, js, workdir):
    rc, out, err = dry_run(script, "--json", js)
    print(out, err)
    assert rc == 0, rc
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
    assert "cuDNN ['1.50', '1.75', '1.00'] cudnn-persist-static" in out, out
    assert "H=512 B=16     prnn  ['2.50', '3.00', '2.00'] 2.50 1.20" \
        in out, out
    # prnn's step n/a: no phases, its forward inference still there.
    assert "H=512 B=16     prnn  ['-', '-', '-'] 1.10 -" in out, out
    assert "phases lstm f32" not in out, out
    # A file that is not prnn-bench JSON is refused with status 2.
    bad = os.path.join(workdir, "bad.json")
    with open(bad, "w") as f:
        f.write('{"points": 3}')
    rc, _, err = dry_run(script, "--json", bad)
    assert rc == 2 and "points" in err, (rc, err)
    check_proj_json(script, js, workdir)
    print("plot_bench data: ok")


def check_csv(script, js, csv_path, workdir):
    # The CSV of the same results gives the same series, to the digit;
    # only the first line differs (a CSV names no device or date).
    rc_j, out_j, _ = dry_run(script, "--json", js)
    rc_c, out_c, err_c = dry_run(script, "--csv", csv_path)
    print(out_c, err_c)
    assert rc_j == 0 and rc_c == 0, (rc_j, rc_c, err_c)
    assert out_c.splitlines()[0] == "source: %s" % csv_path, out_c
    assert out_c.splitlines()[1:] == out_j.splitlines()[1:], (out_j, out_c)
    assert "phases lstm f16" in out_c, out_c
    check_proj_csv(script, csv_path, workdir)
    # Every CSV the repository ships is read (older ones lack the training
    # columns) and has series (inference ones, or training ones for a
    # training-only run such as the SRU grid).
    shipped = sorted(glob.glob(os.path.join(SHIPPED, "*", "*.csv")))
    assert shipped, "no CSV under %s" % SHIPPED
    for path in shipped:
        rc, out, err = dry_run(script, "--csv", path)
        assert rc == 0, (path, rc, err)
        assert re.search(r"^(inference|training) \w+ \w+:$", out, re.M) and \
            "prnn  ['" in out, (path, out)
    # A CSV that is not prnn-bench's is refused with status 2.
    bad = os.path.join(workdir, "bad.csv")
    with open(bad, "w") as f:
        f.write("mode,hidden\nlstm,256\n")
    rc, _, err = dry_run(script, "--csv", bad)
    assert rc == 2 and "not a prnn-bench CSV" in err, (rc, err)
    print("plot_bench csv: ok, the synthetic CSV and %d shipped ones"
          % len(shipped))


def overlaps(script, flag, path):
    """The (legend, subplot title) pairs where a legend covers a subplot,
    its labels or its title."""
    spec = importlib.util.spec_from_file_location("plot_bench", script)
    pb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pb)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    data = pb.load(path) if flag == "--json" else pb.load_csv(path)
    fig = pb.figure(data, pb.series(data), None, pb.phase_series(data))
    r = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes
                                   if ax.get_legend()]
    assert legends, "no legend at all"
    bad = [(leg.get_title().get_text(), ax.get_title())
           for leg in legends for ax in fig.axes
           if ax.get_visible() and
           leg.get_window_extent(r).overlaps(ax.get_tightbbox(r))]
    plt.close(fig)
    return bad


def check_png(script, js, csv_path, workdir):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("SKIP: matplotlib is not installed")
        return 77
    for flag, path in (("--json", js), ("--csv", csv_path)):
        png = os.path.join(workdir, "synth%s.png" % flag.replace("-", "_"))
        if os.path.exists(png):
            os.remove(png)
        r = subprocess.run([sys.executable, script, flag, path, "--out", png],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        assert r.returncode == 0, r.returncode
        with open(png, "rb") as f:
            head = f.read(8)
        assert head == b"\x89PNG\r\n\x1a\n", head
        assert os.path.getsize(png) > 10000, os.path.getsize(png)
        bad = overlaps(script, flag, path)
        assert not bad, "legends over subplots (%s): %s" % (flag, bad)
        print("plot_bench png %s: ok, %d bytes, no legend over a subplot"
              % (flag, os.path.getsize(png)))
    shipped = os.path.join(SHIPPED, "h100-2026-11-22-v0.5", "bench.csv")
    bad = overlaps(script, "--csv", shipped)
    assert not bad, "legends over subplots (%s): %s" % (shipped, bad)
    print("plot_bench png: no legend over a subplot for %s" % shipped)
    return 0


def main():
    mode, script, synth, workdir = sys.argv[1:5]
    os.makedirs(workdir, exist_ok=True)
    js = os.path.join(workdir, "synth-%s.json" % mode)
    csv_path = os.path.join(workdir, "synth-%s.csv" % mode)
    subprocess.run([synth, js, csv_path], check=True)
    if mode == "data":
        check_data(script, js, workdir)
        return 0
    if mode == "csv":
        check_csv(script, js, csv_path, workdir)
        return 0
    return check_png(script, js, csv_path, workdir)


if __name__ == "__main__":
    sys.exit(main())
