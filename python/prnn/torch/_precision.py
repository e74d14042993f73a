"""The precision a layer call runs in, decided where PyTorch decides it for
torch.nn's RNNs: autocast's data type, and whether fp32's GEMMs may use TF32
(prnn's PRNN_TF32_RECURRENCE_MATH) — and the weight copy that
autocast makes once and reuses while the weights are unchanged.
"""

from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple

import torch

from .. import _capi

if TYPE_CHECKING:     # for the annotations only: _runtime is not imported here at run time
    from ._runtime import WeightLayout


def autocast_dtype(device_type: str, weight_dtype: torch.dtype) -> Optional[torch.dtype]:
    """The data type autocast runs the layer in on `device_type` ("cuda" or
    "cpu"), or None when autocast is off there. float64 layers stay float64,
    as autocast leaves float64 tensors alone."""
    if not torch.is_autocast_enabled(device_type) or weight_dtype == torch.float64:
        return None
    return torch.get_autocast_dtype(device_type)


def autocast_eligible(t: torch.Tensor) -> bool:
    """Whether autocast converts tensor `t` (a floating tensor other than
    float64, as autocast's cached_cast decides)."""
    return t.is_floating_point() and t.dtype != torch.float64


def _fp32_precision(*chain: Any) -> str:
    """The first setting of `chain` (torch.backends attribute holders, most
    specific first) that is not "none": PyTorch's own inheritance of the
    fp32_precision settings (an operator's, then its backend's, then the
    generic one)."""
    for holder in chain:
        value = getattr(holder, "fp32_precision", "none")
        if value != "none":
            return value
    return "none"


def tf32_allowed() -> bool:
    """Whether torch.nn's RNN may use TF32 on CUDA fp32 data now. With
    cuDNN in use, that is cuDNN's RNN setting (torch.backends.cudnn.rnn.
    fp32_precision, inheriting torch.backends.cudnn.fp32_precision, then
    torch.backends.fp32_precision; torch.backends.cudnn.allow_tf32 sets it;
    torch.set_float32_matmul_precision does not touch it); with cuDNN off,
    torch.nn's RNN is made of matrix products, which follow
    torch.set_float32_matmul_precision ("highest": no TF32). Read per call
    in eager mode; a torch.compile'd graph keeps the answer it was traced
    with."""
    cudnn = torch.backends.cudnn
    # torch.backends.cudnn.is_available has no annotations
    if cudnn.enabled and cudnn.is_available():  # type: ignore[no-untyped-call]
        rnn = getattr(cudnn, "rnn", None)
        if rnn is None or not hasattr(rnn, "fp32_precision"):
            return bool(cudnn.allow_tf32)       # PyTorch before the fp32_precision settings
        return _fp32_precision(rnn, cudnn, torch.backends) == "tf32"
    return torch.get_float32_matmul_precision() != "highest"



# What torch.compiler.assume_constant_result(tf32_allowed) does, without
# importing torch._dynamo for it (about 1 s, a third of `import prnn.torch`);
# test_amp.py checks that the decorator sets exactly this.
# (a function attribute that the function type does not declare)
tf32_allowed._dynamo_marked_constant = True  # type: ignore[attr-defined]

def math_type(device_type: str, dtype: torch.dtype) -> int:
    """prnn's prnnMathType_t for a call on `device_type` with data `dtype`:
    PRNN_TF32_RECURRENCE_MATH (TF32 in the input-projection and
    weight-gradient GEMMs and in the standard engine's per-step recurrent
    GEMMs, as cuDNN's RNN under torch.nn with TF32 allowed) for CUDA float32
    exactly where tf32_allowed(), else PRNN_DEFAULT_MATH (strict FP32; half
    types always use tensor cores)."""
    if device_type == "cuda" and dtype == torch.float32 and tf32_allowed():
        return _capi.TF32_RECURRENCE_MATH
    return _capi.DEFAULT_MATH


class CastWeights:
    """A layer's weights converted to autocast's data type, in prnn's flat
    layout: made once and reused while every weight is the same tensor
    memory at the same version (autograd's version counter, which in-place
    updates such as an optimizer's step advance), as torch.nn's weight cast
    under autocast is reused within an autocast region. The copy is not
    part of the autograd graph: the layer's backward turns its gradient
    back into the weights' data type."""

    def __init__(self) -> None:
        # (key, converted flat buffer), replaced as one
        self.entry: Optional[Tuple[Tuple[torch.dtype, Tuple[int, ...], Tuple[int, ...]],
                                   torch.Tensor]] = None

    @property
    def flat(self) -> Optional[torch.Tensor]:
        entry = self.entry
        return entry[1] if entry is not None else None

    def clear(self) -> None:
        self.entry = None

    def get(self, weights: Sequence[torch.Tensor], names: Sequence[str],
            src_layout: "WeightLayout", dst_layout: "WeightLayout",
            dtype: torch.dtype) -> torch.Tensor:
        key = (dtype, tuple([w.data_ptr() for w in weights]),
               tuple([w._version for w in weights]))
        entry = self.entry
        if entry is not None and entry[0] == key:
            return entry[1]
        with torch.no_grad():
            src = src_layout.buffer(weights, names) if src_layout.same_places(dst_layout) \
                else None
            if src is not None:
                flat = src.to(dtype)        # one conversion of the whole buffer
            else:
                flat, _ = dst_layout.pack(weights, names, dtype)
        self.entry = (key, flat) if torch.is_autocast_cache_enabled() else None
        return flat
