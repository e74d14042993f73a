"""SRU's conventions (prnnSetRNNSRUConvention) carried inside a mode value.

prnn.torch passes a layer's mode as one int through its operators (a
torch.library schema takes ints, and the Problem and weight-layout caches
are keyed by it), so an SRU under other conventions than the defaults gets
its own value: PRNN_SRU plus 256 * (1 + convention + 2 * activation +
4 * the highway scale's float32 bits). The default SRU keeps the plain
value 4, so everything that knew SRU before still sees it; the scale is a
float32 as the sru package's scale_x buffer is, and the value fits in the
int64 a schema int is.
"""

import math
import struct
from typing import Optional, Tuple

from . import _capi

FLOAT32_MAX = 3.4028234663852886e38

CONVENTIONS = {"prnn": _capi.SRU_CONVENTION_PRNN, "sru": _capi.SRU_CONVENTION_SRU_PACKAGE}
ACTIVATIONS = {"tanh": _capi.SRU_ACTIVATION_TANH, "identity": _capi.SRU_ACTIVATION_IDENTITY}


def float32(value: float) -> float:
    """value rounded to float32 (the scale's precision here and in the
    package)."""
    rounded: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return rounded


def encode(convention: int, activation: int, scale: float) -> int:
    """The mode value of an SRU with these conventions (enum values of
    prnnSRUConvention_t and prnnSRUActivation_t; scale rounded to
    float32)."""
    scale = float(scale)
    if not (math.isfinite(scale) and 0 < scale <= FLOAT32_MAX and float32(scale) > 0):
        raise ValueError(f"highway_scale = {scale!r}: must be finite and positive as a float32 "
                         "(1 for none)")
    bits: int = struct.unpack("<I", struct.pack("<f", scale))[0]
    if (convention, activation, bits) == (_capi.SRU_CONVENTION_PRNN, _capi.SRU_ACTIVATION_TANH,
                                          struct.unpack("<I", struct.pack("<f", 1.0))[0]):
        return _capi.SRU
    return _capi.SRU + 256 * (1 + convention + 2 * activation + 4 * bits)


def is_sru(mode: int) -> bool:
    return mode == _capi.SRU or (mode >= 256 and mode % 256 == _capi.SRU)


def decode(mode: int) -> Tuple[int, Optional[Tuple[int, int, float]]]:
    """(prnnRNNMode_t, (convention, activation, scale) or None): None for
    a mode that is not SRU."""
    if mode == _capi.SRU:
        return _capi.SRU, (_capi.SRU_CONVENTION_PRNN, _capi.SRU_ACTIVATION_TANH, 1.0)
    if not is_sru(mode):
        return mode, None
    v = mode // 256 - 1
    scale: float = struct.unpack("<f", struct.pack("<I", v >> 2))[0]
    return _capi.SRU, (v & 1, (v >> 1) & 1, scale)


def matrices(mode: int, k: int, hidden: int, dirs: int) -> int:
    """SRU's matrices in a layer whose input is k wide: u0, f, r, and the
    highway projection u3 where k differs from the highway's width (hidden,
    or dirs * hidden in the sru package's convention; prnn.h,
    prnnSRUConvention_t)."""
    conventions = decode(mode)[1]
    convention = conventions[0] if conventions else _capi.SRU_CONVENTION_PRNN
    width = dirs * hidden if convention == _capi.SRU_CONVENTION_SRU_PACKAGE else hidden
    return 4 if k != width else 3
