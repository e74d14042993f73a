/*
 * The v8 calls' bad-input table: every case breaks exactly one argument of
 * an otherwise valid call (CPU backend, a 2-layer bidirectional LSTM with a
 * projection, padded sequence-major data) and must get the documented
 * status and a log message naming the argument and the rule. None may
 * crash. A final check runs the unbroken fixture through every call, so
 * that an invalid fixture cannot make the cases pass vacuously.
 */
#include <float.h>

#include "v8_fixture.h"

/* clang-format off */
static const v8_case base = {
    PRNN_LSTM, 4, 3, 2, 1, 3, 3, 3, {2, 3, 1}, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
    PRNN_RNN_DOUBLE_BIAS, 0, 0, 0, PRNN_NOT_PROPAGATE_NAN,
};
/* clang-format on */

typedef prnnStatus_t (*case_fn)(v8_run *r);

static const int lengths3[3] = {2, 3, 1};

/* ---- data descriptors ---- */

static prnnStatus_t c_data_null(v8_run *r)
{
    (void)r;
    return prnnSetRNNDataDescriptor(NULL, PRNN_DATA_DOUBLE, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                    3, 3, 3, lengths3, NULL);
}
static prnnStatus_t set_data(v8_run *r, prnnDataType_t t, int layout, int max_seq, int batch,
                             int vec, const int *lengths)
{
    return prnnSetRNNDataDescriptor(r->xd, t, (prnnRNNDataLayout_t)layout, max_seq, batch, vec,
                                    lengths, NULL);
}
static prnnStatus_t c_data_dtype(v8_run *r)
{
    return set_data(r, (prnnDataType_t)99, 0, 3, 3, 3, lengths3);
}
static prnnStatus_t c_data_layout(v8_run *r)
{
    return set_data(r, PRNN_DATA_DOUBLE, 7, 3, 3, 3, lengths3);
}
static prnnStatus_t c_data_max_seq(v8_run *r)
{
    return set_data(r, PRNN_DATA_DOUBLE, 0, 0, 3, 3, lengths3);
}
static prnnStatus_t c_data_batch(v8_run *r)
{
    return set_data(r, PRNN_DATA_DOUBLE, 0, 3, 0, 3, lengths3);
}
static prnnStatus_t c_data_vector(v8_run *r)
{
    return set_data(r, PRNN_DATA_DOUBLE, 0, 3, 3, 0, lengths3);
}
static prnnStatus_t c_data_lengths_null(v8_run *r)
{
    return set_data(r, PRNN_DATA_DOUBLE, 0, 3, 3, 3, NULL);
}
static prnnStatus_t c_data_length_zero(v8_run *r)
{
    static const int l[3] = {2, 0, 1};
    return set_data(r, PRNN_DATA_DOUBLE, 0, 3, 3, 3, l);
}
static prnnStatus_t c_data_length_long(v8_run *r)
{
    static const int l[3] = {9, 3, 1};
    return set_data(r, PRNN_DATA_DOUBLE, 0, 3, 3, 3, l);
}
static prnnStatus_t c_data_packed_unsorted(v8_run *r)
{
    return set_data(r, PRNN_DATA_DOUBLE, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, 3, 3, 3, lengths3);
}
static prnnStatus_t c_data_get_negative(v8_run *r)
{
    int l[3];
    return prnnGetRNNDataDescriptor(r->xd, NULL, NULL, NULL, NULL, NULL, -1, l, NULL);
}
static prnnStatus_t c_data_get_null_array(v8_run *r)
{
    return prnnGetRNNDataDescriptor(r->xd, NULL, NULL, NULL, NULL, NULL, 2, NULL, NULL);
}
static prnnStatus_t c_data_unset(v8_run *r)
{
    prnnRNNDataDescriptor_t d;
    prnnCreateRNNDataDescriptor(&d);
    prnnStatus_t s = prnnGetRNNDataDescriptor(d, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL);
    prnnDestroyRNNDataDescriptor(d);
    (void)r;
    return s;
}
static prnnStatus_t c_data_destroy_wrong_kind(v8_run *r)
{
    return prnnDestroyRNNDataDescriptor((prnnRNNDataDescriptor_t)(void *)r->hd);
}

/* ---- the v8 RNN descriptor ---- */

typedef struct {
    int algo, mode, bias, dir, input_mode, dtype, prec, math, input, hidden, proj, layers;
    unsigned aux;
} v8_args;

static const v8_args good = {PRNN_RNN_ALGO_STANDARD,
                             PRNN_LSTM,
                             PRNN_RNN_DOUBLE_BIAS,
                             PRNN_BIDIRECTIONAL,
                             PRNN_LINEAR_INPUT,
                             PRNN_DATA_DOUBLE,
                             PRNN_DATA_DOUBLE,
                             PRNN_DEFAULT_MATH,
                             3,
                             4,
                             3,
                             2,
                             PRNN_RNN_PADDED_IO_ENABLED};

static prnnStatus_t set_v8(v8_run *r, v8_args a)
{
    return prnnSetRNNDescriptor_v8(r->rnn, (prnnRNNAlgo_t)a.algo, (prnnRNNMode_t)a.mode,
                                   (prnnRNNBiasMode_t)a.bias, (prnnDirectionMode_t)a.dir,
                                   (prnnRNNInputMode_t)a.input_mode, (prnnDataType_t)a.dtype,
                                   (prnnDataType_t)a.prec, (prnnMathType_t)a.math, a.input,
                                   a.hidden, a.proj, a.layers, NULL, a.aux);
}

#define V8_CASE(name, field, value)                                                                \
    static prnnStatus_t name(v8_run *r)                                                            \
    {                                                                                              \
        v8_args a = good;                                                                          \
        a.field = value;                                                                           \
        return set_v8(r, a);                                                                       \
    }
V8_CASE(c_v8_algo, algo, 9)
V8_CASE(c_v8_mode, mode, 9)
V8_CASE(c_v8_bias, bias, 9)
V8_CASE(c_v8_dir, dir, 5)
V8_CASE(c_v8_input_mode, input_mode, 5)
V8_CASE(c_v8_dtype, dtype, 42)
V8_CASE(c_v8_prec, prec, PRNN_DATA_HALF)
V8_CASE(c_v8_math, math, 9)
V8_CASE(c_v8_aux, aux, 0x4)
V8_CASE(c_v8_hidden, hidden, 0)
V8_CASE(c_v8_layers, layers, 0)
V8_CASE(c_v8_input, input, 0)
V8_CASE(c_v8_skip, input_mode, PRNN_SKIP_INPUT)
V8_CASE(c_v8_proj_large, proj, 9)
V8_CASE(c_v8_proj_zero, proj, 0)

static prnnStatus_t c_v8_proj_gru(v8_run *r)
{
    v8_args a = good;
    a.mode = PRNN_GRU;
    return set_v8(r, a);
}
static prnnStatus_t c_v8_sru_bias(v8_run *r)
{
    v8_args a = good;
    a.mode = PRNN_SRU;
    a.proj = a.hidden;
    a.bias = PRNN_RNN_NO_BIAS;
    return set_v8(r, a);
}
static prnnStatus_t c_v8_dropout_unset(v8_run *r)
{
    prnnDropoutDescriptor_t d;
    prnnCreateDropoutDescriptor(&d);
    prnnStatus_t s = prnnSetRNNDescriptor_v8(
        r->rnn, PRNN_RNN_ALGO_AUTO, PRNN_LSTM, PRNN_RNN_DOUBLE_BIAS, PRNN_UNIDIRECTIONAL,
        PRNN_LINEAR_INPUT, PRNN_DATA_FLOAT, PRNN_DATA_FLOAT, PRNN_DEFAULT_MATH, 3, 4, 4, 1, d, 0);
    prnnDestroyDropoutDescriptor(d);
    return s;
}
/* a descriptor set by prnnSetRNNDescriptor, in the v8 calls */
static prnnStatus_t v5_desc(v8_run *r)
{
    return prnnSetRNNDescriptor(r->rnn, 4, 2, NULL, PRNN_LINEAR_INPUT, PRNN_BIDIRECTIONAL,
                                PRNN_LSTM, PRNN_DATA_DOUBLE);
}
static prnnStatus_t c_v8_get_on_v5(v8_run *r)
{
    v5_desc(r);
    return prnnGetRNNDescriptor_v8(r->rnn, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                   NULL, NULL, NULL, NULL, NULL);
}

/* ---- clipping ---- */

static prnnStatus_t c_clip_mode(v8_run *r)
{
    return prnnRNNSetClip_v8(r->rnn, (prnnRNNClipMode_t)5, PRNN_PROPAGATE_NAN, 0, 1);
}
static prnnStatus_t c_clip_nan(v8_run *r)
{
    return prnnRNNSetClip_v8(r->rnn, PRNN_RNN_CLIP_MINMAX, (prnnNanPropagation_t)5, 0, 1);
}
static prnnStatus_t c_clip_order(v8_run *r)
{
    return prnnRNNSetClip_v8(r->rnn, PRNN_RNN_CLIP_MINMAX, PRNN_PROPAGATE_NAN, 1, 0);
}
static prnnStatus_t c_clip_infinite(v8_run *r)
{
    return prnnRNNSetClip_v9(r->rnn, PRNN_RNN_CLIP_MINMAX, -DBL_MAX * 2, 1);
}
static prnnStatus_t c_clip_gru(v8_run *r)
{
    v8_args a = good;
    a.mode = PRNN_GRU;
    a.proj = a.hidden;
    set_v8(r, a);
    return prnnRNNSetClip_v8(r->rnn, PRNN_RNN_CLIP_MINMAX, PRNN_PROPAGATE_NAN, 0, 1);
}
static prnnStatus_t c_clip_v5(v8_run *r)
{
    v5_desc(r);
    return prnnRNNSetClip_v8(r->rnn, PRNN_RNN_CLIP_MINMAX, PRNN_PROPAGATE_NAN, 0, 1);
}

/* ---- queries and weights ---- */

static prnnStatus_t c_wsize_null(v8_run *r)
{
    return prnnGetRNNWeightSpaceSize(r->h, r->rnn, NULL);
}
static prnnStatus_t c_wsize_v5(v8_run *r)
{
    size_t n;
    v5_desc(r);
    return prnnGetRNNWeightSpaceSize(r->h, r->rnn, &n);
}
static prnnStatus_t c_temp_mode(v8_run *r)
{
    size_t a, b;
    return prnnGetRNNTempSpaceSizes(r->h, r->rnn, (prnnForwardMode_t)7, r->xd, &a, &b);
}
static prnnStatus_t c_temp_vector(v8_run *r)
{
    size_t a, b;
    set_data(r, PRNN_DATA_DOUBLE, 0, 3, 3, 2, lengths3);
    return prnnGetRNNTempSpaceSizes(r->h, r->rnn, PRNN_FWD_MODE_TRAINING, r->xd, &a, &b);
}
static prnnStatus_t c_temp_dtype(v8_run *r)
{
    size_t a, b;
    set_data(r, PRNN_DATA_FLOAT, 0, 3, 3, 3, lengths3);
    return prnnGetRNNTempSpaceSizes(r->h, r->rnn, PRNN_FWD_MODE_TRAINING, r->xd, &a, &b);
}
static prnnStatus_t c_temp_padded_io(v8_run *r)
{
    size_t a, b;
    v8_args g = good;
    g.aux = PRNN_RNN_PADDED_IO_DISABLED;
    set_v8(r, g);
    return prnnGetRNNTempSpaceSizes(r->h, r->rnn, PRNN_FWD_MODE_TRAINING, r->xd, &a, &b);
}
static prnnStatus_t c_temp_handle(v8_run *r)
{
    size_t a, b;
    return prnnGetRNNTempSpaceSizes(NULL, r->rnn, PRNN_FWD_MODE_TRAINING, r->xd, &a, &b);
}
static prnnStatus_t get_params(v8_run *r, int pl, size_t size, int id, int with_b)
{
    prnnTensorDescriptor_t md, bd;
    void *m, *b;
    prnnCreateTensorDescriptor(&md);
    prnnCreateTensorDescriptor(&bd);
    prnnStatus_t s =
        prnnGetRNNWeightParams(r->h, r->rnn, pl, size, r->w, id, md, &m, with_b ? bd : NULL, &b);
    prnnDestroyTensorDescriptor(md);
    prnnDestroyTensorDescriptor(bd);
    return s;
}
static prnnStatus_t c_params_layer(v8_run *r)
{
    return get_params(r, 4, r->w_bytes, 0, 1);
}
static prnnStatus_t c_params_id(v8_run *r)
{
    return get_params(r, 0, r->w_bytes, 9, 1);
}
static prnnStatus_t c_params_size(v8_run *r)
{
    return get_params(r, 0, 8, 0, 1);
}
static prnnStatus_t c_params_pair(v8_run *r)
{
    return get_params(r, 0, r->w_bytes, 0, 0);
}
static prnnStatus_t c_params_space_null(v8_run *r)
{
    prnnTensorDescriptor_t md;
    void *m;
    prnnCreateTensorDescriptor(&md);
    prnnStatus_t s =
        prnnGetRNNWeightParams(r->h, r->rnn, 0, r->w_bytes, NULL, 0, md, &m, NULL, NULL);
    prnnDestroyTensorDescriptor(md);
    return s;
}

/* ---- compute ---- */

static prnnStatus_t c_fwd_mode(v8_run *r)
{
    return v8_forward(r, (prnnForwardMode_t)3);
}
static prnnStatus_t c_fwd_v5(v8_run *r)
{
    v5_desc(r);
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_y_vector(v8_run *r)
{
    prnnSetRNNDataDescriptor(r->yd, PRNN_DATA_DOUBLE, base.layout, 3, 3, 8, lengths3, NULL);
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_y_lengths(v8_run *r)
{
    static const int l[3] = {2, 2, 1};
    prnnSetRNNDataDescriptor(r->yd, PRNN_DATA_DOUBLE, base.layout, 3, 3, 6, l, NULL);
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_y_layout(v8_run *r)
{
    prnnSetRNNDataDescriptor(r->yd, PRNN_DATA_DOUBLE, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 3,
                             3, 6, lengths3, NULL);
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_y_batch(v8_run *r)
{
    static const int l[2] = {2, 3};
    prnnSetRNNDataDescriptor(r->yd, PRNN_DATA_DOUBLE, base.layout, 3, 2, 6, l, NULL);
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_h_width(v8_run *r)
{
    set_tensor3(r->hd, PRNN_DATA_DOUBLE, 4, 3, 4); /* hiddenSize, not projSize */
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_c_width(v8_run *r)
{
    set_tensor3(r->cd, PRNN_DATA_DOUBLE, 4, 3, 3); /* projSize, not hiddenSize */
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_h_batch(v8_run *r)
{
    set_tensor3(r->hd, PRNN_DATA_DOUBLE, 4, 2, 3);
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_wsize(v8_run *r)
{
    r->w_bytes -= 8;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_x_null(v8_run *r)
{
    free(r->x);
    r->x = NULL;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_y_null(v8_run *r)
{
    free(r->y);
    r->y = NULL;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_w_null(v8_run *r)
{
    free(r->w);
    r->w = NULL;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_ws_size(v8_run *r)
{
    r->ws_size = 16;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_rs_null(v8_run *r)
{
    free(r->rs);
    r->rs = NULL;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_rs_size(v8_run *r)
{
    r->rs_size = 16;
    return v8_forward(r, PRNN_FWD_MODE_TRAINING);
}
static prnnStatus_t c_fwd_overlap(v8_run *r)
{
    return prnnRNNForward(r->h, r->rnn, PRNN_FWD_MODE_INFERENCE, NULL, r->xd, r->x, r->yd, r->y,
                          r->hd, r->hx, r->hy, r->cd, r->cx, r->hy, r->w_bytes, r->w, r->ws_size,
                          r->ws, 0, NULL);
}
static prnnStatus_t c_bwd_unrecorded(v8_run *r)
{
    void *other = malloc(r->rs_size);
    prnnStatus_t s = prnnRNNBackwardData_v8(
        r->h, r->rnn, NULL, r->yd, r->y, r->dy, r->xd, r->dx, r->hd, r->hx, r->dhy, r->dhx, r->cd,
        r->cx, r->dcy, r->dcx, r->w_bytes, r->w, r->ws_size, r->ws, r->rs_size, other);
    free(other);
    return s;
}
static prnnStatus_t c_bwd_lengths(v8_run *r)
{
    static const int l[3] = {3, 2, 1};
    set_data(r, PRNN_DATA_DOUBLE, 0, 3, 3, 3, l);
    prnnSetRNNDataDescriptor(r->yd, PRNN_DATA_DOUBLE, base.layout, 3, 3, 6, l, NULL);
    return v8_backward_data(r);
}
static prnnStatus_t c_bwd_dy_null(v8_run *r)
{
    free(r->dy);
    r->dy = NULL;
    return v8_backward_data(r);
}
static prnnStatus_t c_bwd_clip_changed(v8_run *r)
{
    prnnRNNSetClip_v8(r->rnn, PRNN_RNN_CLIP_MINMAX, PRNN_PROPAGATE_NAN, -1, 1);
    return v8_backward_data(r);
}
static prnnStatus_t c_wgrad_mode(v8_run *r)
{
    return v8_backward_weights(r, (prnnWgradMode_t)5);
}
static prnnStatus_t c_wgrad_order(v8_run *r)
{
    v8_forward(r, PRNN_FWD_MODE_TRAINING);
    return v8_backward_weights(r, PRNN_WGRAD_MODE_SET);
}
static prnnStatus_t c_wgrad_dw_null(v8_run *r)
{
    free(r->dw);
    r->dw = NULL;
    return v8_backward_weights(r, PRNN_WGRAD_MODE_ADD);
}
static prnnStatus_t c_wgrad_h(v8_run *r)
{
    set_tensor3(r->hd, PRNN_DATA_DOUBLE, 4, 3, 4);
    return v8_backward_weights(r, PRNN_WGRAD_MODE_ADD);
}

typedef struct {
    const char *name;
    case_fn fn;
    prnnStatus_t status;
    const char *needle;
} bad_case;

#define BAD PRNN_STATUS_BAD_PARAM
static const bad_case cases[] = {
    {"data: NULL", c_data_null, BAD, "rnnDataDesc is NULL"},
    {"data: dataType", c_data_dtype, BAD, "dataType = 99"},
    {"data: layout", c_data_layout, BAD, "layout = 7"},
    {"data: maxSeqLength", c_data_max_seq, BAD, "maxSeqLength = 0"},
    {"data: batchSize", c_data_batch, BAD, "batchSize = 0"},
    {"data: vectorSize", c_data_vector, BAD, "vectorSize = 0"},
    {"data: no lengths", c_data_lengths_null, BAD, "seqLengthArray is NULL"},
    {"data: length 0", c_data_length_zero, BAD, "seqLengthArray[1] = 0"},
    {"data: length > max", c_data_length_long, BAD, "seqLengthArray[0] = 9"},
    {"data: packed unsorted", c_data_packed_unsorted, BAD, "sorted by decreasing length"},
    {"data: get negative", c_data_get_negative, BAD, "arrayLengthRequested = -1"},
    {"data: get NULL array", c_data_get_null_array, BAD, "seqLengthArray is NULL"},
    {"data: unset", c_data_unset, BAD, "never set (prnnSetRNNDataDescriptor)"},
    {"data: destroy wrong kind", c_data_destroy_wrong_kind, BAD, "not a live descriptor"},
    {"v8: algo", c_v8_algo, BAD, "algo = 9"},
    {"v8: cellMode", c_v8_mode, BAD, "cellMode = 9"},
    {"v8: biasMode", c_v8_bias, BAD, "biasMode = 9"},
    {"v8: dirMode", c_v8_dir, BAD, "dirMode = 5"},
    {"v8: inputMode", c_v8_input_mode, BAD, "inputMode = 5"},
    {"v8: dataType", c_v8_dtype, BAD, "dataType = 42"},
    {"v8: mathPrec", c_v8_prec, BAD, "mathPrec = 2"},
    {"v8: mathType", c_v8_math, BAD, "mathType = 9"},
    {"v8: auxFlags", c_v8_aux, BAD, "auxFlags = 0x4"},
    {"v8: hiddenSize", c_v8_hidden, BAD, "hiddenSize = 0"},
    {"v8: numLayers", c_v8_layers, BAD, "numLayers = 0"},
    {"v8: inputSize", c_v8_input, BAD, "inputSize = 0"},
    {"v8: skip input", c_v8_skip, BAD, "PRNN_SKIP_INPUT requires"},
    {"v8: projSize > hidden", c_v8_proj_large, BAD, "projSize = 9"},
    {"v8: projSize 0", c_v8_proj_zero, BAD, "projSize = 0"},
    {"v8: projSize with GRU", c_v8_proj_gru, BAD, "projections are for PRNN_LSTM only"},
    {"v8: SRU bias mode", c_v8_sru_bias, BAD, "not bias pairs"},
    {"v8: dropout unset", c_v8_dropout_unset, BAD, "dropoutDesc was created but never set"},
    {"v8: Get on a v5 descriptor", c_v8_get_on_v5, BAD, "has no inputSize"},
    {"clip: mode", c_clip_mode, BAD, "clipMode = 5"},
    {"clip: NaN option", c_clip_nan, BAD, "clipNanOpt = 5"},
    {"clip: order", c_clip_order, BAD, "lclip = 1 > rclip = 0"},
    {"clip: infinite", c_clip_infinite, BAD, "both must be finite"},
    {"clip: GRU", c_clip_gru, BAD, "for PRNN_LSTM only"},
    {"clip: v5 descriptor", c_clip_v5, BAD, "has no inputSize"},
    {"weight space: NULL", c_wsize_null, BAD, "weightSpaceSize is NULL"},
    {"weight space: v5 descriptor", c_wsize_v5, BAD, "has no inputSize"},
    {"temp: fwdMode", c_temp_mode, BAD, "fwdMode = 7"},
    {"temp: vectorSize", c_temp_vector, BAD, "vectorSize = 2 but rnnDesc's inputSize = 3"},
    {"temp: dataType", c_temp_dtype, BAD, "xDesc has data type float"},
    {"temp: padded IO", c_temp_padded_io, BAD, "needs PRNN_RNN_PADDED_IO_ENABLED"},
    {"temp: handle", c_temp_handle, BAD, "handle"},
    {"params: pseudoLayer", c_params_layer, BAD, "pseudoLayer = 4"},
    {"params: linLayerID", c_params_id, BAD, "linLayerID = 9: must be in [0, 9)"},
    {"params: weightSpaceSize", c_params_size, BAD, "weightSpaceSize = 8 bytes is too small"},
    {"params: half a pair", c_params_pair, BAD, "bDesc is NULL but bAddr is not"},
    {"params: weightSpace NULL", c_params_space_null, BAD, "weightSpace is NULL"},
    {"forward: fwdMode", c_fwd_mode, BAD, "fwdMode = 3"},
    {"forward: v5 descriptor", c_fwd_v5, BAD, "has no inputSize"},
    {"forward: y vectorSize", c_fwd_y_vector, BAD, "yDesc: vectorSize = 8"},
    {"forward: y lengths", c_fwd_y_lengths, BAD, "yDesc: seqLengthArray[1] = 2"},
    {"forward: y layout", c_fwd_y_layout, BAD, "yDesc: layout"},
    {"forward: y batch", c_fwd_y_batch, BAD, "yDesc: maxSeqLength = 3, batchSize = 2"},
    {"forward: hDesc width", c_fwd_h_width, BAD, "hDesc dims {4, 3, 4}"},
    {"forward: cDesc width", c_fwd_c_width, BAD, "cDesc dims {4, 3, 3}"},
    {"forward: hDesc batch", c_fwd_h_batch, BAD, "batchSize = 3"},
    {"forward: weightSpaceSize", c_fwd_wsize, BAD, "weightSpaceSize = "},
    {"forward: x NULL", c_fwd_x_null, BAD, "x is NULL"},
    {"forward: y NULL", c_fwd_y_null, BAD, "y is NULL"},
    {"forward: weightSpace NULL", c_fwd_w_null, BAD, "weightSpace is NULL"},
    {"forward: workSpaceSize", c_fwd_ws_size, BAD, "workSpaceSize = 16 bytes is too small"},
    {"forward: reserveSpace NULL", c_fwd_rs_null, BAD, "reserveSpace is NULL"},
    {"forward: reserveSpaceSize", c_fwd_rs_size, BAD, "reserveSpaceSize = 16"},
    {"forward: overlap", c_fwd_overlap, BAD, "hy and cy overlap"},
    {"backward data: unrecorded reserve", c_bwd_unrecorded, BAD,
     "was not filled by prnnRNNForward (PRNN_FWD_MODE_TRAINING)"},
    {"backward data: other lengths", c_bwd_lengths, BAD, "other sequence lengths"},
    {"backward data: dy NULL", c_bwd_dy_null, BAD, "dy is NULL"},
    {"backward data: clipping changed", c_bwd_clip_changed, BAD, "clipMode"},
    {"backward weights: addGrad", c_wgrad_mode, BAD, "addGrad = 5"},
    {"backward weights: order", c_wgrad_order, BAD,
     "prnnRNNBackwardWeights_v8 before prnnRNNBackwardData_v8"},
    {"backward weights: dweightSpace NULL", c_wgrad_dw_null, BAD, "dweightSpace is NULL"},
    {"backward weights: hDesc", c_wgrad_h, BAD, "hDesc dims"},
};

int main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        v8_run r;
        v8_setup(&r, &base, 1);
        EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_TRAINING));
        EXPECT_OK(v8_backward_data(&r));
        prnnStatus_t s = cases[i].fn(&r);
        const char *log = prnnGetLastErrorLog();
        EXPECT(s == cases[i].status && strstr(log, cases[i].needle),
               "%s: got %s, expected %s with \"%s\"; log: %s", cases[i].name, prnnGetErrorString(s),
               prnnGetErrorString(cases[i].status), cases[i].needle, log);
        v8_teardown(&r);
    }
    /* the unbroken fixture passes every call */
    v8_run r;
    v8_setup(&r, &base, 1);
    EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_INFERENCE));
    EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_TRAINING));
    EXPECT_OK(v8_backward_data(&r));
    EXPECT_OK(v8_backward_weights(&r, PRNN_WGRAD_MODE_ADD));
    EXPECT_OK(v8_backward_weights(&r, PRNN_WGRAD_MODE_SET));
    v8_teardown(&r);
    printf("%zu bad-input cases\n", sizeof(cases) / sizeof(cases[0]));
    if (test_failures)
        fprintf(stderr, "%d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
