#include "rnn_validate.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "checked_size.h"
#include "dtype.h"
#include "error.h"
#include "weights_layout.h"

prnnStatus_t prnn_validate_rnn(const struct prnnContext *handle, const struct prnnRNNStruct *rnn)
{
    prnnStatus_t s = prnn_check_handle(handle);
    if (!s)
        s = prnn_check_rnn(rnn, "rnnDesc");
    if (!s && rnn->input_size)
        s = prnn_fail(PRNN_STATUS_BAD_PARAM,
                      "rnnDesc was set by prnnSetRNNDescriptor_v8: use the v8 calls with it "
                      "(prnnRNNForward, prnnRNNBackwardData_v8, ...), or set it with "
                      "prnnSetRNNDescriptor for the v5 calls");
    return s;
}

/* dims[1] * dims[2] in 64 bits: as an int it can overflow (two dimensions
 * of 2^16), and then no int stride can match it anyway. */
static long long plane_elems(const struct prnnTensorStruct *d)
{
    return (long long)d->dims[1] * d->dims[2];
}

static int is_packed_3d(const struct prnnTensorStruct *d)
{
    return d->nb_dims == 3 && d->strides[2] == 1 && d->strides[1] == d->dims[2] &&
           d->strides[0] == plane_elems(d);
}

/* The shared part of every tensor check: kind, type, 3-d packed. */
static prnnStatus_t check_rnn_tensor(const struct prnnRNNStruct *rnn,
                                     const struct prnnTensorStruct *d, const char *name)
{
    PRNN_TRY(prnn_check_tensor(d, name));
    if (d->dtype != rnn->dtype)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s has data type %s but rnnDesc has %s: they must agree", name,
                         prnn_dtype_name(d->dtype), prnn_dtype_name(rnn->dtype));
    if (d->nb_dims != 3)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s has %d dimensions: RNN tensors have 3", name,
                         d->nb_dims);
    if (!is_packed_3d(d))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s strides {%d, %d, %d} are not fully packed for dims {%d, %d, %d}: "
                         "expected {%lld, %d, 1}%s",
                         name, d->strides[0], d->strides[1], d->strides[2], d->dims[0], d->dims[1],
                         d->dims[2], plane_elems(d), d->dims[2],
                         plane_elems(d) > INT_MAX
                             ? " (larger than an int stride can hold: the tensor is too large)"
                             : "");
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_input_desc(const struct prnnRNNStruct *rnn,
                                      const struct prnnTensorStruct *d, const char *name,
                                      int *input_size)
{
    PRNN_TRY(check_rnn_tensor(rnn, d, name));
    if (d->dims[2] != 1)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s dims {%d, %d, %d}: the third dimension must be 1", name, d->dims[0],
                         d->dims[1], d->dims[2]);
    if (d->dims[1] > PRNN_MAX_INPUT)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s: inputSize = %d exceeds the limit %d", name,
                         d->dims[1], PRNN_MAX_INPUT);
    if (rnn->input_mode == PRNN_SKIP_INPUT && d->dims[1] != rnn->hidden)
        return prnn_fail(
            PRNN_STATUS_BAD_PARAM,
            "%s: inputSize = %d but PRNN_SKIP_INPUT requires inputSize == hiddenSize (%d)", name,
            d->dims[1], rnn->hidden);
    *input_size = d->dims[1];
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_input_seq(struct prnnContext *handle, const struct prnnRNNStruct *rnn,
                                     int seq_length, const prnnTensorDescriptor_t *descs,
                                     const char *name, prnn_rnn_problem *p)
{
    char what[64];
    if (seq_length < 1)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "seqLength = %d: must be >= 1", seq_length);
    if (!descs)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s is NULL: an array of seqLength descriptors is required", name);
    int *batch = prnn_handle_batch_scratch(handle, (size_t)seq_length);
    if (!batch)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory for %d batch sizes",
                         seq_length);
    int input_size = 0;
    size_t rows = 0;
    for (int t = 0; t < seq_length; t++) {
        /* The element's name ("xDesc[17]") is only formatted for a message:
         * an snprintf per step was most of this call's host time at T=256,
         * time in which the GPU sat idle. A failure is re-run with the name
         * (prnn_fail replaces the log). */
        int in = 0;
        prnnStatus_t s = prnn_validate_input_desc(rnn, descs[t], name, &in);
        if (s) {
            snprintf(what, sizeof(what), "%s[%d]", name, t);
            return prnn_validate_input_desc(rnn, descs[t], what, &in);
        }
        int b = descs[t]->dims[0];
        if (t == 0) {
            input_size = in;
        } else if (in != input_size || b > batch[t - 1]) {
            snprintf(what, sizeof(what), "%s[%d]", name, t);
            if (in != input_size)
                return prnn_fail(
                    PRNN_STATUS_BAD_PARAM,
                    "%s: inputSize = %d differs from %s[0]'s %d; it must be the same at every step",
                    what, in, name, input_size);
            if (b > batch[t - 1])
                return prnn_fail(PRNN_STATUS_BAD_PARAM,
                                 "%s: batch = %d is larger than %s[%d]'s %d; batch sizes must not "
                                 "increase with t (sort sequences by decreasing length)",
                                 what, b, name, t - 1, batch[t - 1]);
        }
        batch[t] = b;
        rows = prnn_add_size(rows, (size_t)b);
    }
    p->rnn = rnn;
    p->input_size = input_size;
    p->seq_length = seq_length;
    p->batch = batch;
    p->mini_batch = batch[0];
    p->total_rows = rows;
    p->io = NULL;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_matching_seq(const prnn_rnn_problem *p,
                                        const prnnTensorDescriptor_t *descs, const char *name,
                                        int vector)
{
    char what[64];
    if (!descs)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s is NULL: an array of seqLength descriptors is required", name);
    for (int t = 0; t < p->seq_length; t++) {
        const struct prnnTensorStruct *d = descs[t];
        prnnStatus_t s = check_rnn_tensor(p->rnn, d, name);
        if (s) {
            snprintf(what, sizeof(what), "%s[%d]", name, t);
            return check_rnn_tensor(p->rnn, d, what); /* again, with the name */
        }
        if (d->dims[0] != p->batch[t] || d->dims[1] != vector || d->dims[2] != 1) {
            snprintf(what, sizeof(what), "%s[%d]", name, t);
            return prnn_fail(
                PRNN_STATUS_BAD_PARAM,
                "%s dims {%d, %d, %d}: expected {%d, %d, 1} (batch of step %d, %d columns)", what,
                d->dims[0], d->dims[1], d->dims[2], p->batch[t], vector, t, vector);
        }
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_state(const prnn_rnn_problem *p, const struct prnnTensorStruct *d,
                                 const char *name)
{
    return prnn_validate_state_width(p, d, name, p->rnn->hidden, "miniBatch", "hiddenSize");
}

prnnStatus_t prnn_validate_state_width(const prnn_rnn_problem *p, const struct prnnTensorStruct *d,
                                       const char *name, int width, const char *rows_name,
                                       const char *width_name)
{
    PRNN_TRY(check_rnn_tensor(p->rnn, d, name));
    int ld = p->rnn->layers * prnn_rnn_dirs(p->rnn);
    if (d->dims[0] != ld || d->dims[1] != p->mini_batch || d->dims[2] != width)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s dims {%d, %d, %d}: expected {numLayers * directions = %d, %s = %d, "
                         "%s = %d}",
                         name, d->dims[0], d->dims[1], d->dims[2], ld, rows_name, p->mini_batch,
                         width_name, width);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_weights(const prnn_rnn_problem *p, const struct prnnFilterStruct *d,
                                   const char *name)
{
    PRNN_TRY(prnn_check_filter(d, name));
    if (d->dtype != p->rnn->dtype)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s has data type %s but rnnDesc has %s: they must agree", name,
                         prnn_dtype_name(d->dtype), prnn_dtype_name(p->rnn->dtype));
    size_t need = 0; /* set by the check (gcc cannot tell) */
    PRNN_TRY(prnn_validate_params_size(p->rnn, p->input_size, &need));
    size_t have = prnn_dtype_size(d->dtype);
    for (int i = 0; i < d->nb_dims; i++)
        have = prnn_mul_size(have, (size_t)d->dims[i]);
    if (have != need) {
        char dims[PRNN_MAX_DIMS * 12 + 1];
        int n = 0;
        for (int i = 0; i < d->nb_dims; i++)
            n += snprintf(dims + n, sizeof(dims) - (size_t)n, "%s%d", i ? ", " : "", d->dims[i]);
        char described[64];
        if (prnn_size_fits(have))
            snprintf(described, sizeof(described), "%zu bytes", have);
        else
            snprintf(described, sizeof(described), "more bytes than size_t holds");
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s dims {%s} describe %s but prnnGetRNNParamsSize gives %zu for "
                         "inputSize %d: describe the weights as {%zu, 1, 1}",
                         name, dims, described, need, p->input_size,
                         need / prnn_dtype_size(d->dtype));
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_params_size(const struct prnnRNNStruct *rnn, int input_size,
                                       size_t *bytes)
{
    size_t need = prnn_weights_bytes(rnn, input_size);
    if (!prnn_size_fits(need))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "the weights of hiddenSize = %d, numLayers = %d, %s, inputSize = %d do "
                         "not fit in size_t (%zu bytes at most)",
                         rnn->hidden, rnn->layers,
                         prnn_rnn_dirs(rnn) == 2 ? "bidirectional" : "unidirectional", input_size,
                         (size_t)PRNN_SIZE_OVERFLOW - 1);
    *bytes = need;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_size(const prnn_rnn_problem *p, const char *what, size_t bytes)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    if (prnn_size_fits(bytes))
        return PRNN_STATUS_SUCCESS;
    return prnn_fail(PRNN_STATUS_BAD_PARAM,
                     "the %s of seqLength = %d, %zu rows in all (the sum of xDesc[t]'s batch, "
                     "miniBatch = %d), inputSize = %d, hiddenSize = %d, numLayers = %d, %s %s does "
                     "not fit in size_t (%zu bytes at most): use fewer steps, rows or layers",
                     what, p->seq_length, p->total_rows, p->mini_batch, p->input_size, rnn->hidden,
                     rnn->layers, prnn_rnn_dirs(rnn) == 2 ? "bidirectional" : "unidirectional",
                     prnn_mode_name(rnn->mode), (size_t)PRNN_SIZE_OVERFLOW - 1);
}

size_t prnn_bytes_seq(const prnn_rnn_problem *p, int vector)
{
    return prnn_mul3_size(p->total_rows, (size_t)vector, prnn_dtype_size(p->rnn->dtype));
}

size_t prnn_bytes_state(const prnn_rnn_problem *p)
{
    return prnn_mul_size(prnn_mul4_size((size_t)p->rnn->layers, (size_t)prnn_rnn_dirs(p->rnn),
                                        (size_t)p->mini_batch, (size_t)p->rnn->hidden),
                         prnn_dtype_size(p->rnn->dtype));
}

/* [ptr, ptr + bytes) as addresses; the end saturates, as a caller may pass
 * any size for its own buffers. */
static uintptr_t end_of(const prnn_buffer *b)
{
    uintptr_t e;
    if (__builtin_add_overflow((uintptr_t)b->ptr, b->bytes, &e))
        return UINTPTR_MAX;
    return e;
}

static int overlaps(const prnn_buffer *a, const prnn_buffer *b)
{
    if (!a->ptr || !b->ptr || !a->bytes || !b->bytes)
        return 0;
    uintptr_t a0 = (uintptr_t)a->ptr, b0 = (uintptr_t)b->ptr;
    return a0 < end_of(b) && b0 < end_of(a);
}

prnnStatus_t prnn_validate_no_overlap(const prnn_buffer *outputs, int n_out,
                                      const prnn_buffer *inputs, int n_in)
{
    for (int i = 0; i < n_out; i++) {
        for (int j = i + 1; j < n_out; j++)
            if (overlaps(&outputs[i], &outputs[j]))
                return prnn_fail(PRNN_STATUS_BAD_PARAM,
                                 "%s and %s overlap: output buffers must be disjoint",
                                 outputs[i].name, outputs[j].name);
        for (int j = 0; j < n_in; j++)
            if (overlaps(&outputs[i], &inputs[j]))
                return prnn_fail(PRNN_STATUS_BAD_PARAM,
                                 "%s overlaps %s: outputs must not overlap inputs", outputs[i].name,
                                 inputs[j].name);
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_ptr(const void *ptr, const char *name)
{
    if (!ptr)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s is NULL", name);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_validate_scratch(const void *ptr, size_t bytes, size_t required, const char *name,
                                   const char *size_name, const char *query)
{
    if (bytes < required)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s = %zu bytes is too small: %s needs %zu for this shape", size_name,
                         bytes, query, required);
    if (required && !ptr)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s is NULL but %zu bytes are required", name,
                         required);
    return PRNN_STATUS_SUCCESS;
}
