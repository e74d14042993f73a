/*
 * A plan: everything the GPU needs to run one RNN configuration with batches
 * of up to mini_batch rows -- per pass, the path, the tile and where it came
 * from, and the loaded kernels. This file builds a plan from tiles already
 * chosen (and loads them: defines, module, occupancy); choosing tiles and
 * keeping plans per handle is plan_select.h's job, which calls down here.
 *
 * The forward tiles are loaded when the plan is made. The backward-data tile
 * is chosen then too (the workspace size depends on it), but its kernels and
 * the other training kernels are loaded on the first training need
 * (plan_select.h).
 */
#ifndef PRNN_PLAN_H
#define PRNN_PLAN_H

#include "cuda/cuda_driver.h"
#include "descriptors.h"
#include "gpu/kernel_geometry.h"
#include "prnn_kernel_abi.h"
#include "tuning/tile_config.h"
#include "tuning/tuning_db.h"
#include "rnn_pass.h"

struct prnn_gpu_state;

/* One pass's persistent kernels for one tile. */
typedef struct {
    prnn_kernel_geometry geom;
    CUfunction fn;      /* forward: LINEAR input (layer > 0 too); backward: the kernel */
    CUfunction fn_skip; /* forward, SKIP_INPUT networks: layer 0 */
    prnnConfigSource_t source;
    char config[256];   /* the tile's text form */
} prnn_tile_kernels;

/* The standard path's per-step kernels. */
typedef struct {
    CUfunction init, cell, cell_skip, cell_backward;
} prnn_step_kernels;

/* rnn_train.cu's kernels. */
typedef struct {
    CUfunction dropout_forward, dropout_backward, gather_prev, bias_partial, bias_finish,
        skip_dx;
} prnn_train_kernels;

/* SRU's scan (sru_scan.cu): its kernels and the launch shape they were
 * compiled for. */
typedef struct {
    /* the scans, one per layer kind (prnn_sru_variant) */
    CUfunction forward[PRNN_SRU_VARIANTS], backward[PRNN_SRU_VARIANTS];
    CUfunction vgrad, input_grad, keep_input;
    int threads; /* block size */
    int upt;     /* hidden units per thread */
    int depth;   /* steps whose loads each thread keeps in flight */
} prnn_sru_kernels;

/* Backward tiles kept in order of preference: the first sizes the
 * workspace, the others fit in it (tried when the first cannot load). */
#define PRNN_PLAN_BWD_CANDIDATES 4

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
    /* forward */
    prnnRNNPath_t path;
    prnn_tile_kernels fwd;       /* persistent path */
    prnn_tile_kernels fwd_train; /* the same tile keeping `act` (training) */
    prnn_step_kernels step;      /* standard path, forward and backward */
    CUfunction fn_setup;
    /* backward-data */
    prnnRNNPath_t bwd_path;      /* what runs once training is loaded */
    prnn_tile_kernels bwd;       /* persistent path */
    prnn_kernel_geometry bwd_cand[PRNN_PLAN_BWD_CANDIDATES];
    prnnConfigSource_t bwd_cand_src[PRNN_PLAN_BWD_CANDIDATES];
    int n_bwd_cand;              /* 0: the standard path */
    int bwd_settled;             /* bwd_cand[0] is forced or an exact DB entry */
    int training_loaded;
    prnn_train_kernels train;
    /* SRU: path and bwd_path are PRNN_PATH_SRU_SCAN, no tiles */
    prnn_sru_kernels sru;
    /* where the kernels came from, and what planning cost */
    prnnCubinSource_t cubin_source;
    double compile_ms;
    double plan_ms;
} prnn_plan;

/* Clears p and sets its key. */
void prnn_plan_init(prnn_plan *p, const struct prnnRNNStruct *rnn, int mini_batch);

/* The kernel shape of an RNN descriptor's pass (forward: layer > 0 unless
 * skip_layer0). */
void prnn_plan_shape(const struct prnnRNNStruct *rnn, int mini_batch, int skip_layer0,
                     prnn_pass pass, prnn_kernel_shape *shape);

/* Whether the tensor-core engine may be used for this descriptor here. */
int prnn_plan_use_mma(const struct prnnRNNStruct *rnn, const prnn_device_info *dev);

/*
 * Loads the persistent kernels of geometry g's pass (forward: both input
 * variants the network needs; train selects the variant that keeps `act`)
 * and checks that the device keeps every block resident. SUCCESS,
 * NOT_SUPPORTED (with the reason: another tile may fit), or a real failure
 * (compile, driver). The caller holds the context (prnn_gpu_enter).
 */
prnnStatus_t prnn_plan_load_tile(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                 const prnn_kernel_geometry *g, prnnConfigSource_t source,
                                 int train, prnn_plan *p, prnn_tile_kernels *out);

/* The standard path's kernels, and the setup kernel every path uses. */
prnnStatus_t prnn_plan_load_standard(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                     prnn_plan *p);
prnnStatus_t prnn_plan_load_setup(struct prnn_gpu_state *gs, prnn_plan *p);

/* The tuning database's key for (rnn, mini_batch, pass) on device dev. */
prnn_tuning_key prnn_plan_tuning_key(const prnn_device_info *dev,
                                     const struct prnnRNNStruct *rnn, int mini_batch,
                                     prnn_pass pass);

/*
 * A plan running SRU's scan with configuration cfg (source: where it came
 * from; the plan's config text says it), its kernels loaded, and with
 * training the training kernels too. Every SRU pass runs them. The caller
 * holds the context.
 */
prnnStatus_t prnn_plan_sru(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                           int mini_batch, const prnn_sru_config *cfg,
                           prnnConfigSource_t source, int training, prnn_plan *out);

/* Training: the forward tile's training variant, the backward-data kernel
 * (the first of bwd_cand that loads, else the standard path), and
 * rnn_train.cu (SRU: rnn_train.cu only). Sets training_loaded. */
prnnStatus_t prnn_plan_load_training(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                     prnn_plan *p);

/*
 * A plan for explicit tiles, loaded (the autotuner's candidates): fwd runs
 * the forward pass (NULL: the standard path); bwd, when not NULL, is the one
 * backward candidate and the training kernels are loaded too. NOT_SUPPORTED
 * when a tile does not fit. The caller holds the context.
 */
prnnStatus_t prnn_plan_with_tiles(struct prnn_gpu_state *gs, const struct prnnRNNStruct *rnn,
                                  int mini_batch, const prnn_tile_config *fwd,
                                  const prnn_tile_config *bwd, prnn_plan *out);

#endif
