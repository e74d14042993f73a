/*
 * A call plan, and what every runner shares: a compute call resolved once
 * after validation (the engine of its pass, its workspace and reserve
 * layouts, the sizes the API checks the caller's buffers against, derived
 * sizes), then launching (kernels, GEMMs, the per-call setup kernel, the
 * side stream), or, while the call is signed, hashing what it would launch
 * (loop_graph.h). Only enqueues work: no allocation, synchronisation,
 * compilation or I/O. Below the runners (the engines, layered_run.h,
 * train_ops.h), which call down into it; running a call is call_run.h's.
 */
#ifndef PRNN_GPU_RUN_H
#define PRNN_GPU_RUN_H

#include <stdint.h>

#include "cuda/cuda_driver.h"
#include "gpu/engines/engine.h"
#include "gpu/run/gemm.h"
#include "gpu/run/reserve_layout.h"
#include "gpu/run/run_kernels.h"
#include "gpu/run/workspace_layout.h"
#include "prnn_kernel_abi.h"

/* What a run would launch, as two 64-bit hashes (loop_graph.h): every
 * launch's kernel, grid, block, shared memory and argument bytes, every
 * GEMM's key and pointers, every memset and stream fork and join, in
 * order. */
typedef struct {
    uint64_t h1, h2;
} prnn_launch_signature;

/* bytes into s. */
void prnn_sign_bytes(prnn_launch_signature *s, const void *data, size_t bytes);

typedef struct prnn_call_plan {
    struct prnn_gpu_state *gs;
    const prnn_run_kernels *kernels; /* the plan's setup and training kernels */
    const prnn_pass_plan *pass;      /* the engine that runs the call */
    const prnn_rnn_problem *p;
    const struct prnnRNNStruct *rnn;
    prnn_call_kind kind;
    int training;          /* any call but inference */
    prnn_ws_layout l;      /* this call's workspace */
    prnn_reserve_layout r; /* training calls' reserve; zero for inference */
    /* What the caller's buffers must hold: the workspace every call of the
     * shape runs in (prnnGetRNNWorkspaceSize) and, for training calls, the
     * reserve (prnnGetRNNTrainingReserveSize); set by the planner. */
    size_t workspace_bytes, reserve_bytes;
    size_t es, acc; /* bytes of the storage and the math type */
    size_t gh;      /* gates * hidden */
    /* bytes of one pseudo-layer's slice of hx / hy / dhy / dhx (P wide) and
     * of cx / cy / dcy / dcx (H wide) */
    size_t h_state_stride, c_state_stride;
    int dirs, H, G;
    /* the width of h and of a direction's output: projSize with an LSTM
     * projection (the standard engine's), else H */
    int P;
    /* the call's workspace and stream (prnn_call_run, call_run.h) */
    char *ws;
    CUstream stream;
    /* 1 once this call's step tables are written (prnn_run_setup runs
     * once a call: an unpacked layout's moves need them before the
     * engine's own setup would run); clear at the start of every run of
     * the call (signed, captured or launched: call_run.c's copy) */
    int setup_done;
    /* A v8 call run in place on an unpacked layout (seq_io.h): where the
     * rows of the caller's buffers lie (prnn_rows; zero, packed rows, in
     * every other call). x_rows: x and dx (layer 0's input side; forward
     * and backward-data); y_rows: y and dy (the top layer's output side;
     * BackwardWeights too, which reads y in place and moves x). order: the
     * caller's sequence of each packed row ([batchSize] in the workspace;
     * NULL where that is the row itself): where those rows and every
     * state's row, hx to dcx, are (the kernels' `order`). */
    prnn_rows x_rows, y_rows;
    const int *order;
    /* the plan's kernels read and write the caller's rows
     * (prnn_rnn_key.caller_rows): a call runs in place only then */
    int caller_rows;
    /* Non-NULL while the call is signed (loop_graph.h): every launch,
     * GEMM, memset, fork and join below is hashed into it, nothing is
     * enqueued. */
    prnn_launch_signature *signing;
    /* The plan's graphs of whole calls (loop_graph.h; NULL: none), which
     * prnn_call_run replays a call from once its launches repeat. */
    struct prnn_loop_graphs *call_graphs;
} prnn_call_plan;

/* One pseudo-layer's weights inside w. */
typedef struct {
    const void *W; /* NULL for SKIP_INPUT layer 0 */
    const void *R;
    const void *Wp; /* the LSTM projection [P][H], or NULL without one */
    /* a bias the bias mode drops: the workspace's zero_bias (forward calls),
     * NULL (the others, which read no bias) */
    const void *bW, *bR;
    int w_cols;
} prnn_dir_weights;

/* The same parts inside dw, which BackwardWeights writes. */
typedef struct {
    void *W; /* NULL for SKIP_INPUT layer 0 */
    void *R;
    void *Wp;      /* NULL without a projection */
    void *bW, *bR; /* NULL where the bias mode drops the bias */
} prnn_dir_grads;

/* Fills c for a call of kind `call` of p run by pp, with kernels k:
 * layouts and derived sizes (workspace_bytes and reserve_bytes are the
 * planner's to set). */
void prnn_call_plan_fill(prnn_call_plan *c, struct prnn_gpu_state *gs, const prnn_run_kernels *k,
                         const prnn_pass_plan *pp, const prnn_rnn_problem *p, prnn_call_kind call);

/* Address of a workspace part, NULL for (size_t)-1. */
void *prnn_run_ws(const prnn_call_plan *c, size_t offset);

/* base + bytes, NULL when base is NULL (optional state slices): of a
 * buffer the call reads, and of one it writes. */
const void *prnn_run_offset(const void *base, size_t bytes);
void *prnn_run_out_offset(void *base, size_t bytes);

void prnn_run_dir_weights(const prnn_call_plan *c, const void *w, int pseudo, prnn_dir_weights *d);
void prnn_run_dir_grads(const prnn_call_plan *c, void *dw, int pseudo, prnn_dir_grads *d);

/* The step tables of the call (and the workspace's zero_begin .. zero_end,
 * an engine's hand-off area, zeroed when there is one); nothing when
 * c->setup_done says the call wrote them already. */
prnnStatus_t prnn_run_setup(const prnn_call_plan *c);
/* The same, the first launch also doing io's work (a v8 call run in place
 * on an unpacked layout: its order of sequences and y's padding,
 * seq_io.c). */
prnnStatus_t prnn_run_setup_io(const prnn_call_plan *c, const prnn_setup_io_args *io);

/* out = the product key describes, on the call's stream and GEMM
 * workspace (signed: the key, the pointers and the workspace). */
prnnStatus_t prnn_run_gemm(const prnn_call_plan *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out);

/* bytes of zeros at ptr, on the call's stream. */
prnnStatus_t prnn_run_zero(const prnn_call_plan *c, void *ptr, size_t bytes);

/* Work that overlaps the call's own. prnn_run_fork makes the handle's side
 * stream (prnn_gpu_side_stream, made at planning) wait for what the call's
 * stream holds so far and fills side: c with the side stream and no GEMM
 * workspace (the layout has one, the call stream's: a GEMM on side fails;
 * bench/NOTES.md v0.14 has why SRU's weight GEMMs no longer run there).
 * prnn_run_join makes the call's stream wait for everything enqueued on the
 * side stream. Both are stream-ordered events, so a call under stream
 * capture captures the fork and the join; every fork needs its join, also
 * on the way out of an error. */
prnnStatus_t prnn_run_fork(const prnn_call_plan *c, prnn_call_plan *side);
prnnStatus_t prnn_run_join(const prnn_call_plan *c);

/* A GEMM key with the call's types (math type out, no accumulation); the
 * caller fills the shape. */
void prnn_run_gemm_key(const prnn_call_plan *c, prnn_gemm_key *key);
/* The same, shaped for out[m][n] = a[m][k] b[n][k]^T with every matrix
 * packed (its rows back to back): the input projection, forward's h R^T. */
void prnn_run_gemm_key_abt(const prnn_call_plan *c, int m, int n, int k, prnn_gemm_key *key);
/* A key over every packed row (m = total_rows) made the product over the
 * caller's rows of a call whose x is read in place (c->x_rows): a is the
 * caller's operand and out the step-major one (caller_a; the input
 * projection, whose rows come out at t * batchSize + s, prnn_run_xproj_rows),
 * or the other way round (dx, from a full-length call's packed gate
 * gradients). Batch-major: a product per sequence, the step-major side's
 * rows of one sequence a step's rows apart; sequence-major: one product
 * over every row of the caller's buffer, padding included. */
void prnn_run_gemm_key_caller_rows(const prnn_call_plan *c, int caller_a, prnn_gemm_key *key);

/* Where the rows of layer `layer`'s input (x: layer 0's) and output (y: the
 * top layer's) lie: the caller's buffers where the call reads them in
 * place (prnn_call_plan.x_rows, y_rows), else packed rows. */
static inline prnn_rows prnn_run_input_rows(const prnn_call_plan *c, int layer)
{
    const prnn_rows packed = {0};
    return layer == 0 ? c->x_rows : packed;
}

static inline prnn_rows prnn_run_output_rows(const prnn_call_plan *c, int layer)
{
    const prnn_rows packed = {0};
    return layer == c->rnn->layers - 1 ? c->y_rows : packed;
}

/* Where the rows of layer `layer`'s input projection lie: layer 0 of a call
 * whose x is read in place has them step-major in the caller's order of
 * sequences (t * batchSize + s, prnn_run_gemm_key_caller_rows), the
 * others packed. */
prnn_rows prnn_run_xproj_rows(const prnn_call_plan *c, int layer);

/* The launches: fn with one struct argument of arg_bytes (signed whole,
 * so the struct is zeroed before its fields are set: no stray padding).
 * An ordinary launch: */
prnnStatus_t prnn_run_launch(const prnn_call_plan *c, CUfunction fn, unsigned grid_x,
                             unsigned grid_y, unsigned block, void *arg, size_t arg_bytes,
                             const char *name);

/* A three-dimensional grid: */
prnnStatus_t prnn_run_launch_3d(const prnn_call_plan *c, CUfunction fn, const unsigned grid[3],
                                unsigned block, void *arg, size_t arg_bytes, const char *name);

/* With dynamic shared memory; cooperative: every block co-resident (the
 * persistent kernels whose blocks wait for each other). */
prnnStatus_t prnn_run_launch_blocks(const prnn_call_plan *c, CUfunction fn, unsigned grid,
                                    unsigned block, size_t smem, int cooperative, void *arg,
                                    size_t arg_bytes, const char *name);

/* Blocks of `block` threads covering n items, capped for grid-stride loops. */
unsigned prnn_run_grid(unsigned long long n, unsigned block);

#endif
