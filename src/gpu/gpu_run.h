/*
 * What every GPU call's runner shares once its plan exists: the call's
 * stream and workspace layout, sizes in bytes, where a pseudo-layer's
 * weights are, the per-call setup kernel, and launching (kernels, GEMMs).
 * Only enqueues work: no allocation, synchronisation, compilation or I/O.
 */
#ifndef PRNN_GPU_RUN_H
#define PRNN_GPU_RUN_H

#include "gpu/gemm.h"
#include "gpu/gpu_backend.h"
#include "gpu/plan.h"
#include "gpu/reserve_layout.h"
#include "gpu/workspace_layout.h"

typedef struct {
    struct prnn_gpu_state *gs;
    const prnn_plan *plan;
    const prnn_rnn_problem *p;
    const struct prnnRNNStruct *rnn;
    prnn_ws_layout l;
    char *ws;
    CUstream stream;
    size_t es, acc;      /* bytes of the storage and the math type */
    size_t gh;           /* gates * hidden */
    size_t state_stride; /* bytes of one pseudo-layer's hx/hy/cx/cy slice */
    int dirs, H, G;
} prnn_run_ctx;

/* One pseudo-layer's weights inside w. */
typedef struct {
    const void *W; /* NULL for SKIP_INPUT layer 0 */
    const void *R, *bW, *bR;
    int w_cols;
} prnn_dir_weights;

/* Fills c for a call of this kind; BAD_PARAM when the workspace is smaller
 * than the call's layout. */
prnnStatus_t prnn_run_begin(prnn_run_ctx *c, const prnn_gpu_call *g, const prnn_plan *plan,
                            const prnn_rnn_problem *p, prnn_call_kind call, void *ws,
                            size_t ws_bytes);

/* What every runner does around its enqueueing: refuses a training call
 * whose kernels were not loaded, fills c (prnn_run_begin) and, for any call
 * but inference, r (the reserve's layout; zeroed for inference), then runs
 * body(arg) holding the device's context. c and r live in arg's struct. */
prnnStatus_t prnn_run_enqueue(const prnn_gpu_call *g, const prnn_plan *plan,
                              const prnn_rnn_problem *p, prnn_call_kind call, void *ws,
                              size_t ws_bytes, prnn_run_ctx *c, prnn_reserve_layout *r,
                              prnnStatus_t (*body)(void *arg), void *arg);

/* Address of a workspace part, NULL for (size_t)-1. */
void *prnn_run_ws(const prnn_run_ctx *c, size_t offset);

/* base + bytes, NULL when base is NULL (optional state slices). */
const void *prnn_run_offset(const void *base, size_t bytes);

void prnn_run_dir_weights(const prnn_run_ctx *c, const void *w, int pseudo, prnn_dir_weights *d);

/* The step tables of the call (and, with zero_handoff, a zeroed hand-off
 * area: exchange .. zero_end of the layout). */
prnnStatus_t prnn_run_setup(const prnn_run_ctx *c, int zero_handoff);

prnnStatus_t prnn_run_gemm(const prnn_run_ctx *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out);

/* Work that overlaps the call's own. prnn_run_fork makes the handle's side
 * stream (prnn_gpu_side_stream, made at planning) wait for what the call's
 * stream holds so far and fills side: c with the side stream and the side
 * GEMM workspace (the layout's gemm_ws_side; where there is none, a GEMM
 * on side fails).
 * prnn_run_join makes the call's stream wait for everything enqueued on the
 * side stream. Both are stream-ordered events, so a call under stream
 * capture captures the fork and the join; every fork needs its join, also
 * on the way out of an error. */
prnnStatus_t prnn_run_fork(const prnn_run_ctx *c, prnn_run_ctx *side);
prnnStatus_t prnn_run_join(const prnn_run_ctx *c);

/* A GEMM key with the call's types (math type out, no accumulation); the
 * caller fills the shape. */
void prnn_run_gemm_key(const prnn_run_ctx *c, prnn_gemm_key *key);

/* An ordinary launch of fn with one struct argument. */
prnnStatus_t prnn_run_launch(const prnn_run_ctx *c, CUfunction fn, unsigned grid_x,
                             unsigned grid_y, unsigned block, void *arg, const char *name);

/* Blocks of `block` threads covering n items, capped for grid-stride loops. */
unsigned prnn_run_grid(unsigned long long n, unsigned block);

#endif
