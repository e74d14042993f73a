"""prnn's cuDNN 8/9-shaped compute calls (prnnRNNForward,
prnnRNNBackwardData_v8, prnnRNNBackwardWeights_v8) on tensors, for a
ProblemV8: the projected LSTM's calls (_lstmp) and the other layers'
eager batch_first calls (_ops), which hand prnn their batch-major data as
it is. Outputs, workspace and reserve come from PyTorch's allocator on
x's device; a CUDA call runs on torch's current stream there.
"""

from typing import Optional, Tuple

import torch
from torch import Tensor

from .. import _capi
from .._descriptors import Handle
from .._descriptors_v8 import ProblemV8
from . import _runtime
from ._runtime import address, current_stream


def on_stream(device: torch.device) -> Handle:
    """This thread's prnn handle for `device`, on torch's current stream
    there (a handle is one thread's at a time: a backward that autograd
    runs on its own thread takes that thread's)."""
    h = _runtime.handle(device)
    if device.type == "cuda":
        h.set_stream(current_stream(device))
    return h


def _bytes(like: Tensor, n: int) -> Tensor:
    """n bytes of scratch on `like`'s device."""
    return torch.empty(n, dtype=torch.uint8, device=like.device)


def forward(p: ProblemV8, x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], w_ptr: int,
            training: bool) -> Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]:
    """prnnRNNForward of x (in p's layout, contiguous) with the weight space
    at w_ptr (p.weight_bytes): y, hy, cy (None unless the mode has a cell)
    and, when `training`, the reserve the backward calls take (else None).
    hx / cx None: zeros."""
    y = x.new_empty(x.shape[:-1] + (p.y_size,))
    hy = x.new_empty(p.h_shape)
    cy = x.new_empty(p.c_shape) if p.cell else None
    h = on_stream(x.device)
    ws_bytes, rs_bytes = p.temp_space(h, training)
    ws = _bytes(x, ws_bytes)
    rs = _bytes(x, rs_bytes) if training else None
    _capi.call("prnnRNNForward", h.ptr, p.rnn.ptr,
               _capi.FWD_MODE_TRAINING if training else _capi.FWD_MODE_INFERENCE, None,
               p.x_desc.ptr, address(x), p.y_desc.ptr, address(y), p.h_desc.ptr, address(hx),
               address(hy), p.c_desc.ptr, address(cx), address(cy), p.weight_bytes, w_ptr,
               ws_bytes, address(ws), rs_bytes, address(rs))
    return y, hy, cy, rs


def backward(p: ProblemV8, x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], w_ptr: int,
             y: Tensor, dy: Tensor, dhy: Optional[Tensor], dcy: Optional[Tensor],
             reserve: Tensor, weight_grads: bool, input_grad: bool = True
             ) -> Tuple[Optional[Tensor], Tensor, Optional[Tensor], Optional[Tensor]]:
    """prnnRNNBackwardData_v8 after forward's training call of the same p
    (its x, hx, cx, weights, y and reserve: the very tensors), then, when
    `weight_grads`, prnnRNNBackwardWeights_v8 into a new weight-space-sized
    buffer of x's type, every element written (PRNN_WGRAD_MODE_SET): dx
    (None unless input_grad: prnn then skips layer 0's input product),
    dhx, dcx (None unless the mode has a cell) and that buffer (else
    None). dhy / dcy None: zeros."""
    # kept in variables: a temporary's memory could be reused before the
    # call reads it
    dy = dy.contiguous()
    dhy = None if dhy is None else dhy.contiguous()
    dcy = None if (dcy is None or not p.cell) else dcy.contiguous()
    dx = torch.empty_like(x) if input_grad else None
    dhx = x.new_empty(p.h_shape)
    dcx = x.new_empty(p.c_shape) if p.cell else None
    h = on_stream(x.device)
    ws_bytes, _ = p.temp_space(h, True)
    ws = _bytes(x, ws_bytes)
    _capi.call("prnnRNNBackwardData_v8", h.ptr, p.rnn.ptr, None, p.y_desc.ptr, address(y),
               address(dy), p.x_desc.ptr, address(dx), p.h_desc.ptr, address(hx), address(dhy),
               address(dhx), p.c_desc.ptr, address(cx), address(dcy), address(dcx),
               p.weight_bytes, w_ptr, ws_bytes, address(ws), reserve.numel(), address(reserve))
    dw: Optional[Tensor] = None
    if weight_grads:
        dw = x.new_empty(p.weight_bytes // x.element_size())
        _capi.call("prnnRNNBackwardWeights_v8", h.ptr, p.rnn.ptr, _capi.WGRAD_MODE_SET, None,
                   p.x_desc.ptr, address(x), p.h_desc.ptr, address(hx), p.y_desc.ptr, address(y),
                   p.weight_bytes, address(dw), ws_bytes, address(ws), reserve.numel(),
                   address(reserve))
    return dx, dhx, dcx, dw
