/*
 * What the public descriptor calls (descriptors_api.c, descriptors_v8.c) and
 * the API's argument checks share: the two halves of every Create/Destroy
 * pair, the checks that a descriptor is live, of its kind and set, and the
 * settings both Set calls of the RNN descriptor make.
 */
#include "descriptors.h"

#include "error.h"
#include "object_pool.h"

/* The shared shape of every Create/Destroy pair. */
prnnStatus_t prnn_desc_create(void **out, size_t size, uint32_t magic)
{
    if (!out)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "desc: NULL output pointer");
    *out = NULL;
    uint32_t *d = prnn_object_alloc(size);
    if (!d)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    *d = magic;
    *out = d;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_desc_destroy(void *p, size_t size, uint32_t magic)
{
    if (!p)
        return PRNN_STATUS_SUCCESS;
    uint32_t *d = p;
    if (*d != magic)
        return prnn_fail(
            PRNN_STATUS_BAD_PARAM,
            "desc: not a live descriptor of this kind (wrong type, or already destroyed)");
    *d = PRNN_MAGIC_DEAD; /* what later checks read (object_pool.h) */
    prnn_object_release(d, size);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_desc_check_kind(const void *p, uint32_t magic, const char *what, const char *kind)
{
    if (!p)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s is NULL", what);
    if (*(const uint32_t *)p != magic)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s is not a live %s descriptor (wrong type, or already destroyed)", what,
                         kind);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_desc_check_set(const void *p, uint32_t magic, const char *what, const char *kind,
                                 const char *setter)
{
    PRNN_TRY(prnn_desc_check_kind(p, magic, what, kind));
    /* every descriptor struct starts with its magic and is_set */
    const struct {
        uint32_t magic;
        int is_set;
    } *head = p;
    if (!head->is_set)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s was created but never set (%s)", what, setter);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_check_tensor(const struct prnnTensorStruct *d, const char *what)
{
    return prnn_desc_check_set(d, PRNN_MAGIC_TENSOR, what, "tensor", "prnnSetTensorNdDescriptor");
}

prnnStatus_t prnn_check_filter(const struct prnnFilterStruct *d, const char *what)
{
    return prnn_desc_check_set(d, PRNN_MAGIC_FILTER, what, "filter", "prnnSetFilterNdDescriptor");
}

prnnStatus_t prnn_check_rnn(const struct prnnRNNStruct *d, const char *what)
{
    return prnn_desc_check_set(d, PRNN_MAGIC_RNN, what, "RNN", "prnnSetRNNDescriptor");
}

prnnStatus_t prnn_check_rnn_v8(const struct prnnRNNStruct *r)
{
    PRNN_TRY(prnn_check_rnn(r, "rnnDesc"));
    if (r->input_size == 0)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "rnnDesc was set by prnnSetRNNDescriptor, which has no inputSize: set it "
                         "with prnnSetRNNDescriptor_v8 for the v8 calls");
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_check_rnn_data(const struct prnnRNNDataStruct *d, const char *what)
{
    return prnn_desc_check_set(d, PRNN_MAGIC_RNN_DATA, what, "RNN data",
                               "prnnSetRNNDataDescriptor");
}

int prnn_math_type_valid(prnnMathType_t m)
{
    return m == PRNN_DEFAULT_MATH || m == PRNN_TENSOR_OP_MATH || m == PRNN_FMA_MATH ||
           m == PRNN_TF32_RECURRENCE_MATH;
}

int prnn_math_tf32_gemms(prnnMathType_t m)
{
    return m == PRNN_TENSOR_OP_MATH || m == PRNN_TF32_RECURRENCE_MATH;
}

prnnStatus_t prnn_check_rnn_shape(int hidden, int layers, const struct prnnDropoutStruct *dropout)
{
    if (hidden < 1 || hidden > PRNN_MAX_HIDDEN)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "hiddenSize = %d: must be between 1 and %d", hidden,
                         PRNN_MAX_HIDDEN);
    if (layers < 1 || layers > PRNN_MAX_LAYERS)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "numLayers = %d: must be between 1 and %d", layers,
                         PRNN_MAX_LAYERS);
    if (!dropout)
        return PRNN_STATUS_SUCCESS;
    PRNN_TRY(prnn_desc_check_kind(dropout, PRNN_MAGIC_DROPOUT, "dropoutDesc", "dropout"));
    if (!dropout->is_set)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "dropoutDesc was created but never set (prnnSetDropoutDescriptor); "
                         "pass NULL for no dropout");
    return PRNN_STATUS_SUCCESS;
}

void prnn_rnn_set_common(struct prnnRNNStruct *r, int hidden, int layers,
                         const struct prnnDropoutStruct *dropout, prnnRNNInputMode_t input_mode,
                         prnnDirectionMode_t direction, prnnRNNMode_t mode, prnnDataType_t dtype,
                         prnnMathType_t math, prnnRNNAlgo_t algo)
{
    r->hidden = hidden;
    r->layers = layers;
    r->dropout = dropout ? dropout->dropout : 0.0f;
    r->seed = dropout ? dropout->seed : 0;
    r->input_mode = input_mode;
    r->direction = direction;
    r->mode = mode;
    r->dtype = dtype;
    r->math = math;
    r->algo = algo;
    r->sru_convention = PRNN_SRU_CONVENTION_PRNN;
    r->sru_activation = PRNN_SRU_ACTIVATION_TANH;
    r->sru_scale = 1.0;
    prnn_rnn_clear_v8(r);
    r->is_set = 1;
}

void prnn_rnn_clear_v8(struct prnnRNNStruct *r)
{
    r->input_size = 0;
    r->proj = 0;
    r->no_bias_w = 0;
    r->no_bias_r = 0;
    r->math_prec = r->dtype;
    r->aux_flags = 0;
    r->dropout_desc = NULL;
    r->clip_mode = PRNN_RNN_CLIP_NONE;
    r->clip_nan = PRNN_NOT_PROPAGATE_NAN;
    r->lclip = 0.0;
    r->rclip = 0.0;
}
