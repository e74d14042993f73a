/* The public calls of the cuDNN 8/9-shaped descriptors: RNN data descriptors,
 * the v8 RNN descriptor settings and LSTM cell clipping (what they share with
 * descriptors_api.c's is in descriptors.c). */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "descriptors.h"
#include "dtype.h"
#include "error.h"

/* ---- RNN data descriptors ---- */

prnnStatus_t prnnCreateRNNDataDescriptor(prnnRNNDataDescriptor_t *rnnDataDesc)
{
    prnn_api_enter("prnnCreateRNNDataDescriptor");
    return prnn_desc_create((void **)rnnDataDesc, sizeof(struct prnnRNNDataStruct),
                            PRNN_MAGIC_RNN_DATA);
}

prnnStatus_t prnnDestroyRNNDataDescriptor(prnnRNNDataDescriptor_t rnnDataDesc)
{
    prnn_api_enter("prnnDestroyRNNDataDescriptor");
    if (rnnDataDesc && rnnDataDesc->magic == PRNN_MAGIC_RNN_DATA) {
        free(rnnDataDesc->lengths);
        rnnDataDesc->lengths = NULL;
    }
    return prnn_desc_destroy(rnnDataDesc, sizeof(struct prnnRNNDataStruct), PRNN_MAGIC_RNN_DATA);
}

static int layout_valid(prnnRNNDataLayout_t l)
{
    return l == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ||
           l == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED ||
           l == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
}

static prnnStatus_t check_lengths(prnnRNNDataLayout_t layout, int max_seq, int batch,
                                  const int *lengths)
{
    if (!lengths)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "seqLengthArray is NULL: batchSize = %d lengths are required", batch);
    for (int b = 0; b < batch; b++) {
        if (lengths[b] < 1 || lengths[b] > max_seq)
            return prnn_fail(PRNN_STATUS_BAD_PARAM,
                             "seqLengthArray[%d] = %d: must be in [1, maxSeqLength = %d]", b,
                             lengths[b], max_seq);
        if (layout == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && b > 0 && lengths[b] > lengths[b - 1])
            return prnn_fail(PRNN_STATUS_BAD_PARAM,
                             "seqLengthArray[%d] = %d is longer than seqLengthArray[%d] = %d: "
                             "PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED needs the sequences sorted by "
                             "decreasing length (or use an unpacked layout)",
                             b, lengths[b], b - 1, lengths[b - 1]);
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetRNNDataDescriptor(prnnRNNDataDescriptor_t rnnDataDesc, prnnDataType_t dataType,
                                      prnnRNNDataLayout_t layout, int maxSeqLength, int batchSize,
                                      int vectorSize, const int seqLengthArray[], void *paddingFill)
{
    prnn_api_enter("prnnSetRNNDataDescriptor");
    PRNN_TRY(prnn_desc_check_kind(rnnDataDesc, PRNN_MAGIC_RNN_DATA, "rnnDataDesc", "RNN data"));
    if (!prnn_dtype_valid(dataType))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %d: not a prnnDataType_t",
                         (int)dataType);
    if (!layout_valid(layout))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "layout = %d: not a prnnRNNDataLayout_t",
                         (int)layout);
    if (maxSeqLength < 1)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "maxSeqLength = %d: must be >= 1", maxSeqLength);
    if (batchSize < 1)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "batchSize = %d: must be >= 1", batchSize);
    if (vectorSize < 1)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "vectorSize = %d: must be >= 1", vectorSize);
    PRNN_TRY(check_lengths(layout, maxSeqLength, batchSize, seqLengthArray));
    int *lengths = malloc((size_t)batchSize * sizeof(int));
    if (!lengths)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory for %d lengths", batchSize);
    memcpy(lengths, seqLengthArray, (size_t)batchSize * sizeof(int));
    free(rnnDataDesc->lengths);
    rnnDataDesc->lengths = lengths;
    rnnDataDesc->dtype = dataType;
    rnnDataDesc->layout = layout;
    rnnDataDesc->max_seq = maxSeqLength;
    rnnDataDesc->batch = batchSize;
    rnnDataDesc->vector = vectorSize;
    rnnDataDesc->has_fill = paddingFill != NULL;
    memset(rnnDataDesc->fill, 0, sizeof(rnnDataDesc->fill));
    if (paddingFill)
        memcpy(rnnDataDesc->fill, paddingFill, prnn_dtype_size(dataType));
    rnnDataDesc->is_set = 1;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNDataDescriptor(prnnRNNDataDescriptor_t rnnDataDesc, prnnDataType_t *dataType,
                                      prnnRNNDataLayout_t *layout, int *maxSeqLength,
                                      int *batchSize, int *vectorSize, int arrayLengthRequested,
                                      int seqLengthArray[], void *paddingFill)
{
    prnn_api_enter("prnnGetRNNDataDescriptor");
    PRNN_TRY(prnn_check_rnn_data(rnnDataDesc, "rnnDataDesc"));
    if (arrayLengthRequested < 0)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "arrayLengthRequested = %d: must be >= 0",
                         arrayLengthRequested);
    if (arrayLengthRequested > 0 && !seqLengthArray)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "seqLengthArray is NULL while "
                         "arrayLengthRequested = %d",
                         arrayLengthRequested);
    if (dataType)
        *dataType = rnnDataDesc->dtype;
    if (layout)
        *layout = rnnDataDesc->layout;
    if (maxSeqLength)
        *maxSeqLength = rnnDataDesc->max_seq;
    if (batchSize)
        *batchSize = rnnDataDesc->batch;
    if (vectorSize)
        *vectorSize = rnnDataDesc->vector;
    int n = arrayLengthRequested < rnnDataDesc->batch ? arrayLengthRequested : rnnDataDesc->batch;
    if (n > 0)
        memcpy(seqLengthArray, rnnDataDesc->lengths, (size_t)n * sizeof(int));
    if (paddingFill)
        memcpy(paddingFill, rnnDataDesc->fill, prnn_dtype_size(rnnDataDesc->dtype));
    return PRNN_STATUS_SUCCESS;
}

/* ---- the v8 RNN descriptor ---- */

/* The compute precisions prnn accepts for a data type (see the header). */
static int math_prec_valid(prnnDataType_t data, prnnDataType_t prec)
{
    if (prec == data)
        return 1;
    return (data == PRNN_DATA_HALF || data == PRNN_DATA_BFLOAT16) && prec == PRNN_DATA_FLOAT;
}

typedef struct {
    prnnRNNAlgo_t algo;
    prnnRNNMode_t mode;
    prnnRNNBiasMode_t bias;
    prnnDirectionMode_t dir;
    prnnRNNInputMode_t input_mode;
    prnnDataType_t dtype, prec;
    prnnMathType_t math;
    int input, hidden, proj, layers;
    unsigned int aux;
} v8_settings;

static prnnStatus_t check_enums(const v8_settings *v)
{
    if (v->algo != PRNN_RNN_ALGO_AUTO && v->algo != PRNN_RNN_ALGO_PERSISTENT &&
        v->algo != PRNN_RNN_ALGO_STANDARD)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "algo = %d: not a prnnRNNAlgo_t", (int)v->algo);
    if (prnn_cell_traits(v->mode)->gates == 0)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "cellMode = %d: not a prnnRNNMode_t", (int)v->mode);
    if ((unsigned)v->bias > PRNN_RNN_SINGLE_REC_BIAS)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "biasMode = %d: not a prnnRNNBiasMode_t",
                         (int)v->bias);
    if (v->dir != PRNN_UNIDIRECTIONAL && v->dir != PRNN_BIDIRECTIONAL)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dirMode = %d: not a prnnDirectionMode_t",
                         (int)v->dir);
    if (v->input_mode != PRNN_LINEAR_INPUT && v->input_mode != PRNN_SKIP_INPUT)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "inputMode = %d: not a prnnRNNInputMode_t",
                         (int)v->input_mode);
    if (!prnn_dtype_valid(v->dtype))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %d: not a prnnDataType_t",
                         (int)v->dtype);
    if (!prnn_dtype_valid(v->prec) || !math_prec_valid(v->dtype, v->prec))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "mathPrec = %d with dataType %s: must be the data type, or "
                         "PRNN_DATA_FLOAT for HALF and BFLOAT16 data",
                         (int)v->prec, prnn_dtype_name(v->dtype));
    if (!prnn_math_type_valid(v->math))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "mathType = %d: not a prnnMathType_t",
                         (int)v->math);
    if (v->aux & ~PRNN_RNN_PADDED_IO_ENABLED)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "auxFlags = 0x%x: only PRNN_RNN_PADDED_IO_ENABLED (0x1) is defined",
                         v->aux);
    return PRNN_STATUS_SUCCESS;
}

/* The sizes beyond prnn_check_rnn_shape's (which runs first). */
static prnnStatus_t check_sizes(const v8_settings *v)
{
    if (v->input < 1 || v->input > PRNN_MAX_INPUT)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "inputSize = %d: must be between 1 and %d",
                         v->input, PRNN_MAX_INPUT);
    if (v->input_mode == PRNN_SKIP_INPUT && v->input != v->hidden)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "inputSize = %d but PRNN_SKIP_INPUT requires inputSize == hiddenSize (%d)",
                         v->input, v->hidden);
    if (v->proj != v->hidden && !prnn_cell_traits(v->mode)->projection)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "projSize = %d with cellMode %s: projections are for PRNN_LSTM only; "
                         "pass projSize = hiddenSize (%d)",
                         v->proj, prnn_mode_name(v->mode), v->hidden);
    if (v->proj < 1 || v->proj > v->hidden)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "projSize = %d: must be between 1 and hiddenSize = %d (hiddenSize for no "
                         "projection)",
                         v->proj, v->hidden);
    if (v->mode == PRNN_SRU && v->bias != PRNN_RNN_DOUBLE_BIAS)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "biasMode = %d with PRNN_SRU: SRU's vectors are not bias pairs; pass "
                         "PRNN_RNN_DOUBLE_BIAS",
                         (int)v->bias);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnSetRNNDescriptor_v8(prnnRNNDescriptor_t rnnDesc, prnnRNNAlgo_t algo,
                                     prnnRNNMode_t cellMode, prnnRNNBiasMode_t biasMode,
                                     prnnDirectionMode_t dirMode, prnnRNNInputMode_t inputMode,
                                     prnnDataType_t dataType, prnnDataType_t mathPrec,
                                     prnnMathType_t mathType, int inputSize, int hiddenSize,
                                     int projSize, int numLayers,
                                     prnnDropoutDescriptor_t dropoutDesc, unsigned int auxFlags)
{
    prnn_api_enter("prnnSetRNNDescriptor_v8");
    PRNN_TRY(prnn_desc_check_kind(rnnDesc, PRNN_MAGIC_RNN, "rnnDesc", "RNN"));
    v8_settings v = {algo,     cellMode,  biasMode,   dirMode,  inputMode, dataType, mathPrec,
                     mathType, inputSize, hiddenSize, projSize, numLayers, auxFlags};
    PRNN_TRY(check_enums(&v));
    PRNN_TRY(prnn_check_rnn_shape(hiddenSize, numLayers, dropoutDesc));
    PRNN_TRY(check_sizes(&v));
    struct prnnRNNStruct *r = rnnDesc;
    prnn_rnn_set_common(r, hiddenSize, numLayers, dropoutDesc, inputMode, dirMode, cellMode,
                        dataType, mathType, algo);
    r->input_size = inputSize;
    r->proj = projSize < hiddenSize ? projSize : 0;
    r->no_bias_w = biasMode == PRNN_RNN_NO_BIAS || biasMode == PRNN_RNN_SINGLE_REC_BIAS;
    r->no_bias_r = biasMode == PRNN_RNN_NO_BIAS || biasMode == PRNN_RNN_SINGLE_INP_BIAS;
    r->math_prec = mathPrec;
    r->aux_flags = auxFlags;
    r->dropout_desc = dropoutDesc;
    return PRNN_STATUS_SUCCESS;
}

static prnnRNNBiasMode_t bias_mode_of(const struct prnnRNNStruct *r)
{
    if (r->no_bias_w)
        return r->no_bias_r ? PRNN_RNN_NO_BIAS : PRNN_RNN_SINGLE_REC_BIAS;
    return r->no_bias_r ? PRNN_RNN_SINGLE_INP_BIAS : PRNN_RNN_DOUBLE_BIAS;
}

prnnStatus_t prnnGetRNNDescriptor_v8(prnnRNNDescriptor_t rnnDesc, prnnRNNAlgo_t *algo,
                                     prnnRNNMode_t *cellMode, prnnRNNBiasMode_t *biasMode,
                                     prnnDirectionMode_t *dirMode, prnnRNNInputMode_t *inputMode,
                                     prnnDataType_t *dataType, prnnDataType_t *mathPrec,
                                     prnnMathType_t *mathType, int *inputSize, int *hiddenSize,
                                     int *projSize, int *numLayers,
                                     prnnDropoutDescriptor_t *dropoutDesc, unsigned int *auxFlags)
{
    prnn_api_enter("prnnGetRNNDescriptor_v8");
    PRNN_TRY(prnn_check_rnn_v8(rnnDesc));
    const struct prnnRNNStruct *r = rnnDesc;
    if (algo)
        *algo = r->algo;
    if (cellMode)
        *cellMode = r->mode;
    if (biasMode)
        *biasMode = bias_mode_of(r);
    if (dirMode)
        *dirMode = r->direction;
    if (inputMode)
        *inputMode = r->input_mode;
    if (dataType)
        *dataType = r->dtype;
    if (mathPrec)
        *mathPrec = r->math_prec;
    if (mathType)
        *mathType = r->math;
    if (inputSize)
        *inputSize = r->input_size;
    if (hiddenSize)
        *hiddenSize = r->hidden;
    if (projSize)
        *projSize = prnn_rnn_out_width(r);
    if (numLayers)
        *numLayers = r->layers;
    if (dropoutDesc)
        *dropoutDesc = r->dropout_desc;
    if (auxFlags)
        *auxFlags = r->aux_flags;
    return PRNN_STATUS_SUCCESS;
}

/* ---- clipping ---- */

prnnStatus_t prnnRNNSetClip_v8(prnnRNNDescriptor_t rnnDesc, prnnRNNClipMode_t clipMode,
                               prnnNanPropagation_t clipNanOpt, double lclip, double rclip)
{
    prnn_api_enter("prnnRNNSetClip_v8");
    PRNN_TRY(prnn_check_rnn_v8(rnnDesc));
    if (clipMode != PRNN_RNN_CLIP_NONE && clipMode != PRNN_RNN_CLIP_MINMAX)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "clipMode = %d: not a prnnRNNClipMode_t",
                         (int)clipMode);
    if (clipNanOpt != PRNN_NOT_PROPAGATE_NAN && clipNanOpt != PRNN_PROPAGATE_NAN)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "clipNanOpt = %d: not a prnnNanPropagation_t",
                         (int)clipNanOpt);
    if (clipMode == PRNN_RNN_CLIP_MINMAX) {
        if (!prnn_cell_traits(rnnDesc->mode)->clip)
            return prnn_fail(PRNN_STATUS_BAD_PARAM,
                             "clipMode = PRNN_RNN_CLIP_MINMAX with cellMode %s: cell clipping is "
                             "for PRNN_LSTM only",
                             prnn_mode_name(rnnDesc->mode));
        if (!(lclip >= -DBL_MAX && lclip <= DBL_MAX) || !(rclip >= -DBL_MAX && rclip <= DBL_MAX))
            return prnn_fail(PRNN_STATUS_BAD_PARAM, "lclip = %g, rclip = %g: both must be finite",
                             lclip, rclip);
        if (lclip > rclip)
            return prnn_fail(PRNN_STATUS_BAD_PARAM,
                             "lclip = %g > rclip = %g: the interval must not be empty", lclip,
                             rclip);
    }
    rnnDesc->clip_mode = clipMode;
    rnnDesc->clip_nan = clipNanOpt;
    rnnDesc->lclip = lclip;
    rnnDesc->rclip = rclip;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnRNNSetClip_v9(prnnRNNDescriptor_t rnnDesc, prnnRNNClipMode_t clipMode,
                               double lclip, double rclip)
{
    return prnnRNNSetClip_v8(rnnDesc, clipMode, PRNN_PROPAGATE_NAN, lclip, rclip);
}

prnnStatus_t prnnRNNGetClip_v8(prnnRNNDescriptor_t rnnDesc, prnnRNNClipMode_t *clipMode,
                               prnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip)
{
    prnn_api_enter("prnnRNNGetClip_v8");
    PRNN_TRY(prnn_check_rnn_v8(rnnDesc));
    if (clipMode)
        *clipMode = rnnDesc->clip_mode;
    if (clipNanOpt)
        *clipNanOpt = rnnDesc->clip_nan;
    if (lclip)
        *lclip = rnnDesc->lclip;
    if (rclip)
        *rclip = rnnDesc->rclip;
    return PRNN_STATUS_SUCCESS;
}
