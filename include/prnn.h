/*
 * prnn: persistent recurrent neural network layers for NVIDIA GPUs.
 *
 * The one public header. C99, usable from C++, includes no CUDA header.
 *
 * The API follows cuDNN v5's RNN API (prnn instead of cudnn), plus a few calls
 * that make run-time compilation practical (prnnPrepareRNN, prnnGetRNNPlanInfo,
 * prnnSetAutotuneMode, prnnSetRNNMatrixMathType).
 *
 * General rules, which every function below follows:
 *  - Every function returns a prnnStatus_t. On failure, prnnGetLastErrorLog()
 *    returns a message for the calling thread naming the argument and the rule
 *    that was broken (or the compiler log, or the CUDA call that failed).
 *  - Arguments are validated before anything touches the device. A failing call
 *    leaves its outputs untouched, except where stated.
 *  - Every prnnCreate* has a prnnDestroy* that accepts NULL.
 *  - Descriptors are plain host objects: they can be created, set and destroyed
 *    without a handle or a GPU. A descriptor must not be modified by one thread
 *    while another thread uses it.
 *  - A handle is used by one thread at a time (as in cuDNN). Different handles
 *    may be used concurrently from different threads.
 *  - Memory: all device buffers (x, y, h, c, weights, workspace, reserve space)
 *    belong to the caller. prnn never frees them and never keeps pointers to
 *    them after a call returns, except that it remembers the address of each
 *    reserve space ForwardTraining filled, as a key it never dereferences
 *    (the training order, at prnnGetRNNTrainingReserveSize). Sizes are
 *    queried with prnnGet*Size.
 *  - Backends: a handle runs on the GPU (prnnCreate) or on the CPU reference
 *    implementation (prnnCreateWithBackend with PRNN_BACKEND_CPU_REFERENCE).
 *    With the GPU backend every data pointer is a device pointer (or managed
 *    memory); with the CPU backend every data pointer is a host pointer. The
 *    weight layout, the workspace and reserve rules and the results are the
 *    same on both.
 *  - GPU calls are asynchronous with respect to the host: compute calls only
 *    enqueue work on the handle's stream and return. After planning (see
 *    prnnPrepareRNN) they allocate no device memory, never synchronize, never
 *    compile and do no file I/O, so they can be captured into a CUDA graph.
 */
#ifndef PRNN_H
#define PRNN_H

#include <stddef.h>

#if defined(_WIN32) || defined(__CYGWIN__)
#  if defined(PRNN_BUILDING_LIBRARY)
#    define PRNN_API __declspec(dllexport)
#  else
#    define PRNN_API
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define PRNN_API __attribute__((visibility("default")))
#else
#  define PRNN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Version                                                                   */
/* ------------------------------------------------------------------------- */

#define PRNN_VERSION_MAJOR 0
#define PRNN_VERSION_MINOR 1
#define PRNN_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, as prnnGetVersion() returns it. */
#define PRNN_VERSION \
    (PRNN_VERSION_MAJOR * 10000 + PRNN_VERSION_MINOR * 100 + PRNN_VERSION_PATCH)

/* The version of the library actually loaded (compare with PRNN_VERSION). */
PRNN_API size_t prnnGetVersion(void);

/* ------------------------------------------------------------------------- */
/* Status codes and errors                                                   */
/* ------------------------------------------------------------------------- */

/*
 * Status codes are part of the ABI: values are explicit and new codes are only
 * ever appended. 0-9 keep cuDNN v5's meanings.
 */
typedef enum {
    PRNN_STATUS_SUCCESS = 0,
    /* The handle was not created, or its creation failed. */
    PRNN_STATUS_NOT_INITIALIZED = 1,
    /* A host or device allocation inside prnn failed. */
    PRNN_STATUS_ALLOC_FAILED = 2,
    /* An argument is invalid: NULL where a value is required, a size out of
     * range, descriptors that do not agree with each other, a buffer that is
     * too small. The log names the argument and the rule. */
    PRNN_STATUS_BAD_PARAM = 3,
    /* A bug in prnn, or an unexpected CUDA error. */
    PRNN_STATUS_INTERNAL_ERROR = 4,
    /* A value is invalid for reasons other than an argument's form (for
     * example a tuning configuration that the device cannot hold). */
    PRNN_STATUS_INVALID_VALUE = 5,
    /* The device's architecture is older than the loaded NVRTC can compile
     * for (sm_75 with CUDA 13). */
    PRNN_STATUS_ARCH_MISMATCH = 6,
    /* Loading a compiled kernel or moving memory failed. */
    PRNN_STATUS_MAPPING_ERROR = 7,
    /* A kernel or library call failed to execute on the device. */
    PRNN_STATUS_EXECUTION_FAILED = 8,
    /* The combination of arguments is valid but not implemented, on this
     * backend or at all. The log says which part. */
    PRNN_STATUS_NOT_SUPPORTED = 9,
    /* No CUDA driver (libcuda.so.1) or no CUDA device was found. The log
     * names every library path tried. */
    PRNN_STATUS_NO_DEVICE = 10,
    /* A run-time library prnn needs (NVRTC, cuBLASLt) was not found or is too
     * old. The log names every path tried. */
    PRNN_STATUS_RUNTIME_PREREQUISITE_MISSING = 11,
    /* NVRTC rejected a kernel. The log holds NVRTC's log, the options and the
     * kernel name. */
    PRNN_STATUS_COMPILE_FAILED = 12,
    /* The on-disk kernel cache could not be used. Never returned by compute
     * calls: an unusable cache degrades to memory-only caching. Returned by
     * cache maintenance (tools/prnn-cache). */
    PRNN_STATUS_CACHE_ERROR = 13,
    /* A tuning database could not be read or written. Never returned by
     * compute calls: a bad database is reported in the log and ignored.
     * Returned when writing the user database fails (prnn-autotune). */
    PRNN_STATUS_TUNING_DB_ERROR = 14
} prnnStatus_t;

/* A static, human-readable name for a status. Never NULL, also for values
 * that are not a prnnStatus_t ("PRNN_STATUS_UNKNOWN"). */
PRNN_API const char *prnnGetErrorString(prnnStatus_t status);

/*
 * The detail of the calling thread's most recent failure: which function,
 * which argument and which rule, or the compiler log, or the failing CUDA call.
 * The log is thread-local (descriptor calls take no handle) and is replaced by
 * the next failing call of the same thread; successful calls leave it alone,
 * except that they may append notes (for example "cache directory not
 * writable, caching in memory only"). Never NULL; "" when there is nothing to
 * report. The pointer stays valid until the thread's next prnn call.
 */
PRNN_API const char *prnnGetLastErrorLog(void);

/* ------------------------------------------------------------------------- */
/* Enumerations                                                              */
/* ------------------------------------------------------------------------- */

/* Storage type of tensors and weights. HALF and BFLOAT16 are computed in
 * float (fp32 accumulation, fp32 cell state); FLOAT in float; DOUBLE in
 * double. */
typedef enum {
    PRNN_DATA_FLOAT = 0,
    PRNN_DATA_DOUBLE = 1,
    PRNN_DATA_HALF = 2,
    PRNN_DATA_BFLOAT16 = 3
} prnnDataType_t;

/* The only filter format (weights are a flat buffer). */
typedef enum {
    PRNN_TENSOR_NCHW = 0
} prnnTensorFormat_t;

typedef enum {
    PRNN_RNN_RELU = 0, /* h_t = ReLU(W x_t + R h_t-1 + bW + bR) */
    PRNN_RNN_TANH = 1, /* h_t = tanh(W x_t + R h_t-1 + bW + bR) */
    PRNN_LSTM = 2,     /* gates i, f, g, o; no peepholes */
    PRNN_GRU = 3,      /* gates r, z, n; reset applied after R h (cuDNN,
                        * PyTorch) */
    PRNN_SRU = 4       /* reserved: not implemented yet (NOT_SUPPORTED) */
} prnnRNNMode_t;

typedef enum {
    PRNN_UNIDIRECTIONAL = 0,
    /* Two independent recurrences, forward and reverse in time, whose
     * outputs are concatenated per row: y = [y_fwd | y_bwd]. */
    PRNN_BIDIRECTIONAL = 1
} prnnDirectionMode_t;

typedef enum {
    /* Layer 0 multiplies its input by W (inputSize may differ from
     * hiddenSize). */
    PRNN_LINEAR_INPUT = 0,
    /* Layer 0 has no W: every gate adds x_t directly, as if each W were the
     * identity (bW is still applied). Requires inputSize == hiddenSize. */
    PRNN_SKIP_INPUT = 1
} prnnRNNInputMode_t;

/* Which math the non-recurrent GEMMs may use (cuDNN v7's cudnnMathType_t). */
typedef enum {
    /* FLOAT data: strict FP32 everywhere (no TF32). HALF/BFLOAT16 data:
     * tensor cores with fp32 accumulation. DOUBLE: FP64. */
    PRNN_DEFAULT_MATH = 0,
    /* FLOAT data: the input projection and backward-weights GEMMs may use
     * TF32 tensor cores (as cuDNN's fp32 RNN does by default). The
     * recurrence itself stays FP32. Other data types: as DEFAULT. */
    PRNN_TENSOR_OP_MATH = 1,
    /* No tensor cores anywhere: HALF/BFLOAT16 products run as fp32 FMA. */
    PRNN_FMA_MATH = 2
} prnnMathType_t;

/* Which implementation runs the recurrence (cuDNN's cudnnRNNAlgo_t). */
typedef enum {
    /* The persistent kernel where a configuration fits the device, the
     * standard path otherwise. Never an error for a valid shape. */
    PRNN_RNN_ALGO_AUTO = 0,
    /* The persistent kernel only (weights resident on-chip, or streamed when
     * they do not fit); planning fails with NOT_SUPPORTED, and a message
     * saying why, when no configuration can run on the device. */
    PRNN_RNN_ALGO_PERSISTENT = 1,
    /* One cuBLASLt GEMM and one fused pointwise kernel per timestep: the
     * classic non-persistent implementation. Slower at small batch, but it
     * needs no co-resident blocks (e.g. on a GPU shared with other work). */
    PRNN_RNN_ALGO_STANDARD = 2
} prnnRNNAlgo_t;

typedef enum {
    PRNN_BACKEND_GPU = 0,          /* default: device pointers, CUDA */
    PRNN_BACKEND_CPU_REFERENCE = 1 /* host pointers, plain C reference */
} prnnBackend_t;

typedef enum {
    /* Configurations come from the tuning databases, else from a heuristic
     * computed from the device's properties. */
    PRNN_AUTOTUNE_OFF = 0,
    /* The first plan of a shape that no database holds runs the autotuner
     * (candidates compiled, checked and timed on the device, seconds to a
     * minute) and stores the winner in the user tuning database. */
    PRNN_AUTOTUNE_ON = 1
} prnnAutotuneMode_t;

/* ------------------------------------------------------------------------- */
/* Opaque types                                                              */
/* ------------------------------------------------------------------------- */

typedef struct prnnContext *prnnHandle_t;
typedef struct prnnTensorStruct *prnnTensorDescriptor_t;
typedef struct prnnFilterStruct *prnnFilterDescriptor_t;
typedef struct prnnDropoutStruct *prnnDropoutDescriptor_t;
typedef struct prnnRNNStruct *prnnRNNDescriptor_t;

/* The CUDA stream type: the same type as the driver API's CUstream and the
 * runtime API's cudaStream_t, declared here so that this header needs no CUDA
 * header. NULL is the legacy default stream. */
struct CUstream_st;

/* ------------------------------------------------------------------------- */
/* Handle                                                                    */
/* ------------------------------------------------------------------------- */

/*
 * Creates a GPU handle, bound to the device of the calling thread's current
 * CUDA context, or to device 0 when no context is current (the runtime API's
 * default). The handle uses that device's primary context, so it works with
 * runtime-API programs (PyTorch, cuBLAS) on the same device. The stream is
 * NULL (legacy default stream) until prnnSetStream.
 *
 * Returns PRNN_STATUS_NO_DEVICE when libcuda.so.1 cannot be loaded or there is
 * no device (the log names the paths tried), ARCH_MISMATCH for a device older
 * than sm_70. *handle is set to NULL on failure.
 */
PRNN_API prnnStatus_t prnnCreate(prnnHandle_t *handle);

/* As prnnCreate, with the backend chosen explicitly. A CPU-reference handle
 * needs no GPU and no CUDA library; it is never chosen silently. */
PRNN_API prnnStatus_t prnnCreateWithBackend(prnnHandle_t *handle,
                                            prnnBackend_t backend);

/* Releases the handle, its plans and its loaded kernels. Does not
 * synchronize: the caller must make sure work enqueued with the handle has
 * finished before destroying it. NULL is accepted. */
PRNN_API prnnStatus_t prnnDestroy(prnnHandle_t handle);

PRNN_API prnnStatus_t prnnGetBackend(prnnHandle_t handle,
                                     prnnBackend_t *backend);

/* The stream on which compute calls enqueue their work. The stream must
 * belong to the handle's device and outlive its use by the handle. Ignored
 * (but stored) by the CPU backend, whose calls are synchronous. */
PRNN_API prnnStatus_t prnnSetStream(prnnHandle_t handle,
                                    struct CUstream_st *stream);
PRNN_API prnnStatus_t prnnGetStream(prnnHandle_t handle,
                                    struct CUstream_st **stream);

/* See prnnAutotuneMode_t. Default PRNN_AUTOTUNE_OFF. */
PRNN_API prnnStatus_t prnnSetAutotuneMode(prnnHandle_t handle,
                                          prnnAutotuneMode_t mode);
PRNN_API prnnStatus_t prnnGetAutotuneMode(prnnHandle_t handle,
                                          prnnAutotuneMode_t *mode);

/* ------------------------------------------------------------------------- */
/* Tensor descriptors                                                        */
/* ------------------------------------------------------------------------- */

PRNN_API prnnStatus_t prnnCreateTensorDescriptor(prnnTensorDescriptor_t *desc);
PRNN_API prnnStatus_t prnnDestroyTensorDescriptor(prnnTensorDescriptor_t desc);

/*
 * nbDims: 3 to 8. dimA[i] >= 1. strideA[i] >= 1. The RNN calls accept only
 * fully packed 3-d tensors (strideA = {dimA[1]*dimA[2], dimA[2], 1}):
 *  - per-timestep input/output x[t], y[t], dx[t], dy[t]:
 *      {batch_t, vectorSize, 1}
 *  - hidden and cell states hx, cx, hy, cy, dhx, dcx, dhy, dcy:
 *      {numLayers * numDirections, miniBatch, hiddenSize}
 * dimA and strideA are copied.
 */
PRNN_API prnnStatus_t prnnSetTensorNdDescriptor(prnnTensorDescriptor_t desc,
                                                prnnDataType_t dataType,
                                                int nbDims, const int dimA[],
                                                const int strideA[]);

/* Writes min(nbDimsRequested, nbDims) dimensions and strides. dataType,
 * nbDims, dimA, strideA may each be NULL when not wanted (dimA/strideA only
 * when nbDimsRequested is 0). BAD_PARAM if the descriptor was never set. */
PRNN_API prnnStatus_t prnnGetTensorNdDescriptor(
    const prnnTensorDescriptor_t desc, int nbDimsRequested,
    prnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[]);

/* ------------------------------------------------------------------------- */
/* Filter descriptors                                                        */
/* ------------------------------------------------------------------------- */

PRNN_API prnnStatus_t prnnCreateFilterDescriptor(prnnFilterDescriptor_t *desc);
PRNN_API prnnStatus_t prnnDestroyFilterDescriptor(prnnFilterDescriptor_t desc);

/*
 * nbDims: 1 to 8, filterDimA[i] >= 1. The RNN weights (w, dw) are described as
 * {paramsSizeInBytes / elementSize, 1, 1} with the RNN's data type.
 */
PRNN_API prnnStatus_t prnnSetFilterNdDescriptor(prnnFilterDescriptor_t desc,
                                                prnnDataType_t dataType,
                                                prnnTensorFormat_t format,
                                                int nbDims,
                                                const int filterDimA[]);

PRNN_API prnnStatus_t prnnGetFilterNdDescriptor(
    const prnnFilterDescriptor_t desc, int nbDimsRequested,
    prnnDataType_t *dataType, prnnTensorFormat_t *format, int *nbDims,
    int filterDimA[]);

/* ------------------------------------------------------------------------- */
/* Dropout descriptors                                                       */
/* ------------------------------------------------------------------------- */

PRNN_API prnnStatus_t prnnCreateDropoutDescriptor(prnnDropoutDescriptor_t *desc);
PRNN_API prnnStatus_t prnnDestroyDropoutDescriptor(prnnDropoutDescriptor_t desc);

/*
 * dropout: probability of zeroing an element, 0 <= dropout < 1. Kept elements
 * are scaled by 1 / (1 - dropout). seed: key of the counter-based generator
 * (Philox-4x32-10): the same seed gives the same mask on every backend and GPU.
 * Unlike cuDNN there is no state buffer, so handle may be NULL (it is not
 * used) and nothing is allocated.
 */
PRNN_API prnnStatus_t prnnSetDropoutDescriptor(prnnDropoutDescriptor_t desc,
                                               prnnHandle_t handle,
                                               float dropout,
                                               unsigned long long seed);
PRNN_API prnnStatus_t prnnGetDropoutDescriptor(prnnDropoutDescriptor_t desc,
                                               prnnHandle_t handle,
                                               float *dropout,
                                               unsigned long long *seed);

/* ------------------------------------------------------------------------- */
/* RNN descriptors                                                           */
/* ------------------------------------------------------------------------- */

PRNN_API prnnStatus_t prnnCreateRNNDescriptor(prnnRNNDescriptor_t *desc);
PRNN_API prnnStatus_t prnnDestroyRNNDescriptor(prnnRNNDescriptor_t desc);

/*
 * hiddenSize: 1 to 65536. numLayers: 1 to 256.
 * dropoutDesc: applied to the output of every layer but the last, in
 *   ForwardTraining only. NULL means no dropout. Its probability and seed are
 *   copied now: changing dropoutDesc later does not change rnnDesc.
 * inputMode, direction, mode: see the enums. PRNN_SRU is NOT_SUPPORTED for now.
 * dataType: storage type of every tensor and of the weights used with this
 *   descriptor (see prnnDataType_t for the math precision).
 * The math type is reset to PRNN_DEFAULT_MATH and the algorithm to
 * PRNN_RNN_ALGO_AUTO.
 */
PRNN_API prnnStatus_t prnnSetRNNDescriptor(prnnRNNDescriptor_t rnnDesc,
                                           int hiddenSize, int numLayers,
                                           prnnDropoutDescriptor_t dropoutDesc,
                                           prnnRNNInputMode_t inputMode,
                                           prnnDirectionMode_t direction,
                                           prnnRNNMode_t mode,
                                           prnnDataType_t dataType);

/* Any output pointer may be NULL when not wanted. dropout/seed report the
 * copied dropout settings (0 and 0 when none). */
PRNN_API prnnStatus_t prnnGetRNNDescriptor(const prnnRNNDescriptor_t rnnDesc,
                                           int *hiddenSize, int *numLayers,
                                           float *dropout,
                                           unsigned long long *seed,
                                           prnnRNNInputMode_t *inputMode,
                                           prnnDirectionMode_t *direction,
                                           prnnRNNMode_t *mode,
                                           prnnDataType_t *dataType);

/* See prnnRNNAlgo_t. Default PRNN_RNN_ALGO_AUTO; reset by
 * prnnSetRNNDescriptor. The CPU backend accepts and ignores it. */
PRNN_API prnnStatus_t prnnSetRNNAlgorithm(prnnRNNDescriptor_t rnnDesc,
                                          prnnRNNAlgo_t algo);
PRNN_API prnnStatus_t prnnGetRNNAlgorithm(const prnnRNNDescriptor_t rnnDesc,
                                          prnnRNNAlgo_t *algo);

PRNN_API prnnStatus_t prnnSetRNNMatrixMathType(prnnRNNDescriptor_t rnnDesc,
                                               prnnMathType_t mathType);
PRNN_API prnnStatus_t prnnGetRNNMatrixMathType(const prnnRNNDescriptor_t rnnDesc,
                                               prnnMathType_t *mathType);

/* ------------------------------------------------------------------------- */
/* Sizes                                                                     */
/* ------------------------------------------------------------------------- */

/*
 * Common arguments of the size queries and compute calls:
 *  seqLength: number of timesteps, >= 1.
 *  xDesc: array of seqLength descriptors, xDesc[t] = {batch_t, inputSize, 1}
 *    (fully packed, the RNN's data type). batch_t >= 1 must never increase
 *    with t: sequences are sorted by decreasing length and packed time-major,
 *    so row b of step t is sequence b. inputSize is the same for every t;
 *    miniBatch is batch_0.
 */

/* Device (or, for the CPU backend, host) scratch memory that Forward*,
 * BackwardData and BackwardWeights need for this shape: one size for all
 * four calls (the largest of their needs). May be 0. GPU backend: plans the
 * shape as prnnPrepareRNN does (the size depends on the tiles chosen). */
PRNN_API prnnStatus_t prnnGetRNNWorkspaceSize(prnnHandle_t handle,
                                              const prnnRNNDescriptor_t rnnDesc,
                                              int seqLength,
                                              const prnnTensorDescriptor_t *xDesc,
                                              size_t *sizeInBytes);

/*
 * Memory that ForwardTraining fills and BackwardData / BackwardWeights read:
 * it must be passed unchanged between them. Its contents are private and
 * depend on the backend. The reserve belongs to the caller, like every
 * buffer; what prnn keeps about it is described below. Its size depends on
 * the problem only (not on the tiles the GPU runs).
 *
 * GPU backend: this call also prepares the training kernels (the forward
 * kernel's training variant, the backward-data kernel, the elementwise and
 * reduction kernels): compile or load them now, as prnnPrepareRNN does for
 * inference, so that the first training call pays nothing. It may therefore
 * take as long as prnnPrepareRNN, and returns COMPILE_FAILED and the other
 * planning statuses prnnPrepareRNN documents.
 *
 * The training order. prnn records, for the whole process (every handle and
 * thread), which reserves ForwardTraining filled, for which problem, and how
 * far the training step on each has got; the backward calls are checked
 * against that record:
 *  1. prnnRNNForwardTraining, when it succeeds, records reserveSpace (by its
 *     address) with the problem: the handle's backend; rnnDesc's mode, data
 *     type, hiddenSize, numLayers, direction, inputMode, dropout probability
 *     and seed (where dropout applies: more than one layer, a probability
 *     above 0), math type and algorithm; seqLength; inputSize and every
 *     step's batch size. A later ForwardTraining on the same address replaces
 *     the record and starts the order again at step 2. A failing call records
 *     nothing and leaves an earlier record of its reserveSpace as it was.
 *  2. prnnRNNBackwardData needs a reserveSpace recorded by step 1 for the
 *     same problem (its dxDesc standing for the forward call's xDesc) on the
 *     same backend. When it succeeds, BackwardWeights may follow.
 *  3. prnnRNNBackwardWeights needs the same, and that BackwardData has
 *     succeeded on this reserveSpace since its ForwardTraining: it reads the
 *     gate gradients that BackwardData leaves in the reserve.
 * BackwardData and BackwardWeights may be called again on the same reserve
 * (repeated calls give the same results). Forward and backward may run
 * through different handles of the same backend and on different threads;
 * with the GPU backend, ordering the backward calls' stream after the
 * forward call's stays the caller's job. Breaking the order, or passing a
 * reserve of another problem, is PRNN_STATUS_BAD_PARAM with a message that
 * names reserveSpace and what differs, e.g. "reserveSpace (0x...) was filled
 * by prnnRNNForwardTraining with seqLength 12, this call has seqLength 10".
 *
 * The record holds the PRNN_MAX_TRACKED_RESERVES most recently used
 * reserves (filled or checked); a new reserve beyond that forgets the least
 * recently used one, whose backward calls then fail with "reserveSpace (...)
 * was not filled by prnnRNNForwardTraining (or was evicted ...)". Between a
 * forward call and its backward calls, fill or check fewer than
 * PRNN_MAX_TRACKED_RESERVES other reserves.
 * Keeping the record takes a lock and a table lookup on the host: no device
 * access, no synchronisation, no allocation.
 *
 * prnn knows a reserve by its address and cannot see its contents. "Passed
 * unchanged" therefore also means: the same pointer (not an address inside
 * the reserve), reserveSpaceSizeInBytes at least this query's size for the
 * problem, and nothing written to the reserve between the calls (no other
 * call's buffer may overlap it).
 */
#define PRNN_MAX_TRACKED_RESERVES 4096

PRNN_API prnnStatus_t prnnGetRNNTrainingReserveSize(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int seqLength,
    const prnnTensorDescriptor_t *xDesc, size_t *sizeInBytes);

/* Size of the flat weight buffer for input size xDesc->dim[1]. dataType must
 * be the descriptor's data type. */
PRNN_API prnnStatus_t prnnGetRNNParamsSize(prnnHandle_t handle,
                                           const prnnRNNDescriptor_t rnnDesc,
                                           const prnnTensorDescriptor_t xDesc,
                                           size_t *sizeInBytes,
                                           prnnDataType_t dataType);

/* ------------------------------------------------------------------------- */
/* Weights                                                                   */
/* ------------------------------------------------------------------------- */

/*
 * Where one matrix or bias lives inside the flat weight buffer w (which
 * prnnGetRNNParamsSize sized and wDesc describes). The layout of w is prnn's
 * own; these two calls are the only supported way to address it.
 *
 * pseudoLayer: layer * numDirections + direction (direction 0 = forward,
 *   1 = reverse), 0 <= pseudoLayer < numLayers * numDirections.
 * linLayerID (cuDNN's meaning):
 *   RELU, TANH: 0 = W (input), 1 = R (recurrent)
 *   LSTM: 0..3 = W for gates i, f, g, o; 4..7 = R for gates i, f, g, o
 *   GRU:  0..2 = W for gates r, z, n;    3..5 = R for gates r, z, n
 *   Every linLayerID has its own bias (bW for W ids, bR for R ids).
 * Matrix: *linLayerMat points to a row-major matrix of hiddenSize rows and
 *   K columns (K = inputSize for layer 0's W, numDirections * hiddenSize for
 *   a deeper layer's W, hiddenSize for every R), and linLayerMatDesc is set to
 *   the filter {1, hiddenSize, K} of the RNN's data type. With
 *   PRNN_SKIP_INPUT the W matrices of layer 0 do not exist: *linLayerMat is
 *   set to NULL and linLayerMatDesc to {0, 0, 0} (the one case where a filter
 *   descriptor holds zeros); their biases do exist.
 * Bias: *linLayerBias points to hiddenSize values, and linLayerBiasDesc is set
 *   to {1, hiddenSize, 1}.
 * The returned pointer is w plus an offset; w is not dereferenced, so a host
 *   or device pointer works with either backend. linLayerMatDesc and
 *   linLayerBiasDesc must have been created by the caller.
 */
PRNN_API prnnStatus_t prnnGetRNNLinLayerMatrixParams(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int pseudoLayer,
    const prnnTensorDescriptor_t xDesc, const prnnFilterDescriptor_t wDesc,
    const void *w, int linLayerID, prnnFilterDescriptor_t linLayerMatDesc,
    void **linLayerMat);

PRNN_API prnnStatus_t prnnGetRNNLinLayerBiasParams(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int pseudoLayer,
    const prnnTensorDescriptor_t xDesc, const prnnFilterDescriptor_t wDesc,
    const void *w, int linLayerID, prnnFilterDescriptor_t linLayerBiasDesc,
    void **linLayerBias);

/* ------------------------------------------------------------------------- */
/* Planning (beyond cuDNN v5)                                                */
/* ------------------------------------------------------------------------- */

/*
 * Prepares everything the GPU needs to run rnnDesc with batches of up to
 * miniBatch rows: finds the tile configuration (user tuning database, shipped
 * database, heuristic, or the autotuner when the handle's mode is
 * PRNN_AUTOTUNE_ON), gets the kernel (memory cache, disk cache, or NVRTC) and
 * loads it. Without this call the first compute call for a shape does the
 * same work. A plan is keyed by (rnnDesc's settings, miniBatch, dataType) and
 * lives as long as the handle. dataType must be the descriptor's data type.
 * CPU backend: validates and returns SUCCESS.
 *
 * May take from milliseconds (cached) to about a second (compile), or longer
 * with autotuning. Returns COMPILE_FAILED with NVRTC's log on a compiler
 * error; RUNTIME_PREREQUISITE_MISSING when NVRTC or cuBLASLt is missing.
 */
PRNN_API prnnStatus_t prnnPrepareRNN(prnnHandle_t handle,
                                     const prnnRNNDescriptor_t rnnDesc,
                                     int miniBatch, prnnDataType_t dataType);

/* Which code runs a plan. */
typedef enum {
    PRNN_PATH_CPU_REFERENCE = 0,
    /* One persistent kernel per layer, all recurrent weights held on-chip
     * (registers and shared memory) for the whole sequence. */
    PRNN_PATH_PERSISTENT_RESIDENT = 1,
    /* The same persistent kernel, with part or all of the recurrent weights
     * re-read from L2/HBM every step because they do not fit on-chip. */
    PRNN_PATH_PERSISTENT_STREAMED = 2,
    /* The standard per-step implementation (PRNN_RNN_ALGO_STANDARD, or AUTO
     * when no persistent configuration fits the device). */
    PRNN_PATH_STANDARD = 3
} prnnRNNPath_t;

/* Where the plan's tile configuration came from. */
typedef enum {
    PRNN_CONFIG_NONE = 0, /* CPU backend */
    PRNN_CONFIG_SHIPPED_DB = 1,
    PRNN_CONFIG_USER_DB = 2,
    PRNN_CONFIG_HEURISTIC = 3,
    PRNN_CONFIG_AUTOTUNED = 4
} prnnConfigSource_t;

/* Where the plan's compiled kernel came from. */
typedef enum {
    PRNN_CUBIN_NONE = 0, /* CPU backend */
    PRNN_CUBIN_MEMORY = 1,     /* already loaded in this process */
    PRNN_CUBIN_DISK_CACHE = 2, /* read from the cubin cache */
    PRNN_CUBIN_COMPILED = 3    /* compiled by NVRTC for this plan */
} prnnCubinSource_t;

/*
 * Description of a plan, filled by prnnGetRNNPlanInfo. Set structSize to
 * sizeof(prnnRNNPlanInfo_t) before the call: fields may be appended in later
 * versions and only the first structSize bytes are written.
 */
typedef struct {
    size_t structSize;
    prnnRNNPath_t path;
    prnnConfigSource_t configSource;
    prnnCubinSource_t cubinSource;
    /* Persistent kernel geometry (0 on the CPU backend). */
    int numBlocks;         /* blocks per direction (all batch groups) */
    int threadsPerBlock;
    int unitsPerBlock;     /* hidden units owned by one block */
    int tensorCores;       /* 1 when the recurrent product uses mma */
    /* Fraction of the recurrent weights held on-chip, 0 to 1. */
    double residentFraction;
    /* Milliseconds spent in NVRTC for this plan (0 when cached), and in the
     * whole plan (lookup, compile, load). */
    double compileMs;
    double planMs;
    /* The complete tile configuration, as the tuning database writes it,
     * for example "blocks=64 threads=256 ksplit=8 ...". */
    char config[256];
    /* The device, e.g. "NVIDIA H100 80GB HBM3 sm_90 132SM". */
    char device[128];
    /* The backward-data pass (fields appended in 0.2). Its tile is chosen
     * with the plan; its kernels, and the other training kernels, are
     * compiled and loaded by prnnGetRNNTrainingReserveSize or the first
     * training call (trainingPrepared = 1 from then on). Before that the
     * fields describe the tile chosen; after, what runs (a tile that cannot
     * load falls back, finally to the standard path). */
    int trainingPrepared;
    prnnRNNPath_t backwardPath;
    prnnConfigSource_t backwardConfigSource;
    int backwardNumBlocks;   /* blocks per direction (all batch groups) */
    char backwardConfig[256]; /* tile text form, or "standard" */
} prnnRNNPlanInfo_t;

/* Plans (as prnnPrepareRNN does, if not planned yet) and describes the plan
 * for (rnnDesc, miniBatch, dataType). */
PRNN_API prnnStatus_t prnnGetRNNPlanInfo(prnnHandle_t handle,
                                         const prnnRNNDescriptor_t rnnDesc,
                                         int miniBatch, prnnDataType_t dataType,
                                         prnnRNNPlanInfo_t *info);

/* ------------------------------------------------------------------------- */
/* Compute                                                                   */
/* ------------------------------------------------------------------------- */

/*
 * Arguments shared by the compute calls (cuDNN v5's lists):
 *  x, dx: packed time-major input, sum(batch_t) rows of inputSize; xDesc/dxDesc
 *    as in the size queries.
 *  y, dy: packed output, same rows, hiddenSize * numDirections columns
 *    (bidirectional: [forward | reverse] per row); yDesc[t] = {batch_t,
 *    hiddenSize * numDirections, 1} with the same batch_t as xDesc[t].
 *  hx, cx: initial hidden and cell state, {numLayers * numDirections,
 *    miniBatch, hiddenSize}, indexed by pseudoLayer. NULL means zeros; the
 *    descriptor must still be valid. cx/cxDesc are used by LSTM only.
 *  hy, cy: final hidden and cell state (same shape); for a sequence shorter
 *    than seqLength, the state after its own last step. NULL means not wanted.
 *  w: weight buffer as sized by prnnGetRNNParamsSize, wDesc = {n, 1, 1}.
 *  workspace: at least prnnGetRNNWorkspaceSize bytes, contents undefined
 *    before and after; reserveSpace: at least
 *    prnnGetRNNTrainingReserveSize bytes.
 *  The output buffers must not overlap the inputs or each other.
 */
PRNN_API prnnStatus_t prnnRNNForwardInference(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int seqLength,
    const prnnTensorDescriptor_t *xDesc, const void *x,
    const prnnTensorDescriptor_t hxDesc, const void *hx,
    const prnnTensorDescriptor_t cxDesc, const void *cx,
    const prnnFilterDescriptor_t wDesc, const void *w,
    const prnnTensorDescriptor_t *yDesc, void *y,
    const prnnTensorDescriptor_t hyDesc, void *hy,
    const prnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
    size_t workSpaceSizeInBytes);

/*
 * As ForwardInference, applying dropout between layers and keeping what the
 * backward calls need in reserveSpace: at least
 * prnnGetRNNTrainingReserveSize bytes, given as reserveSpaceSizeInBytes.
 * On SUCCESS reserveSpace is recorded for BackwardData (the training order
 * at prnnGetRNNTrainingReserveSize), replacing an earlier record of it.
 *
 * Returns BAD_PARAM, and records nothing, for every argument that
 * ForwardInference rejects, and for reserveSpaceSizeInBytes below the
 * query's size ("reserveSpaceSizeInBytes = N bytes is too small:
 * prnnGetRNNTrainingReserveSize needs M for this shape"), a NULL reserveSpace
 * ("reserveSpace is NULL but M bytes are required"), or a reserveSpace that
 * overlaps another buffer of the call.
 */
PRNN_API prnnStatus_t prnnRNNForwardTraining(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int seqLength,
    const prnnTensorDescriptor_t *xDesc, const void *x,
    const prnnTensorDescriptor_t hxDesc, const void *hx,
    const prnnTensorDescriptor_t cxDesc, const void *cx,
    const prnnFilterDescriptor_t wDesc, const void *w,
    const prnnTensorDescriptor_t *yDesc, void *y,
    const prnnTensorDescriptor_t hyDesc, void *hy,
    const prnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
    size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes);

/*
 * Gradients with respect to the inputs, after ForwardTraining with the same
 * arguments. dy: gradient of y; dhy, dcy: gradients of hy, cy (NULL means
 * zeros). Writes dx, and dhx, dcx (NULL means not wanted). y, hx, cx, w and
 * reserveSpace must be what ForwardTraining used (reserveSpace is read and
 * updated for BackwardWeights). dxDesc describes the forward call's input
 * (xDesc's batch sizes and inputSize); yDesc and dyDesc have dxDesc's batch
 * sizes and hiddenSize * numDirections columns.
 *
 * Returns BAD_PARAM, checked in this order:
 *  - handle, rnnDesc, seqLength or dxDesc invalid on their own;
 *  - reserveSpace NULL, not recorded by prnnRNNForwardTraining, or no longer
 *    (evicted: "reserveSpace (0x...) was not filled by
 *    prnnRNNForwardTraining (or was evicted: the registry remembers the last
 *    N reserves)", N being PRNN_MAX_TRACKED_RESERVES), or an address inside
 *    a recorded reserve;
 *  - reserveSpace recorded for another problem: the first difference is
 *    named, in this order: backend, seqLength, dxDesc's inputSize, miniBatch,
 *    row count or per-step batch sizes, then rnnDesc's mode, data type,
 *    hiddenSize, numLayers, direction, inputMode, dropout, dropout seed, math
 *    type, algorithm ("... was filled by prnnRNNForwardTraining with
 *    hiddenSize 8, this call's rnnDesc has hiddenSize 4: ...");
 *  - yDesc[t] or dyDesc[t] not {batch_t of dxDesc[t], hiddenSize *
 *    numDirections, 1} (named with its index); dhyDesc, hxDesc, dhxDesc (and
 *    for LSTM dcyDesc, cxDesc, dcxDesc) not {numLayers * numDirections,
 *    miniBatch, hiddenSize}; wDesc not the weights' size;
 *  - y, dy, w or dx NULL; workSpaceSizeInBytes or reserveSpaceSizeInBytes
 *    below their queries' sizes; an output overlapping another buffer.
 * A failing call leaves the reserve's record as it was.
 */
PRNN_API prnnStatus_t prnnRNNBackwardData(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int seqLength,
    const prnnTensorDescriptor_t *yDesc, const void *y,
    const prnnTensorDescriptor_t *dyDesc, const void *dy,
    const prnnTensorDescriptor_t dhyDesc, const void *dhy,
    const prnnTensorDescriptor_t dcyDesc, const void *dcy,
    const prnnFilterDescriptor_t wDesc, const void *w,
    const prnnTensorDescriptor_t hxDesc, const void *hx,
    const prnnTensorDescriptor_t cxDesc, const void *cx,
    const prnnTensorDescriptor_t *dxDesc, void *dx,
    const prnnTensorDescriptor_t dhxDesc, void *dhx,
    const prnnTensorDescriptor_t dcxDesc, void *dcx, void *workspace,
    size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes);

/*
 * Gradients with respect to the weights, after BackwardData. ADDS to dw (as
 * cuDNN v5 does): zero dw first for a plain gradient. x, hx, y and
 * reserveSpace as in ForwardTraining / BackwardData; dwDesc describes dw as
 * wDesc describes w.
 *
 * Returns BAD_PARAM, checked in this order:
 *  - handle, rnnDesc, seqLength or xDesc invalid on their own;
 *  - reserveSpace not recorded, or recorded for another problem, as for
 *    BackwardData (xDesc is compared with the forward call's xDesc);
 *  - BackwardData has not succeeded on reserveSpace since the
 *    ForwardTraining that filled it: "reserveSpace (0x...):
 *    prnnRNNBackwardWeights before prnnRNNBackwardData on this reserveSpace:
 *    BackwardWeights reads the gate gradients BackwardData leaves in it";
 *  - hxDesc, yDesc[t] or dwDesc not of the problem's shape; x, y or dw
 *    NULL; workSpaceSizeInBytes or reserveSpaceSizeInBytes below their
 *    queries' sizes; dw or workspace overlapping another buffer.
 */
PRNN_API prnnStatus_t prnnRNNBackwardWeights(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int seqLength,
    const prnnTensorDescriptor_t *xDesc, const void *x,
    const prnnTensorDescriptor_t hxDesc, const void *hx,
    const prnnTensorDescriptor_t *yDesc, const void *y,
    const void *workspace, size_t workSpaceSizeInBytes,
    const prnnFilterDescriptor_t dwDesc, void *dw,
    const void *reserveSpace, size_t reserveSpaceSizeInBytes);

#ifdef __cplusplus
}
#endif

#endif /* PRNN_H */
