/*
 * The reserve registry: which reserve buffers prnnRNNForwardTraining filled,
 * for what problem, and how far the training step on each has got.
 *
 * A reserve's contents are private and mean something only for the problem
 * that filled them; a backward call handed a reserve of another shape, or
 * BackwardWeights run before BackwardData has left its gate gradients in the
 * reserve, would read garbage and return wrong gradients without a word. The
 * registry turns those mistakes into BAD_PARAM with a message.
 *
 * It is process-wide, not per handle: frameworks run forward and backward on
 * different threads, possibly through different handles of one backend. One
 * mutex guards it; every operation is a hash lookup on the reserve's address
 * and a few comparisons, on a table of fixed size (no allocation, no device
 * access, no synchronisation with the device). It holds at most
 * PRNN_MAX_TRACKED_RESERVES records and forgets the least recently used one
 * when a new reserve arrives at the bound.
 */
#ifndef PRNN_RESERVE_REGISTRY_H
#define PRNN_RESERVE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "prnn.h"
#include "rnn_key.h"
#include "rnn_problem.h"

/*
 * Everything a reserve's meaning depends on: the backend (its layout is the
 * backend's own), the RNN key (every rnnDesc setting that changes what the
 * forward pass computes or keeps, and miniBatch), dropout, and the input's
 * shape. The per-step batch sizes are kept
 * as a hash, with miniBatch and the row count for messages.
 */
typedef struct {
    prnnBackend_t backend;
    prnn_rnn_key key; /* the descriptor's settings and miniBatch */
    float dropout;
    unsigned long long seed;
    /* SRU's conventions (the defaults for the other modes) */
    prnnSRUConvention_t sru_convention;
    prnnSRUActivation_t sru_activation;
    double sru_scale;
    int input_size;
    int seq_length;
    size_t total_rows;
    uint64_t batch_hash;
    /* The v8 calls' settings (0 for v5 descriptors and packed data): which
     * family filled it, projection, biases, clipping, and for an unpacked
     * layout the layout and a hash of the lengths in the caller's order
     * (the per-step batch sizes do not say which sequence is which). */
    int v8;
    int proj;
    int no_bias_w, no_bias_r;
    int clip_mode, clip_nan;
    double lclip, rclip;
    int layout; /* -1: packed */
    uint64_t lengths_hash;
} prnn_reserve_shape;

/* How far the training step on a reserve has got. */
typedef enum {
    PRNN_RESERVE_FORWARD_DONE = 1,
    PRNN_RESERVE_BACKWARD_DATA_DONE = 2
} prnn_reserve_stage;

/* The shape of a validated problem run on backend. */
void prnn_reserve_shape_of(const prnn_rnn_problem *p, prnnBackend_t backend,
                           prnn_reserve_shape *shape);

/* After a successful ForwardTraining: reserve (of bytes bytes) now holds
 * shape's forward pass. Replaces an earlier record of the same address,
 * stage included. */
void prnn_reserve_record_forward(const void *reserve, size_t bytes,
                                 const prnn_reserve_shape *shape);

/*
 * Before a backward call: reserve must be a recorded reserve whose shape
 * equals shape and whose stage is at least `stage`. input_name names the
 * call's input descriptor array ("dxDesc", "xDesc") in messages. On
 * SUCCESS, *serial (unless serial is NULL) identifies the record for
 * prnn_reserve_record_backward_data.
 * BAD_PARAM naming reserveSpace and what differs otherwise; nothing changes
 * then.
 */
prnnStatus_t prnn_reserve_check(const void *reserve, const prnn_reserve_shape *shape,
                                const char *input_name, prnn_reserve_stage stage, uint64_t *serial);

/* After a successful BackwardData on the record that prnn_reserve_check
 * returned: BackwardWeights may now read the reserve. Does nothing when a
 * ForwardTraining has replaced the record since (another thread). */
void prnn_reserve_record_backward_data(const void *reserve, uint64_t serial);

#endif
