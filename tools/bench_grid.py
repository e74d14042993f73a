#!/usr/bin/env python3
"""Judge prnn-bench runs of a grid against issue 22's rule: a point counts as
slower than cuDNN only if it is slower in three runs.

    python3 tools/bench_grid.py summary RUN.csv [RUN.csv ...]
    python3 tools/bench_grid.py recheck RUN.csv [RUN.csv ...] [--runs 3] [--out-prefix P]

Every CSV is a prnn-bench --csv file (one run, or part of one: a grid can be
run in slices, e.g. `prnn-bench --preset engines --modes lstm --pass
inference`, and its rechecks are runs of a few points). A point's ratio in
a run is that run's prnn / best cuDNN (the same process, the same data).

summary: per pass and overall, the geometric mean of each point's median
ratio over its runs (and over H <= 128, issue 22's second figure), then
every point slower in all of its runs, with those ratios and how many runs
it has: "slower" once it has --runs of them, "to recheck" before.

recheck: the prnn-bench command lines that run every point still to
recheck once more (one line per pass, mode, type, hidden size and length,
its batch sizes together; points are cartesian lists, so a line may add a
point the list did not ask for). Run them as many times as --runs asks,
alternated with nothing else on the device, and give the new CSVs to
summary with the old.
"""
import argparse
import csv
import math
import statistics
import sys

from bench_points import FIELDS, describe, point_key


def read_runs(paths):
    """{point: [ratio per run]} and {point: a row of it} over every file."""
    ratios, rows = {}, {}
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                try:
                    ratio = float(r["ratio_prnn_best_cudnn"])
                except (KeyError, ValueError):
                    continue  # a point either side could not time
                k = point_key(r)
                ratios.setdefault(k, []).append(ratio)
                rows.setdefault(k, r)
    return ratios, rows


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summary(ratios, rows, runs_needed):
    median = {k: statistics.median(v) for k, v in ratios.items()}
    for name, keep in (("all", lambda k: True),
                       ("H <= 128", lambda k: int(rows[k]["hidden"]) <= 128)):
        for p in sorted({rows[k]["pass"] for k in median}) + ["both passes"]:
            pts = [median[k] for k in median
                   if keep(k) and (p == "both passes" or rows[k]["pass"] == p)]
            if pts:
                print("%-11s %-12s geomean %.3f over %d points (median of each point's runs)"
                      % (name, p, geomean(pts), len(pts)))
    slower = sorted((k for k, v in ratios.items() if min(v) > 1.0), key=lambda k: -median[k])
    print("\n%d of %d points slower than cuDNN's best in every run they have:"
          % (len(slower), len(ratios)))
    for k in slower:
        v = ratios[k]
        state = "slower" if len(v) >= runs_needed else "to recheck"
        print("  %s  %-10s %s  runs %s" % (describe(rows[k]), state,
                                           rows[k].get("prnn_engine", ""),
                                           " ".join("%.3f" % x for x in v)))
    return slower


def recheck(ratios, runs_needed, out_prefix):
    todo = [k for k, v in ratios.items() if min(v) > 1.0 and len(v) < runs_needed]
    batch_at = FIELDS.index("batch")
    groups = {}
    for k in todo:  # every field but the batch size
        groups.setdefault(k[:batch_at] + k[batch_at + 1:], set()).add(int(k[batch_at]))
    for i, (g, batches) in enumerate(sorted(groups.items())):
        f = dict(zip(FIELDS[:batch_at] + FIELDS[batch_at + 1:], g))
        pass_, mode, dtype, hidden, seq = f["pass"], f["mode"], f["dtype"], f["hidden"], f["seq"]
        layers, bidir, layout = f["layers"], f["bidirectional"], f["layout"]
        proj, inp, lengths = f["proj"], f["input"], f["lengths"]
        args = ["prnn-bench", "--pass", pass_, "--modes", mode, "--dtype", dtype,
                "--hidden", hidden, "--batch", ",".join(str(b) for b in sorted(batches)),
                "--seq", seq]
        if layers and layers != "1":
            args += ["--layers", layers]
        if bidir == "1":
            args.append("--bidirectional")
        if layout and layout != "packed":
            args += ["--layout", layout]
        if proj and proj != "0":
            args += ["--proj", proj]
        if inp and inp != hidden:
            args += ["--input", inp]
        if lengths and layout and layout != "packed":
            args += ["--lengths", lengths]
        args += ["--csv", "%s%d.csv" % (out_prefix, i + 1)]
        print(" ".join(args))
    if not todo:
        print("# nothing to recheck", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("summary", "recheck"))
    ap.add_argument("csv", nargs="+", help="prnn-bench --csv files")
    ap.add_argument("--runs", type=int, default=3,
                    help="runs a point needs before it counts as slower (default 3)")
    ap.add_argument("--out-prefix", default="recheck-",
                    help="recheck: the CSV name prefix of the printed commands")
    args = ap.parse_args()
    ratios, rows = read_runs(args.csv)
    if not ratios:
        sys.exit("bench_grid: no point with both a prnn and a cuDNN time in those files")
    if args.command == "summary":
        summary(ratios, rows, args.runs)
    else:
        recheck(ratios, args.runs, args.out_prefix)


if __name__ == "__main__":
    main()
