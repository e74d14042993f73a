#!/usr/bin/env python3
"""Plot a prnn-bench JSON file.

One subplot per (pass, mode, data type); x = batch size (log2 scale),
y = microseconds per timestep (log scale); one colour per hidden size, prnn
as a solid line and the best cuDNN algorithm at each point as a dashed line.
Training runs also get, per (mode, data type), where a step's time goes:
for each shape a bar for prnn and one for the best cuDNN algorithm, each
stacked from its forward-training, backward-data and backward-weights
phases (timed one by one), prnn's forward inference marked beside.
The title carries the device and the date of the run.

    python3 tools/plot_bench.py --json bench.json --out bench.png

--dry-run prints the series that would be drawn and needs no matplotlib.
Exit status: 0 done, 2 bad input, 3 matplotlib missing.
"""

import argparse
import json
import math
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("points"), list):
        raise ValueError("not a prnn-bench JSON file (no 'points' list)")
    return data


def _num(v):
    """A positive finite number, or NaN (JSON null, strings, ...)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return math.nan
    v = float(v)
    return v if math.isfinite(v) and v > 0 else math.nan


def series(data):
    """{(pass, mode, dtype): {label: {"batch": [...], "prnn": [...],
    "cudnn": [...], "cudnn_algo": [...]}}}, each list sorted by batch."""
    points = data["points"]
    seqs = {p.get("seq") for p in points}
    layers = {p.get("layers") for p in points}
    groups = {}
    for p in points:
        try:
            key = (p["pass"], p["mode"], p["dtype"])
            hidden, batch = int(p["hidden"]), int(p["batch"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError("point without pass/mode/dtype/hidden/batch: %r"
                             % (e,))
        label = "H=%d" % hidden
        if len(seqs) > 1:
            label += " T=%s" % p.get("seq")
        if len(layers) > 1:
            label += " L=%s" % p.get("layers")
        impls = p.get("impls") or {}
        prnn = impls.get("prnn") or {}
        prnn_us = _num(prnn.get("median_us")) \
            if prnn.get("state") == "ok" else math.nan
        best = p.get("best_cudnn") or ""
        cudnn_us = _num(p.get("best_cudnn_us"))
        s = groups.setdefault(key, {}).setdefault(
            label, {"hidden": hidden, "rows": []})
        s["rows"].append((batch, prnn_us, cudnn_us, best))
    out = {}
    for key, by_label in groups.items():
        out[key] = {}
        for label, s in sorted(by_label.items(),
                               key=lambda kv: (kv[1]["hidden"], kv[0])):
            rows = sorted(s["rows"])
            out[key][label] = {
                "batch": [r[0] for r in rows],
                "prnn": [r[1] for r in rows],
                "cudnn": [r[2] for r in rows],
                "cudnn_algo": [r[3] for r in rows],
            }
    return out


PHASES = ("fwd_training", "bwd_data", "bwd_weights")
PHASE_TITLES = ("forward", "backward-data", "backward-weights")


def _phases(impl):
    """The phase medians of one implementation's JSON object (NaN each
    where not timed)."""
    impl = impl or {}
    ph = impl.get("phases") if impl.get("state") == "ok" else None
    ph = ph or {}
    return [_num((ph.get(k) or {}).get("median_us")) for k in PHASES]


def phase_series(data):
    """{(mode, dtype): [{"label": "H=512 B=1", "prnn": [3 phases],
    "cudnn": [3 phases of the best algorithm], "cudnn_algo": name,
    "fwd_inference": us, "ratio": bwd-data / fwd-inference}]} over the
    training points, sorted by hidden size then batch."""
    out = {}
    for p in data["points"]:
        if p.get("pass") != "training":
            continue
        impls = p.get("impls") or {}
        best = p.get("best_cudnn") or ""
        inf = p.get("prnn_fwd_inference") or {}
        row = {
            "hidden": int(p["hidden"]), "batch": int(p["batch"]),
            "label": "H=%d B=%d" % (int(p["hidden"]), int(p["batch"])),
            "prnn": _phases(impls.get("prnn")),
            "cudnn": _phases(impls.get(best)) if best else [math.nan] * 3,
            "cudnn_algo": best,
            "fwd_inference": _num(inf.get("median_us"))
            if inf.get("state") == "ok" else math.nan,
            "ratio": _num(p.get("ratio_bwd_data_fwd_inference")),
        }
        out.setdefault((p["mode"], p["dtype"]), []).append(row)
    for rows in out.values():
        rows.sort(key=lambda r: (r["hidden"], r["batch"]))
    return out


def _fmt(v):
    return "-" if math.isnan(v) else "%.2f" % v


def dry_run(data, groups, phases):
    meta = data.get("meta") or {}
    print("device: %s, date: %s" % (meta.get("device", "?"),
                                    meta.get("date", "?")))
    for (pss, mode, dtype), by_label in groups.items():
        print("%s %s %s:" % (pss, mode, dtype))
        for label, s in by_label.items():
            print("  %-10s batch %s" % (label, s["batch"]))
            print("  %-10s prnn  %s" % ("", [_fmt(v) for v in s["prnn"]]))
            print("  %-10s cuDNN %s" % ("", [_fmt(v) for v in s["cudnn"]]))
    for (mode, dtype), rows in phases.items():
        print("phases %s %s (fwd, bwd-data, bwd-weights; fwd-inference, "
              "bwd-data/fwd-inference):" % (mode, dtype))
        for r in rows:
            print("  %-14s prnn  %s %s %s" % (
                r["label"], [_fmt(v) for v in r["prnn"]],
                _fmt(r["fwd_inference"]), _fmt(r["ratio"])))
            print("  %-14s cuDNN %s %s" % (
                "", [_fmt(v) for v in r["cudnn"]], r["cudnn_algo"] or "-"))


def _minor_label(v, _pos=None):
    """Labels the 2s and 5s of a log axis (20, 50, 0.2, ...), not the rest,
    so that a plot spanning several decades stays readable."""
    if not (v > 0 and math.isfinite(v)):
        return ""
    mant = v / 10 ** math.floor(math.log10(v))
    return "%g" % v if any(abs(mant - d) < 1e-6 for d in (2, 5)) else ""


def _phase_bars(ax, rows):
    """Per shape, prnn's phases stacked (left bar) beside the best cuDNN
    algorithm's (right bar, hatched); a dot marks prnn's forward
    inference."""
    width = 0.38
    x = list(range(len(rows)))
    for side, who, hatch in ((-1, "prnn", None), (1, "cudnn", "//")):
        bottom = [0.0] * len(rows)
        for k, title in enumerate(PHASE_TITLES):
            h = [0.0 if math.isnan(r[who][k]) else r[who][k] for r in rows]
            ax.bar([i + side * width / 2 for i in x], h, width,
                   bottom=bottom, color="C%d" % k, hatch=hatch,
                   edgecolor="white",
                   label="%s %s" % ("prnn" if who == "prnn" else "cuDNN best",
                                    title))
            bottom = [b + v for b, v in zip(bottom, h)]
    inf = [r["fwd_inference"] for r in rows]
    if any(not math.isnan(v) for v in inf):
        ax.plot([i - width / 2 for i in x], inf, "k.", ms=6,
                label="prnn forward inference")
    ax.set_xticks(x)
    ax.set_xticklabels([r["label"] for r in rows], rotation=60, fontsize=6)
    ax.set_ylabel("µs per timestep")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=6, ncol=2, framealpha=0.6)


def plot(data, groups, out, title=None, phases=None):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
    except ImportError:
        sys.stderr.write("plot_bench.py: matplotlib is not installed "
                         "(python3 -m pip install matplotlib)\n")
        return 3

    keys = list(groups.keys())
    # Phase bars only where some phase was timed.
    bars = [(k, rows) for k, rows in (phases or {}).items()
            if any(not math.isnan(v) for r in rows
                   for v in r["prnn"] + r["cudnn"])]
    n = max(1, len(keys) + len(bars))
    ncols = min(3, n)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 4.2 * nrows),
                             squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, key in zip(flat, keys):
        drawn = False
        for i, (label, s) in enumerate(groups[key].items()):
            color = "C%d" % (i % 10)
            if any(not math.isnan(v) for v in s["prnn"]):
                ax.plot(s["batch"], s["prnn"], "-o", color=color, ms=4,
                        label="%s prnn" % label)
                drawn = True
            if any(not math.isnan(v) for v in s["cudnn"]):
                ax.plot(s["batch"], s["cudnn"], "--s", color=color, ms=3,
                        alpha=0.8, label="%s cuDNN best" % label)
                drawn = True
        pss, mode, dtype = key
        ax.set_title("%s %s (%s)" % (mode, dtype, pss))
        ax.set_xlabel("batch")
        ax.set_ylabel("µs per timestep")
        if drawn:
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            batches = sorted({b for s in groups[key].values()
                              for b in s["batch"]})
            ax.set_xticks(batches)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
            ax.yaxis.set_minor_formatter(FuncFormatter(_minor_label))
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7, ncol=2)
        else:
            ax.text(0.5, 0.5, "no timings", ha="center", va="center",
                    transform=ax.transAxes)
    for ax, ((mode, dtype), rows) in zip(flat[len(keys):], bars):
        _phase_bars(ax, rows)
        ax.set_title("%s %s (training): where a step goes" % (mode, dtype))
    for ax in flat[len(keys) + len(bars):]:
        ax.set_visible(False)
    if not keys:
        flat[0].set_visible(True)
        flat[0].text(0.5, 0.5, "no points", ha="center", va="center")
    meta = data.get("meta") or {}
    fig.suptitle(title or "prnn vs cuDNN: %s, %s (solid prnn, dashed best "
                 "cuDNN)" % (meta.get("device", "?"), meta.get("date", "?")),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True, help="prnn-bench --json output")
    ap.add_argument("--out", help="PNG file to write")
    ap.add_argument("--title", help="replaces the default title")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the series instead of plotting")
    args = ap.parse_args(argv)
    try:
        data = load(args.json)
        groups = series(data)
        phases = phase_series(data)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write("plot_bench.py: %s: %s\n" % (args.json, e))
        return 2
    if args.dry_run:
        dry_run(data, groups, phases)
        return 0
    if not args.out:
        sys.stderr.write("plot_bench.py: --out FILE.png is required\n")
        return 2
    return plot(data, groups, args.out, args.title, phases)


if __name__ == "__main__":
    sys.exit(main())
