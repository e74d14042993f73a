/*
 * A plan: everything the GPU needs to run one RNN configuration with batches
 * of up to mini_batch rows -- the path, the tile configuration and where it
 * came from, and the loaded kernels. Plans are made once per handle and key
 * (prnnPrepareRNN or the first call) and then only read.
 */
#ifndef PRNN_PLAN_H
#define PRNN_PLAN_H

#include "cuda/cuda_driver.h"
#include "descriptors.h"
#include "gpu/kernel_geometry.h"
#include "jit/nvrtc_compile.h"
#include "gpu/gpu_backend.h"
#include "rnn_problem.h"

struct prnn_gpu_state;

typedef struct prnn_plan {
    struct prnn_plan *next;
    /* key */
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden, layers, dirs;
    prnnRNNInputMode_t input_mode;
    prnnMathType_t math;
    prnnRNNAlgo_t algo;
    int mini_batch;
    /* what runs */
    prnnRNNPath_t path;
    prnnConfigSource_t config_source;
    prnnCubinSource_t cubin_source;
    double compile_ms;
    double plan_ms;
    prnn_kernel_geometry geom;      /* persistent path */
    CUfunction fn_rnn;              /* persistent kernel, LINEAR input */
    CUfunction fn_rnn_skip;         /* persistent kernel, SKIP layer 0 */
    CUfunction fn_setup;
    CUfunction fn_step, fn_step_skip, fn_step_init; /* standard path */
    char config[256];               /* tile text, or "standard" */
} prnn_plan;

/* An NVRTC request with its -D defines (storage included). */
typedef struct {
    char text[24][40];
    const char *ptr[24];
    int n;
    prnn_compile_request req;
} prnn_kernel_request;

/* The compile request of the persistent kernel for geometry g (skip: the
 * SKIP_INPUT layer-0 variant) on sm. */
void prnn_plan_persistent_request(const prnn_kernel_geometry *g, int skip, int sm,
                                  prnn_kernel_request *r);

/* The plan for (rnn, mini_batch) on this handle's device, made on first use. */
prnnStatus_t prnn_plan_get(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                           int mini_batch, prnn_plan **out);

/* Runs a forward (inference) pass with an explicit plan; used by the
 * autotuner to time candidates. Arguments already validated. */
prnnStatus_t prnn_gpu_forward_plan(const prnn_gpu_call *h, const prnn_plan *plan,
                                   const prnn_rnn_problem *p,
                                   const prnn_forward_buffers *b);

/* Frees a handle's plans (modules stay loaded in the process-wide cache). */
void prnn_plan_free_all(prnn_plan *list);

/* Builds a plan for an explicit tile (the autotuner's candidates). The
 * caller holds the handle's context (prnn_gpu_enter): loading needs it. */
prnnStatus_t prnn_plan_with_tile(const prnn_gpu_call *h,
                                 const struct prnnRNNStruct *rnn, int mini_batch,
                                 const prnn_tile_config *tile, prnn_plan *out);

/* The kernel shape of an RNN descriptor (layer > 0 unless skip_layer0). */
void prnn_plan_shape(const struct prnnRNNStruct *rnn, int mini_batch,
                     int skip_layer0, prnn_kernel_shape *shape);

/* Whether the tensor-core engine may be used for this descriptor here. */
int prnn_plan_use_mma(const struct prnnRNNStruct *rnn, const prnn_device_info *dev);

#endif
