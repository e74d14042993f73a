/*
 * What prnn-bench uses of cuDNN 9 (the v8 RNN API of cudnn.h: cudnn_graph.h,
 * cudnn_ops.h, cudnn_adv.h), declared without cudnn.h, so that the bench
 * always builds with its cuDNN comparison and a machine with pip-installed
 * CUDA libraries (no headers) can run it: see src/cuda/api_decl.h for the
 * lists' format and how tests/decl checks them against cudnn.h when it is
 * present.
 */
#ifndef PRNN_BENCH_CUDNN_API_H
#define PRNN_BENCH_CUDNN_API_H

#include "cuda/api_decl.h"
#include "cuda/cuda_api.h" /* cudaStream_t */

/* clang-format off */
#define BENCH_CUDNN_HANDLES(X)                                                \
    X(cudnnHandle_t, struct cudnnContext)                                     \
    X(cudnnTensorDescriptor_t, struct cudnnTensorStruct)                      \
    X(cudnnDropoutDescriptor_t, struct cudnnDropoutStruct)                    \
    X(cudnnRNNDescriptor_t, struct cudnnRNNStruct)                            \
    X(cudnnRNNDataDescriptor_t, struct cudnnRNNDataStruct)

/* Success, what bench_cudnn_is_refusal sorts, and what the tests use. */
#define BENCH_CUDNN_STATUS_VALUES(X)                                          \
    X(CUDNN_STATUS_SUCCESS, 0)                                                \
    X(CUDNN_STATUS_BAD_PARAM, 2000)                                           \
    X(CUDNN_STATUS_NOT_SUPPORTED, 3000)                                       \
    X(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, 3002)                                 \
    X(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER, 3005)              \
    X(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART, 3006)                   \
    X(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING, 3008)          \
    X(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE, 3009)

#define BENCH_CUDNN_DATA_TYPE_VALUES(X)                                       \
    X(CUDNN_DATA_FLOAT, 0)                                                    \
    X(CUDNN_DATA_DOUBLE, 1)                                                   \
    X(CUDNN_DATA_HALF, 2)                                                     \
    X(CUDNN_DATA_BFLOAT16, 9)

#define BENCH_CUDNN_MATH_TYPE_VALUES(X)                                       \
    X(CUDNN_DEFAULT_MATH, 0)                                                  \
    X(CUDNN_TENSOR_OP_MATH, 1)                                                \
    X(CUDNN_FMA_MATH, 3)

#define BENCH_CUDNN_RNN_ALGO_VALUES(X)                                        \
    X(CUDNN_RNN_ALGO_STANDARD, 0)                                             \
    X(CUDNN_RNN_ALGO_PERSIST_STATIC, 1)                                       \
    X(CUDNN_RNN_ALGO_PERSIST_DYNAMIC, 2)                                      \
    X(CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H, 3)

#define BENCH_CUDNN_FORWARD_MODE_VALUES(X)                                    \
    X(CUDNN_FWD_MODE_INFERENCE, 0)                                            \
    X(CUDNN_FWD_MODE_TRAINING, 1)

#define BENCH_CUDNN_RNN_MODE_VALUES(X)                                        \
    X(CUDNN_RNN_RELU, 0)                                                      \
    X(CUDNN_RNN_TANH, 1)                                                      \
    X(CUDNN_LSTM, 2)                                                          \
    X(CUDNN_GRU, 3)

#define BENCH_CUDNN_BIAS_MODE_VALUES(X) X(CUDNN_RNN_DOUBLE_BIAS, 2)

#define BENCH_CUDNN_DIRECTION_VALUES(X)                                       \
    X(CUDNN_UNIDIRECTIONAL, 0)                                                \
    X(CUDNN_BIDIRECTIONAL, 1)

#define BENCH_CUDNN_INPUT_MODE_VALUES(X) X(CUDNN_LINEAR_INPUT, 0)

#define BENCH_CUDNN_DATA_LAYOUT_VALUES(X)                                     \
    X(CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 0)                            \
    X(CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 1)                              \
    X(CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 2)

#define BENCH_CUDNN_WGRAD_MODE_VALUES(X) X(CUDNN_WGRAD_MODE_ADD, 0)

#define BENCH_CUDNN_ENUMS(X)                                                  \
    X(cudnnStatus_t, BENCH_CUDNN_STATUS_VALUES)                               \
    X(cudnnDataType_t, BENCH_CUDNN_DATA_TYPE_VALUES)                          \
    X(cudnnMathType_t, BENCH_CUDNN_MATH_TYPE_VALUES)                          \
    X(cudnnRNNAlgo_t, BENCH_CUDNN_RNN_ALGO_VALUES)                            \
    X(cudnnForwardMode_t, BENCH_CUDNN_FORWARD_MODE_VALUES)                    \
    X(cudnnRNNMode_t, BENCH_CUDNN_RNN_MODE_VALUES)                            \
    X(cudnnRNNBiasMode_t, BENCH_CUDNN_BIAS_MODE_VALUES)                       \
    X(cudnnDirectionMode_t, BENCH_CUDNN_DIRECTION_VALUES)                     \
    X(cudnnRNNInputMode_t, BENCH_CUDNN_INPUT_MODE_VALUES)                     \
    X(cudnnRNNDataLayout_t, BENCH_CUDNN_DATA_LAYOUT_VALUES)                   \
    X(cudnnWgradMode_t, BENCH_CUDNN_WGRAD_MODE_VALUES)

/* cudnnSetRNNDescriptor_v8's auxFlags (#defines in cudnn_adv.h). */
#define BENCH_CUDNN_CONSTANTS(X)                                              \
    X(CUDNN_RNN_PADDED_IO_DISABLED, 0)                                        \
    X(CUDNN_RNN_PADDED_IO_ENABLED, 1)

/* cudnnGetLastErrorString is cuDNN 9's detail of the last failure; the
 * bench does without it. */
#define BENCH_CUDNN_FUNCTIONS(X)                                              \
    X(cudnnGetVersion, cudnnGetVersion, 1, size_t, (void))                    \
    X(cudnnGetErrorString, cudnnGetErrorString, 1, const char *,              \
      (cudnnStatus_t status))                                                 \
    X(cudnnGetLastErrorString, cudnnGetLastErrorString, 0, void,              \
      (char *message, size_t max_size))                                       \
    X(cudnnCreate, cudnnCreate, 1, cudnnStatus_t, (cudnnHandle_t *handle))    \
    X(cudnnDestroy, cudnnDestroy, 1, cudnnStatus_t, (cudnnHandle_t handle))   \
    X(cudnnSetStream, cudnnSetStream, 1, cudnnStatus_t,                       \
      (cudnnHandle_t handle, cudaStream_t stream))                            \
    X(cudnnCreateTensorDescriptor, cudnnCreateTensorDescriptor, 1,            \
      cudnnStatus_t, (cudnnTensorDescriptor_t *desc))                         \
    X(cudnnSetTensorNdDescriptor, cudnnSetTensorNdDescriptor, 1,              \
      cudnnStatus_t,                                                          \
      (cudnnTensorDescriptor_t desc, cudnnDataType_t type, int nb_dims,       \
       const int dims[], const int strides[]))                                \
    X(cudnnGetTensorNdDescriptor, cudnnGetTensorNdDescriptor, 1,              \
      cudnnStatus_t,                                                          \
      (const cudnnTensorDescriptor_t desc, int nb_dims_requested,             \
       cudnnDataType_t *type, int *nb_dims, int dims[], int strides[]))       \
    X(cudnnDestroyTensorDescriptor, cudnnDestroyTensorDescriptor, 1,          \
      cudnnStatus_t, (cudnnTensorDescriptor_t desc))                          \
    X(cudnnCreateDropoutDescriptor, cudnnCreateDropoutDescriptor, 1,          \
      cudnnStatus_t, (cudnnDropoutDescriptor_t *desc))                        \
    X(cudnnDestroyDropoutDescriptor, cudnnDestroyDropoutDescriptor, 1,        \
      cudnnStatus_t, (cudnnDropoutDescriptor_t desc))                         \
    X(cudnnDropoutGetStatesSize, cudnnDropoutGetStatesSize, 1, cudnnStatus_t, \
      (cudnnHandle_t handle, size_t *bytes))                                  \
    X(cudnnSetDropoutDescriptor, cudnnSetDropoutDescriptor, 1, cudnnStatus_t, \
      (cudnnDropoutDescriptor_t desc, cudnnHandle_t handle, float dropout,    \
       void *states, size_t state_bytes, unsigned long long seed))            \
    X(cudnnCreateRNNDescriptor, cudnnCreateRNNDescriptor, 1, cudnnStatus_t,   \
      (cudnnRNNDescriptor_t *desc))                                           \
    X(cudnnDestroyRNNDescriptor, cudnnDestroyRNNDescriptor, 1, cudnnStatus_t, \
      (cudnnRNNDescriptor_t desc))                                            \
    X(cudnnSetRNNDescriptor_v8, cudnnSetRNNDescriptor_v8, 1, cudnnStatus_t,   \
      (cudnnRNNDescriptor_t desc, cudnnRNNAlgo_t algo, cudnnRNNMode_t mode,   \
       cudnnRNNBiasMode_t bias_mode, cudnnDirectionMode_t direction,          \
       cudnnRNNInputMode_t input_mode, cudnnDataType_t type,                  \
       cudnnDataType_t math_prec, cudnnMathType_t math_type,                  \
       int32_t input_size, int32_t hidden_size, int32_t proj_size,            \
       int32_t num_layers, cudnnDropoutDescriptor_t dropout,                  \
       uint32_t aux_flags))                                                   \
    X(cudnnBuildRNNDynamic, cudnnBuildRNNDynamic, 1, cudnnStatus_t,           \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc, int mini_batch))      \
    X(cudnnCreateRNNDataDescriptor, cudnnCreateRNNDataDescriptor, 1,          \
      cudnnStatus_t, (cudnnRNNDataDescriptor_t *desc))                        \
    X(cudnnDestroyRNNDataDescriptor, cudnnDestroyRNNDataDescriptor, 1,        \
      cudnnStatus_t, (cudnnRNNDataDescriptor_t desc))                         \
    X(cudnnSetRNNDataDescriptor, cudnnSetRNNDataDescriptor, 1, cudnnStatus_t, \
      (cudnnRNNDataDescriptor_t desc, cudnnDataType_t type,                   \
       cudnnRNNDataLayout_t layout, int max_seq_length, int batch_size,       \
       int vector_size, const int seq_lengths[], void *padding_fill))         \
    X(cudnnGetRNNWeightSpaceSize, cudnnGetRNNWeightSpaceSize, 1,              \
      cudnnStatus_t,                                                          \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc, size_t *bytes))       \
    X(cudnnGetRNNWeightParams, cudnnGetRNNWeightParams, 1, cudnnStatus_t,     \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc, int32_t pseudo_layer, \
       size_t weight_bytes, const void *weights, int32_t lin_layer_id,        \
       cudnnTensorDescriptor_t m_desc, void **m_addr,                         \
       cudnnTensorDescriptor_t b_desc, void **b_addr))                        \
    X(cudnnGetRNNTempSpaceSizes, cudnnGetRNNTempSpaceSizes, 1, cudnnStatus_t, \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc,                       \
       cudnnForwardMode_t mode, cudnnRNNDataDescriptor_t x_desc,              \
       size_t *work_bytes, size_t *reserve_bytes))                            \
    X(cudnnRNNForward, cudnnRNNForward, 1, cudnnStatus_t,                     \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc,                       \
       cudnnForwardMode_t mode, const int32_t seq_lengths[],                  \
       cudnnRNNDataDescriptor_t x_desc, const void *x,                        \
       cudnnRNNDataDescriptor_t y_desc, void *y,                              \
       cudnnTensorDescriptor_t h_desc, const void *hx, void *hy,              \
       cudnnTensorDescriptor_t c_desc, const void *cx, void *cy,              \
       size_t weight_bytes, const void *weights, size_t work_bytes,           \
       void *work, size_t reserve_bytes, void *reserve))                      \
    X(cudnnRNNBackwardData_v8, cudnnRNNBackwardData_v8, 1, cudnnStatus_t,     \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc,                       \
       const int32_t seq_lengths[], cudnnRNNDataDescriptor_t y_desc,          \
       const void *y, const void *dy, cudnnRNNDataDescriptor_t x_desc,        \
       void *dx, cudnnTensorDescriptor_t h_desc, const void *hx,              \
       const void *dhy, void *dhx, cudnnTensorDescriptor_t c_desc,            \
       const void *cx, const void *dcy, void *dcx, size_t weight_bytes,       \
       const void *weights, size_t work_bytes, void *work,                    \
       size_t reserve_bytes, void *reserve))                                  \
    X(cudnnRNNBackwardWeights_v8, cudnnRNNBackwardWeights_v8, 1,              \
      cudnnStatus_t,                                                          \
      (cudnnHandle_t handle, cudnnRNNDescriptor_t desc,                       \
       cudnnWgradMode_t add_grad, const int32_t seq_lengths[],                \
       cudnnRNNDataDescriptor_t x_desc, const void *x,                        \
       cudnnTensorDescriptor_t h_desc, const void *hx,                        \
       cudnnRNNDataDescriptor_t y_desc, const void *y, size_t weight_bytes,   \
       void *dweights, size_t work_bytes, void *work, size_t reserve_bytes,   \
       void *reserve))

#define BENCH_CUDNN_API(K)                                                    \
    K(PRNN_API_NONE, BENCH_CUDNN_ENUMS, BENCH_CUDNN_CONSTANTS, PRNN_API_NONE, \
      BENCH_CUDNN_HANDLES, BENCH_CUDNN_FUNCTIONS)

BENCH_CUDNN_API(PRNN_API_DECLARE)

/* clang-format on */
#endif
