/*
 * The persistent engine (one cooperative launch per layer for the whole
 * sequence, recurrent weights on-chip, blocks handing h_t to each other
 * through L2): what its files share. persistent_engine.c is its row of the
 * engine table (choosing and loading tiles, its workspace, plan info),
 * persistent_run.c its launches, kernel_geometry.c and heuristic.c its
 * host-side arithmetic and cost model.
 */
#ifndef PRNN_PERSISTENT_H
#define PRNN_PERSISTENT_H

#include "cuda/cuda_driver.h"
#include "gpu/engines/engine.h"
#include "gpu/engines/persistent/kernel_geometry.h"
#include "gpu/run/kernel_request.h"

/* One pass's kernels for one tile. */
typedef struct {
    prnn_kernel_geometry geom;
    CUfunction fn;      /* forward: LINEAR input (layer > 0 too); backward: the kernel */
    CUfunction fn_skip; /* forward, SKIP_INPUT networks: layer 0 */
} prnn_tile_kernels;

/* Backward tiles kept in order of preference: the first sizes the
 * workspace, the others fit in it (tried when the first cannot load). */
#define PRNN_PERSISTENT_CHOICES 4

typedef struct {
    prnn_tile_kernels run;   /* forward: inference; backward-data: the tile loaded */
    prnn_tile_kernels train; /* forward: the same tile keeping `act` (training) */
    int train_loaded;
    /* backward-data: the tiles kept, loaded on the first training need */
    prnn_kernel_geometry cand[PRNN_PERSISTENT_CHOICES];
    prnn_engine_choice choice[PRNN_PERSISTENT_CHOICES];
    int n_cand;
} prnn_persistent_state;

/* Engine parts of the workspace (prnn_ws_layout.engine). */
enum {
    PRNN_PERSISTENT_WS_EXCHANGE = 0, /* dirs * exchange_bytes_per_dir */
    PRNN_PERSISTENT_WS_COUNTERS = 1, /* dirs * batch_groups * u32 */
    PRNN_PERSISTENT_WS_PACKED = 2    /* dirs * packed_bytes_per_dir (streamed weights) */
};

/* The kernel shape of q (forward: layer > 0 unless skip_layer0). */
void prnn_persistent_shape(const prnn_engine_query *q, int skip_layer0, prnn_kernel_shape *shape);

/* Whether the tensor-core product may be used for this key on this
 * device. */
int prnn_persistent_use_mma(const prnn_rnn_key *key, const prnn_device_info *dev);

/* The persistent kernel of geometry g's pass (g->shape.pass): forward
 * (skip: the SKIP_INPUT layer-0 variant; train: also keeps what backward
 * needs) or backward-data (skip and train must be 0). */
prnnStatus_t prnn_request_persistent(const prnn_kernel_geometry *g, int skip, int train, int sm,
                                     prnn_kernel_request *r);

/* The launches (persistent_run.c). */
prnnStatus_t prnn_persistent_forward_layer(const prnn_layer_run *lr);
prnnStatus_t prnn_persistent_backward_layer(const prnn_layer_run *lr);

#endif
