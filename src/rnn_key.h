/*
 * The RNN key: every setting of an RNN descriptor that changes which kernels
 * run or how buffers are laid out, with the batch the plan is made for. One
 * struct, one equality test, one hash: the planner keys its plans by it, the
 * kernels' shapes and the tuning database's lookups carry it, and the
 * reserve registry records it with what the forward pass saw.
 *
 * Dropout is not in it: its rate and seed change the values a training call
 * produces, not its kernels or layouts (the reserve registry records them
 * beside the key).
 */
#ifndef PRNN_RNN_KEY_H
#define PRNN_RNN_KEY_H

#include <stdint.h>

#include "prnn.h"

struct prnnRNNStruct;

typedef struct {
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    prnnMathType_t math;
    prnnRNNAlgo_t algo;
    prnnRNNInputMode_t input_mode;
    int hidden;
    int layers;
    int dirs;       /* 1, or 2 for PRNN_BIDIRECTIONAL */
    int mini_batch; /* the largest batch of a call (rows of its first step) */
    /* LSTM cell clipping (prnnRNNSetClip_v8) as the kernels take it:
     * prnn_kernel_abi.h's PRNN_KCLIP_NONE, _MINMAX or _MINMAX_NAN. The
     * bounds are the kernels' arguments, not part of the key. */
    int clip;
    /* LSTM projection (projSize below hiddenSize, v8 descriptors): the
     * width of h and of the layer's output; 0 without one. Only the
     * standard engine runs it (engine.h, prnn_engine_refuse_projection). */
    int proj;
    /* 1: a plan for v8 calls of unpacked data (rnn_problem.h's prnn_seq_io),
     * whose kernels read and write the caller's rows in place
     * (gpu/run/seq_io.h); its persistent and tiny-h kernels are compiled
     * for them (PRNN_CALLER_ROWS), which packed calls' are not. 0 from
     * prnn_rnn_key_of; the tuning database's lookups ignore it. */
    int caller_rows;
} prnn_rnn_key;

/* The key of rnn's settings with batches of up to mini_batch rows. */
void prnn_rnn_key_of(const struct prnnRNNStruct *rnn, int mini_batch, prnn_rnn_key *key);

/* 1 when key's recurrence may run in TF32 where it is a GEMM (the standard
 * engine's per-step products): FP32 data under PRNN_TF32_RECURRENCE_MATH. */
int prnn_rnn_key_tf32_recurrence(const prnn_rnn_key *key);

/* 1 when a and b are the same key, else 0. */
int prnn_rnn_key_equal(const prnn_rnn_key *a, const prnn_rnn_key *b);

/* A hash of every field (FNV-1a over their values, not the struct's bytes,
 * so padding never matters). */
uint64_t prnn_rnn_key_hash(const prnn_rnn_key *key);

#endif
