/*
 * How each GPU call carves the caller's workspace. The same function sizes
 * it (prnnGetRNNWorkspaceSize: the largest of the calls' layouts, one size
 * for every call, as cuDNN's) and addresses it (each call), so the two cannot
 * disagree. Nothing in it survives from one call to the next.
 */
#ifndef PRNN_WORKSPACE_LAYOUT_H
#define PRNN_WORKSPACE_LAYOUT_H

#include <stddef.h>

#include "gpu/plan.h"
#include "rnn_problem.h"

typedef enum {
    PRNN_CALL_INFERENCE = 0,
    PRNN_CALL_FORWARD_TRAINING = 1,
    PRNN_CALL_BACKWARD_DATA = 2,
    PRNN_CALL_BACKWARD_WEIGHTS = 3
} prnn_call_kind;
#define PRNN_CALL_KINDS 4

/* Byte offsets into the workspace; (size_t)-1 for parts a call does not use. */
typedef struct {
    size_t batch;      /* int[seq_length]: rows of each step */
    size_t offset;     /* int[seq_length]: first row of each step */
    /* the persistent kernel of the call's pass */
    size_t exchange;   /* dirs * exchange_bytes_per_dir, then the counters */
    size_t counters;   /* dirs * batch_groups * u32 */
    size_t zero_end;   /* exchange .. zero_end is zeroed by the setup kernel */
    size_t packed;     /* dirs * packed_bytes_per_dir (streamed weights) */
    /* forward */
    size_t xproj;      /* dirs * rows * gates * hidden, math type */
    size_t layer_out;  /* inference, layers > 1: rows * dirs * hidden, storage */
    size_t hstate;     /* standard forward: miniBatch * hidden, storage type */
    size_t cstate;     /* standard forward: miniBatch * hidden, math type */
    size_t rec;        /* standard path: miniBatch * gates * hidden, math type
                        * (forward R h; backward dg R, miniBatch * hidden) */
    /* training */
    size_t dropped;    /* dropout, layers > 1: the next layer's input,
                        * rows * dirs * hidden, storage type */
    size_t dgrad;      /* backward data, layers > 1: gradient of a layer's
                        * output, rows * dirs * hidden, math type */
    size_t carry;      /* standard backward: miniBatch * hidden, math type */
    size_t hprev;      /* backward weights: h_{t-1} of every row, rows *
                        * hidden, storage type */
    size_t bias_partial; /* backward weights: bias_chunks * gates * hidden */
    size_t sru_dxp;    /* SRU backward data: dx' of a layer without x'
                        * projection, rows * dirs * hidden, math type */
    int bias_chunks, bias_chunk_rows;
    size_t gemm_ws;    /* cuBLASLt workspace */
    size_t gemm_ws_side; /* the side stream's (prnn_run_fork), or none */
    size_t total;      /* PRNN_SIZE_OVERFLOW (checked_size.h) when the
                        * shape's workspace does not fit in size_t; the
                        * offsets are then meaningless */
} prnn_ws_layout;

void prnn_ws_layout_compute(const prnn_plan *plan, const prnn_rnn_problem *p,
                            prnn_call_kind call, prnn_ws_layout *l);

/* The workspace every call of this shape can run in: the largest layout
 * (PRNN_SIZE_OVERFLOW when one of them does not fit). */
size_t prnn_ws_bytes(const prnn_plan *plan, const prnn_rnn_problem *p);

#endif
