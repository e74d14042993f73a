/*
 * cuDNN 9, loaded at run time (dlopen "libcudnn.so.9", then "libcudnn.so",
 * then the toolkit's lib64; $PRNN_BENCH_CUDNN names a file to use instead)
 * into a table of the v8 RNN API's functions. cudnn.h is used for its types
 * and prototypes only; nothing links against cuDNN.
 */
#ifndef PRNN_BENCH_CUDNN_LIB_H
#define PRNN_BENCH_CUDNN_LIB_H

#include <stddef.h>

#include <cudnn.h>

#define BENCH_CUDNN_REQUIRED(X)                                               \
    X(cudnnGetVersion)                                                        \
    X(cudnnGetErrorString)                                                    \
    X(cudnnCreate)                                                            \
    X(cudnnDestroy)                                                           \
    X(cudnnSetStream)                                                         \
    X(cudnnCreateTensorDescriptor)                                            \
    X(cudnnSetTensorNdDescriptor)                                             \
    X(cudnnGetTensorNdDescriptor)                                             \
    X(cudnnDestroyTensorDescriptor)                                           \
    X(cudnnCreateDropoutDescriptor)                                           \
    X(cudnnDestroyDropoutDescriptor)                                          \
    X(cudnnDropoutGetStatesSize)                                              \
    X(cudnnSetDropoutDescriptor)                                              \
    X(cudnnCreateRNNDescriptor)                                               \
    X(cudnnDestroyRNNDescriptor)                                              \
    X(cudnnSetRNNDescriptor_v8)                                               \
    X(cudnnBuildRNNDynamic)                                                   \
    X(cudnnCreateRNNDataDescriptor)                                           \
    X(cudnnDestroyRNNDataDescriptor)                                          \
    X(cudnnSetRNNDataDescriptor)                                              \
    X(cudnnGetRNNWeightSpaceSize)                                             \
    X(cudnnGetRNNWeightParams)                                                \
    X(cudnnGetRNNTempSpaceSizes)                                              \
    X(cudnnRNNForward)                                                        \
    X(cudnnRNNBackwardData_v8)                                                \
    X(cudnnRNNBackwardWeights_v8)

/* Present in cuDNN 9 (its detail of the last failure); NULL when absent. */
#define BENCH_CUDNN_OPTIONAL(X) X(cudnnGetLastErrorString)

#define BENCH_CUDNN_FIELD(fn) __typeof__(fn) *fn;
typedef struct {
    BENCH_CUDNN_REQUIRED(BENCH_CUDNN_FIELD)
    BENCH_CUDNN_OPTIONAL(BENCH_CUDNN_FIELD)
    size_t version;   /* cudnnGetVersion(): 91400 for 9.14.0 */
    const char *path; /* the file that was loaded */
} bench_cudnn_lib;
#undef BENCH_CUDNN_FIELD

/*
 * Loads cuDNN once per process. 0, or -1 with every path tried (and why) in
 * err. A cuDNN older than 9 (no v8 RNN API, or cudnnGetVersion < 90000) is
 * refused with a message.
 */
int bench_cudnn_load(const bench_cudnn_lib **out, char *err, size_t n);

/* "CUDNN_STATUS_NOT_SUPPORTED_SHAPE" and, when the library has one, its
 * message for the last failure: "<what>: <name> (<detail>)". */
void bench_cudnn_error(const bench_cudnn_lib *lib, cudnnStatus_t s,
                       const char *what, char *err, size_t n);

/* 1 for a "this configuration is not supported" answer (the 3000 family),
 * except those that mean the installation itself is broken (a missing
 * sub-library or prerequisite, an incompatible driver or runtime). */
int bench_cudnn_is_refusal(cudnnStatus_t s);

#endif
