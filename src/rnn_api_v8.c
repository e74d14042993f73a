/*
 * The cuDNN 8/9-shaped entry points: the weight space and temporary space
 * queries, prnnGetRNNWeightParams and the three compute calls. Each
 * validates everything, resolves the data descriptors into the packed view
 * the backends work on (rnn_problem.h: per-step batch sizes, and for the
 * unpacked layouts which caller row each packed row is), and hands the
 * problem to the CPU reference or to the GPU engines (an unpacked layout
 * through packed copies; a projection on the standard engine).
 */
#include <stdint.h>
#include <string.h>

#include "checked_size.h"
#include "dtype.h"
#include "error.h"
#include "ref/ref_rnn.h"
#include "reserve_registry.h"
#include "rnn_call.h"
#include "rnn_validate.h"
#include "weights_layout.h"

/* A call's problem and the caller's layout it reads and writes. */
typedef struct {
    prnn_rnn_problem p;
    prnn_seq_io io;
} v8_problem;

static const char *layout_name(prnnRNNDataLayout_t l)
{
    switch (l) {
    case PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED: return "PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED";
    case PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED: return "PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED";
    case PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED:
        return "PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED";
    }
    return "invalid";
}

static prnnStatus_t check_rnn(const struct prnnContext *h, const struct prnnRNNStruct *rnn)
{
    PRNN_TRY(prnn_check_handle(h));
    return prnn_check_rnn_v8(rnn);
}

/* A data descriptor of the RNN's type with `vector` columns (what calls
 * them: "inputSize"), in a layout the descriptor's auxFlags allow. */
static prnnStatus_t check_data_desc(const struct prnnRNNStruct *rnn,
                                    const struct prnnRNNDataStruct *d, const char *name, int vector,
                                    const char *what)
{
    PRNN_TRY(prnn_check_rnn_data(d, name));
    if (d->dtype != rnn->dtype)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s has data type %s but rnnDesc has %s: they must agree", name,
                         prnn_dtype_name(d->dtype), prnn_dtype_name(rnn->dtype));
    if (d->vector != vector)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s: vectorSize = %d but %s = %d", name, d->vector,
                         what, vector);
    if (d->layout != PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED &&
        !(rnn->aux_flags & PRNN_RNN_PADDED_IO_ENABLED))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s: layout %s needs PRNN_RNN_PADDED_IO_ENABLED in rnnDesc's auxFlags "
                         "(prnnSetRNNDescriptor_v8)",
                         name, layout_name(d->layout));
    return PRNN_STATUS_SUCCESS;
}

/* Whether the caller's buffers hold exactly the packed layout: no padding
 * to skip or fill, sequence b at row b of every step. rows: the sum of
 * d's lengths (batch * maxSeqLength exactly when every length is
 * maxSeqLength, none being above it). */
static int is_packed_view(const struct prnnRNNDataStruct *d, size_t rows)
{
    if (d->layout == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return 1;
    if (rows != (size_t)d->batch * (size_t)d->max_seq)
        return 0;
    return d->layout == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED || d->batch == 1 || d->max_seq == 1;
}

/*
 * The problem of input descriptor xd: T = the longest sequence; batch[t] =
 * the sequences longer than t; order = the sequences by decreasing length,
 * stably (a counting sort: next[L - 1] is where the next sequence of length
 * L goes). The arrays live in the handle's scratch.
 */
static prnnStatus_t build_problem(struct prnnContext *h, const struct prnnRNNStruct *rnn,
                                  const struct prnnRNNDataStruct *xd, const char *name,
                                  v8_problem *q)
{
    PRNN_TRY(check_data_desc(rnn, xd, name, rnn->input_size, "rnnDesc's inputSize"));
    int steps = 0, nb = xd->batch;
    for (int b = 0; b < nb; b++)
        steps = xd->lengths[b] > steps ? xd->lengths[b] : steps;
    size_t n = prnn_add_size(prnn_mul_size(2, (size_t)steps), (size_t)nb);
    int *scratch = prnn_handle_batch_scratch(h, n);
    if (!scratch)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory for %zu lengths", n);
    int *batch = scratch, *next = scratch + steps, *order = scratch + 2 * steps;
    memset(batch, 0, (size_t)steps * sizeof(int));
    for (int b = 0; b < nb; b++)
        batch[xd->lengths[b] - 1]++;
    for (int t = steps - 1; t > 0; t--)
        batch[t - 1] += batch[t];
    for (int t = 0; t < steps; t++)
        next[t] = t + 1 < steps ? batch[t + 1] : 0;
    size_t rows = 0;
    for (int b = 0; b < nb; b++) {
        order[next[xd->lengths[b] - 1]++] = b;
        rows += (size_t)xd->lengths[b];
    }
    q->io.layout = xd->layout;
    q->io.max_seq = xd->max_seq;
    q->io.batch = nb;
    q->io.lengths = xd->lengths;
    q->io.order = order;
    q->io.y_fill = q->io.x_fill = NULL;
    prnn_rnn_problem p = {
        rnn, rnn->input_size, steps, batch, nb, rows, is_packed_view(xd, rows) ? NULL : &q->io};
    q->p = p;
    return PRNN_STATUS_SUCCESS;
}

/* yd (or dyDesc) describes the same sequences as xd, with the output's
 * width. */
static prnnStatus_t check_output_desc(const struct prnnRNNStruct *rnn,
                                      const struct prnnRNNDataStruct *xd,
                                      const struct prnnRNNDataStruct *yd, const char *name)
{
    int cols = prnn_rnn_dirs(rnn) * prnn_rnn_out_width(rnn);
    PRNN_TRY(check_data_desc(rnn, yd, name, cols, "numDirections * projSize"));
    if (yd->layout != xd->layout)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s: layout %s but xDesc has %s: they must agree",
                         name, layout_name(yd->layout), layout_name(xd->layout));
    if (yd->max_seq != xd->max_seq || yd->batch != xd->batch)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "%s: maxSeqLength = %d, batchSize = %d but xDesc has %d, %d: they must "
                         "agree",
                         name, yd->max_seq, yd->batch, xd->max_seq, xd->batch);
    for (int b = 0; b < xd->batch; b++)
        if (yd->lengths[b] != xd->lengths[b])
            return prnn_fail(PRNN_STATUS_BAD_PARAM,
                             "%s: seqLengthArray[%d] = %d but xDesc's is %d: they must agree", name,
                             b, yd->lengths[b], xd->lengths[b]);
    return PRNN_STATUS_SUCCESS;
}

/* hDesc, and cDesc for the modes with a cell state. */
static prnnStatus_t check_states(const prnn_rnn_problem *p, const struct prnnTensorStruct *hd,
                                 const struct prnnTensorStruct *cd)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    PRNN_TRY(prnn_validate_state_width(p, hd, "hDesc", prnn_rnn_out_width(rnn), "batchSize",
                                       rnn->proj ? "projSize" : "hiddenSize"));
    if (prnn_cell_traits(rnn->mode)->has_cell)
        PRNN_TRY(prnn_validate_state_width(p, cd, "cDesc", rnn->hidden, "batchSize", "hiddenSize"));
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t check_weight_space(const struct prnnRNNStruct *rnn, size_t size,
                                       const void *ptr, const char *name, size_t *bytes)
{
    PRNN_TRY(prnn_validate_params_size(rnn, rnn->input_size, bytes));
    if (size < *bytes)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "weightSpaceSize = %zu bytes is too small: prnnGetRNNWeightSpaceSize "
                         "gives %zu",
                         size, *bytes);
    return prnn_validate_ptr(ptr, name);
}

/* Bytes of a data buffer of xd's sequences with `cols` columns. */
static size_t data_bytes(const prnn_rnn_problem *p, const struct prnnRNNDataStruct *d, int cols)
{
    if (!p->io)
        return prnn_bytes_seq(p, cols);
    return prnn_mul4_size((size_t)d->max_seq, (size_t)d->batch, (size_t)cols,
                          prnn_dtype_size(p->rnn->dtype));
}

static size_t state_bytes(const prnn_rnn_problem *p, int width)
{
    const struct prnnRNNStruct *r = p->rnn;
    return prnn_mul_size(prnn_mul4_size((size_t)r->layers, (size_t)prnn_rnn_dirs(r),
                                        (size_t)p->mini_batch, (size_t)width),
                         prnn_dtype_size(r->dtype));
}

static prnnStatus_t check_reserve(const struct prnnContext *h, const prnn_rnn_problem *p,
                                  const void *reserve, prnn_reserve_stage stage, uint64_t *serial)
{
    prnn_reserve_shape shape;
    prnn_reserve_shape_of(p, h->backend, &shape);
    return prnn_reserve_check(reserve, &shape, "xDesc", stage, serial);
}

/* The scratch buffers as this family names them (prnn_scratch_names). */
static const prnn_scratch_names scratch_names = {
    "workSpace",    "workSpaceSize",    "prnnGetRNNTempSpaceSizes",
    "reserveSpace", "reserveSpaceSize", "prnnGetRNNTempSpaceSizes (training)"};

/* The end of a compute call's checks: the call of `kind` resolved into rc
 * and the caller's temporary space checked against it. */
static prnnStatus_t resolve_and_check_temp(struct prnnContext *h, const v8_problem *q,
                                           prnn_call_kind kind, const void *ws, size_t ws_size,
                                           const void *reserve, size_t reserve_size,
                                           prnn_resolved_call *rc)
{
    return prnn_resolve_compute_call(h, &q->p, kind, &scratch_names, ws, ws_size, reserve,
                                     reserve_size, rc);
}

/* yDesc, hDesc and cDesc of a call with all three, and its weight space
 * (bytes: the size it needs). */
static prnnStatus_t check_io(const prnn_rnn_problem *p, const struct prnnRNNDataStruct *xd,
                             const struct prnnRNNDataStruct *yd, const struct prnnTensorStruct *hd,
                             const struct prnnTensorStruct *cd, size_t w_size, const void *w,
                             size_t *bytes)
{
    PRNN_TRY(check_output_desc(p->rnn, xd, yd, "yDesc"));
    PRNN_TRY(check_states(p, hd, cd));
    return check_weight_space(p->rnn, w_size, w, "weightSpace", bytes);
}

/* ---- sizes and weights ---- */

prnnStatus_t prnnGetRNNWeightSpaceSize(prnnHandle_t handle, prnnRNNDescriptor_t rnnDesc,
                                       size_t *weightSpaceSize)
{
    prnn_api_enter("prnnGetRNNWeightSpaceSize");
    PRNN_TRY(check_rnn(handle, rnnDesc));
    PRNN_TRY(prnn_validate_ptr(weightSpaceSize, "weightSpaceSize"));
    return prnn_validate_params_size(rnnDesc, rnnDesc->input_size, weightSpaceSize);
}

prnnStatus_t prnnGetRNNTempSpaceSizes(prnnHandle_t handle, prnnRNNDescriptor_t rnnDesc,
                                      prnnForwardMode_t fwdMode, prnnRNNDataDescriptor_t xDesc,
                                      size_t *workSpaceSize, size_t *reserveSpaceSize)
{
    prnn_api_enter("prnnGetRNNTempSpaceSizes");
    PRNN_TRY(check_rnn(handle, rnnDesc));
    if (fwdMode != PRNN_FWD_MODE_INFERENCE && fwdMode != PRNN_FWD_MODE_TRAINING)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "fwdMode = %d: not a prnnForwardMode_t",
                         (int)fwdMode);
    v8_problem q;
    PRNN_TRY(build_problem(handle, rnnDesc, xDesc, "xDesc", &q));
    int training = fwdMode == PRNN_FWD_MODE_TRAINING;
    prnn_resolved_call rc;
    PRNN_TRY(prnn_resolve_call(handle, &q.p,
                               training ? PRNN_CALL_FORWARD_TRAINING : PRNN_CALL_INFERENCE, &rc));
    if (workSpaceSize)
        *workSpaceSize = rc.workspace_bytes;
    if (reserveSpaceSize)
        *reserveSpaceSize = training ? rc.reserve_bytes : 0;
    return PRNN_STATUS_SUCCESS;
}

/* Sets a tensor descriptor the caller created to {1, rows, cols}, packed
 * ({0, 0, 0} for an absent matrix or bias). */
static void set_tensor3(struct prnnTensorStruct *d, prnnDataType_t t, int rows, int cols)
{
    int present = rows > 0;
    d->dtype = t;
    d->nb_dims = 3;
    d->dims[0] = present;
    d->dims[1] = rows;
    d->dims[2] = cols;
    d->strides[0] = present ? rows * cols : 0;
    d->strides[1] = present ? cols : 0;
    d->strides[2] = present;
    d->is_set = 1;
}

/* Either both of a descriptor and address pair, or neither. */
static prnnStatus_t check_out_pair(const struct prnnTensorStruct *d, void **addr,
                                   const char *d_name, const char *addr_name)
{
    if (!d && !addr)
        return PRNN_STATUS_SUCCESS;
    if (!d || !addr)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "%s is NULL but %s is not: pass both or neither",
                         d ? addr_name : d_name, d ? d_name : addr_name);
    return prnn_desc_check_kind(d, PRNN_MAGIC_TENSOR, d_name, "tensor");
}

prnnStatus_t prnnGetRNNWeightParams(prnnHandle_t handle, prnnRNNDescriptor_t rnnDesc,
                                    int pseudoLayer, size_t weightSpaceSize,
                                    const void *weightSpace, int linLayerID,
                                    prnnTensorDescriptor_t mDesc, void **mAddr,
                                    prnnTensorDescriptor_t bDesc, void **bAddr)
{
    prnn_api_enter("prnnGetRNNWeightParams");
    const struct prnnRNNStruct *rnn = rnnDesc;
    PRNN_TRY(check_rnn(handle, rnn));
    int pseudo_layers = rnn->layers * prnn_rnn_dirs(rnn);
    if (pseudoLayer < 0 || pseudoLayer >= pseudo_layers)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "pseudoLayer = %d: must be in [0, numLayers * directions = %d)",
                         pseudoLayer, pseudo_layers);
    int ids = prnn_weights_lin_layer_ids(rnn);
    if (linLayerID < 0 || linLayerID >= ids)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "linLayerID = %d: must be in [0, %d) for mode %s%s",
                         linLayerID, ids, prnn_mode_name(rnn->mode),
                         rnn->proj ? " with a projection" : "");
    size_t bytes;
    PRNN_TRY(check_weight_space(rnn, weightSpaceSize, weightSpace, "weightSpace", &bytes));
    PRNN_TRY(check_out_pair(mDesc, mAddr, "mDesc", "mAddr"));
    PRNN_TRY(check_out_pair(bDesc, bAddr, "bDesc", "bAddr"));
    size_t es = prnn_dtype_size(rnn->dtype);
    char *base = (char *)(uintptr_t)weightSpace; /* returned for the caller to fill */
    if (mDesc) {
        size_t off;
        int rows, cols;
        if (prnn_weights_matrix(rnn, rnn->input_size, pseudoLayer, linLayerID, &off, &rows,
                                &cols)) {
            set_tensor3(mDesc, rnn->dtype, rows, cols);
            *mAddr = base + off * es;
        } else {
            set_tensor3(mDesc, rnn->dtype, 0, 0);
            *mAddr = NULL;
        }
    }
    if (bDesc) {
        size_t off = prnn_weights_bias(rnn, rnn->input_size, pseudoLayer, linLayerID);
        set_tensor3(bDesc, rnn->dtype, off == (size_t)-1 ? 0 : rnn->hidden, 1);
        *bAddr = off == (size_t)-1 ? NULL : base + off * es;
    }
    return PRNN_STATUS_SUCCESS;
}

/* ---- compute ---- */

prnnStatus_t prnnRNNForward(prnnHandle_t handle, prnnRNNDescriptor_t rnnDesc,
                            prnnForwardMode_t fwdMode, const int devSeqLengths[],
                            prnnRNNDataDescriptor_t xDesc, const void *x,
                            prnnRNNDataDescriptor_t yDesc, void *y, prnnTensorDescriptor_t hDesc,
                            const void *hx, void *hy, prnnTensorDescriptor_t cDesc, const void *cx,
                            void *cy, size_t weightSpaceSize, const void *weightSpace,
                            size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                            void *reserveSpace)
{
    prnn_api_enter("prnnRNNForward");
    (void)devSeqLengths; /* the lengths come from xDesc, on the host */
    PRNN_TRY(check_rnn(handle, rnnDesc));
    if (fwdMode != PRNN_FWD_MODE_INFERENCE && fwdMode != PRNN_FWD_MODE_TRAINING)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "fwdMode = %d: not a prnnForwardMode_t",
                         (int)fwdMode);
    const int training = fwdMode == PRNN_FWD_MODE_TRAINING;
    v8_problem q;
    const prnn_rnn_problem *p = &q.p;
    PRNN_TRY(build_problem(handle, rnnDesc, xDesc, "xDesc", &q));
    size_t wbytes;
    PRNN_TRY(check_io(p, xDesc, yDesc, hDesc, cDesc, weightSpaceSize, weightSpace, &wbytes));
    PRNN_TRY(prnn_validate_ptr(x, "x"));
    PRNN_TRY(prnn_validate_ptr(y, "y"));
    prnn_resolved_call rc;
    PRNN_TRY(resolve_and_check_temp(handle, &q,
                                    training ? PRNN_CALL_FORWARD_TRAINING : PRNN_CALL_INFERENCE,
                                    workSpace, workSpaceSize, reserveSpace, reserveSpaceSize, &rc));
    int cell = prnn_cell_traits(rnnDesc->mode)->has_cell;
    int out_cols = yDesc->vector;
    size_t hs = state_bytes(p, prnn_rnn_out_width(rnnDesc)), cs = state_bytes(p, rnnDesc->hidden);
    prnn_buffer outs[] = {
        {"y", y, data_bytes(p, yDesc, out_cols)},
        {"hy", hy, hs},
        {"cy", cell ? cy : NULL, cs},
        {"workSpace", workSpace, workSpaceSize},
        {"reserveSpace", training ? reserveSpace : NULL, reserveSpaceSize},
    };
    prnn_buffer ins[] = {
        {"x", x, data_bytes(p, xDesc, p->input_size)},
        {"hx", hx, hs},
        {"cx", cell ? cx : NULL, cs},
        {"weightSpace", weightSpace, wbytes},
    };
    PRNN_TRY(prnn_validate_no_overlap(outs, 5, ins, 4));
    q.io.y_fill = yDesc->has_fill ? yDesc->fill : NULL;
    prnnStatus_t s;
    if (prnn_call_is_cpu(handle)) {
        s = prnn_ref_forward(p, training, x, hx, cell ? cx : NULL, weightSpace, y, hy,
                             cell ? cy : NULL, workSpace, training ? reserveSpace : NULL);
    } else {
        prnn_forward_buffers b = {x,
                                  hx,
                                  cell ? cx : NULL,
                                  weightSpace,
                                  y,
                                  hy,
                                  cell ? cy : NULL,
                                  workSpace,
                                  workSpaceSize,
                                  training ? reserveSpace : NULL,
                                  training ? reserveSpaceSize : 0};
        s = prnn_run_gpu(handle, &rc, &b, workSpace);
    }
    if (s == PRNN_STATUS_SUCCESS && training) {
        prnn_reserve_shape shape;
        prnn_reserve_shape_of(p, handle->backend, &shape);
        prnn_reserve_record_forward(reserveSpace, reserveSpaceSize, &shape);
    }
    return s;
}

prnnStatus_t prnnRNNBackwardData_v8(prnnHandle_t handle, prnnRNNDescriptor_t rnnDesc,
                                    const int devSeqLengths[], prnnRNNDataDescriptor_t yDesc,
                                    const void *y, const void *dy, prnnRNNDataDescriptor_t xDesc,
                                    void *dx, prnnTensorDescriptor_t hDesc, const void *hx,
                                    const void *dhy, void *dhx, prnnTensorDescriptor_t cDesc,
                                    const void *cx, const void *dcy, void *dcx,
                                    size_t weightSpaceSize, const void *weightSpace,
                                    size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                                    void *reserveSpace)
{
    prnn_api_enter("prnnRNNBackwardData_v8");
    (void)devSeqLengths;
    PRNN_TRY(check_rnn(handle, rnnDesc));
    v8_problem q;
    const prnn_rnn_problem *p = &q.p;
    PRNN_TRY(build_problem(handle, rnnDesc, xDesc, "xDesc", &q));
    uint64_t serial;
    PRNN_TRY(check_reserve(handle, p, reserveSpace, PRNN_RESERVE_FORWARD_DONE, &serial));
    size_t wbytes;
    PRNN_TRY(check_io(p, xDesc, yDesc, hDesc, cDesc, weightSpaceSize, weightSpace, &wbytes));
    PRNN_TRY(prnn_validate_ptr(y, "y"));
    PRNN_TRY(prnn_validate_ptr(dy, "dy"));
    prnn_resolved_call rc;
    PRNN_TRY(resolve_and_check_temp(handle, &q, PRNN_CALL_BACKWARD_DATA, workSpace, workSpaceSize,
                                    reserveSpace, reserveSpaceSize, &rc));
    int cell = prnn_cell_traits(rnnDesc->mode)->has_cell;
    size_t hs = state_bytes(p, prnn_rnn_out_width(rnnDesc)), cs = state_bytes(p, rnnDesc->hidden);
    size_t ybytes = data_bytes(p, yDesc, yDesc->vector);
    prnn_buffer outs[] = {
        {"dx", dx, data_bytes(p, xDesc, p->input_size)},
        {"dhx", dhx, hs},
        {"dcx", cell ? dcx : NULL, cs},
        {"workSpace", workSpace, workSpaceSize},
    };
    prnn_buffer ins[] = {
        {"y", y, ybytes},
        {"dy", dy, ybytes},
        {"dhy", dhy, hs},
        {"dcy", cell ? dcy : NULL, cs},
        {"weightSpace", weightSpace, wbytes},
        {"hx", hx, hs},
        {"cx", cell ? cx : NULL, cs},
        {"reserveSpace", reserveSpace, reserveSpaceSize},
    };
    PRNN_TRY(prnn_validate_no_overlap(outs, 4, ins, 8));
    q.io.x_fill = xDesc->has_fill ? xDesc->fill : NULL;
    prnnStatus_t s;
    if (prnn_call_is_cpu(handle)) {
        s = prnn_ref_backward_data(p, y, dy, dhy, cell ? dcy : NULL, weightSpace, hx,
                                   cell ? cx : NULL, dx, dhx, cell ? dcx : NULL, workSpace,
                                   reserveSpace);
    } else {
        prnn_backward_data_buffers b = {y,
                                        dy,
                                        dhy,
                                        cell ? dcy : NULL,
                                        weightSpace,
                                        hx,
                                        cell ? cx : NULL,
                                        dx,
                                        dhx,
                                        cell ? dcx : NULL,
                                        workSpace,
                                        workSpaceSize,
                                        reserveSpace,
                                        reserveSpaceSize};
        s = prnn_run_gpu(handle, &rc, &b, workSpace);
    }
    if (s == PRNN_STATUS_SUCCESS)
        prnn_reserve_record_backward_data(reserveSpace, serial);
    return s;
}

prnnStatus_t prnnRNNBackwardWeights_v8(prnnHandle_t handle, prnnRNNDescriptor_t rnnDesc,
                                       prnnWgradMode_t addGrad, const int devSeqLengths[],
                                       prnnRNNDataDescriptor_t xDesc, const void *x,
                                       prnnTensorDescriptor_t hDesc, const void *hx,
                                       prnnRNNDataDescriptor_t yDesc, const void *y,
                                       size_t weightSpaceSize, void *dweightSpace,
                                       size_t workSpaceSize, void *workSpace,
                                       size_t reserveSpaceSize, void *reserveSpace)
{
    prnn_api_enter("prnnRNNBackwardWeights_v8");
    (void)devSeqLengths;
    PRNN_TRY(check_rnn(handle, rnnDesc));
    if (addGrad != PRNN_WGRAD_MODE_ADD && addGrad != PRNN_WGRAD_MODE_SET)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "addGrad = %d: not a prnnWgradMode_t",
                         (int)addGrad);
    v8_problem q;
    const prnn_rnn_problem *p = &q.p;
    PRNN_TRY(build_problem(handle, rnnDesc, xDesc, "xDesc", &q));
    PRNN_TRY(check_reserve(handle, p, reserveSpace, PRNN_RESERVE_BACKWARD_DATA_DONE, NULL));
    PRNN_TRY(check_output_desc(rnnDesc, xDesc, yDesc, "yDesc"));
    PRNN_TRY(prnn_validate_state_width(p, hDesc, "hDesc", prnn_rnn_out_width(rnnDesc), "batchSize",
                                       rnnDesc->proj ? "projSize" : "hiddenSize"));
    size_t wbytes;
    PRNN_TRY(check_weight_space(rnnDesc, weightSpaceSize, dweightSpace, "dweightSpace", &wbytes));
    PRNN_TRY(prnn_validate_ptr(x, "x"));
    PRNN_TRY(prnn_validate_ptr(y, "y"));
    prnn_resolved_call rc;
    PRNN_TRY(resolve_and_check_temp(handle, &q, PRNN_CALL_BACKWARD_WEIGHTS, workSpace,
                                    workSpaceSize, reserveSpace, reserveSpaceSize, &rc));
    prnn_buffer outs[] = {
        {"dweightSpace", dweightSpace, wbytes},
        {"workSpace", workSpace, workSpaceSize},
    };
    prnn_buffer ins[] = {
        {"x", x, data_bytes(p, xDesc, p->input_size)},
        {"hx", hx, state_bytes(p, prnn_rnn_out_width(rnnDesc))},
        {"y", y, data_bytes(p, yDesc, yDesc->vector)},
        {"reserveSpace", reserveSpace, reserveSpaceSize},
    };
    PRNN_TRY(prnn_validate_no_overlap(outs, 2, ins, 4));
    if (prnn_call_is_cpu(handle)) {
        if (addGrad == PRNN_WGRAD_MODE_SET)
            memset(dweightSpace, 0, wbytes);
        return prnn_ref_backward_weights(p, x, hx, y, workSpace, dweightSpace, reserveSpace);
    }
    if (addGrad == PRNN_WGRAD_MODE_SET) {
        prnn_gpu_call g = prnn_gpu_call_of(handle);
        PRNN_TRY(prnn_gpu_zero(&g, dweightSpace, wbytes));
    }
    prnn_backward_weights_buffers b = {
        x, hx, y, workSpace, workSpaceSize, dweightSpace, reserveSpace, reserveSpaceSize};
    return prnn_run_gpu(handle, &rc, &b, workSpace);
}
