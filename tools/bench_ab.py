#!/usr/bin/env python3
"""Compare two builds' prnn-bench CSV files, point by point.

Each side may have several runs (alternated with the other side's on one
machine, as bench/ab.sh runs them); a point's figure is the best of its
runs. Prints, per figure (the whole call, its graph replay, and for a
training sweep each phase), base -> new and new / base at every point, then
the geometric mean, the smallest and the largest ratio.

    python3 tools/bench_ab.py --base base1.csv base2.csv --new new1.csv new2.csv
"""
import argparse
import csv
import math
import sys

from bench_points import describe, point_key

FIGURES = ("prnn_median_us", "prnn_graph_median_us")
PHASES = ("prnn_fwd_training_us", "prnn_bwd_data_us", "prnn_bwd_weights_us")


def load(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {point_key(r): r for r in csv.DictReader(f)}


def best(runs, key, column):
    values = []
    for run in runs:
        try:
            values.append(float(run[key][column]))
        except (KeyError, ValueError):
            pass
    return min(values) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", nargs="+", required=True, help="the base build's CSV files")
    ap.add_argument("--new", nargs="+", required=True, help="the new build's CSV files")
    args = ap.parse_args()
    base = [load(p) for p in args.base]
    new = [load(p) for p in args.new]
    keys = [k for k in base[0] if all(k in run for run in base[1:] + new)]
    if not keys:
        sys.exit("bench_ab: no point is in every file")
    training = any(base[0][k].get("pass") == "training" for k in keys)
    for column in FIGURES + (PHASES if training else ()):
        ratios = []
        print(f"== {column} (best of {len(base)} / {len(new)} runs: base -> new, new / base)")
        for k in keys:
            b, n = best(base, k, column), best(new, k, column)
            if b is None or n is None or not 0 < b < math.inf or not 0 < n < math.inf:
                continue
            ratios.append(n / b)
            engine = base[0][k].get("prnn_engine", "")
            print("  %s %-10s %10.2f -> %10.2f  %.3f" % (describe(base[0][k]), engine, b, n, n / b))
        if ratios:
            g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print("  geomean %.3f, min %.3f, max %.3f (%d points)"
                  % (g, min(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
