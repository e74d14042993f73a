"""What identifies a point of a prnn-bench --csv file, for the tools that
compare such files (bench_ab.py, bench_grid.py)."""

# Every sweep field of a point (prnn-bench's lists); a file written before a
# field existed reads it as "".
FIELDS = ("pass", "mode", "dtype", "hidden", "input", "proj", "batch", "seq", "layers",
          "bidirectional", "layout", "lengths")


def point_key(row):
    """The point a CSV row measured, as a tuple in FIELDS' order."""
    return tuple(row.get(f, "") for f in FIELDS)


def describe(row):
    """A point in a fixed-width line: pass, mode, type, H, B, T."""
    return "%-9s %-4s %-4s H %4s B %3s T %4s" % tuple(
        row.get(f, "") for f in ("pass", "mode", "dtype", "hidden", "batch", "seq"))
