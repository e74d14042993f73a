/*
 * The bad-input table: every case breaks exactly one argument of an
 * otherwise valid call (CPU backend, 2-layer bidirectional LSTM; the SRU
 * cases the same shape in SRU mode) and must get
 * the documented status and a log message naming the argument. None may
 * crash. A final check runs the unbroken fixture through every call, so a
 * fixture that is itself invalid cannot make the cases pass vacuously.
 */
#include <math.h>

#include "rnn_fixture.h"

#define T_STEPS 3
#define HIDDEN 4
#define INPUT 3
#define LAYERS 2
#define DIRS 2
#define MINI 3

/* clang-format off */
static const rnn_shape base_shape = {
    .mode = PRNN_LSTM, .hidden = HIDDEN, .layers = LAYERS,
    .direction = PRNN_BIDIRECTIONAL, .input = INPUT, .seq = T_STEPS,
    .batch = {MINI, 2, 2},
};

static void setup(fixture *f)
{
    fixture_setup(f, &base_shape);
    /* The reserve is filled and through BackwardData, so that each backward
     * case fails for the argument it breaks, not for the training order
     * (test_reserve.c tests that). */
    EXPECT_OK(fwd_training(f));
    EXPECT_OK(bwd_data(f));
}

/* ---- the cases: each breaks one thing and returns the status ---- */

typedef prnnStatus_t (*case_fn)(fixture *f);

static prnnStatus_t c_create_tensor_null(fixture *f)
{ (void)f; return prnnCreateTensorDescriptor(NULL); }
static prnnStatus_t c_tensor_nbdims(fixture *f)
{ int d[2] = {1, 1}, s[2] = {1, 1}; return prnnSetTensorNdDescriptor(f->xd[0], PRNN_DATA_FLOAT, 2, d, s); }
static prnnStatus_t c_tensor_zero_dim(fixture *f)
{ int d[3] = {1, 0, 1}, s[3] = {1, 1, 1}; return prnnSetTensorNdDescriptor(f->xd[0], PRNN_DATA_FLOAT, 3, d, s); }
static prnnStatus_t c_tensor_neg_stride(fixture *f)
{ int d[3] = {1, 2, 1}, s[3] = {-2, 1, 1}; return prnnSetTensorNdDescriptor(f->xd[0], PRNN_DATA_FLOAT, 3, d, s); }
static prnnStatus_t c_tensor_dtype(fixture *f)
{ int d[3] = {1, 2, 1}, s[3] = {2, 1, 1}; return prnnSetTensorNdDescriptor(f->xd[0], (prnnDataType_t)99, 3, d, s); }
static prnnStatus_t c_tensor_dims_null(fixture *f)
{ int s[3] = {2, 1, 1}; return prnnSetTensorNdDescriptor(f->xd[0], PRNN_DATA_FLOAT, 3, NULL, s); }
static prnnStatus_t c_tensor_get_neg(fixture *f)
{ int d[3], s[3], n; return prnnGetTensorNdDescriptor(f->xd[0], -1, NULL, &n, d, s); }
static prnnStatus_t c_filter_nbdims(fixture *f)
{ int d[1] = {1}; return prnnSetFilterNdDescriptor(f->wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 0, d); }
static prnnStatus_t c_filter_format(fixture *f)
{ int d[3] = {1, 1, 1}; return prnnSetFilterNdDescriptor(f->wd, PRNN_DATA_FLOAT, (prnnTensorFormat_t)7, 3, d); }
static prnnStatus_t c_filter_destroy_wrong_kind(fixture *f)
{ return prnnDestroyFilterDescriptor((prnnFilterDescriptor_t)(void *)f->hxd); }
static prnnStatus_t with_dropout(float p)
{
    prnnDropoutDescriptor_t d;
    prnnCreateDropoutDescriptor(&d);
    prnnStatus_t s = prnnSetDropoutDescriptor(d, NULL, p, 1);
    prnnDestroyDropoutDescriptor(d);
    return s;
}
static prnnStatus_t c_dropout_one(fixture *f) { (void)f; return with_dropout(1.0f); }
static prnnStatus_t c_dropout_neg(fixture *f) { (void)f; return with_dropout(-0.1f); }
static prnnStatus_t c_dropout_nan(fixture *f) { (void)f; return with_dropout(nanf("")); }
static prnnStatus_t c_rnn_hidden0(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, 0, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_hidden_neg(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, -5, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_layers0(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, 4, 0, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_mode(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, 4, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, (prnnRNNMode_t)17, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_direction(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, 4, 1, NULL, PRNN_LINEAR_INPUT, (prnnDirectionMode_t)5, PRNN_LSTM, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_input_mode(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, 4, 1, NULL, (prnnRNNInputMode_t)3, PRNN_UNIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_dtype(fixture *f)
{ return prnnSetRNNDescriptor(f->rnn, 4, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_LSTM, (prnnDataType_t)42); }
static prnnStatus_t c_rnn_unset_dropout(fixture *f)
{
    prnnDropoutDescriptor_t d;
    prnnCreateDropoutDescriptor(&d);
    prnnStatus_t s = prnnSetRNNDescriptor(f->rnn, 4, 1, d, PRNN_LINEAR_INPUT,
                                          PRNN_UNIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT);
    prnnDestroyDropoutDescriptor(d);
    return s;
}
static prnnStatus_t c_rnn_wrong_kind(fixture *f)
{ return prnnSetRNNDescriptor((prnnRNNDescriptor_t)(void *)f->xd[0], 4, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT); }
static prnnStatus_t c_rnn_math(fixture *f)
{ return prnnSetRNNMatrixMathType(f->rnn, (prnnMathType_t)9); }
static prnnStatus_t c_handle_bad_backend(fixture *f)
{ prnnHandle_t h; (void)f; return prnnCreateWithBackend(&h, (prnnBackend_t)3); }
static prnnStatus_t c_set_stream_null_handle(fixture *f)
{ (void)f; return prnnSetStream(NULL, NULL); }
static prnnStatus_t c_autotune_mode(fixture *f)
{ return prnnSetAutotuneMode(f->handle, (prnnAutotuneMode_t)4); }
static prnnStatus_t c_fwd_null_handle(fixture *f)
{ prnnHandle_t k = f->handle; f->handle = NULL; prnnStatus_t s = fwd_training(f); f->handle = k; return s; }
static prnnStatus_t c_fwd_unset_rnn(fixture *f)
{
    prnnRNNDescriptor_t fresh;
    prnnCreateRNNDescriptor(&fresh);
    prnnRNNDescriptor_t keep = f->rnn;
    f->rnn = fresh;
    prnnStatus_t s = fwd_inference(f);
    f->rnn = keep;
    prnnDestroyRNNDescriptor(fresh);
    return s;
}
static prnnStatus_t c_fwd_seq0(fixture *f) { f->seq = 0; return fwd_inference(f); }
static prnnStatus_t c_fwd_xdesc_null(fixture *f) { f->xdp = NULL; return fwd_inference(f); }
static prnnStatus_t c_fwd_xdesc_elem_null(fixture *f)
{
    prnnTensorDescriptor_t keep = f->xd[1];
    f->xd[1] = NULL;
    prnnStatus_t s = fwd_inference(f);
    f->xd[1] = keep;
    return s;
}
static prnnStatus_t c_fwd_batch_increases(fixture *f)
{ set_tensor3(f->xd[2], PRNN_DATA_FLOAT, 3, INPUT, 1); return fwd_inference(f); }
static prnnStatus_t c_fwd_input_size_varies(fixture *f)
{ set_tensor3(f->xd[1], PRNN_DATA_FLOAT, 2, INPUT + 1, 1); return fwd_inference(f); }
static prnnStatus_t c_fwd_x_dtype(fixture *f)
{ set_tensor3(f->xd[0], PRNN_DATA_HALF, 3, INPUT, 1); return fwd_inference(f); }
static prnnStatus_t c_fwd_x_strides(fixture *f)
{ int d[3] = {3, INPUT, 1}, s[3] = {INPUT + 1, 1, 1}; prnnSetTensorNdDescriptor(f->xd[0], PRNN_DATA_FLOAT, 3, d, s); return fwd_inference(f); }
static prnnStatus_t c_fwd_x_4d(fixture *f)
{ int d[4] = {3, INPUT, 1, 1}, s[4] = {INPUT, 1, 1, 1}; prnnSetTensorNdDescriptor(f->xd[0], PRNN_DATA_FLOAT, 4, d, s); return fwd_inference(f); }
static prnnStatus_t c_fwd_x_unset(fixture *f)
{
    prnnTensorDescriptor_t fresh, keep = f->xd[0];
    prnnCreateTensorDescriptor(&fresh);
    f->xd[0] = fresh;
    prnnStatus_t s = fwd_inference(f);
    f->xd[0] = keep;
    prnnDestroyTensorDescriptor(fresh);
    return s;
}
static prnnStatus_t c_fwd_y_cols(fixture *f)
{ set_tensor3(f->yd[0], PRNN_DATA_FLOAT, 3, HIDDEN, 1); return fwd_inference(f); }
static prnnStatus_t c_fwd_y_batch(fixture *f)
{ set_tensor3(f->yd[1], PRNN_DATA_FLOAT, 1, HIDDEN * DIRS, 1); return fwd_inference(f); }
static prnnStatus_t c_fwd_hx_layers(fixture *f)
{ set_tensor3(f->hxd, PRNN_DATA_FLOAT, LAYERS, MINI, HIDDEN); return fwd_inference(f); }
static prnnStatus_t c_fwd_hx_batch(fixture *f)
{ set_tensor3(f->hxd, PRNN_DATA_FLOAT, LAYERS * DIRS, MINI + 1, HIDDEN); return fwd_inference(f); }
static prnnStatus_t c_fwd_cx_null_lstm(fixture *f)
{ prnnTensorDescriptor_t k = f->cxd; f->cxd = NULL; prnnStatus_t s = fwd_inference(f); f->cxd = k; return s; }
static prnnStatus_t c_fwd_hy_wrong_kind(fixture *f)
{
    prnnTensorDescriptor_t keep = f->hyd;
    f->hyd = (prnnTensorDescriptor_t)(void *)f->wd;
    prnnStatus_t s = fwd_inference(f);
    f->hyd = keep;
    return s;
}
static prnnStatus_t c_fwd_w_size(fixture *f)
{ int d[3] = {(int)(f->w_size / 4) - 1, 1, 1}; prnnSetFilterNdDescriptor(f->wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, d); return fwd_inference(f); }
static prnnStatus_t c_fwd_w_dtype(fixture *f)
{ int d[3] = {(int)(f->w_size / 2), 1, 1}; prnnSetFilterNdDescriptor(f->wd, PRNN_DATA_HALF, PRNN_TENSOR_NCHW, 3, d); return fwd_inference(f); }
static prnnStatus_t c_fwd_x_null(fixture *f) { float *k = f->x; f->x = NULL; prnnStatus_t s = fwd_inference(f); f->x = k; return s; }
static prnnStatus_t c_fwd_y_null(fixture *f) { float *k = f->y; f->y = NULL; prnnStatus_t s = fwd_inference(f); f->y = k; return s; }
static prnnStatus_t c_fwd_w_null(fixture *f) { float *k = f->w; f->w = NULL; prnnStatus_t s = fwd_inference(f); f->w = k; return s; }
static prnnStatus_t c_fwd_ws_small(fixture *f) { f->ws_size = f->ws_size ? f->ws_size - 1 : 0; if (!f->ws_size) return PRNN_STATUS_BAD_PARAM; return fwd_inference(f); }
static prnnStatus_t c_trn_rs_small(fixture *f) { f->rs_size -= 1; return fwd_training(f); }
static prnnStatus_t c_trn_rs_null(fixture *f) { void *k = f->rs; f->rs = NULL; prnnStatus_t s = fwd_training(f); f->rs = k; return s; }
static prnnStatus_t c_fwd_y_overlaps_x(fixture *f) { float *k = f->y; f->y = f->x; prnnStatus_t s = fwd_inference(f); f->y = k; return s; }
static prnnStatus_t c_fwd_hy_is_hx(fixture *f) { float *k = f->hy; f->hy = f->hx; prnnStatus_t s = fwd_inference(f); f->hy = k; return s; }
static prnnStatus_t c_fwd_skip_input_size(fixture *f)
{
    prnnSetRNNDescriptor(f->rnn, HIDDEN, LAYERS, NULL, PRNN_SKIP_INPUT,
                         PRNN_BIDIRECTIONAL, PRNN_LSTM, PRNN_DATA_FLOAT);
    return fwd_inference(f);
}
static prnnStatus_t c_params_dtype(fixture *f)
{ size_t n; return prnnGetRNNParamsSize(f->handle, f->rnn, f->xd[0], &n, PRNN_DATA_DOUBLE); }
static prnnStatus_t c_params_out_null(fixture *f)
{ return prnnGetRNNParamsSize(f->handle, f->rnn, f->xd[0], NULL, PRNN_DATA_FLOAT); }
static prnnStatus_t c_ws_out_null(fixture *f)
{ return prnnGetRNNWorkspaceSize(f->handle, f->rnn, T_STEPS, f->xd, NULL); }
static prnnStatus_t lin_matrix(fixture *f, int pseudo, int id, int null_out)
{
    prnnFilterDescriptor_t md;
    prnnCreateFilterDescriptor(&md);
    void *p;
    prnnStatus_t s = prnnGetRNNLinLayerMatrixParams(f->handle, f->rnn, pseudo, f->xd[0],
                                                    f->wd, f->w, id, md,
                                                    null_out ? NULL : &p);
    prnnDestroyFilterDescriptor(md);
    return s;
}
static prnnStatus_t c_lin_pseudo(fixture *f) { return lin_matrix(f, LAYERS * DIRS, 0, 0); }
static prnnStatus_t c_lin_pseudo_neg(fixture *f) { return lin_matrix(f, -1, 0, 0); }
static prnnStatus_t c_lin_id_high(fixture *f) { return lin_matrix(f, 0, 8, 0); }
static prnnStatus_t c_lin_id_neg(fixture *f) { return lin_matrix(f, 0, -1, 0); }
static prnnStatus_t c_lin_out_null(fixture *f) { return lin_matrix(f, 0, 1, 1); }
static prnnStatus_t c_lin_bias_desc_null(fixture *f)
{ void *p; return prnnGetRNNLinLayerBiasParams(f->handle, f->rnn, 0, f->xd[0], f->wd, f->w, 0, NULL, &p); }
/* ---- SRU: the same shape in SRU mode, its own rules ---- */
static const rnn_shape sru_shape = {
    .mode = PRNN_SRU, .hidden = HIDDEN, .layers = LAYERS,
    .direction = PRNN_BIDIRECTIONAL, .input = INPUT, .seq = T_STEPS,
    .batch = {MINI, 2, 2},
};
/* fn on a fresh SRU fixture, through BackwardData like setup(). */
static prnnStatus_t on_sru(prnnStatus_t (*fn)(fixture *))
{
    fixture s;
    fixture_setup(&s, &sru_shape);
    EXPECT_OK(fwd_training(&s));
    EXPECT_OK(bwd_data(&s));
    prnnStatus_t st = fn(&s);
    fixture_teardown(&s);
    return st;
}
static prnnStatus_t sru_matrix_id4(fixture *f) { return lin_matrix(f, 0, 4, 0); }
static prnnStatus_t sru_bias_id4(fixture *f)
{
    prnnFilterDescriptor_t md;
    prnnCreateFilterDescriptor(&md);
    void *p;
    prnnStatus_t s = prnnGetRNNLinLayerBiasParams(f->handle, f->rnn, 0, f->xd[0],
                                                  f->wd, f->w, 4, md, &p);
    prnnDestroyFilterDescriptor(md);
    return s;
}
static prnnStatus_t sru_cx_desc_null(fixture *f)
{ prnnTensorDescriptor_t k = f->cxd; f->cxd = NULL; prnnStatus_t s = fwd_training(f); f->cxd = k; return s; }
static prnnStatus_t sru_cy_shape(fixture *f)
{ set_tensor3(f->cyd, PRNN_DATA_FLOAT, LAYERS * DIRS, MINI + 1, HIDDEN); return fwd_inference(f); }
static prnnStatus_t sru_dcx_hidden(fixture *f)
{ set_tensor3(f->dcxd, PRNN_DATA_FLOAT, LAYERS * DIRS, MINI, HIDDEN - 1); return bwd_data(f); }
static prnnStatus_t sru_hx_shape(fixture *f)
{ set_tensor3(f->hxd, PRNN_DATA_FLOAT, LAYERS, MINI, HIDDEN); return fwd_inference(f); }
static prnnStatus_t c_sru_matrix_id4(fixture *f) { (void)f; return on_sru(sru_matrix_id4); }
static prnnStatus_t c_sru_bias_id4(fixture *f) { (void)f; return on_sru(sru_bias_id4); }
static prnnStatus_t c_sru_cx_null(fixture *f) { (void)f; return on_sru(sru_cx_desc_null); }
static prnnStatus_t c_sru_cy_shape(fixture *f) { (void)f; return on_sru(sru_cy_shape); }
static prnnStatus_t c_sru_dcx_hidden(fixture *f) { (void)f; return on_sru(sru_dcx_hidden); }
static prnnStatus_t c_sru_hx_shape(fixture *f) { (void)f; return on_sru(sru_hx_shape); }
static prnnStatus_t c_sru_skip_input(fixture *f)
{
    (void)f;
    prnnRNNDescriptor_t r;
    prnnTensorDescriptor_t x;
    size_t bytes;
    prnnHandle_t h;
    prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE);
    prnnCreateRNNDescriptor(&r);
    prnnCreateTensorDescriptor(&x);
    prnnSetRNNDescriptor(r, HIDDEN, 1, NULL, PRNN_SKIP_INPUT, PRNN_UNIDIRECTIONAL,
                         PRNN_SRU, PRNN_DATA_FLOAT);
    set_tensor3(x, PRNN_DATA_FLOAT, 2, HIDDEN + 1, 1);
    prnnStatus_t s = prnnGetRNNParamsSize(h, r, x, &bytes, PRNN_DATA_FLOAT);
    prnnDestroyTensorDescriptor(x);
    prnnDestroyRNNDescriptor(r);
    prnnDestroy(h);
    return s;
}

static prnnStatus_t c_bwd_dy_null(fixture *f) { float *k = f->dy; f->dy = NULL; prnnStatus_t s = bwd_data(f); f->dy = k; return s; }
static prnnStatus_t c_bwd_dx_batch(fixture *f)
{ set_tensor3(f->dxd[2], PRNN_DATA_FLOAT, 3, INPUT, 1); return bwd_data(f); }
static prnnStatus_t c_bwd_dhx_shape(fixture *f)
{ set_tensor3(f->dhxd, PRNN_DATA_FLOAT, LAYERS * DIRS, MINI, HIDDEN + 1); return bwd_data(f); }
static prnnStatus_t c_bwd_dy_cols(fixture *f)
{ set_tensor3(f->dyd[2], PRNN_DATA_FLOAT, 2, HIDDEN * DIRS + 1, 1); return bwd_data(f); }
static prnnStatus_t c_bwd_rs_small(fixture *f) { f->rs_size -= 1; return bwd_data(f); }
static prnnStatus_t c_bwd_y_batch(fixture *f)
{ set_tensor3(f->yd[1], PRNN_DATA_FLOAT, 1, HIDDEN * DIRS, 1); return bwd_data(f); }
static prnnStatus_t c_bwd_dy_batch(fixture *f)
{ set_tensor3(f->dyd[1], PRNN_DATA_FLOAT, 1, HIDDEN * DIRS, 1); return bwd_data(f); }
static prnnStatus_t c_bwd_dhy_batch(fixture *f)
{ set_tensor3(f->dhyd, PRNN_DATA_FLOAT, LAYERS * DIRS, MINI - 1, HIDDEN); return bwd_data(f); }
static prnnStatus_t c_bwd_dcx_hidden(fixture *f)
{ set_tensor3(f->dcxd, PRNN_DATA_FLOAT, LAYERS * DIRS, MINI, HIDDEN - 1); return bwd_data(f); }
/* Every step's input size changed, consistently, so that dxDesc is valid on
 * its own and differs only from the forward call's xDesc. */
static prnnStatus_t wider_inputs(prnnTensorDescriptor_t *d)
{
    for (int t = 0; t < T_STEPS; t++)
        set_tensor3(d[t], PRNN_DATA_FLOAT, base_shape.batch[t], INPUT + 1, 1);
    return PRNN_STATUS_SUCCESS;
}
static prnnStatus_t c_bwd_dx_input_unlike_x(fixture *f)
{ wider_inputs(f->dxd); return bwd_data(f); }
static prnnStatus_t c_bwd_dx_batch_unlike_x(fixture *f)
{ set_tensor3(f->dxd[2], PRNN_DATA_FLOAT, 1, INPUT, 1); return bwd_data(f); }
static prnnStatus_t c_bww_x_input_unlike_fwd(fixture *f)
{ wider_inputs(f->xd); return bwd_weights(f); }
static prnnStatus_t c_bww_x_batch_unlike_fwd(fixture *f)
{ set_tensor3(f->xd[2], PRNN_DATA_FLOAT, 1, INPUT, 1); return bwd_weights(f); }
static prnnStatus_t c_bww_y_batch(fixture *f)
{ set_tensor3(f->yd[1], PRNN_DATA_FLOAT, 1, HIDDEN * DIRS, 1); return bwd_weights(f); }
static prnnStatus_t c_bww_dw_null(fixture *f) { float *k = f->dw; f->dw = NULL; prnnStatus_t s = bwd_weights(f); f->dw = k; return s; }
static prnnStatus_t c_bww_dw_size(fixture *f)
{ int d[3] = {(int)(f->w_size / 4) + 4, 1, 1}; prnnSetFilterNdDescriptor(f->dwd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, d); return bwd_weights(f); }
static prnnStatus_t c_bww_rs_small(fixture *f) { f->rs_size /= 2; return bwd_weights(f); }
static prnnStatus_t c_prepare_minibatch(fixture *f)
{ return prnnPrepareRNN(f->handle, f->rnn, 0, PRNN_DATA_FLOAT); }
static prnnStatus_t c_planinfo_struct_size(fixture *f)
{ prnnRNNPlanInfo_t info; memset(&info, 0, sizeof(info)); return prnnGetRNNPlanInfo(f->handle, f->rnn, 1, PRNN_DATA_FLOAT, &info); }
static prnnStatus_t c_planinfo_null(fixture *f)
{ return prnnGetRNNPlanInfo(f->handle, f->rnn, 1, PRNN_DATA_FLOAT, NULL); }

typedef struct {
    const char *name;
    case_fn fn;
    prnnStatus_t expected;
    const char *needle; /* must appear in the log */
} bad_case;

#define BAD PRNN_STATUS_BAD_PARAM
static const bad_case cases[] = {
    {"CreateTensorDescriptor(NULL)", c_create_tensor_null, BAD, "desc"},
    {"tensor nbDims 2", c_tensor_nbdims, BAD, "nbDims"},
    {"tensor zero dim", c_tensor_zero_dim, BAD, "dimA[1]"},
    {"tensor negative stride", c_tensor_neg_stride, BAD, "strideA[0]"},
    {"tensor bad dataType", c_tensor_dtype, BAD, "dataType"},
    {"tensor dimA NULL", c_tensor_dims_null, BAD, "dimA"},
    {"tensor get negative request", c_tensor_get_neg, BAD, "nbDimsRequested"},
    {"filter nbDims 0", c_filter_nbdims, BAD, "nbDims"},
    {"filter bad format", c_filter_format, BAD, "format"},
    {"destroy tensor as filter", c_filter_destroy_wrong_kind, BAD, "not a live"},
    {"dropout 1.0", c_dropout_one, BAD, "dropout"},
    {"dropout negative", c_dropout_neg, BAD, "dropout"},
    {"dropout NaN", c_dropout_nan, BAD, "dropout"},
    {"hiddenSize 0", c_rnn_hidden0, BAD, "hiddenSize"},
    {"hiddenSize negative", c_rnn_hidden_neg, BAD, "hiddenSize"},
    {"numLayers 0", c_rnn_layers0, BAD, "numLayers"},
    {"mode invalid", c_rnn_mode, BAD, "mode"},
    {"direction invalid", c_rnn_direction, BAD, "direction"},
    {"inputMode invalid", c_rnn_input_mode, BAD, "inputMode"},
    {"rnn dataType invalid", c_rnn_dtype, BAD, "dataType"},
    {"dropoutDesc never set", c_rnn_unset_dropout, BAD, "dropoutDesc"},
    {"tensor passed as rnnDesc", c_rnn_wrong_kind, BAD, "rnnDesc"},
    {"mathType invalid", c_rnn_math, BAD, "mathType"},
    {"backend invalid", c_handle_bad_backend, BAD, "backend"},
    {"SetStream NULL handle", c_set_stream_null_handle, BAD, "handle"},
    {"autotune mode invalid", c_autotune_mode, BAD, "mode"},
    {"forward NULL handle", c_fwd_null_handle, BAD, "handle"},
    {"forward rnnDesc never set", c_fwd_unset_rnn, BAD, "rnnDesc"},
    {"forward seqLength 0", c_fwd_seq0, BAD, "seqLength"},
    {"forward xDesc NULL", c_fwd_xdesc_null, BAD, "xDesc"},
    {"forward xDesc[1] NULL", c_fwd_xdesc_elem_null, BAD, "xDesc[1]"},
    {"forward batch increases", c_fwd_batch_increases, BAD, "must not increase"},
    {"forward inputSize varies", c_fwd_input_size_varies, BAD, "xDesc[1]"},
    {"forward x dtype mismatch", c_fwd_x_dtype, BAD, "xDesc[0]"},
    {"forward x not packed", c_fwd_x_strides, BAD, "packed"},
    {"forward x 4 dims", c_fwd_x_4d, BAD, "dimensions"},
    {"forward x never set", c_fwd_x_unset, BAD, "never set"},
    {"forward y columns", c_fwd_y_cols, BAD, "yDesc[0]"},
    {"forward y batch", c_fwd_y_batch, BAD, "yDesc[1]"},
    {"forward hx layers", c_fwd_hx_layers, BAD, "hxDesc"},
    {"forward hx batch", c_fwd_hx_batch, BAD, "hxDesc"},
    {"forward LSTM cxDesc NULL", c_fwd_cx_null_lstm, BAD, "cxDesc"},
    {"forward filter as hyDesc", c_fwd_hy_wrong_kind, BAD, "hyDesc"},
    {"forward w size", c_fwd_w_size, BAD, "wDesc"},
    {"forward w dtype", c_fwd_w_dtype, BAD, "wDesc"},
    {"forward x NULL", c_fwd_x_null, BAD, "x is NULL"},
    {"forward y NULL", c_fwd_y_null, BAD, "y is NULL"},
    {"forward w NULL", c_fwd_w_null, BAD, "w is NULL"},
    {"forward workspace small", c_fwd_ws_small, BAD, "workSpaceSizeInBytes"},
    {"training reserve small", c_trn_rs_small, BAD, "reserveSpaceSizeInBytes"},
    {"training reserve NULL", c_trn_rs_null, BAD, "reserveSpace is NULL"},
    {"forward y overlaps x", c_fwd_y_overlaps_x, BAD, "overlap"},
    {"forward hy is hx", c_fwd_hy_is_hx, BAD, "hy"},
    {"SKIP with inputSize != hidden", c_fwd_skip_input_size, BAD, "SKIP_INPUT"},
    {"params dataType mismatch", c_params_dtype, BAD, "dataType"},
    {"params size NULL", c_params_out_null, BAD, "sizeInBytes"},
    {"workspace size NULL", c_ws_out_null, BAD, "sizeInBytes"},
    {"linLayer pseudoLayer too large", c_lin_pseudo, BAD, "pseudoLayer"},
    {"linLayer pseudoLayer negative", c_lin_pseudo_neg, BAD, "pseudoLayer"},
    {"linLayerID too large", c_lin_id_high, BAD, "linLayerID"},
    {"linLayerID negative", c_lin_id_neg, BAD, "linLayerID"},
    {"linLayerMat NULL", c_lin_out_null, BAD, "linLayerMat"},
    {"linLayerBiasDesc NULL", c_lin_bias_desc_null, BAD, "linLayerBiasDesc"},
    {"backward dy NULL", c_bwd_dy_null, BAD, "dy is NULL"},
    {"backward dx batch increases", c_bwd_dx_batch, BAD, "dxDesc[2]"},
    {"backward dhx shape", c_bwd_dhx_shape, BAD, "dhxDesc"},
    {"backward dy columns", c_bwd_dy_cols, BAD, "dyDesc[2]"},
    {"backward reserve small", c_bwd_rs_small, BAD, "reserveSpaceSizeInBytes"},
    {"backward y batch", c_bwd_y_batch, BAD, "yDesc[1]"},
    {"backward dy batch", c_bwd_dy_batch, BAD, "dyDesc[1]"},
    {"backward dhy batch", c_bwd_dhy_batch, BAD, "dhyDesc"},
    {"backward dcx hidden", c_bwd_dcx_hidden, BAD, "dcxDesc"},
    {"backward dx inputSize unlike x", c_bwd_dx_input_unlike_x, BAD,
     "with inputSize 3, this call's dxDesc has inputSize 4"},
    {"backward dx batches unlike x", c_bwd_dx_batch_unlike_x, BAD,
     "this call's dxDesc has sum of batch sizes 6"},
    {"backward weights x inputSize", c_bww_x_input_unlike_fwd, BAD,
     "with inputSize 3, this call's xDesc has inputSize 4"},
    {"backward weights x batches", c_bww_x_batch_unlike_fwd, BAD,
     "this call's xDesc has sum of batch sizes 6"},
    {"backward weights y batch", c_bww_y_batch, BAD, "yDesc[1]"},
    {"backward weights dw NULL", c_bww_dw_null, BAD, "dw is NULL"},
    {"backward weights dw size", c_bww_dw_size, BAD, "dwDesc"},
    {"backward weights reserve small", c_bww_rs_small, BAD, "reserveSpaceSizeInBytes"},
    {"SRU matrix linLayerID 4", c_sru_matrix_id4, BAD, "must be in [0, 4) for mode sru"},
    {"SRU bias linLayerID 4", c_sru_bias_id4, BAD, "must be in [0, 4) for mode sru"},
    {"SRU forward cxDesc NULL", c_sru_cx_null, BAD, "cxDesc"},
    {"SRU forward cyDesc batch", c_sru_cy_shape, BAD, "cyDesc"},
    {"SRU backward dcxDesc hidden", c_sru_dcx_hidden, BAD, "dcxDesc"},
    {"SRU forward hxDesc layers", c_sru_hx_shape, BAD, "hxDesc"},
    {"SRU SKIP with inputSize != hidden", c_sru_skip_input, BAD, "SKIP_INPUT"},
    {"prepare miniBatch 0", c_prepare_minibatch, BAD, "miniBatch"},
    {"plan info structSize 0", c_planinfo_struct_size, BAD, "structSize"},
    {"plan info NULL", c_planinfo_null, BAD, "info"},
};
/* clang-format on */

int main(void)
{
    int n = (int)(sizeof(cases) / sizeof(cases[0]));
    for (int i = 0; i < n; i++) {
        fixture f;
        setup(&f);
        prnnStatus_t s = cases[i].fn(&f);
        const char *log = prnnGetLastErrorLog();
        EXPECT(s == cases[i].expected, "case \"%s\": got %s, expected %s; log: %s", cases[i].name,
               prnnGetErrorString(s), prnnGetErrorString(cases[i].expected), log);
        EXPECT(strstr(log, cases[i].needle) != NULL, "case \"%s\": log does not mention \"%s\": %s",
               cases[i].name, cases[i].needle, log);
        EXPECT(strstr(log, "prnn") == log, "case \"%s\": log does not start with the API name: %s",
               cases[i].name, log);
        printf("%-36s %-28s %s\n", cases[i].name, prnnGetErrorString(s), log);
        fixture_teardown(&f);
    }
    /* The unbroken fixture must pass every call: otherwise the cases above
     * could be failing for a reason other than the one they test. */
    fixture f;
    setup(&f);
    EXPECT_OK(fwd_inference(&f));
    EXPECT_OK(fwd_training(&f));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&f);
    fixture_setup(&f, &sru_shape);
    EXPECT_OK(fwd_inference(&f));
    EXPECT_OK(fwd_training(&f));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&f);
    printf("%d cases, %d failures\n", n, test_failures);
    return test_failures ? 1 : 0;
}
