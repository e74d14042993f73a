/*
 * The RNN entry points: size queries, weight addressing, planning and the
 * four compute calls. Each validates everything, then hands a resolved
 * prnn_rnn_problem to the handle's backend.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/gpu_backend.h"
#include "handle.h"
#include "ref/ref_rnn.h"
#include "reserve_registry.h"
#include "rnn_call.h"
#include "rnn_validate.h"
#include "weights_layout.h"

/* Where the API, as cuDNN v5 declares it, hands a const pointer that prnn
 * gives back or writes through: GetRNNLinLayer*Params return a pointer into
 * the const w for the caller to fill, and BackwardWeights' const workspace
 * is scratch space like every call's (undefined after the call). The one
 * place that drops the qualifier. */
static void *api_unconst(const void *p)
{
    return (void *)(uintptr_t)p;
}

/* ---- sizes ---- */

/* A size query: its arguments validated, then the call of `kind` resolved
 * (INFERENCE: its workspace; FORWARD_TRAINING: its reserve). */
static prnnStatus_t query_size(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                               int seqLength, const prnnTensorDescriptor_t *xDesc,
                               prnn_call_kind kind, size_t *sizeInBytes)
{
    prnn_rnn_problem p;
    PRNN_TRY(prnn_validate_rnn(handle, rnnDesc));
    PRNN_TRY(prnn_validate_ptr(sizeInBytes, "sizeInBytes"));
    PRNN_TRY(prnn_validate_input_seq(handle, rnnDesc, seqLength, xDesc, "xDesc", &p));
    prnn_resolved_call rc;
    PRNN_TRY(prnn_resolve_call(handle, &p, kind, &rc));
    *sizeInBytes = kind == PRNN_CALL_INFERENCE ? rc.workspace_bytes : rc.reserve_bytes;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNWorkspaceSize(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                     int seqLength, const prnnTensorDescriptor_t *xDesc,
                                     size_t *sizeInBytes)
{
    prnn_api_enter("prnnGetRNNWorkspaceSize");
    return query_size(handle, rnnDesc, seqLength, xDesc, PRNN_CALL_INFERENCE, sizeInBytes);
}

prnnStatus_t prnnGetRNNTrainingReserveSize(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                           int seqLength, const prnnTensorDescriptor_t *xDesc,
                                           size_t *sizeInBytes)
{
    prnn_api_enter("prnnGetRNNTrainingReserveSize");
    return query_size(handle, rnnDesc, seqLength, xDesc, PRNN_CALL_FORWARD_TRAINING, sizeInBytes);
}

static prnnStatus_t check_dtype_arg(const struct prnnRNNStruct *rnn, prnnDataType_t dataType)
{
    if (!prnn_dtype_valid(dataType))
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %d: not a prnnDataType_t",
                         (int)dataType);
    if (dataType != rnn->dtype)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "dataType = %s but rnnDesc has %s: they must agree",
                         prnn_dtype_name(dataType), prnn_dtype_name(rnn->dtype));
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNParamsSize(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                  const prnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
                                  prnnDataType_t dataType)
{
    prnn_api_enter("prnnGetRNNParamsSize");
    int input_size;
    PRNN_TRY(prnn_validate_rnn(handle, rnnDesc));
    PRNN_TRY(prnn_validate_ptr(sizeInBytes, "sizeInBytes"));
    PRNN_TRY(check_dtype_arg(rnnDesc, dataType));
    PRNN_TRY(prnn_validate_input_desc(rnnDesc, xDesc, "xDesc", &input_size));
    return prnn_validate_params_size(rnnDesc, input_size, sizeInBytes);
}

/* ---- weights ---- */

static void set_filter3(struct prnnFilterStruct *d, prnnDataType_t t, int a, int b, int c)
{
    d->dtype = t;
    d->format = PRNN_TENSOR_NCHW;
    d->nb_dims = 3;
    d->dims[0] = a;
    d->dims[1] = b;
    d->dims[2] = c;
    d->is_set = 1;
}

/* Both LinLayer calls: the checks, then where matrix (or, matrix 0, bias)
 * linLayerID of pseudo_layer lies in w, into out_desc and *out_ptr. */
static prnnStatus_t lin_layer_params(prnnHandle_t handle, const struct prnnRNNStruct *rnn,
                                     int pseudo_layer, const struct prnnTensorStruct *xDesc,
                                     const struct prnnFilterStruct *wDesc, const void *w,
                                     int lin_layer_id, struct prnnFilterStruct *out_desc,
                                     const char *out_desc_name, void **out_ptr,
                                     const char *out_ptr_name, int matrix)
{
    int input_size;
    PRNN_TRY(prnn_validate_rnn(handle, rnn));
    int pseudo_layers = rnn->layers * prnn_rnn_dirs(rnn);
    if (pseudo_layer < 0 || pseudo_layer >= pseudo_layers)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "pseudoLayer = %d: must be in [0, numLayers * directions = %d)",
                         pseudo_layer, pseudo_layers);
    PRNN_TRY(prnn_validate_input_desc(rnn, xDesc, "xDesc", &input_size));
    prnn_rnn_problem p = {rnn, input_size, 1, NULL, 1, 1, NULL};
    PRNN_TRY(prnn_validate_weights(&p, wDesc, "wDesc"));
    PRNN_TRY(prnn_validate_ptr(w, "w"));
    int ids = prnn_weights_lin_layer_ids(rnn);
    if (lin_layer_id < 0 || lin_layer_id >= ids)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "linLayerID = %d: must be in [0, %d) for mode %s",
                         lin_layer_id, ids, prnn_mode_name(rnn->mode));
    if (!out_desc)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s is NULL", out_desc_name);
    if (out_desc->magic != PRNN_MAGIC_FILTER)
        return prnn_fail(
            PRNN_STATUS_BAD_PARAM,
            "%s is not a live filter descriptor (create it with prnnCreateFilterDescriptor)",
            out_desc_name);
    PRNN_TRY(prnn_validate_ptr(out_ptr, out_ptr_name));
    size_t offset;
    int rows = rnn->hidden, cols = 1;
    if (!matrix) {
        offset = prnn_weights_bias(rnn, input_size, pseudo_layer, lin_layer_id);
    } else if (!prnn_weights_matrix(rnn, input_size, pseudo_layer, lin_layer_id, &offset, &rows,
                                    &cols)) {
        set_filter3(out_desc, rnn->dtype, 0, 0, 0);
        *out_ptr = NULL;
        return PRNN_STATUS_SUCCESS;
    }
    set_filter3(out_desc, rnn->dtype, 1, rows, cols);
    *out_ptr = (char *)api_unconst(w) + offset * prnn_dtype_size(rnn->dtype);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetRNNLinLayerMatrixParams(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                            int pseudoLayer, const prnnTensorDescriptor_t xDesc,
                                            const prnnFilterDescriptor_t wDesc, const void *w,
                                            int linLayerID, prnnFilterDescriptor_t linLayerMatDesc,
                                            void **linLayerMat)
{
    prnn_api_enter("prnnGetRNNLinLayerMatrixParams");
    return lin_layer_params(handle, rnnDesc, pseudoLayer, xDesc, wDesc, w, linLayerID,
                            linLayerMatDesc, "linLayerMatDesc", linLayerMat, "linLayerMat", 1);
}

prnnStatus_t prnnGetRNNLinLayerBiasParams(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                          int pseudoLayer, const prnnTensorDescriptor_t xDesc,
                                          const prnnFilterDescriptor_t wDesc, const void *w,
                                          int linLayerID, prnnFilterDescriptor_t linLayerBiasDesc,
                                          void **linLayerBias)
{
    prnn_api_enter("prnnGetRNNLinLayerBiasParams");
    return lin_layer_params(handle, rnnDesc, pseudoLayer, xDesc, wDesc, w, linLayerID,
                            linLayerBiasDesc, "linLayerBiasDesc", linLayerBias, "linLayerBias", 0);
}

/* ---- planning ---- */

/* Planning takes a descriptor of either family: a plan depends on settings
 * both have (a v8 descriptor's projection and clipping included). */
static prnnStatus_t check_plan_args(prnnHandle_t handle, const struct prnnRNNStruct *rnn,
                                    int mini_batch, prnnDataType_t dataType)
{
    PRNN_TRY(prnn_check_handle(handle));
    PRNN_TRY(prnn_check_rnn(rnn, "rnnDesc"));
    PRNN_TRY(check_dtype_arg(rnn, dataType));
    if (mini_batch < 1)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "miniBatch = %d: must be >= 1", mini_batch);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnPrepareRNN(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int miniBatch,
                            prnnDataType_t dataType)
{
    prnn_api_enter("prnnPrepareRNN");
    PRNN_TRY(check_plan_args(handle, rnnDesc, miniBatch, dataType));
    if (prnn_call_is_cpu(handle))
        return PRNN_STATUS_SUCCESS;
    prnn_gpu_call g = prnn_gpu_call_of(handle);
    return prnn_gpu_prepare(&g, rnnDesc, miniBatch);
}

prnnStatus_t prnnGetRNNPlanInfo(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                int miniBatch, prnnDataType_t dataType, prnnRNNPlanInfo_t *info)
{
    prnn_api_enter("prnnGetRNNPlanInfo");
    PRNN_TRY(check_plan_args(handle, rnnDesc, miniBatch, dataType));
    PRNN_TRY(prnn_validate_ptr(info, "info"));
    if (info->structSize < sizeof(size_t) + sizeof(prnnRNNPath_t))
        return prnn_fail(
            PRNN_STATUS_BAD_PARAM,
            "info->structSize = %zu: set it to sizeof(prnnRNNPlanInfo_t) before the call",
            info->structSize);
    if (prnn_call_is_cpu(handle)) {
        prnnRNNPlanInfo_t full = {0};
        full.structSize = info->structSize;
        full.path = PRNN_PATH_CPU_REFERENCE;
        full.configSource = PRNN_CONFIG_NONE;
        full.cubinSource = PRNN_CUBIN_NONE;
        full.residentFraction = 0.0;
        snprintf(full.config, sizeof(full.config), "cpu-reference");
        snprintf(full.device, sizeof(full.device), "host CPU");
        size_t n = info->structSize < sizeof(full) ? info->structSize : sizeof(full);
        memcpy(info, &full, n);
        return PRNN_STATUS_SUCCESS;
    }
    prnn_gpu_call g = prnn_gpu_call_of(handle);
    return prnn_gpu_plan_info(&g, rnnDesc, miniBatch, info);
}

/* ---- compute ---- */

/* The scratch buffers as this family names them (prnn_scratch_names). */
static const prnn_scratch_names scratch_names = {
    "workspace",    "workSpaceSizeInBytes",    "prnnGetRNNWorkspaceSize",
    "reserveSpace", "reserveSpaceSizeInBytes", "prnnGetRNNTrainingReserveSize"};

/* The checks ForwardInference and ForwardTraining share. */
static prnnStatus_t validate_forward(
    prnnHandle_t handle, const struct prnnRNNStruct *rnn, int seq_length,
    const prnnTensorDescriptor_t *xDesc, const void *x, const struct prnnTensorStruct *hxDesc,
    const void *hx, const struct prnnTensorStruct *cxDesc, const void *cx,
    const struct prnnFilterStruct *wDesc, const void *w, const prnnTensorDescriptor_t *yDesc,
    void *y, const struct prnnTensorStruct *hyDesc, void *hy, const struct prnnTensorStruct *cyDesc,
    void *cy, void *workspace, size_t workspace_size, int training, void *reserve,
    size_t reserve_size, prnn_rnn_problem *p, prnn_resolved_call *rc)
{
    PRNN_TRY(prnn_validate_rnn(handle, rnn));
    PRNN_TRY(prnn_validate_input_seq(handle, rnn, seq_length, xDesc, "xDesc", p));
    int cell = prnn_cell_traits(rnn->mode)->has_cell; /* cx, cy used */
    int out_cols = rnn->hidden * prnn_rnn_dirs(rnn);
    PRNN_TRY(prnn_validate_matching_seq(p, yDesc, "yDesc", out_cols));
    PRNN_TRY(prnn_validate_state(p, hxDesc, "hxDesc"));
    PRNN_TRY(prnn_validate_state(p, hyDesc, "hyDesc"));
    if (cell) {
        PRNN_TRY(prnn_validate_state(p, cxDesc, "cxDesc"));
        PRNN_TRY(prnn_validate_state(p, cyDesc, "cyDesc"));
    }
    PRNN_TRY(prnn_validate_weights(p, wDesc, "wDesc"));
    PRNN_TRY(prnn_validate_ptr(x, "x"));
    PRNN_TRY(prnn_validate_ptr(w, "w"));
    PRNN_TRY(prnn_validate_ptr(y, "y"));
    PRNN_TRY(prnn_resolve_compute_call(
        handle, p, training ? PRNN_CALL_FORWARD_TRAINING : PRNN_CALL_INFERENCE, &scratch_names,
        workspace, workspace_size, reserve, reserve_size, rc));
    size_t st = prnn_bytes_state(p);
    prnn_buffer outs[] = {
        {"y", y, prnn_bytes_seq(p, out_cols)},
        {"hy", hy, st},
        {"cy", cell ? cy : NULL, st},
        {"workspace", workspace, workspace_size},
        {"reserveSpace", training ? reserve : NULL, reserve_size},
    };
    prnn_buffer ins[] = {
        {"x", x, prnn_bytes_seq(p, p->input_size)},
        {"hx", hx, st},
        {"cx", cell ? cx : NULL, st},
        {"w", w, prnn_weights_bytes(rnn, p->input_size)},
    };
    return prnn_validate_no_overlap(outs, 5, ins, 4);
}

static prnnStatus_t run_forward(prnnHandle_t handle, const prnn_rnn_problem *p,
                                prnn_resolved_call *rc, int training, const prnn_forward_buffers *b)
{
    if (prnn_call_is_cpu(handle))
        return prnn_ref_forward(p, training, b->x, b->hx, b->cx, b->w, b->y, b->hy, b->cy,
                                b->workspace, b->reserve);
    return prnn_run_gpu(handle, rc, b, b->workspace);
}

prnnStatus_t prnnRNNForwardInference(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                     int seqLength, const prnnTensorDescriptor_t *xDesc,
                                     const void *x, const prnnTensorDescriptor_t hxDesc,
                                     const void *hx, const prnnTensorDescriptor_t cxDesc,
                                     const void *cx, const prnnFilterDescriptor_t wDesc,
                                     const void *w, const prnnTensorDescriptor_t *yDesc, void *y,
                                     const prnnTensorDescriptor_t hyDesc, void *hy,
                                     const prnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                                     size_t workSpaceSizeInBytes)
{
    prnn_api_enter("prnnRNNForwardInference");
    prnn_rnn_problem p;
    prnn_resolved_call rc;
    PRNN_TRY(validate_forward(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc,
                              w, yDesc, y, hyDesc, hy, cyDesc, cy, workspace, workSpaceSizeInBytes,
                              0, NULL, 0, &p, &rc));
    int cell = prnn_cell_traits(rnnDesc->mode)->has_cell; /* cx, cy used */
    prnn_forward_buffers b = {
        x,    hx, cell ? cx : NULL, w, y, hy, cell ? cy : NULL, workspace, workSpaceSizeInBytes,
        NULL, 0};
    return run_forward(handle, &p, &rc, 0, &b);
}

prnnStatus_t prnnRNNForwardTraining(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                    int seqLength, const prnnTensorDescriptor_t *xDesc,
                                    const void *x, const prnnTensorDescriptor_t hxDesc,
                                    const void *hx, const prnnTensorDescriptor_t cxDesc,
                                    const void *cx, const prnnFilterDescriptor_t wDesc,
                                    const void *w, const prnnTensorDescriptor_t *yDesc, void *y,
                                    const prnnTensorDescriptor_t hyDesc, void *hy,
                                    const prnnTensorDescriptor_t cyDesc, void *cy, void *workspace,
                                    size_t workSpaceSizeInBytes, void *reserveSpace,
                                    size_t reserveSpaceSizeInBytes)
{
    prnn_api_enter("prnnRNNForwardTraining");
    prnn_rnn_problem p;
    prnn_resolved_call rc;
    PRNN_TRY(validate_forward(handle, rnnDesc, seqLength, xDesc, x, hxDesc, hx, cxDesc, cx, wDesc,
                              w, yDesc, y, hyDesc, hy, cyDesc, cy, workspace, workSpaceSizeInBytes,
                              1, reserveSpace, reserveSpaceSizeInBytes, &p, &rc));
    int cell = prnn_cell_traits(rnnDesc->mode)->has_cell; /* cx, cy used */
    prnn_forward_buffers b = {x,
                              hx,
                              cell ? cx : NULL,
                              w,
                              y,
                              hy,
                              cell ? cy : NULL,
                              workspace,
                              workSpaceSizeInBytes,
                              reserveSpace,
                              reserveSpaceSizeInBytes};
    prnnStatus_t s = run_forward(handle, &p, &rc, 1, &b);
    /* Only a forward pass that ran is recorded: a failing call leaves the
     * registry (and an earlier record of this reserve) as it was. */
    if (s == PRNN_STATUS_SUCCESS) {
        prnn_reserve_shape shape;
        prnn_reserve_shape_of(&p, handle->backend, &shape);
        prnn_reserve_record_forward(reserveSpace, reserveSpaceSizeInBytes, &shape);
    }
    return s;
}

static prnnStatus_t run_backward_data(prnnHandle_t handle, const prnn_rnn_problem *p,
                                      prnn_resolved_call *rc, const prnn_backward_data_buffers *b)
{
    if (prnn_call_is_cpu(handle))
        return prnn_ref_backward_data(p, b->y, b->dy, b->dhy, b->dcy, b->w, b->hx, b->cx, b->dx,
                                      b->dhx, b->dcx, b->workspace, b->reserve);
    return prnn_run_gpu(handle, rc, b, b->workspace);
}

/* The reserve of a backward call: filled by ForwardTraining for this problem
 * on this backend, and at least at `stage` (see reserve_registry.h). */
static prnnStatus_t check_reserve(const struct prnnContext *h, const prnn_rnn_problem *p,
                                  const void *reserve, const char *input_name,
                                  prnn_reserve_stage stage, uint64_t *serial)
{
    prnn_reserve_shape shape;
    prnn_reserve_shape_of(p, h->backend, &shape);
    return prnn_reserve_check(reserve, &shape, input_name, stage, serial);
}

prnnStatus_t prnnRNNBackwardData(
    prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc, int seqLength,
    const prnnTensorDescriptor_t *yDesc, const void *y, const prnnTensorDescriptor_t *dyDesc,
    const void *dy, const prnnTensorDescriptor_t dhyDesc, const void *dhy,
    const prnnTensorDescriptor_t dcyDesc, const void *dcy, const prnnFilterDescriptor_t wDesc,
    const void *w, const prnnTensorDescriptor_t hxDesc, const void *hx,
    const prnnTensorDescriptor_t cxDesc, const void *cx, const prnnTensorDescriptor_t *dxDesc,
    void *dx, const prnnTensorDescriptor_t dhxDesc, void *dhx, const prnnTensorDescriptor_t dcxDesc,
    void *dcx, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes)
{
    prnn_api_enter("prnnRNNBackwardData");
    prnn_rnn_problem p;
    PRNN_TRY(prnn_validate_rnn(handle, rnnDesc));
    /* dx has the input's shape: it defines the batches and the input size. */
    PRNN_TRY(prnn_validate_input_seq(handle, rnnDesc, seqLength, dxDesc, "dxDesc", &p));
    /* The reserve before the other arguments: the registry knows what the
     * forward call saw, so a dxDesc unlike the forward's xDesc is reported as
     * that, not as a yDesc or wDesc that disagrees with dxDesc. */
    uint64_t serial;
    PRNN_TRY(check_reserve(handle, &p, reserveSpace, "dxDesc", PRNN_RESERVE_FORWARD_DONE, &serial));
    int cell = prnn_cell_traits(rnnDesc->mode)->has_cell; /* cx, cy used */
    int out_cols = rnnDesc->hidden * prnn_rnn_dirs(rnnDesc);
    PRNN_TRY(prnn_validate_matching_seq(&p, yDesc, "yDesc", out_cols));
    PRNN_TRY(prnn_validate_matching_seq(&p, dyDesc, "dyDesc", out_cols));
    PRNN_TRY(prnn_validate_state(&p, dhyDesc, "dhyDesc"));
    PRNN_TRY(prnn_validate_state(&p, hxDesc, "hxDesc"));
    PRNN_TRY(prnn_validate_state(&p, dhxDesc, "dhxDesc"));
    if (cell) {
        PRNN_TRY(prnn_validate_state(&p, dcyDesc, "dcyDesc"));
        PRNN_TRY(prnn_validate_state(&p, cxDesc, "cxDesc"));
        PRNN_TRY(prnn_validate_state(&p, dcxDesc, "dcxDesc"));
    }
    PRNN_TRY(prnn_validate_weights(&p, wDesc, "wDesc"));
    PRNN_TRY(prnn_validate_ptr(y, "y"));
    PRNN_TRY(prnn_validate_ptr(dy, "dy"));
    PRNN_TRY(prnn_validate_ptr(w, "w"));
    prnn_resolved_call rc;
    PRNN_TRY(prnn_resolve_compute_call(handle, &p, PRNN_CALL_BACKWARD_DATA, &scratch_names,
                                       workspace, workSpaceSizeInBytes, reserveSpace,
                                       reserveSpaceSizeInBytes, &rc));
    size_t st = prnn_bytes_state(&p);
    prnn_buffer outs[] = {
        {"dx", dx, prnn_bytes_seq(&p, p.input_size)},
        {"dhx", dhx, st},
        {"dcx", cell ? dcx : NULL, st},
        {"workspace", workspace, workSpaceSizeInBytes},
    };
    prnn_buffer ins[] = {
        {"y", y, prnn_bytes_seq(&p, out_cols)},
        {"dy", dy, prnn_bytes_seq(&p, out_cols)},
        {"dhy", dhy, st},
        {"dcy", cell ? dcy : NULL, st},
        {"w", w, prnn_weights_bytes(rnnDesc, p.input_size)},
        {"hx", hx, st},
        {"cx", cell ? cx : NULL, st},
        {"reserveSpace", reserveSpace, reserveSpaceSizeInBytes},
    };
    PRNN_TRY(prnn_validate_no_overlap(outs, 4, ins, 8));
    prnn_backward_data_buffers b = {y,
                                    dy,
                                    dhy,
                                    cell ? dcy : NULL,
                                    w,
                                    hx,
                                    cell ? cx : NULL,
                                    dx,
                                    dhx,
                                    cell ? dcx : NULL,
                                    workspace,
                                    workSpaceSizeInBytes,
                                    reserveSpace,
                                    reserveSpaceSizeInBytes};
    prnnStatus_t s = run_backward_data(handle, &p, &rc, &b);
    if (s == PRNN_STATUS_SUCCESS)
        prnn_reserve_record_backward_data(reserveSpace, serial);
    return s;
}

prnnStatus_t prnnRNNBackwardWeights(prnnHandle_t handle, const prnnRNNDescriptor_t rnnDesc,
                                    int seqLength, const prnnTensorDescriptor_t *xDesc,
                                    const void *x, const prnnTensorDescriptor_t hxDesc,
                                    const void *hx, const prnnTensorDescriptor_t *yDesc,
                                    const void *y, const void *workspace,
                                    size_t workSpaceSizeInBytes,
                                    const prnnFilterDescriptor_t dwDesc, void *dw,
                                    const void *reserveSpace, size_t reserveSpaceSizeInBytes)
{
    prnn_api_enter("prnnRNNBackwardWeights");
    prnn_rnn_problem p;
    PRNN_TRY(prnn_validate_rnn(handle, rnnDesc));
    PRNN_TRY(prnn_validate_input_seq(handle, rnnDesc, seqLength, xDesc, "xDesc", &p));
    PRNN_TRY(
        check_reserve(handle, &p, reserveSpace, "xDesc", PRNN_RESERVE_BACKWARD_DATA_DONE, NULL));
    int out_cols = rnnDesc->hidden * prnn_rnn_dirs(rnnDesc);
    PRNN_TRY(prnn_validate_state(&p, hxDesc, "hxDesc"));
    PRNN_TRY(prnn_validate_matching_seq(&p, yDesc, "yDesc", out_cols));
    PRNN_TRY(prnn_validate_weights(&p, dwDesc, "dwDesc"));
    PRNN_TRY(prnn_validate_ptr(x, "x"));
    PRNN_TRY(prnn_validate_ptr(y, "y"));
    PRNN_TRY(prnn_validate_ptr(dw, "dw"));
    prnn_resolved_call rc;
    PRNN_TRY(prnn_resolve_compute_call(handle, &p, PRNN_CALL_BACKWARD_WEIGHTS, &scratch_names,
                                       workspace, workSpaceSizeInBytes, reserveSpace,
                                       reserveSpaceSizeInBytes, &rc));
    size_t st = prnn_bytes_state(&p);
    prnn_buffer outs[] = {
        {"dw", dw, prnn_weights_bytes(rnnDesc, p.input_size)},
        {"workspace", workspace, workSpaceSizeInBytes},
    };
    prnn_buffer ins[] = {
        {"x", x, prnn_bytes_seq(&p, p.input_size)},
        {"hx", hx, st},
        {"y", y, prnn_bytes_seq(&p, out_cols)},
        {"reserveSpace", reserveSpace, reserveSpaceSizeInBytes},
    };
    PRNN_TRY(prnn_validate_no_overlap(outs, 2, ins, 4));
    void *ws = api_unconst(workspace);
    if (prnn_call_is_cpu(handle))
        return prnn_ref_backward_weights(&p, x, hx, y, ws, dw, reserveSpace);
    prnn_backward_weights_buffers b = {
        x, hx, y, ws, workSpaceSizeInBytes, dw, reserveSpace, reserveSpaceSizeInBytes};
    return prnn_run_gpu(handle, &rc, &b, ws);
}
