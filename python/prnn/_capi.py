"""ctypes declarations of every function in prnn.h, and the status check.

One table, in the header's order, with each argument's C type: the tests
compare it with prnn.h (names, argument counts and pointer-ness), so a
function added to the header without a declaration here fails there
instead of crashing a caller.
"""

import ctypes
from typing import Any, Optional
from ctypes import POINTER, c_char, c_char_p, c_double, c_float, c_int, c_longlong, \
    c_size_t, c_uint, c_ulonglong, c_void_p

from . import _library

status_t = c_int
enum_t = c_int
handle_t = c_void_p      # prnnHandle_t and the five descriptor types
desc_array_t = POINTER(c_void_p)   # const prnnTensorDescriptor_t *
int_array_t = POINTER(c_int)

STATUS_NAMES = {
    0: "SUCCESS", 1: "NOT_INITIALIZED", 2: "ALLOC_FAILED", 3: "BAD_PARAM",
    4: "INTERNAL_ERROR", 5: "INVALID_VALUE", 6: "ARCH_MISMATCH", 7: "MAPPING_ERROR",
    8: "EXECUTION_FAILED", 9: "NOT_SUPPORTED", 10: "NO_DEVICE",
    11: "RUNTIME_PREREQUISITE_MISSING", 12: "COMPILE_FAILED", 13: "CACHE_ERROR",
    14: "TUNING_DB_ERROR",
}

# prnnDataType_t, prnnRNNMode_t, and the other enums (values are ABI).
DATA_FLOAT, DATA_DOUBLE, DATA_HALF, DATA_BFLOAT16 = 0, 1, 2, 3
RNN_RELU, RNN_TANH, LSTM, GRU, SRU = 0, 1, 2, 3, 4
UNIDIRECTIONAL, BIDIRECTIONAL = 0, 1
LINEAR_INPUT, SKIP_INPUT = 0, 1
DEFAULT_MATH, TENSOR_OP_MATH, FMA_MATH, TF32_RECURRENCE_MATH = 0, 1, 2, 3
SRU_CONVENTION_PRNN, SRU_CONVENTION_SRU_PACKAGE = 0, 1
SRU_ACTIVATION_TANH, SRU_ACTIVATION_IDENTITY = 0, 1
BACKEND_GPU, BACKEND_CPU_REFERENCE = 0, 1
TENSOR_NCHW = 0
# the cuDNN 8/9-shaped calls' enums and auxFlags
FWD_MODE_INFERENCE, FWD_MODE_TRAINING = 0, 1
RNN_NO_BIAS, RNN_SINGLE_INP_BIAS, RNN_DOUBLE_BIAS, RNN_SINGLE_REC_BIAS = 0, 1, 2, 3
RNN_CLIP_NONE, RNN_CLIP_MINMAX = 0, 1
NOT_PROPAGATE_NAN, PROPAGATE_NAN = 0, 1
RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED = 0
RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED = 1
RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2
WGRAD_MODE_ADD, WGRAD_MODE_SET = 0, 1
RNN_PADDED_IO_DISABLED, RNN_PADDED_IO_ENABLED = 0, 1


class PlanInfo(ctypes.Structure):
    """prnnRNNPlanInfo_t."""
    _fields_ = [
        ("structSize", c_size_t), ("path", enum_t), ("configSource", enum_t),
        ("cubinSource", enum_t), ("numBlocks", c_int), ("threadsPerBlock", c_int),
        ("unitsPerBlock", c_int), ("tensorCores", c_int), ("residentFraction", c_double),
        ("compileMs", c_double), ("planMs", c_double), ("config", c_char * 256),
        ("device", c_char * 128), ("trainingPrepared", c_int), ("backwardPath", enum_t),
        ("backwardConfigSource", enum_t), ("backwardNumBlocks", c_int),
        ("backwardConfig", c_char * 256),
        ("engine", c_char * 32), ("backwardEngine", c_char * 32),
        ("shortEngine", c_char * 32), ("shortMaxSeqLength", c_int),
        ("configTunedOn", c_char * 128),
        ("singleStepEngine", c_char * 32), ("shortSlots", c_int),
        ("shortSlotMaxSeqLength", c_int * 3), ("shortSlotEngine", (c_char * 32) * 3),
        ("shortSlotConfigSource", enum_t * 3), ("shortSlotConfig", (c_char * 256) * 3),
        ("callGraphs", c_int), ("callGraphsCaptured", c_int), ("callGraphReplays", c_ulonglong),
        ("backwardShortEngine", c_char * 32), ("backwardShortMaxSeqLength", c_int),
        ("backwardSingleStepEngine", c_char * 32), ("backwardShortSlots", c_int),
        ("backwardShortSlotMaxSeqLength", c_int * 3),
        ("backwardShortSlotEngine", (c_char * 32) * 3),
        ("backwardShortSlotConfigSource", enum_t * 3),
        ("backwardShortSlotConfig", (c_char * 256) * 3),
    ]


class CacheFile(ctypes.Structure):
    """prnnCacheFile_t."""
    _fields_ = [
        ("structSize", c_size_t), ("kind", enum_t), ("path", c_char_p), ("name", c_char_p),
        ("valid", c_int), ("problem", c_char_p), ("kernel", c_char_p), ("source", c_char_p),
        ("sm", c_int), ("nvrtcVersion", c_char_p), ("fileBytes", c_ulonglong),
        ("modifiedTime", c_longlong),
    ]


class CacheClearResult(ctypes.Structure):
    """prnnCacheClearResult_t."""
    _fields_ = [
        ("structSize", c_size_t), ("removed", c_int), ("kept", c_int), ("failed", c_int),
        ("firstFailure", c_char * 4352),
    ]


class CacheWarmResult(ctypes.Structure):
    """prnnCacheWarmResult_t."""
    _fields_ = [
        ("structSize", c_size_t), ("shapes", c_int), ("kernels", c_int), ("compiled", c_int),
        ("cached", c_int), ("failed", c_int), ("compileMs", c_double),
    ]


# prnnCacheFileKind_t
CACHE_FILE_ENTRY, CACHE_FILE_TEMPORARY, CACHE_FILE_TUNING_DB_TEMPORARY = 0, 1, 2
# prnnCacheWarmSource_t
WARM_SHIPPED_DB, WARM_USER_DB, WARM_PACKED_DATA, WARM_UNPACKED_DATA = 1, 2, 4, 8
# prnnCacheFileCallback_t
CacheFileCallback = ctypes.CFUNCTYPE(c_int, POINTER(CacheFile), c_void_p)

_P = c_void_p      # a data pointer (const void * or void *)
_OUT_P = POINTER(c_void_p)
_T = handle_t      # one descriptor or handle
_TA = desc_array_t

# (name, result type, argument types), in prnn.h's order.
FUNCTIONS = [
    ("prnnGetVersion", c_size_t, []),
    ("prnnGetErrorString", c_char_p, [status_t]),
    ("prnnGetLastErrorLog", c_char_p, []),
    ("prnnCreate", status_t, [POINTER(handle_t)]),
    ("prnnCreateWithBackend", status_t, [POINTER(handle_t), enum_t]),
    ("prnnDestroy", status_t, [_T]),
    ("prnnGetBackend", status_t, [_T, POINTER(enum_t)]),
    ("prnnSetStream", status_t, [_T, c_void_p]),
    ("prnnGetStream", status_t, [_T, POINTER(c_void_p)]),
    ("prnnSetAutotuneMode", status_t, [_T, enum_t]),
    ("prnnGetAutotuneMode", status_t, [_T, POINTER(enum_t)]),
    ("prnnCreateTensorDescriptor", status_t, [POINTER(handle_t)]),
    ("prnnDestroyTensorDescriptor", status_t, [_T]),
    ("prnnSetTensorNdDescriptor", status_t, [_T, enum_t, c_int, int_array_t, int_array_t]),
    ("prnnGetTensorNdDescriptor", status_t,
     [_T, c_int, POINTER(enum_t), POINTER(c_int), int_array_t, int_array_t]),
    ("prnnCreateFilterDescriptor", status_t, [POINTER(handle_t)]),
    ("prnnDestroyFilterDescriptor", status_t, [_T]),
    ("prnnSetFilterNdDescriptor", status_t, [_T, enum_t, enum_t, c_int, int_array_t]),
    ("prnnGetFilterNdDescriptor", status_t,
     [_T, c_int, POINTER(enum_t), POINTER(enum_t), POINTER(c_int), int_array_t]),
    ("prnnCreateDropoutDescriptor", status_t, [POINTER(handle_t)]),
    ("prnnDestroyDropoutDescriptor", status_t, [_T]),
    ("prnnSetDropoutDescriptor", status_t, [_T, _T, c_float, c_ulonglong]),
    ("prnnGetDropoutDescriptor", status_t, [_T, _T, POINTER(c_float), POINTER(c_ulonglong)]),
    ("prnnCreateRNNDescriptor", status_t, [POINTER(handle_t)]),
    ("prnnDestroyRNNDescriptor", status_t, [_T]),
    ("prnnSetRNNDescriptor", status_t, [_T, c_int, c_int, _T, enum_t, enum_t, enum_t, enum_t]),
    ("prnnGetRNNDescriptor", status_t,
     [_T, POINTER(c_int), POINTER(c_int), POINTER(c_float), POINTER(c_ulonglong),
      POINTER(enum_t), POINTER(enum_t), POINTER(enum_t), POINTER(enum_t)]),
    ("prnnSetRNNAlgorithm", status_t, [_T, enum_t]),
    ("prnnGetRNNAlgorithm", status_t, [_T, POINTER(enum_t)]),
    ("prnnSetRNNMatrixMathType", status_t, [_T, enum_t]),
    ("prnnGetRNNMatrixMathType", status_t, [_T, POINTER(enum_t)]),
    ("prnnSetRNNSRUConvention", status_t, [_T, enum_t, enum_t, c_double]),
    ("prnnGetRNNSRUConvention", status_t,
     [_T, POINTER(enum_t), POINTER(enum_t), POINTER(c_double)]),
    ("prnnGetRNNWorkspaceSize", status_t, [_T, _T, c_int, _TA, POINTER(c_size_t)]),
    ("prnnGetRNNTrainingReserveSize", status_t, [_T, _T, c_int, _TA, POINTER(c_size_t)]),
    ("prnnGetRNNParamsSize", status_t, [_T, _T, _T, POINTER(c_size_t), enum_t]),
    ("prnnGetRNNLinLayerMatrixParams", status_t, [_T, _T, c_int, _T, _T, _P, c_int, _T, _OUT_P]),
    ("prnnGetRNNLinLayerBiasParams", status_t, [_T, _T, c_int, _T, _T, _P, c_int, _T, _OUT_P]),
    ("prnnPrepareRNN", status_t, [_T, _T, c_int, enum_t]),
    ("prnnGetRNNPathString", c_char_p, [enum_t]),
    ("prnnGetRNNPlanInfo", status_t, [_T, _T, c_int, enum_t, POINTER(PlanInfo)]),
    ("prnnRNNForwardInference", status_t,
     [_T, _T, c_int, _TA, _P, _T, _P, _T, _P, _T, _P, _TA, _P, _T, _P, _T, _P, _P, c_size_t]),
    ("prnnRNNForwardTraining", status_t,
     [_T, _T, c_int, _TA, _P, _T, _P, _T, _P, _T, _P, _TA, _P, _T, _P, _T, _P, _P, c_size_t,
      _P, c_size_t]),
    ("prnnRNNBackwardData", status_t,
     [_T, _T, c_int, _TA, _P, _TA, _P, _T, _P, _T, _P, _T, _P, _T, _P, _T, _P, _TA, _P, _T, _P,
      _T, _P, _P, c_size_t, _P, c_size_t]),
    ("prnnRNNBackwardWeights", status_t,
     [_T, _T, c_int, _TA, _P, _T, _P, _TA, _P, _P, c_size_t, _T, _P, _P, c_size_t]),
    ("prnnCreateRNNDataDescriptor", status_t, [POINTER(handle_t)]),
    ("prnnDestroyRNNDataDescriptor", status_t, [_T]),
    ("prnnSetRNNDataDescriptor", status_t,
     [_T, enum_t, enum_t, c_int, c_int, c_int, int_array_t, _P]),
    ("prnnGetRNNDataDescriptor", status_t,
     [_T, POINTER(enum_t), POINTER(enum_t), POINTER(c_int), POINTER(c_int), POINTER(c_int),
      c_int, int_array_t, _P]),
    ("prnnSetRNNDescriptor_v8", status_t,
     [_T, enum_t, enum_t, enum_t, enum_t, enum_t, enum_t, enum_t, enum_t, c_int, c_int, c_int,
      c_int, _T, c_uint]),
    ("prnnGetRNNDescriptor_v8", status_t,
     [_T, POINTER(enum_t), POINTER(enum_t), POINTER(enum_t), POINTER(enum_t), POINTER(enum_t),
      POINTER(enum_t), POINTER(enum_t), POINTER(enum_t), POINTER(c_int), POINTER(c_int),
      POINTER(c_int), POINTER(c_int), POINTER(handle_t), POINTER(c_uint)]),
    ("prnnRNNSetClip_v8", status_t, [_T, enum_t, enum_t, c_double, c_double]),
    ("prnnRNNSetClip_v9", status_t, [_T, enum_t, c_double, c_double]),
    ("prnnRNNGetClip_v8", status_t,
     [_T, POINTER(enum_t), POINTER(enum_t), POINTER(c_double), POINTER(c_double)]),
    ("prnnGetRNNWeightSpaceSize", status_t, [_T, _T, POINTER(c_size_t)]),
    ("prnnGetRNNTempSpaceSizes", status_t,
     [_T, _T, enum_t, _T, POINTER(c_size_t), POINTER(c_size_t)]),
    ("prnnGetRNNWeightParams", status_t,
     [_T, _T, c_int, c_size_t, _P, c_int, _T, _OUT_P, _T, _OUT_P]),
    ("prnnRNNForward", status_t,
     [_T, _T, enum_t, int_array_t, _T, _P, _T, _P, _T, _P, _P, _T, _P, _P, c_size_t, _P,
      c_size_t, _P, c_size_t, _P]),
    ("prnnRNNBackwardData_v8", status_t,
     [_T, _T, int_array_t, _T, _P, _P, _T, _P, _T, _P, _P, _P, _T, _P, _P, _P, c_size_t, _P,
      c_size_t, _P, c_size_t, _P]),
    ("prnnRNNBackwardWeights_v8", status_t,
     [_T, _T, enum_t, int_array_t, _T, _P, _T, _P, _T, _P, c_size_t, _P, c_size_t, _P,
      c_size_t, _P]),
    ("prnnGetCacheDirectory", status_t, [POINTER(c_char), c_size_t]),
    ("prnnScanKernelCache", status_t, [_P, _P, c_int, CacheFileCallback, c_void_p]),
    ("prnnClearKernelCache", status_t, [_P, _P, POINTER(CacheClearResult)]),
    ("prnnWarmKernelCache", status_t, [_P, c_int, ctypes.c_uint, POINTER(CacheWarmResult)]),
]


class PrnnError(RuntimeError):
    """A prnn call failed: .status (the prnnStatus_t value), .status_name
    ("BAD_PARAM", ...), .function, and .log, the library's
    prnnGetLastErrorLog() text, which names the argument and the rule."""

    def __init__(self, function: str, status: int, log: str) -> None:
        self.function = function
        self.status = status
        self.status_name = STATUS_NAMES.get(status, f"UNKNOWN({status})")
        self.log = log
        super().__init__(f"{function}: PRNN_STATUS_{self.status_name}: {log}")


class _Api:
    """The loaded library with every function declared. Attribute access
    returns the raw ctypes function; call() checks the status."""

    def __init__(self) -> None:
        self.lib, self.path = _library.load()
        for name, restype, argtypes in FUNCTIONS:
            fn = getattr(self.lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def __getattr__(self, name: str) -> Any:
        # The functions of FUNCTIONS, set by __init__; this only types them.
        raise AttributeError(name)

    def last_error_log(self) -> str:
        text = self.prnnGetLastErrorLog()
        return text.decode("utf-8", "replace") if text else ""

    def check(self, function: str, status: int) -> None:
        if status != 0:
            raise PrnnError(function, status, self.last_error_log())


_api: Optional[_Api] = None


def api() -> _Api:
    """The process's one loaded binding (loads libprnn on first use)."""
    global _api
    if _api is None:
        _api = _Api()
    return _api


def call(name: str, *args: Any) -> None:
    """Calls prnn function `name` and raises PrnnError on a failing status."""
    a = _api or api()
    status = getattr(a, name)(*args)
    if status:
        a.check(name, status)
