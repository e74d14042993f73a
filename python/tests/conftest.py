"""The prnn.torch tests run on every device at hand: the CPU (prnn's CPU
reference backend) always, CUDA when PyTorch sees a GPU. A GPU test on a
machine without one is skipped, never failed; on a machine with one,
PRNN_REQUIRE_GPU=1 (tests/gpu/run.sh sets it) turns a missing GPU into a
failure, so a broken CUDA setup cannot pass as skips."""

import os

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: the prnn.torch tests "
                            "need it (pip install torch)")


def _devices():
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    elif os.environ.get("PRNN_REQUIRE_GPU") == "1":
        raise RuntimeError("PRNN_REQUIRE_GPU=1 but torch.cuda.is_available() is False")
    return devices


DEVICES = _devices()

# prnn.torch follows PyTorch's TF32 switch for cuDNN's RNNs (on by default),
# and these tests compare fp32 on the GPU with a float64 oracle at strict
# FP32's tolerance: they run with it off (test_amp.py tests TF32 itself).
torch.backends.cudnn.allow_tf32 = False


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("device", ["cpu", "cuda"])


@pytest.fixture(autouse=True)
def _skip_missing_device(request):
    device = request.node.callspec.params.get("device") if hasattr(request.node, "callspec") \
        else None
    if device is not None and device not in DEVICES:
        pytest.skip(f"no {device} device here")
