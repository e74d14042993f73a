"""package-cache-python: `python -m prnn.cache` is the C tool prnn-cache for
pip users. Both run here on copies of one cache directory (cache_fixture:
valid, damaged and cut entries, abandoned temporary files of the cache and
of the tuning DB, the tuning DB itself, a stranger's file) and must print
the same lines and exit with the same status: list, verify, clear, a
missing directory, the default directory from PRNN_CACHE_DIR, the tuning DB
from PRNN_TUNING_DB, usage errors; warm twice on a one-shape tuning DB (the
second compiles nothing). Then the Python API (prnn.cache.files, clear,
warm) against what the commands said.

usage: cache_parity.py PRNN_CACHE_TOOL CACHE_FIXTURE
  (PRNN_LIBRARY and PYTHONPATH name the build's libprnn and python/.)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

tool, fixture = sys.argv[1], sys.argv[2]
failures = []
THREE_DAYS_AGO = time.time() - 3 * 86400 - 600   # ages print as "3d" in both runs
# One small shape (tanh, H 64, batch 1; both passes) of an sm_90 GPU.
WARM_DB = """{"schema_version": 1, "entries": [
 {"gpu": {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "sm_count": 132},
  "mode": "tanh", "dtype": "float", "hidden": 64, "directions": 1, "batch": 1,
  "config": {"blocks": 1, "threads": 256, "ksplit": 8, "lanes_k": 1, "batch_chunk": 1,
             "reg_slots": 16, "smem_slots": 0, "mma": 0, "handoff": 2, "batch_groups": 1},
  "engine": "small-h", "us_per_step": 0.5},
 {"gpu": {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "sm_count": 132},
  "mode": "tanh", "dtype": "float", "hidden": 64, "directions": 1, "batch": 1,
  "pass": "backward-data", "engine": "small-h",
  "config": {"blocks": 1, "threads": 256, "ksplit": 8, "lanes_k": 1, "batch_chunk": 1,
             "reg_slots": 16, "smem_slots": 0, "mma": 0, "handoff": 2, "batch_groups": 1},
  "us_per_step": 0.5}]}
"""


def make(path):
    subprocess.run([fixture, path], check=True, stdout=subprocess.DEVNULL)
    for name in os.listdir(path):
        os.utime(os.path.join(path, name), (THREE_DAYS_AGO, THREE_DAYS_AGO))


def run(argv, env=None):
    p = subprocess.run(argv, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def both(args, env=None, c_dir=None, py_dir=None, what=None):
    """Runs the C tool and the Python module with args; {DIR} in an argument
    is c_dir for the one and py_dir for the other (clear changes the
    directory, so each gets its own copy), and is put back in the output."""
    def fill(d):
        return [a.replace("{DIR}", d) for a in args] if d else list(args)

    c = run([tool] + fill(c_dir), env)
    py = run([sys.executable, "-m", "prnn.cache"] + fill(py_dir), env)
    if c_dir and py_dir:
        c = (c[0], c[1].replace(c_dir, "{DIR}"), c[2].replace(c_dir, "{DIR}"))
        py = (py[0], py[1].replace(py_dir, "{DIR}"), py[2].replace(py_dir, "{DIR}"))
    label = what or " ".join(args)
    print(f"$ prnn-cache {label}  (exit {c[0]})\n{c[1]}{c[2]}", end="")
    if c != py:
        failures.append(label)
        print(f"not ok - {label}: python -m prnn.cache differs (exit {py[0]}):\n{py[1]}{py[2]}")
    else:
        print(f"ok - {label}: python -m prnn.cache prints the same and exits {py[0]}")
    return c


with tempfile.TemporaryDirectory(prefix="prnn-cache-parity.") as tmp:
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    make(a)
    make(b)

    status, out, _ = both(["--dir", "{DIR}", "list"], c_dir=a, py_dir=b)
    if status != 0 or "5 entries" not in out or "2 temporary files" not in out \
            or "1 bad" not in out:
        failures.append("list: expected 5 entries, 2 temporary files, 1 bad (the cut header)")
    status, out, _ = both(["--dir", "{DIR}", "verify"], c_dir=a, py_dir=b)
    if status != 1 or "2 bad" not in out:
        failures.append("verify: expected exit 1 and 2 bad entries")
    both(["verify"], env={"PRNN_CACHE_DIR": a}, what="verify (PRNN_CACHE_DIR)")
    both(["--dir", os.path.join(tmp, "none"), "list"], what="--dir <missing> list")
    both(["--dir", os.path.join(tmp, "none"), "clear"], what="--dir <missing> clear")
    both(["--di={DIR}", "list"], env={"PRNN_TUNING_DB": os.path.join(tmp, "elsewhere.json")},
         c_dir=a, py_dir=b, what="--di=DIR list (PRNN_TUNING_DB elsewhere)")
    for bad in (["frobnicate"], [], ["list", "verify"], ["--dir"], ["--dir=", "list"],
                ["--bogus", "list"], ["-x"], ["--help=1"], ["warm"], ["--arch", "sm9", "warm"],
                ["--arch=sm_90", "--db", "all", "warm"], ["--arch=sm_90", "--data=all", "warm"],
                ["--d", "x", "list"], ["--da", "x", "list"], ["--arch"]):
        status, _, _ = both(bad)
        if status != 2:
            failures.append(f"{bad}: exit {status}, expected 2")
    status, _, _ = run([tool, "--help"])
    py_help = run([sys.executable, "-m", "prnn.cache", "--help"])
    print("--help:", "same exit status" if status == py_help[0] == 0 else "differs")
    if status != py_help[0] or "usage: prnn-cache" not in py_help[1]:
        failures.append("--help")

    status, out, _ = both(["--dir", "{DIR}", "clear"], c_dir=a, py_dir=b)
    if status != 0 or "removed 7 files" not in out:
        failures.append("clear: expected 7 files removed (5 entries, 2 temporary files)")
    left_a, left_b = sorted(os.listdir(a)), sorted(os.listdir(b))
    print(f"left after clear: {left_a} / {left_b}")
    if left_a != ["notes.txt", "tuning.json"] or left_a != left_b:
        failures.append(f"clear left {left_a} (C) and {left_b} (Python); expected notes.txt "
                        "and tuning.json")

    # The Python API says what the command printed.
    import prnn.cache as pc
    c = os.path.join(tmp, "c")
    make(c)
    found = pc.files(c, verify=True)
    kinds = [f.kind for f in found]
    bad = sorted(f.kernel or f.name for f in found if not f.valid)
    print(f"prnn.cache.files: {len(found)} files, bad {bad}")
    if kinds.count(0) != 5 or kinds.count(1) != 1 or kinds.count(2) != 1 or kinds[0] != 2:
        failures.append(f"files(): kinds {kinds}: expected the tuning DB's temporary file "
                        "first, then 5 entries and 1 cache temporary file")
    if len(bad) != 2 or "prnn_damaged_payload" not in bad:
        failures.append(f"files(verify=True): bad {bad}: expected the damaged payload and "
                        "the cut header")
    lstm = [f for f in found if f.kernel == "prnn_lstm_forward"]
    if not lstm or lstm[0].sm != 90 or lstm[0].nvrtc_version != "13.0" \
            or lstm[0].source != "persistent_rnn.cu" or lstm[0].path != os.path.join(
                c, lstm[0].name):
        failures.append(f"files(): the lstm entry reads {lstm}")
    r = pc.clear(c)
    if (r.removed, r.kept, r.failed, r.first_failure) != (7, 0, 0, ""):
        failures.append(f"clear(): {r}")
    if pc.files(c) != []:
        failures.append("files() after clear() is not empty")

    # warm, from a one-shape user DB (NVRTC compiles without a GPU; without
    # NVRTC both must say so alike): the first run compiles, the second
    # finds everything cached.
    small = os.path.join(tmp, "small.json")
    with open(small, "w") as f:
        f.write(WARM_DB)
    env = {"PRNN_TUNING_DB": small}
    d, e = os.path.join(tmp, "d"), os.path.join(tmp, "e")
    args = ["--dir", "{DIR}", "--arch", "sm_90", "--db", "user", "warm"]
    first = both(args, env=env, c_dir=d, py_dir=e, what="warm (first)")
    second = both(args, env=env, c_dir=d, py_dir=e, what="warm (second)")
    if first[0] == 0 and (" 0 compiled" in first[1] or " 0 compiled" not in second[1]):
        failures.append("warm: expected kernels compiled by the first run, none by the second")
    if first[0] == 0:
        import prnn.cache as pc
        os.environ["PRNN_TUNING_DB"] = small
        r = pc.warm(90, e, db="user")
        if r.compiled or r.failed or r.cached != r.kernels or not r.kernels:
            failures.append(f"warm(): {r}: expected everything cached")

if failures:
    print(f"FAIL: {len(failures)} difference(s): " + "; ".join(failures))
    sys.exit(1)
print("python -m prnn.cache and prnn-cache agree")
