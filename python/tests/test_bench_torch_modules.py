"""python/benchmarks/bench_torch_modules.py (run on the GPU by
tests/gpu/run.sh torchbench): its grids hold the points issue 22's module
target names, and a point runs on the CPU (prnn's reference backend against
torch.nn's CPU kernels) with every figure positive."""

import os
import subprocess
import sys

import pytest

import prnn

BENCH_DIR = os.path.join(os.path.dirname(__file__), "..", "benchmarks")


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, BENCH_DIR)
    try:
        import bench_torch_modules
    finally:
        sys.path.pop(0)
    return bench_torch_modules


def test_grids_cover_the_target(bench):
    full = bench.grid_points("full", ["lstm", "gru"], 256)
    assert len(full) == 2 * 3 * 5 * 4 * 4 * 2
    axes = {k: sorted({p[k] for p in full}) for k in full[0]}
    assert axes["layers"] == [1, 2, 3] and axes["hidden"] == [64, 128, 256, 512, 1024]
    assert axes["batch"] == [1, 16, 64, 256] and axes["steps"] == [1, 16, 256, 1024]
    edges = bench.grid_points("edges", ["lstm"], 256)
    assert len(edges) == 108
    # every corner of the target is a point of the edges grid
    corners = {(p["layers"], p["hidden"], p["batch"], p["steps"]) for p in edges}
    for c in [(1, 64, 1, 1), (3, 1024, 256, 1024), (1, 1024, 1, 1024), (3, 64, 256, 1)]:
        assert c in corners
    quick = bench.grid_points("quick", ["lstm"], 100)
    assert len(quick) == 8 and {p["steps"] for p in quick} == {100}
    with pytest.raises(ValueError):
        bench.grid_points("huge", ["lstm"], 1)


@pytest.mark.parametrize("mode", ["lstm", "gru", "tanh"])
def test_a_point_runs_on_the_cpu(bench, mode):
    import torch
    point = {"mode": mode, "layers": 2, "hidden": 8, "batch": 3, "steps": 4, "dtype": "fp32"}
    row = bench.bench_point(point, torch.device("cpu"), run_ms=0.1, runs=1)
    for key in ("prnn_infer_us", "torch_infer_us", "prnn_train_us", "torch_train_us",
                "infer_ratio", "train_ratio"):
        assert row[key] > 0, key
    assert {k: row[k] for k in point} == point


def test_the_script_reports_the_worst_point(tmp_path):
    env = dict(os.environ)
    where = os.path.dirname(os.path.dirname(os.path.abspath(prnn.__file__)))
    env["PYTHONPATH"] = where + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, os.path.join(BENCH_DIR, "bench_torch_modules.py"), "--device", "cpu",
         "--grid", "edges", "--limit", "3", "--run-ms", "0.1", "--runs", "1", "--max-tokens",
         "16", "--json", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "training step: worst ratio" in out.stdout
    assert (tmp_path / "r.json").exists()
