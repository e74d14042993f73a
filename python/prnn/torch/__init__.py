"""Drop-in PyTorch modules on prnn: replace `torch.nn.LSTM` with
`prnn.torch.LSTM` (and GRU, RNN); `SRU` is prnn's Simple Recurrent Unit in the same
conventions (and, with convention="sru", the sru package's math); `from_torch(module)`
converts a torch.nn layer, `to_torch(layer)` back; `from_sru(module)` / `to_sru(layer)`
an sru package SRU; `onnx_translation_table()` converts an ExportedProgram holding
prnn's operator to ONNX (torch.onnx.export of a module needs nothing).

CUDA tensors run on prnn's persistent kernels (work on
torch.cuda.current_stream(), memory from PyTorch's caching allocator), CPU
tensors on prnn's CPU reference backend (slow, exact: for tests). The
layers are torch.library operators (prnn::rnn_forward, prnn::rnn_backward)
with fake implementations, so torch.compile traces through them.
"""

from ._modules import GRU, LSTM, RNN, from_torch, to_torch  # noqa: F401
from ._onnx import onnx_translation_table  # noqa: F401
from ._sru import SRU, from_sru, to_sru  # noqa: F401

__all__ = ["LSTM", "GRU", "RNN", "SRU", "from_torch", "to_torch", "from_sru", "to_sru",
           "onnx_translation_table"]
