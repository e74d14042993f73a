/*
 * Argument checks shared by the size queries and the compute calls. Each
 * returns SUCCESS, or BAD_PARAM / NOT_SUPPORTED with a message naming the
 * argument and the rule.
 */
#ifndef PRNN_RNN_VALIDATE_H
#define PRNN_RNN_VALIDATE_H

#include <stddef.h>

#include "handle.h"
#include "rnn_problem.h"

/* handle, rnnDesc (set, supported mode), and the data type agreeing. */
prnnStatus_t prnn_validate_rnn(const struct prnnContext *handle, const struct prnnRNNStruct *rnn);

/*
 * The per-step descriptor array of the input (x or dx): seqLength >= 1,
 * every desc a packed {batch_t, inputSize, 1} tensor of the RNN's type,
 * batch_t non-increasing, one inputSize (== hidden for SKIP_INPUT). Fills p
 * with the batch array in the handle's scratch.
 */
prnnStatus_t prnn_validate_input_seq(struct prnnContext *handle, const struct prnnRNNStruct *rnn,
                                     int seq_length, const prnnTensorDescriptor_t *descs,
                                     const char *name, prnn_rnn_problem *p);

/* A per-step array that must match p's batches with `vector` columns (y, dy:
 * hidden * dirs; dx: input size). */
prnnStatus_t prnn_validate_matching_seq(const prnn_rnn_problem *p,
                                        const prnnTensorDescriptor_t *descs, const char *name,
                                        int vector);

/* A state descriptor {layers*dirs, miniBatch, hidden}. */
prnnStatus_t prnn_validate_state(const prnn_rnn_problem *p, const struct prnnTensorStruct *d,
                                 const char *name);
/* A state descriptor {layers*dirs, miniBatch, width}; the message calls the
 * last two rows_name and width_name ("batchSize", "projSize"). */
prnnStatus_t prnn_validate_state_width(const prnn_rnn_problem *p, const struct prnnTensorStruct *d,
                                       const char *name, int width, const char *rows_name,
                                       const char *width_name);

/* The weight filter {n, 1, 1} with n * elementSize == params size. */
prnnStatus_t prnn_validate_weights(const prnn_rnn_problem *p, const struct prnnFilterStruct *d,
                                   const char *name);

/* A single input descriptor (GetRNNParamsSize, LinLayer calls): a packed
 * 3-d tensor of the RNN's type; returns its inputSize. */
prnnStatus_t prnn_validate_input_desc(const struct prnnRNNStruct *rnn,
                                      const struct prnnTensorStruct *d, const char *name,
                                      int *input_size);

/* The weight buffer's size for this input size, or BAD_PARAM naming the
 * shape when it does not fit in size_t. */
prnnStatus_t prnn_validate_params_size(const struct prnnRNNStruct *rnn, int input_size,
                                       size_t *bytes);

/* SUCCESS when bytes (a layout's saturated total, checked_size.h) fits;
 * otherwise BAD_PARAM naming what ("workspace", "reserve space") and every
 * argument of p that goes into it. */
prnnStatus_t prnn_validate_size(const prnn_rnn_problem *p, const char *what, size_t bytes);

/* Byte sizes of the buffers of a call (saturated: PRNN_SIZE_OVERFLOW when
 * too large; the workspace check rejects such shapes first). */
size_t prnn_bytes_seq(const prnn_rnn_problem *p, int vector);
size_t prnn_bytes_state(const prnn_rnn_problem *p);

/* A buffer taking part in a call, for the overlap check. */
typedef struct {
    const char *name;
    const void *ptr; /* NULL: absent, skipped */
    size_t bytes;
} prnn_buffer;

/* No output may overlap another output or an input. */
prnnStatus_t prnn_validate_no_overlap(const prnn_buffer *outputs, int n_out,
                                      const prnn_buffer *inputs, int n_in);

/* A required pointer. */
prnnStatus_t prnn_validate_ptr(const void *ptr, const char *name);

/* A scratch buffer of at least `required` bytes. */
prnnStatus_t prnn_validate_scratch(const void *ptr, size_t bytes, size_t required, const char *name,
                                   const char *size_name, const char *query);

#endif
