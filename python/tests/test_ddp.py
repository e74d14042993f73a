"""python/examples/ddp_train.py under torchrun, on the CPU (gloo, prnn's CPU
backend): two processes with batch B end with the parameters of one process
with batch 2B, and a rerun with the same seeds is equal bit for bit. The
same script runs one process per GPU with NCCL (tests/gpu/run.sh ddp)."""

import os
import subprocess
import sys

import prnn

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "examples", "ddp_train.py")
SMALL = ["--device", "cpu", "--hidden", "24", "--seq", "12", "--steps", "12"]


def _torchrun(nproc, batch, *extra):
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
           f"--nproc_per_node={nproc}", SCRIPT, *SMALL, "--batch", str(batch), *extra]
    # the prnn this test imported, installed or from the source tree
    env = dict(os.environ)
    where = os.path.dirname(os.path.dirname(os.path.abspath(prnn.__file__)))
    env["PYTHONPATH"] = where + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


def test_two_processes_equal_one_with_the_global_batch(tmp_path):
    two = tmp_path / "two.pt"
    _torchrun(2, 3, "--save", str(two))
    out = _torchrun(2, 3, "--compare", str(two), "--tolerance", "0")
    assert "bit for bit equal" in out
    out = _torchrun(1, 6, "--compare", str(two), "--tolerance", "1e-5")
    assert "largest relative difference" in out
