"""The heuristic's regret over an autotune run's timed candidates.

Per key: the measured time of the tile the model ranks first over the best
measured; per tile family (dtype, partial_sums, mma, handoff): the geometric
mean of measured / model; and the mean Spearman rank correlation of the two
within a key. Input: heuristic_replay.c's output (bench/NOTES.md v0.13).
"""

import collections
import math
import sys


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    return {i: r for r, i in enumerate(order)}


def spearman(a, b):
    n = len(a)
    ra, rb = ranks(a), ranks(b)
    d = sum((ra[i] - rb[i]) ** 2 for i in range(n))
    return 1 - 6 * d / (n * (n * n - 1))


def main(path):
    keys = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        tile = {k: int(v) for k, v in (kv.split("=") for kv in f[7:])}
        keys[tuple(f[:4])].append({"us": float(f[5]), "model": float(f[6]), "tile": tile})
    regret = []
    families = collections.defaultdict(list)
    rho = []
    for rows in keys.values():
        best = min(r["us"] for r in rows)
        regret.append(min(rows, key=lambda r: r["model"])["us"] / best)
        for r in rows:
            t = r["tile"]
            families[(t.get("partial_sums", 0), t["mma"], t["handoff"])].append(r["us"] / r["model"])
        if len(rows) > 3:
            rho.append(spearman([r["us"] for r in rows], [r["model"] for r in rows]))
    print(f"keys {len(keys)}: regret geomean {geomean(regret):.3f}, max {max(regret):.2f}, "
          f"above 1.1 at {sum(x > 1.1 for x in regret)}; Spearman mean {sum(rho) / len(rho):.3f}")
    for fam in sorted(families):
        v = families[fam]
        print(f"partial_sums, mma, handoff = {fam}: {len(v)} tiles, measured/model {geomean(v):.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
