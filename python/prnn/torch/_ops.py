"""prnn's two PyTorch operators, registered with torch.library so that
torch.compile traces through them (fake implementations give the output
shapes) and CUDA graphs capture them (they allocate only through PyTorch's
caching allocator and enqueue on the current stream):

  prnn::rnn_forward   ForwardInference, or ForwardTraining (train=True),
                      which also returns the reserve for the backward;
  prnn::rnn_backward  BackwardData then BackwardWeights on that reserve.

The autograd formula of rnn_forward calls rnn_backward. Weights arrive as
torch.nn's parameter list; the modules keep those parameters as views of
one buffer in prnn's layout, which the C calls then use as it is (the
operators check that and pack a copy when it does not hold).

The backward is once differentiable, as cuDNN's RNN's is: a gradient taken
with create_graph=True and then differentiated again raises
(DOUBLE_BACKWARD_ERROR) instead of dropping the second-order term.
"""

import contextlib
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Iterable, List, NoReturn,
                    Optional, Sequence, Tuple, Union)

import torch
from torch import Tensor

from .._capi import call
from .._descriptors import Problem
from .._descriptors_v8 import ProblemV8
from . import _runtime, _v8
from ._runtime import address, current_stream

if TYPE_CHECKING:     # typing.TypeGuard is Python 3.10's
    from typing_extensions import TypeGuard


DOUBLE_BACKWARD_ERROR = (
    "prnn.torch: a prnn layer's backward is not differentiable (double backward, e.g. "
    "torch.autograd.grad(..., create_graph=True) followed by a backward through that "
    "gradient, as in a gradient penalty): prnn has no second-order formula, like cuDNN's "
    "RNNs, whose backward is once differentiable too. Use torch.nn's layer on the CPU for "
    "second-order terms")


def _problem(x: Tensor, hidden: int, layers: int, bidirectional: bool, mode: int,
             batch_sizes: Optional[Tensor], dropout: float, math: int) -> Problem:
    if x.dim() == 3:
        sizes = [x.shape[1]] * x.shape[0]
    else:
        # 2-D (packed) x comes with its batch_sizes
        sizes = batch_sizes.tolist()  # type: ignore[union-attr]
    return _runtime.problem(x.device, mode, _runtime.torch_dtype_code(x.dtype), x.shape[-1],
                            hidden, layers, bidirectional, sizes, dropout, math)


def _layout(x: Tensor, mode: int, hidden: int, layers: int,
            bidirectional: bool) -> _runtime.WeightLayout:
    return _runtime.WeightLayout(mode, _runtime.torch_dtype_code(x.dtype), x.shape[-1], hidden,
                                 layers, bidirectional)


def flat_weights(weights: Sequence[Tensor], layout: _runtime.WeightLayout,
                 names: Sequence[str]) -> Tuple[int, Optional[Tensor]]:
    """The flat buffer's address: the weights' own buffer when they are
    views of one in prnn's layout (the modules keep them so), else a packed
    copy (returned too, to keep it alive until the call has been enqueued:
    the caching allocator orders its reuse after this stream's work)."""
    base = _runtime.flat_base(weights, layout.offsets(names), layout.total_elements)
    if base is not None:
        return base, None
    flat, _ = layout.pack(weights, names)
    return flat.data_ptr(), flat


def _seed_value(seed: Optional[Tensor]) -> int:
    return int(seed.item()) if seed is not None else 0


def _weight_address(weights: Sequence[Tensor], w_ptr: Optional[int], x: Tensor, mode: int,
                    hidden: int, layers: int, bidirectional: bool,
                    has_bias: bool) -> Tuple[int, Optional[Tensor]]:
    """w_ptr when given (the caller's flat buffer), else flat_weights'."""
    if w_ptr is not None:
        return w_ptr, None
    return flat_weights(weights, _layout(x, mode, hidden, layers, bidirectional),
                        _runtime.weight_names(mode, layers, bidirectional, has_bias))


def forward_impl(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], weights: Sequence[Tensor],
                 batch_sizes: Optional[Tensor], seed: Optional[Tensor], mode: int, hidden: int,
                 layers: int, bidirectional: bool, has_bias: bool, dropout: float, train: bool,
                 math: int, problem: Optional[Union[Problem, ProblemV8]] = None,
                 w_ptr: Optional[int] = None
                 ) -> Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]:
    """rnn_forward's work, also called directly by the modules in eager mode
    (with the Problem and weight address they keep, skipping the
    dispatcher's cost). Returns y, hy, cy (None unless LSTM or SRU) and the
    training reserve (None unless train): the operator, whose outputs are
    tensors, makes those empty. A ProblemV8 (the modules' eager batch_first
    calls: x batch-major, as the caller has it) runs the v8 calls, its
    descriptor carrying dropout's seed (`seed` unused), on the flat buffer
    in prnn's layout, which is the v8 weight space
    (WeightLayout.is_v8_weight_space, which the modules check)."""
    w_ptr, keep = _weight_address(weights, w_ptr, x, mode, hidden, layers, bidirectional,
                                  has_bias)
    if isinstance(problem, ProblemV8):
        return _v8.forward(problem, x, hx, cx, w_ptr, train)
    p = problem or _problem(x, hidden, layers, bidirectional, mode, batch_sizes, dropout, math)
    dirs = 2 if bidirectional else 1
    cell = mode in _runtime.WITH_CELL
    y = x.new_empty(x.shape[:-1] + (dirs * hidden,))
    hy = x.new_empty(layers * dirs, p.mini_batch, hidden)
    cy = x.new_empty(layers * dirs, p.mini_batch, hidden) if cell else None
    workspace = x.new_empty(p.workspace_bytes, dtype=torch.uint8) if p.workspace_bytes else None
    h = p.handle
    if x.is_cuda:
        h.set_stream(current_stream(x.device))
    common = (h.ptr, p.rnn.ptr, p.seq_length, p.x_descs, x.data_ptr(), p.h_desc.ptr, address(hx),
              p.h_desc.ptr, address(cx), p.w_desc.ptr, w_ptr, p.y_descs, y.data_ptr(), p.h_desc.ptr,
              hy.data_ptr(), p.h_desc.ptr, address(cy), address(workspace),
              p.workspace_bytes)
    reserve: Optional[Tensor]
    if train:
        p.set_seed(_seed_value(seed))
        reserve = x.new_empty(p.reserve_bytes(), dtype=torch.uint8)
        call("prnnRNNForwardTraining", *common, reserve.data_ptr(), p.reserve_bytes())
    else:
        reserve = None
        call("prnnRNNForwardInference", *common)
    del keep
    return y, hy, cy, reserve


@torch.library.custom_op("prnn::rnn_forward", mutates_args=())
def rnn_forward(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], weights: List[Tensor],
                batch_sizes: Optional[Tensor], seed: Optional[Tensor], cell: int, hidden: int,
                layers: int, bidirectional: bool, has_bias: bool, dropout: float,
                train: bool, math: int) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """x: [T, B, I] (padded, time-major) or [rows, I] packed with
    batch_sizes (CPU int64); dropout is applied only when train. See
    forward_impl. cell: the prnnRNNMode_t value (not named mode:
    auto_functionalized takes a keyword of that name); math: the
    prnnMathType_t."""
    y, hy, cy, reserve = forward_impl(x, hx, cx, weights, batch_sizes, seed, cell, hidden,
                                      layers, bidirectional, has_bias,
                                      dropout if train else 0.0, train, math)
    empty = x.new_empty(0)
    return (y, hy, empty if cy is None else cy,
            empty.to(torch.uint8) if reserve is None else reserve)


def _reserve_size_or_unknown(x: Tensor, hidden: int, layers: int, bidirectional: bool, mode: int,
                             batch_sizes: Optional[Tensor], dropout: float,
                             math: int) -> Union[int, torch.SymInt]:
    if x.dim() == 3 and all(isinstance(s, int) for s in x.shape):
        return _problem(x, hidden, layers, bidirectional, mode, None, dropout,
                        math).reserve_bytes()
    return torch.library.get_ctx().new_dynamic_size()


@rnn_forward.register_fake
def _(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], weights: List[Tensor],
      batch_sizes: Optional[Tensor], seed: Optional[Tensor], cell: int, hidden: int, layers: int,
      bidirectional: bool, has_bias: bool, dropout: float, train: bool,
      math: int) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    mode = cell
    dirs = 2 if bidirectional else 1
    batch: Union[int, torch.SymInt]
    if x.dim() == 3:
        batch = x.shape[1]
    elif hx is not None:
        batch = hx.shape[1]
    else:
        batch = torch.library.get_ctx().new_dynamic_size()
    y = x.new_empty(x.shape[:-1] + (dirs * hidden,))
    hy = x.new_empty(layers * dirs, batch, hidden)
    cy = (x.new_empty(layers * dirs, batch, hidden) if mode in _runtime.WITH_CELL
          else x.new_empty(0))
    if train:
        n = _reserve_size_or_unknown(x, hidden, layers, bidirectional, mode, batch_sizes, dropout,
                                     math)
    else:
        n = 0
    return y, hy, cy, x.new_empty(n, dtype=torch.uint8)


def backward_impl(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor],
                  weights: Sequence[Tensor], y: Tensor, dy: Tensor, dhy: Optional[Tensor],
                  dcy: Optional[Tensor], reserve: Tensor, batch_sizes: Optional[Tensor],
                  seed: Optional[Tensor], mode: int, hidden: int, layers: int,
                  bidirectional: bool, has_bias: bool, dropout: float, weight_grads: bool,
                  math: int, input_grad: bool = True, w_ptr: Optional[int] = None,
                  v8: Optional[ProblemV8] = None) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """BackwardData (dx, dhx, dcx; dcx empty unless LSTM or SRU; dx empty
    unless input_grad: prnn then skips the first layer's input product)
    and, when weight_grads, BackwardWeights into a zeroed flat gradient
    buffer in prnn's layout (else an empty tensor). reserve is forward_impl's, from
    the same arguments (the very tensor: prnn checks its address); w_ptr,
    when given, the flat weight buffer the forward used. v8: the ProblemV8
    the forward ran (its seeded descriptor), for the v8 calls."""
    w, keep = _weight_address(weights, w_ptr, x, mode, hidden, layers, bidirectional, has_bias)
    if v8 is not None:
        dx, dhx, dcx, dw = _v8.backward(v8, x, hx, cx, w, y, dy, dhy, dcy, reserve, weight_grads,
                                        input_grad)
        empty = x.new_empty(0)
        return (empty if dx is None else dx, dhx, empty if dcx is None else dcx,
                empty if dw is None else dw)
    p = _problem(x, hidden, layers, bidirectional, mode, batch_sizes, dropout, math)
    p.set_seed(_seed_value(seed))
    layout = _layout(x, mode, hidden, layers, bidirectional)
    cell = mode in _runtime.WITH_CELL
    dx = torch.empty_like(x) if input_grad else x.new_empty(0)
    dhx = x.new_empty(layers * (2 if bidirectional else 1), p.mini_batch, hidden)
    dcx = torch.empty_like(dhx) if cell else x.new_empty(0)
    workspace = x.new_empty(p.workspace_bytes, dtype=torch.uint8) if p.workspace_bytes else None
    dy = dy.contiguous()
    dhy = dhy.contiguous() if dhy is not None else None
    dcy = dcy.contiguous() if (dcy is not None and cell) else None
    h = p.handle
    if x.is_cuda:
        h.set_stream(current_stream(x.device))
    call("prnnRNNBackwardData", h.ptr, p.rnn.ptr, p.seq_length, p.y_descs, y.data_ptr(),
         p.y_descs, dy.data_ptr(), p.h_desc.ptr, address(dhy), p.h_desc.ptr, address(dcy),
         p.w_desc.ptr, w, p.h_desc.ptr, address(hx), p.h_desc.ptr, address(cx), p.x_descs,
         dx.data_ptr() if input_grad else None, p.h_desc.ptr, dhx.data_ptr(), p.h_desc.ptr,
         dcx.data_ptr() if cell else None, address(workspace), p.workspace_bytes,
         reserve.data_ptr(), reserve.numel())
    if weight_grads:
        dw = torch.zeros(layout.total_elements, dtype=x.dtype, device=x.device)
        call("prnnRNNBackwardWeights", h.ptr, p.rnn.ptr, p.seq_length, p.x_descs, x.data_ptr(),
             p.h_desc.ptr, address(hx), p.y_descs, y.data_ptr(), address(workspace),
             p.workspace_bytes, p.w_desc.ptr, dw.data_ptr(), reserve.data_ptr(), reserve.numel())
    else:
        dw = x.new_empty(0)
    del keep
    return dx, dhx, dcx, dw


# Not declared as mutating the reserve, on purpose. BackwardData writes the
# gate gradients into a scratch part of the reserve and BackwardWeights reads
# them back within this one call; what ForwardTraining stored there is left
# as it was, so the outputs are a function of the inputs alone and repeated
# backward calls give the same results (prnn.h). Declaring the write would
# make torch.compile's functionalization hand prnn a copy of the reserve,
# which prnn's reserve registry (it knows a reserve by its address) rightly
# rejects as "not filled by prnnRNNForwardTraining", and would bump the
# saved reserve's version, failing a second backward through the graph.
@torch.library.custom_op("prnn::rnn_backward", mutates_args=())
def rnn_backward(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], weights: List[Tensor],
                 y: Tensor, dy: Tensor, dhy: Optional[Tensor], dcy: Optional[Tensor],
                 reserve: Tensor, batch_sizes: Optional[Tensor], seed: Optional[Tensor],
                 cell: int, hidden: int, layers: int, bidirectional: bool, has_bias: bool,
                 dropout: float, weight_grads: bool, math: int,
                 input_grad: bool) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """See backward_impl."""
    return backward_impl(x, hx, cx, weights, y, dy, dhy, dcy, reserve, batch_sizes, seed, cell,
                         hidden, layers, bidirectional, has_bias, dropout, weight_grads, math,
                         input_grad)


@rnn_backward.register_fake
def _(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor], weights: List[Tensor], y: Tensor,
      dy: Tensor, dhy: Optional[Tensor], dcy: Optional[Tensor], reserve: Tensor,
      batch_sizes: Optional[Tensor], seed: Optional[Tensor], cell: int, hidden: int, layers: int,
      bidirectional: bool, has_bias: bool, dropout: float, weight_grads: bool, math: int,
      input_grad: bool) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    mode = cell
    dirs = 2 if bidirectional else 1
    batch = x.shape[1] if x.dim() == 3 else (hx.shape[1] if hx is not None else
                                             torch.library.get_ctx().new_dynamic_size())
    dhx = x.new_empty(layers * dirs, batch, hidden)
    dcx = (x.new_empty(layers * dirs, batch, hidden) if mode in _runtime.WITH_CELL
           else x.new_empty(0))
    n = _layout(x, mode, hidden, layers, bidirectional).total_elements if weight_grads else 0
    return torch.empty_like(x) if input_grad else x.new_empty(0), dhx, dcx, x.new_empty(n)


def _no_double_backward(*_: Any) -> NoReturn:
    raise RuntimeError(DOUBLE_BACKWARD_ERROR)


# ctx: Any here and below: autograd's context objects take any attribute
def _nothing_to_keep(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> None:
    pass    # (torch.func needs a setup_context)


# rnn_backward's own derivative: reached only by differentiating a gradient.
rnn_backward.register_autograd(_no_double_backward, setup_context=_nothing_to_keep)


def _setup_context(ctx: Any, inputs: Tuple[Any, ...],
                   output: Tuple[Tensor, Tensor, Tensor, Tensor]) -> None:
    (x, hx, cx, weights, batch_sizes, seed, mode, hidden, layers, bidirectional, has_bias,
     dropout, train, math) = inputs
    y, _, _, reserve = output
    if not train:
        ctx.trained = False
        return
    ctx.trained = True
    ctx.config = (mode, hidden, layers, bidirectional, has_bias, dropout, math)
    ctx.has_hx, ctx.has_cx = hx is not None, cx is not None
    ctx.n_weights = len(weights)
    ctx.save_for_backward(x, hx, cx, y, reserve, batch_sizes, seed, *weights)


def _backward_formula(saved: Sequence[Any], config: Tuple[int, int, int, bool, bool, float, int],
                      needs: Tuple[bool, bool, bool, bool], dy: Optional[Tensor],
                      dhy: Optional[Tensor], dcy: Optional[Tensor],
                      backward: Callable[..., Tuple[Tensor, Tensor, Tensor, Tensor]],
                      **kwargs: Any) -> Tuple[Optional[Tensor], Optional[Tensor],
                                              Optional[Tensor], Sequence[Optional[Tensor]]]:
    """The gradients of (x, hx, cx, weights) from those of (y, hy, cy):
    `backward` is rnn_backward (traced by torch.compile) or backward_impl
    (eager, with kwargs). The weights' gradients are views of one flat
    buffer in prnn's layout, as the weights are, in the weights' data type
    (autocast runs the layer in another)."""
    mode, hidden, layers, bidirectional, has_bias, dropout, math = config
    x, hx, cx, y, reserve, batch_sizes, seed, *weights = saved
    need_x, need_hx, need_cx, need_weights = needs
    if dy is None:
        dy = torch.zeros_like(y)
    dx, dhx, dcx, dw = backward(x, hx, cx, weights, y, dy, dhy,
                                dcy if mode in _runtime.WITH_CELL else None, reserve,
                                batch_sizes, seed,
                                mode, hidden, layers, bidirectional, has_bias, dropout,
                                need_weights, math, need_x, **kwargs)
    dweights: Sequence[Optional[Tensor]]
    if need_weights:
        dw = dw.to(weights[0].dtype)
        dweights = _layout(x, mode, hidden, layers, bidirectional).views(
            dw, _runtime.weight_names(mode, layers, bidirectional, has_bias))
    else:
        dweights = [None] * len(weights)
    return (dx if need_x else None, dhx if need_hx else None, dcx if need_cx else None,
            dweights)


def _any(flags: Union[bool, Sequence[bool]]) -> bool:
    return any(flags) if isinstance(flags, (list, tuple)) else bool(flags)


def _backward(ctx: Any, dy: Optional[Tensor], dhy: Optional[Tensor], dcy: Optional[Tensor],
              _dreserve: Optional[Tensor]
              ) -> Tuple[Union[None, Tensor, Sequence[Optional[Tensor]]], ...]:
    if not ctx.trained:
        raise RuntimeError("prnn: backward through a layer run without its training pass "
                           "(it ran under torch.no_grad() or in inference mode)")
    needs = (ctx.needs_input_grad[0], ctx.has_hx, ctx.has_cx, _any(ctx.needs_input_grad[3]))
    dx, dhx, dcx, dweights = _backward_formula(ctx.saved_tensors, ctx.config, needs, dy, dhy,
                                               dcy, rnn_backward)
    return (dx, dhx, dcx, dweights, None, None, None, None, None, None, None, None, None, None)


rnn_forward.register_autograd(_backward, setup_context=_setup_context)


class _OnceDifferentiable(torch.autograd.Function):
    """Passes a backward's results through when the backward runs with
    create_graph=True, tied to every tensor they depend on (the forward's
    inputs and weights, the incoming gradients), so that differentiating
    them raises DOUBLE_BACKWARD_ERROR. (torch.autograd.function.
    once_differentiable looks only at the incoming gradients, which in a
    gradient penalty need no gradient: the second-order term would be
    dropped without a word.)"""

    @staticmethod
    def forward(ctx: Any, n: int, *tensors: Tensor) -> Tuple[Tensor, ...]:
        return tuple(t.view_as(t) for t in tensors[:n])

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> NoReturn:
        raise RuntimeError(DOUBLE_BACKWARD_ERROR)


def _tie_to_inputs(results: List[Optional[Tensor]],
                   inputs: Iterable[object]) -> List[Optional[Tensor]]:
    """`results` (tensors or None), passed through _OnceDifferentiable when
    grad mode is on (create_graph) and any of `inputs` requires grad."""
    deps = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    if not torch.is_grad_enabled() or not deps:
        return results
    present = [i for i, r in enumerate(results) if r is not None]
    tied = _OnceDifferentiable.apply(len(present), *[results[i] for i in present], *deps)
    out = list(results)
    for i, t in zip(present, tied):
        out[i] = t
    return out


def _rnn_function_forward(x: Tensor, hx: Optional[Tensor], cx: Optional[Tensor],
                          batch_sizes: Optional[Tensor], seed: Optional[Tensor],
                          config: Tuple[int, int, int, bool, bool, float, int],
                          problem: Optional[Union[Problem, ProblemV8]],
                          wbuf: Optional[Tuple[int, Optional[Tensor]]],
                          *weights: Tensor
                          ) -> Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]:
    mode, hidden, layers, bidirectional, has_bias, dropout, math = config
    return forward_impl(x, hx, cx, weights, batch_sizes, seed, mode, hidden, layers,
                        bidirectional, has_bias, dropout, True, math, problem,
                        wbuf[0] if wbuf is not None else None)


def _rnn_function_save(ctx: Any, inputs: Tuple[Any, ...],
                       output: Tuple[Tensor, Tensor, Optional[Tensor], Optional[Tensor]]) -> None:
    x, hx, cx, batch_sizes, seed, config, problem, wbuf, *weights = inputs
    y, _, _, reserve = output
    ctx.config = config
    ctx.wbuf = wbuf
    # the v8 calls' backward runs on the forward's ProblemV8: its descriptor
    # carries the seed the reserve was recorded with
    ctx.v8 = problem if isinstance(problem, ProblemV8) else None
    ctx.has_hx, ctx.has_cx = hx is not None, cx is not None
    ctx.save_for_backward(x, hx, cx, y, reserve, batch_sizes, seed, *weights)
    ctx.mark_non_differentiable(reserve)
    # Outputs the loss does not reach get None, not zeros: autograd would
    # otherwise fill a tensor the size of the reserve (tens of MB) with
    # zeros before every backward, and hy / cy's when only y is used; the
    # backward takes None for dy, dhy and dcy.
    ctx.set_materialize_grads(False)


def _rnn_function_backward(ctx: Any, dy: Optional[Tensor], dhy: Optional[Tensor],
                           dcy: Optional[Tensor],
                           _dreserve: Optional[Tensor]) -> Tuple[Optional[Tensor], ...]:
    needs = (ctx.needs_input_grad[0], ctx.has_hx and ctx.needs_input_grad[1],
             ctx.has_cx and ctx.needs_input_grad[2], any(ctx.needs_input_grad[8:]))
    saved = ctx.saved_tensors
    wrapped = _is_wrapped(saved[0])
    if wrapped:
        # torch.func.grad (the only transform the modules let through): the
        # values under its one level of wrappers, and new tensors made below
        # it, whose gradients the transform takes as they are
        saved, (dy, dhy, dcy) = _unwrap(saved), _unwrap((dy, dhy, dcy))
    with torch.no_grad(), (_below_transform() if wrapped else contextlib.nullcontext()):
        dx, dhx, dcx, dweights = _backward_formula(
            saved, ctx.config, needs, dy, dhy, dcy, backward_impl,
            w_ptr=ctx.wbuf[0] if ctx.wbuf is not None else None, v8=ctx.v8)
    results = [dx, dhx, dcx, *dweights]
    if not wrapped:
        results = _tie_to_inputs(results, [*saved, dy, dhy, dcy])
    return (*results[:3], None, None, None, None, None, *results[3:])


class EagerRNN(torch.autograd.Function):
    """The modules' training call in eager mode: forward_impl and
    backward_impl with the same formula as rnn_forward's autograd, without
    the dispatcher's cost per call (tens of microseconds). torch.compile
    and the tracer see the registered operators instead. wbuf: (address,
    tensor or None) of the flat weight buffer in the run's data type (the
    weights' own buffer, a packed copy, or autocast's converted copy, kept
    alive for the backward), or None to find or pack it in the call; the
    weights' gradients come back in their own data type. problem: the
    module's Problem, or its ProblemV8 for batch_first x as it is (the v8
    calls, forward and backward on that ProblemV8; the operators, whose
    schema is time-major, never take one)."""

    @staticmethod
    def forward(ctx: Any, *inputs: Any) -> Tuple[Tensor, Tensor, Optional[Tensor],
                                                 Optional[Tensor]]:
        output = _rnn_function_forward(*inputs)
        _rnn_function_save(ctx, inputs, output)
        return output

    backward = staticmethod(_rnn_function_backward)


class FuncRNN(torch.autograd.Function):
    """EagerRNN in the form torch.func requires (a forward without ctx and
    a setup_context), for torch.func.grad, whose tensors have a data pointer
    only inside forward and backward (wbuf None). Kept apart because such a
    Function's apply binds its arguments with inspect.signature, a tenth of
    a millisecond per call."""

    forward = staticmethod(_rnn_function_forward)
    setup_context = staticmethod(_rnn_function_save)
    backward = staticmethod(_rnn_function_backward)


def _is_wrapped(t: object) -> "TypeGuard[Tensor]":
    return isinstance(t, torch.Tensor) and torch._C._functorch.is_functorch_wrapped_tensor(t)


def _unwrap(tensors: Iterable[Optional[Tensor]]) -> List[Optional[Tensor]]:
    return [torch._C._functorch.get_unwrapped(t) if _is_wrapped(t) else t for t in tensors]


def _below_transform() -> ContextManager[None]:
    from torch._functorch.pyfunctorch import temporarily_pop_interpreter_stack
    return temporarily_pop_interpreter_stack()
