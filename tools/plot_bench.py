#!/usr/bin/env python3
"""Plot a prnn-bench JSON or CSV file.

One subplot per (pass, mode, data type); x = batch size (log2 scale),
y = microseconds per timestep (log scale); one colour per hidden size (and
LSTM projection size, "P=", where a point has one), prnn as a solid line
and the best cuDNN algorithm at each point as a dashed line.
Training runs also get, per (mode, data type), where a step's time goes:
for each shape a bar for prnn and one for the best cuDNN algorithm, each
stacked from its forward-training, backward-data and backward-weights
phases (timed one by one), prnn's forward inference marked beside.
The legends are the figure's, outside every plot, so that none covers a
curve: the same colours and styles hold in every subplot. The title carries
the device and the date of the run (a CSV file has neither: its name then).

    python3 tools/plot_bench.py --json bench.json --out bench.png
    python3 tools/plot_bench.py --csv bench.csv --out bench.png

The CSV is prnn-bench --csv's, as the repository ships them under
bench/results/ (files of older versions, without the training columns,
included).

--dry-run prints the series that would be drawn and needs no matplotlib.
Exit status: 0 done, 2 bad input, 3 matplotlib missing.
"""

import argparse
import csv
import json
import math
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("points"), list):
        raise ValueError("not a prnn-bench JSON file (no 'points' list)")
    return data


# Columns every prnn-bench CSV has had.
CSV_REQUIRED = ("pass", "mode", "dtype", "hidden", "batch", "best_cudnn",
                "best_cudnn_us")


def _csv_float(text):
    """A CSV number (prnn-bench leaves a field empty for NaN), or None."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _csv_impl(row, key):
    """The JSON object of one implementation from its CSV columns
    (key_state, key_median_us, key_<phase>_us)."""
    return {
        "state": row.get(key + "_state") or "",
        "median_us": _csv_float(row.get(key + "_median_us")),
        "phases": {ph: {"median_us": _csv_float(row.get(
            "%s_%s_us" % (key, ph)))} for ph in PHASES},
    }


def load_csv(path):
    """A prnn-bench CSV file as the JSON's structure, as far as the plots
    read it: "points" with each implementation's state, median and phase
    medians; "meta" names the file (the CSV has no device or date)."""
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in CSV_REQUIRED if c not in header]
        if missing:
            raise ValueError("not a prnn-bench CSV file (no '%s' column)"
                             % missing[0])
        # Each implementation has a <key>_state column; the JSON names it
        # with dashes (cudnn_persist_static -> cudnn-persist-static).
        keys = [c[:-len("_state")] for c in header
                if c.endswith("_state") and c != "prnn_fwd_inference_state"]
        points = []
        for row in reader:
            inf = row.get("prnn_fwd_inference_state")
            points.append({
                "pass": row["pass"], "mode": row["mode"],
                "dtype": row["dtype"], "hidden": row["hidden"],
                "proj": row.get("proj"),
                "batch": row["batch"], "seq": row.get("seq"),
                "layers": row.get("layers"),
                "layout": row.get("layout"),
                "impls": {k.replace("_", "-"): _csv_impl(row, k)
                          for k in keys},
                "best_cudnn": row["best_cudnn"],
                "best_cudnn_us": _csv_float(row["best_cudnn_us"]),
                "prnn_fwd_inference": {
                    "state": inf,
                    "median_us": _csv_float(row.get("prnn_fwd_inference_us")),
                } if inf else None,
                "ratio_bwd_data_fwd_inference": _csv_float(
                    row.get("ratio_bwd_data_fwd_inference")),
            })
    return {"meta": {"source": path}, "points": points}


def _num(v):
    """A positive finite number, or NaN (JSON null, strings, ...)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return math.nan
    v = float(v)
    return v if math.isfinite(v) and v > 0 else math.nan


def _proj_label(p):
    """What a series label adds for a point's LSTM projection: " P=128",
    or "" without one (proj 0, or a file from before --proj)."""
    try:
        proj = int(p.get("proj") or 0)
    except (TypeError, ValueError):
        proj = 0
    return " P=%d" % proj if proj > 0 else ""


def series(data):
    """{(pass, mode, dtype): {label: {"hidden": H, "batch": [...],
    "prnn": [...], "cudnn": [...], "cudnn_algo": [...]}}}, each list sorted
    by batch."""
    points = data["points"]
    seqs = {p.get("seq") for p in points}
    layers = {p.get("layers") for p in points}
    layouts = {p.get("layout") for p in points}
    groups = {}
    for p in points:
        try:
            key = (p["pass"], p["mode"], p["dtype"])
            hidden, batch = int(p["hidden"]), int(p["batch"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError("point without pass/mode/dtype/hidden/batch: %r"
                             % (e,))
        label = "H=%d" % hidden + _proj_label(p)
        if len(seqs) > 1:
            label += " T=%s" % p.get("seq")
        if len(layers) > 1:
            label += " L=%s" % p.get("layers")
        if len(layouts) > 1:
            label += " %s" % p.get("layout")
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
                "hidden": s["hidden"],
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
            "label": "H=%d%s B=%d" % (int(p["hidden"]), _proj_label(p),
                                      int(p["batch"]))
            + ("" if p.get("layout") in (None, "packed")
               else " " + p["layout"]),
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


def source(meta):
    """Where the numbers come from: the run's device and date, or for a
    CSV file (which records neither) its name."""
    if "device" not in meta and meta.get("source"):
        return meta["source"]
    return "%s, %s" % (meta.get("device", "?"), meta.get("date", "?"))


def dry_run(data, groups, phases):
    print("source: %s" % source(data.get("meta") or {}))
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
    inference. The legend is the figure's (_bar_legend_handles)."""
    width = 0.38
    x = list(range(len(rows)))
    for side, who, hatch in ((-1, "prnn", None), (1, "cudnn", "//")):
        bottom = [0.0] * len(rows)
        for k in range(len(PHASE_TITLES)):
            h = [0.0 if math.isnan(r[who][k]) else r[who][k] for r in rows]
            ax.bar([i + side * width / 2 for i in x], h, width,
                   bottom=bottom, color="C%d" % k, hatch=hatch,
                   edgecolor="white")
            bottom = [b + v for b, v in zip(bottom, h)]
    inf = [r["fwd_inference"] for r in rows]
    if any(not math.isnan(v) for v in inf):
        ax.plot([i - width / 2 for i in x], inf, "k.", ms=6)
    ax.set_xticks(x)
    ax.set_xticklabels([r["label"] for r in rows], rotation=60, fontsize=6)
    ax.set_ylabel("µs per timestep")
    ax.grid(True, axis="y", alpha=0.3)


def _bar_legend_handles():
    """What the bars' colours, hatching and dot mean."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(color="C%d" % k, label=title)
               for k, title in enumerate(PHASE_TITLES)]
    handles += [Patch(facecolor="0.6", edgecolor="white", label="prnn"),
                Patch(facecolor="0.6", edgecolor="white", hatch="//",
                      label="best cuDNN"),
                Line2D([], [], color="k", marker=".", ls="", ms=6,
                       label="prnn forward inference")]
    return handles


def _line_legend_handles(labels, colors):
    """What the lines' colours (one per hidden size, the same in every
    subplot) and styles mean."""
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=colors[lb], lw=2, label=lb)
               for lb in labels]
    handles += [Line2D([], [], color="k", ls="-", marker="o", ms=4,
                       label="prnn"),
                Line2D([], [], color="k", ls="--", marker="s", ms=3,
                       label="best cuDNN")]
    return handles


# Inches of figure width one legend entry takes, and the height of a
# legend's title and of each row of entries: the figure grows by this much
# above the subplots (the layout itself is measured, see _stack_above).
LEGEND_ENTRY_IN = 1.45
LEGEND_TITLE_IN = 0.25
LEGEND_ROW_IN = 0.22
TITLE_IN = 0.35


def _legend_columns(handles, width_in):
    return max(1, min(len(handles), int(width_in / LEGEND_ENTRY_IN)))


def _band_height_in(legends, width_in):
    """The title's and the legends' height above the subplots."""
    rows = sum(-(-len(h) // _legend_columns(h, width_in)) for _, h in legends)
    return TITLE_IN + len(legends) * LEGEND_TITLE_IN + rows * LEGEND_ROW_IN


def _stack_above(fig, title, legends):
    """Draws the title and, under it, each of legends = [(title, handles)]
    centred in rows as wide as the figure allows; returns the figure
    coordinate the subplots must stay below. Each is placed under the one
    before as drawn (measured), so that no legend covers a curve or another
    legend."""
    renderer = fig.canvas.get_renderer()
    to_fig = fig.transFigure.inverted()

    def bottom(artist):
        return artist.get_window_extent(renderer).transformed(to_fig).y0

    pad = 0.06 / fig.get_size_inches()[1]
    # A plain text, not a suptitle: tight_layout would keep room for a
    # suptitle a second time, under the legends.
    top = bottom(fig.text(0.5, 1.0 - pad, title, fontsize=10, ha="center",
                          va="top"))
    for name, handles in legends:
        leg = fig.legend(handles=handles, loc="upper center",
                         bbox_to_anchor=(0.5, top - pad),
                         ncol=_legend_columns(handles,
                                              fig.get_size_inches()[0]),
                         fontsize=8, title=name, title_fontsize=8,
                         frameon=False, borderaxespad=0)
        top = bottom(leg)
    return top - pad


def figure(data, groups, title=None, phases=None):
    """The figure (matplotlib imported by the caller): the subplots, and
    the legends outside them."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    keys = list(groups.keys())
    # Phase bars only where some phase was timed.
    bars = [(k, rows) for k, rows in (phases or {}).items()
            if any(not math.isnan(v) for r in rows
                   for v in r["prnn"] + r["cudnn"])]
    # One colour per series label across the figure, in hidden-size order,
    # so that one legend serves every subplot.
    first = {}
    for by_label in groups.values():
        for label, s in by_label.items():
            first.setdefault(label, (s["hidden"], label))
    labels = sorted(first, key=lambda lb: first[lb])
    colors = {lb: "C%d" % (i % 10) for i, lb in enumerate(labels)}

    n = max(1, len(keys) + len(bars))
    ncols = min(3, n)
    nrows = (n + ncols - 1) // ncols
    legends = []
    if keys:
        legends.append(("hidden size (colour); prnn solid, best cuDNN dashed",
                        _line_legend_handles(labels, colors)))
    if bars:
        legends.append(("where a training step goes",
                        _bar_legend_handles()))
    width_in = 5.2 * ncols
    fig, axes = plt.subplots(
        nrows, ncols, squeeze=False,
        figsize=(width_in, 4.2 * nrows + _band_height_in(legends, width_in)))
    flat = [ax for row in axes for ax in row]
    for ax, key in zip(flat, keys):
        drawn = False
        for label, s in groups[key].items():
            color = colors[label]
            if any(not math.isnan(v) for v in s["prnn"]):
                ax.plot(s["batch"], s["prnn"], "-o", color=color, ms=4)
                drawn = True
            if any(not math.isnan(v) for v in s["cudnn"]):
                ax.plot(s["batch"], s["cudnn"], "--s", color=color, ms=3,
                        alpha=0.8)
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
        else:
            ax.text(0.5, 0.5, "no timings", ha="center", va="center",
                    transform=ax.transAxes)
    for ax, ((mode, dtype), rows) in zip(flat[len(keys):], bars):
        _phase_bars(ax, rows)
        ax.set_title("%s %s (training): where a step goes" % (mode, dtype))
    for ax in flat[len(keys) + len(bars):]:
        ax.set_visible(False)
    if not keys and not bars:
        flat[0].set_visible(True)
        flat[0].text(0.5, 0.5, "no points", ha="center", va="center")
    below = _stack_above(
        fig, title or "prnn vs cuDNN: %s" % source(data.get("meta") or {}),
        legends)
    fig.tight_layout(rect=(0, 0, 1, below))
    return fig


def plot(data, groups, out, title=None, phases=None):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot_bench.py: matplotlib is not installed "
                         "(python3 -m pip install matplotlib)\n")
        return 3
    fig = figure(data, groups, title, phases)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--json", help="prnn-bench --json output")
    src.add_argument("--csv", help="prnn-bench --csv output")
    ap.add_argument("--out", help="PNG file to write")
    ap.add_argument("--title", help="replaces the default title")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the series instead of plotting")
    args = ap.parse_args(argv)
    path = args.json or args.csv
    try:
        data = load(path) if args.json else load_csv(path)
        groups = series(data)
        phases = phase_series(data)
    except (OSError, ValueError, KeyError, TypeError, csv.Error) as e:
        sys.stderr.write("plot_bench.py: %s: %s\n" % (path, e))
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
