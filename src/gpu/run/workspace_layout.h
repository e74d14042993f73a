/*
 * How each GPU call carves the caller's workspace. The same function sizes
 * it (prnnGetRNNWorkspaceSize: the largest of the calls' layouts, one size
 * for every call, as cuDNN's) and addresses it (each call), so the two cannot
 * disagree. Nothing in it survives from one call to the next.
 *
 * The runner's parts (step tables, projections, the gradients between
 * layers, the GEMMs' workspace) are named here; an engine's own parts (a
 * hand-off area, per-step state) go into `engine`, indexed by the engine's
 * own names, through prnn_ws_take.
 */
#ifndef PRNN_WORKSPACE_LAYOUT_H
#define PRNN_WORKSPACE_LAYOUT_H

#include <stddef.h>

#include "gpu/engines/engine.h"
#include "rnn_problem.h"

typedef enum {
    PRNN_CALL_INFERENCE = 0,
    PRNN_CALL_FORWARD_TRAINING = 1,
    PRNN_CALL_BACKWARD_DATA = 2,
    PRNN_CALL_BACKWARD_WEIGHTS = 3
} prnn_call_kind;
#define PRNN_CALL_KINDS 4

/* The pass whose engine runs a call of this kind. */
prnn_pass prnn_call_pass(prnn_call_kind call);

#define PRNN_WS_ENGINE_PARTS 6
/* The state slots of a call with an unpacked v8 layout (seq_io.h): what
 * each holds in packed row order. Forward: hx, cx in, hy, cy out; backward
 * data: hx, cx, dhy (HY), dcy (CY) in, dhx, dcx out; backward weights:
 * hx. */
enum {
    PRNN_SEQ_IO_HX,
    PRNN_SEQ_IO_CX,
    PRNN_SEQ_IO_HY,
    PRNN_SEQ_IO_CY,
    PRNN_SEQ_IO_DHX,
    PRNN_SEQ_IO_DCX,
    PRNN_SEQ_IO_STATES
};

/* Byte offsets into the workspace; (size_t)-1 for parts a call does not use. */
typedef struct {
    size_t batch;  /* int[seq_length]: rows of each step */
    size_t offset; /* int[seq_length]: first row of each step */
    /* zeroed by the setup kernel before the recurrence (an engine's
     * hand-off area): zero_begin .. zero_end, or none */
    size_t zero_begin, zero_end;
    /* forward calls of a network without bW or bR (prnnSetRNNDescriptor_v8's
     * biasMode): gates * hidden zeros of the storage type, read by the
     * kernels in place of the absent bias (zeroed by prnn_call_run) */
    size_t zero_bias;
    /* forward */
    size_t xproj;     /* dirs * prnn_ws_xproj_rows * gates * hidden, math type
                       * (SRU: U) */
    size_t layer_out; /* inference, layers > 1: rows * dirs * P, storage */
    /* training (P: the width of h, prnn_ws_units) */
    size_t dropped;      /* dropout, layers > 1: the next layer's input,
                          * rows * dirs * P, storage type */
    size_t dgrad;        /* backward data, layers > 1: gradient of a layer's
                          * output, rows * dirs * P, math type */
    size_t hprev;        /* backward weights: h_{t-1} of every row, rows *
                          * P, storage type */
    size_t bias_partial; /* backward weights: bias_chunks * dg_cols * hidden */
    int bias_chunks, bias_chunk_rows;
    /* the v8 unpacked layouts (seq_io.h), none for a packed call: the
     * sequences' packed order and their lengths (int[2 * batchSize]); x,
     * y, dy and dx in packed
     * rows (storage type); the states in packed row order, a slot of
     * layers * dirs * batchSize rows each (seq_io.c says which) */
    size_t io_order, io_x, io_y, io_dy, io_dx;
    size_t io_state[PRNN_SEQ_IO_STATES];
    size_t gemm_ws;                      /* cuBLASLt workspace */
    size_t engine[PRNN_WS_ENGINE_PARTS]; /* the engine's own parts */
    size_t total;                        /* PRNN_SIZE_OVERFLOW (checked_size.h) when the
                                          * shape's workspace does not fit in size_t; the
                                          * offsets are then meaningless */
} prnn_ws_layout;

/* A layout being built: parts are taken one after the other, aligned. */
typedef struct prnn_ws_builder {
    prnn_ws_layout *l;
    size_t cursor;
    const prnn_engine *engine; /* the pass's engine (which moves what: seq_io_plan.h) */
} prnn_ws_builder;

/* What the parts of a call's workspace are counted in, from its problem. */
typedef struct {
    size_t es, acc;     /* bytes of an element of the storage and the math type */
    size_t dirs, H, gh; /* directions, hidden size, gates * hidden */
    size_t P;           /* the width of h: projSize with a projection, else H */
    size_t B, rows;     /* rows of the first step (miniBatch), of every step */
    int deep;           /* more than one layer: outputs pass between layers */
    int dropout;        /* deep, with dropout between the layers */
} prnn_ws_units;

prnn_ws_units prnn_ws_units_of(const prnn_rnn_problem *p);

/* Rows of a direction's input projection (prnn_ws_layout.xproj): every
 * packed row, or for a call run in place on engine e (seq_io_plan.h),
 * whose layer 0 reads x where it is, batchSize * maxSeqLength where that
 * is more. */
size_t prnn_ws_xproj_rows(const prnn_engine *e, const prnn_rnn_problem *p);

/* Whether a call of kind `call` of p has a zero_bias part: a forward call
 * of a network whose bias mode drops bW or bR. */
int prnn_ws_needs_zero_bias(const prnn_rnn_problem *p, prnn_call_kind call);

/* A part of bytes bytes (saturating: the total says whether it all fits). */
size_t prnn_ws_take(prnn_ws_builder *b, size_t bytes);

/* The layered runner's own parts of a call (layered_run.h): what the
 * layout adds after a layer-by-layer engine's parts, and what an engine that
 * runs whole calls adds for the call kinds it hands to the layered runner. */
void prnn_ws_layered_parts(const prnn_rnn_problem *p, prnn_call_kind call, prnn_ws_builder *b);

/* The parts of a call whose problem has an unpacked v8 layout (p->io): the
 * order and lengths of its sequences, and copies of what the call moves
 * (seq_io.h): of x, y, dy, dx and the states, or, in place on b's engine,
 * only of backward-data's dx of padded or reordered sequences and of
 * BackwardWeights' x. */
void prnn_ws_seq_io_parts(const prnn_rnn_problem *p, prnn_call_kind call, prnn_ws_builder *b);

/* The layout of a call of kind `call` of p run by pass plan pp (the pass
 * plan of the call's pass). */
void prnn_ws_layout_compute(const prnn_pass_plan *pp, const prnn_rnn_problem *p,
                            prnn_call_kind call, prnn_ws_layout *l);

#endif
