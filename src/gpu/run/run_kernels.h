/*
 * Loading kernels, and the kernels every runner shares: the per-call setup
 * kernel (step tables, zeroing a hand-off area) and rnn_train.cu's training
 * kernels (dropout, h_{t-1} gathering, bias sums, SKIP_INPUT's dx). Engines
 * load their own kernels with the same helpers, which record where each
 * cubin came from and what compiling it cost.
 */
#ifndef PRNN_RUN_KERNELS_H
#define PRNN_RUN_KERNELS_H

#include <stddef.h>

#include "cuda/cuda_driver.h"
#include "gpu/run/load_stats.h"
#include "prnn.h"

struct prnn_gpu_state;
struct prnn_kernel_request;

/* A function of a loaded module by name. */
typedef struct {
    const char *name;
    CUfunction *fn;
} prnn_named_fn;

/* The module of request r (memory, disk cache or NVRTC), its use recorded
 * in stats. The caller holds the context. */
prnnStatus_t prnn_load_module(struct prnn_gpu_state *gs, const struct prnn_kernel_request *r,
                              prnn_load_stats *stats, CUmodule *mod);

/* r's module, then each named function (requested: the status of making r,
 * so that a failed request stops here). */
prnnStatus_t prnn_load_functions(struct prnn_gpu_state *gs, prnnStatus_t requested,
                                 const struct prnn_kernel_request *r, prnn_load_stats *stats,
                                 const prnn_named_fn *fns, size_t n);

typedef struct {
    CUfunction setup;
    /* the v8 unpacked layouts' gather and scatter (the setup module's) */
    CUfunction seq_order, seq_move;
    CUfunction dropout_forward, dropout_backward, gather_prev, bias_partial, bias_finish,
        bias_direct, skip_dx;
    int training_loaded;
} prnn_run_kernels;

/* The setup kernel (every call runs it), and the unpacked layouts' kernels
 * of its module. */
prnnStatus_t prnn_run_kernels_load(struct prnn_gpu_state *gs, prnn_run_kernels *k,
                                   prnn_load_stats *stats);
/* rnn_train.cu's kernels for dtype; sets training_loaded. */
prnnStatus_t prnn_run_kernels_load_training(struct prnn_gpu_state *gs, prnnDataType_t dtype,
                                            prnn_run_kernels *k, prnn_load_stats *stats);

#endif
