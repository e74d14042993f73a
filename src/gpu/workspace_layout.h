/*
 * How a GPU forward call carves the caller's workspace. The same function
 * sizes it (prnnGetRNNWorkspaceSize) and addresses it (the call), so the two
 * cannot disagree.
 */
#ifndef PRNN_WORKSPACE_LAYOUT_H
#define PRNN_WORKSPACE_LAYOUT_H

#include <stddef.h>

#include "gpu/plan.h"
#include "rnn_problem.h"

/* Byte offsets into the workspace; (size_t)-1 for parts a call does not use. */
typedef struct {
    size_t batch;     /* int[seq_length] */
    size_t offset;    /* int[seq_length] */
    size_t exchange;  /* dirs * exchange_bytes_per_dir, then the counters */
    size_t counters;  /* dirs * batch_groups * u32 */
    size_t zero_end;  /* exchange .. zero_end is zeroed by the setup kernel */
    size_t xproj;     /* dirs * rows * gates * hidden, math type */
    size_t layer_out; /* rows * dirs * hidden, storage type (layers > 1) */
    size_t packed;    /* dirs * packed_bytes_per_dir (streamed weights) */
    size_t gemm_ws;   /* cuBLASLt workspace */
    size_t hstate;    /* standard path: miniBatch * hidden, storage type */
    size_t cstate;    /* standard path: miniBatch * hidden, math type */
    size_t rec;       /* standard path: miniBatch * gates * hidden, math type */
    size_t total;
} prnn_ws_layout;

void prnn_ws_layout_compute(const prnn_plan *plan, const prnn_rnn_problem *p,
                            prnn_ws_layout *l);

#endif
