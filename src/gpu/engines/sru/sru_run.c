#include <stdint.h>
#include <string.h>

#include "error.h"
#include "gpu/engines/sru/sru.h"
#include "gpu/run/gpu_run.h"
#include "gpu/run/train_ops.h"
#include "prnn_kernel_abi.h"
#include "weights_layout.h"

/* One layer's parameters inside w (or dw): both directions' W back to back,
 * then both V blocks (weights_layout.h). */
typedef struct {
    const char *W;     /* [dirs * m * hidden][k]; NULL for SKIP_INPUT's layer 0 */
    const char *V;     /* [dirs][4][hidden] */
    size_t w_at, v_at; /* their offsets in bytes (BackwardWeights: in dw) */
    int k;             /* the layer's input width */
    int m;             /* matrices per direction: 3, or 4 with the x' projection */
    int skip;
} sru_layer;

/* The scan's kernels of the call's plan. */
static const prnn_sru_kernels *sru_kernels(const prnn_call_plan *c)
{
    return c->pass->state;
}

static void layer_of(const prnn_call_plan *c, const void *w, int layer, sru_layer *s)
{
    prnn_pseudo_layer_layout pl;
    prnn_weights_pseudo_layer(c->rnn, c->p->input_size, layer * c->dirs, &pl);
    s->k = layer == 0 ? c->p->input_size : c->dirs * c->H;
    s->skip = pl.w_cols == 0;
    s->m = prnn_sru_matrices(c->rnn, pl.w_cols);
    s->w_at = pl.w_offset * c->es;
    s->v_at = pl.v_offset * c->es;
    s->W = s->skip ? NULL : (const char *)w + s->w_at;
    s->V = (const char *)w + s->v_at;
}

/* The layer's scan kernel (prnn_sru_variant). */
static int variant_of(const sru_layer *s)
{
    return s->skip ? PRNN_SRU_VARIANT_SKIP : s->m == 4 ? PRNN_SRU_VARIANT_M4 : PRNN_SRU_VARIANT_M3;
}

/* Whether direction d's x' is the input's columns d * hidden .. (the sru
 * package's convention), rather than all of its hidden columns. */
static int highway_split(const prnn_call_plan *c)
{
    return c->rnn->sru_convention == PRNN_SRU_CONVENTION_SRU_PACKAGE;
}

/* The conventions' part of the scan's arguments (prnnSetRNNSRUConvention). */
static void convention_args(const prnn_call_plan *c, prnn_sru_args *a)
{
    a->xp_split = highway_split(c);
    a->identity = c->rnn->sru_activation == PRNN_SRU_ACTIVATION_IDENTITY;
    a->xscale = c->rnn->sru_scale;
}

/* The arguments every scan launch of a layer shares. */
static void scan_args(const prnn_call_plan *c, const sru_layer *s, prnn_sru_args *a)
{
    memset(a, 0, sizeof(*a));
    a->v = s->V;
    a->batch = (const int *)prnn_run_ws(c, c->l.batch);
    a->offset = (const int *)prnn_run_ws(c, c->l.offset);
    a->rows = (long long)c->p->total_rows;
    a->seq_length = c->p->seq_length;
    a->mini_batch = c->p->mini_batch;
    a->dirs = c->dirs;
    a->u_cols = c->dirs * 4 * c->H;
    a->x_cols = s->k;
    convention_args(c, a);
}

/* The workspace's and reserve's parts are 256-byte aligned, but the reserve
 * is the caller's pointer: a thread's units move as one vector only where
 * every math-type buffer the scan touches starts on that vector's size (for
 * float and double data, whose storage type is the math type, x, y, dy
 * and dU too). For the 16-bit types, x and the caller's dy must start on
 * the size of a thread's units in the storage type: the ring in shared
 * memory (sm_80 and newer) copies them as one 4-, 8- or 16-byte piece. */
static int vector_aligned(const prnn_call_plan *c, const prnn_sru_args *a)
{
    const uintptr_t size = (uintptr_t)sru_kernels(c)->upt * c->acc;
    const uintptr_t size_s = (uintptr_t)sru_kernels(c)->upt * c->es;
    const int storage_is_math = c->es == c->acc;
    const void *const bufs[] = {a->u,
                                a->ckeep,
                                a->dxp,
                                storage_is_math ? a->xin : NULL,
                                storage_is_math ? a->y : NULL,
                                storage_is_math ? a->dy : NULL,
                                storage_is_math ? a->du : NULL};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        if ((uintptr_t)bufs[i] % size != 0)
            return 0;
    if (!storage_is_math &&
        ((uintptr_t)a->xin % size_s != 0 || (a->dy_storage && (uintptr_t)a->dy % size_s != 0)))
        return 0;
    return 1;
}

/* fns and smem: the pass's scans and their rings' shared memory
 * (prnn_sru_kernels). */
static prnnStatus_t launch_scan(const prnn_call_plan *c, const CUfunction *fns,
                                const unsigned *smem, const sru_layer *s, prnn_sru_args *a,
                                const char *name)
{
    const prnn_sru_kernels *k = sru_kernels(c);
    const unsigned long long per_row = (unsigned long long)((c->H + k->upt - 1) / k->upt);
    const unsigned long long threads = (unsigned long long)c->dirs * c->p->mini_batch * per_row;
    const unsigned grid = (unsigned)((threads + k->threads - 1) / k->threads);
    const int v = variant_of(s);
    a->vec = vector_aligned(c, a);
    return prnn_run_launch_blocks(c, fns[v], grid, (unsigned)k->threads, smem[v], 0, a, sizeof(*a),
                                  name);
}

/* Where a layer's slice of hx-shaped state (both directions) starts. */
static size_t state_at(const prnn_call_plan *c, int layer)
{
    return (size_t)layer * c->dirs * c->h_state_stride; /* SRU: h and c alike */
}

/* ---- forward ---- */

/* U[rows][dirs*m*hidden] (rows dirs*4*hidden apart) = input W^T: every step,
 * both directions, one GEMM. */
static prnnStatus_t project(const prnn_call_plan *c, const sru_layer *s, const void *input, void *u)
{
    prnn_gemm_key key;
    prnn_run_gemm_key(c, &key);
    key.m = (int)c->p->total_rows;
    key.n = c->dirs * s->m * c->H;
    key.k = s->k;
    key.trans_b = 1;
    key.lda = s->k;
    key.ldb = s->k;
    key.ldc = c->dirs * 4 * c->H;
    return prnn_run_gemm(c, &key, input, s->W, u);
}

/* Forward training, a layer whose x' is its input: x' into U's x' columns
 * for BackwardData (prnn_sru_keep_input) on c's stream. */
static prnnStatus_t keep_input(const prnn_call_plan *c, const void *input, void *u)
{
    prnn_sru_keep_input_args a;
    memset(&a, 0, sizeof(a));
    a.x = input;
    a.u = u;
    a.rows = (long long)c->p->total_rows;
    a.u_cols = c->dirs * 4 * c->H;
    a.dirs = c->dirs;
    a.cols = highway_split(c) ? c->dirs * c->H : c->H;
    return prnn_run_launch(c, sru_kernels(c)->keep_input,
                           prnn_run_grid((unsigned long long)a.rows * a.cols, 256), 1, 256, &a,
                           sizeof(a), "prnn_sru_keep_input");
}

/* U of a layer (its GEMM; none for SKIP's layer 0) and, in training where
 * x' is the input, the copy of x' beside it: on the side stream while the
 * GEMM runs, joined before the scan. */
static prnnStatus_t layer_input(const prnn_call_plan *c, const sru_layer *s, int training,
                                const void *input, void *u)
{
    if (!training || s->m == 4)
        return s->skip ? PRNN_STATUS_SUCCESS : project(c, s, input, u);
    if (s->skip)
        return keep_input(c, input, u);
    prnn_call_plan side;
    PRNN_TRY(prnn_run_fork(c, &side));
    prnnStatus_t st = keep_input(&side, input, u);
    if (!st)
        st = project(c, s, input, u);
    prnnStatus_t joined = prnn_run_join(c);
    return st ? st : joined;
}

static prnnStatus_t forward_layers(const prnn_call_plan *c, const prnn_reserve_layout *r,
                                   const void *buffers, int training)
{
    const prnn_forward_buffers *b = buffers;
    const int L = c->rnn->layers;
    PRNN_TRY(prnn_run_setup(c));
    const void *input = b->x;
    for (int layer = 0; layer < L; layer++) {
        sru_layer s;
        layer_of(c, b->w, layer, &s);
        void *u = training ? prnn_reserve_sru(r, b->reserve, PRNN_SRU_U, layer)
                           : prnn_run_ws(c, c->l.xproj);
        PRNN_TRY(layer_input(c, &s, training, input, u));
        /* Inference runs every layer into one buffer: a scan thread reads
         * x' (its own column of the input, m = 3 only: one direction, or
         * the sru package's split, where direction d's x' is its own
         * output's columns) before writing the same element of the output. */
        void *output = layer == L - 1 ? b->y
                       : training     ? prnn_reserve_out(r, b->reserve, layer)
                                      : prnn_run_ws(c, c->l.layer_out);
        prnn_sru_args a;
        scan_args(c, &s, &a);
        a.u = s.skip && !training ? NULL : u;
        a.xin = input;
        a.cx = prnn_run_offset(b->cx, state_at(c, layer));
        a.hy = prnn_run_out_offset(b->hy, state_at(c, layer));
        a.cy = prnn_run_out_offset(b->cy, state_at(c, layer));
        a.y = output;
        if (training)
            a.ckeep = prnn_reserve_sru(r, b->reserve, PRNN_SRU_C, layer);
        PRNN_TRY(launch_scan(c, sru_kernels(c)->forward, sru_kernels(c)->smem_forward, &s, &a,
                             "prnn_sru_forward"));
        PRNN_TRY(prnn_train_next_input(c, layer, training, output, &input));
    }
    return PRNN_STATUS_SUCCESS;
}

/* ---- backward data ---- */

/* The gradient of layer l's input: dx (layer 0, storage type; none when
 * dx is NULL) or the workspace's dgrad (math type) for the layer below.
 * dx' (where x' is the input) and SKIP's u0..u2 go straight to it; the rest
 * is dU W. */
static prnnStatus_t input_gradient(const prnn_call_plan *c, const prnn_backward_data_buffers *b,
                                   const sru_layer *s, int layer, const void *du)
{
    const int bottom = layer == 0;
    void *din = bottom ? b->dx : prnn_run_ws(c, c->l.dgrad);
    if (!din)
        return PRNN_STATUS_SUCCESS;
    int direct = s->m == 3;
    if (direct) {
        prnn_sru_input_grad_args a;
        memset(&a, 0, sizeof(a));
        a.du = du;
        a.dxp = prnn_run_ws(c, c->l.engine[PRNN_SRU_WS_DXP]);
        a.din = din;
        a.rows = (long long)c->p->total_rows;
        a.dirs = c->dirs;
        a.skip = s->skip;
        a.din_storage = bottom;
        a.split = highway_split(c);
        const unsigned long long width = (unsigned long long)(a.split ? c->dirs * c->H : c->H);
        PRNN_TRY(prnn_run_launch(c, sru_kernels(c)->input_grad,
                                 prnn_run_grid((unsigned long long)a.rows * width, 256), 1, 256, &a,
                                 sizeof(a), "prnn_sru_input_grad"));
    }
    if (s->skip)
        return PRNN_STATUS_SUCCESS;
    /* din[rows][k] (+)= dU[rows][dirs*m*hidden] W[dirs*m*hidden][k]: both
     * directions in one product */
    prnn_gemm_key key;
    prnn_run_gemm_key(c, &key);
    key.m = (int)c->p->total_rows;
    key.n = s->k;
    key.k = c->dirs * s->m * c->H;
    key.lda = key.k;
    key.ldb = s->k;
    key.ldc = s->k;
    key.c_storage = bottom;
    key.accumulate = direct;
    return prnn_run_gemm(c, &key, du, s->W, din);
}

static prnnStatus_t backward_layers(const prnn_call_plan *c, const prnn_reserve_layout *r,
                                    const void *buffers, int training)
{
    const prnn_backward_data_buffers *b = buffers;
    (void)training;
    const int L = c->rnn->layers;
    PRNN_TRY(prnn_run_setup(c));
    for (int layer = L - 1; layer >= 0; layer--) {
        sru_layer s;
        layer_of(c, b->w, layer, &s);
        void *du = prnn_reserve_sru(r, b->reserve, PRNN_SRU_DU, layer);
        prnn_sru_args a;
        scan_args(c, &s, &a);
        a.u = prnn_reserve_sru(r, b->reserve, PRNN_SRU_U, layer);
        a.cx = prnn_run_offset(b->cx, state_at(c, layer));
        a.dhy = prnn_run_offset(b->dhy, state_at(c, layer));
        a.dcy = prnn_run_offset(b->dcy, state_at(c, layer));
        a.dhx = prnn_run_out_offset(b->dhx, state_at(c, layer));
        a.dcx = prnn_run_out_offset(b->dcx, state_at(c, layer));
        a.dy_storage = layer == L - 1;
        a.dy = a.dy_storage ? b->dy : prnn_run_ws(c, c->l.dgrad);
        a.ckeep = prnn_reserve_sru(r, b->reserve, PRNN_SRU_C, layer);
        a.du = du;
        a.dxp = prnn_run_ws(c, c->l.engine[PRNN_SRU_WS_DXP]);
        a.vpart = prnn_reserve_sru(r, b->reserve, PRNN_SRU_V, layer);
        PRNN_TRY(launch_scan(c, sru_kernels(c)->backward, sru_kernels(c)->smem_backward, &s, &a,
                             "prnn_sru_backward"));
        /* the scan has read dgrad (stream order) before this overwrites it */
        PRNN_TRY(input_gradient(c, b, &s, layer, du));
        if (layer > 0 && prnn_train_dropout_after(c, layer - 1))
            PRNN_TRY(prnn_train_dropout_backward(c, layer - 1, prnn_run_ws(c, c->l.dgrad)));
    }
    return PRNN_STATUS_SUCCESS;
}

/* ---- backward weights ---- */

/* One layer's weight gradients on c's stream: dW (GEMM) and the V block. */
static prnnStatus_t layer_weights(const prnn_call_plan *c, const prnn_reserve_layout *r,
                                  const prnn_backward_weights_buffers *b, int layer)
{
    sru_layer s;
    layer_of(c, b->dw, layer, &s);
    char *dW = (char *)b->dw + s.w_at, *dV = (char *)b->dw + s.v_at;
    const char *reserve = b->reserve; /* only read */
    const void *du = reserve + prnn_reserve_sru_at(r, PRNN_SRU_DU, layer);
    if (!s.skip) {
        /* the input exactly as the forward pass saw it */
        const void *input = b->x;
        if (layer > 0)
            PRNN_TRY(prnn_train_next_input(c, layer - 1, 1,
                                           reserve + prnn_reserve_out_at(r, layer - 1), &input));
        /* dW[dirs*m*hidden][k] += dU^T input: both directions, all rows */
        prnn_gemm_key key;
        prnn_run_gemm_key(c, &key);
        key.m = c->dirs * s.m * c->H;
        key.n = s.k;
        key.k = (int)c->p->total_rows;
        key.trans_a = 1;
        key.lda = key.m;
        key.ldb = s.k;
        key.ldc = s.k;
        key.c_storage = 1;
        key.accumulate = 1;
        PRNN_TRY(prnn_run_gemm(c, &key, du, input, dW));
    }
    prnn_sru_vgrad_args a;
    memset(&a, 0, sizeof(a));
    a.vpart = reserve + prnn_reserve_sru_at(r, PRNN_SRU_V, layer);
    a.dv = dV;
    a.dirs = c->dirs;
    a.mini_batch = c->p->mini_batch;
    unsigned n = (unsigned)(c->dirs * 4 * c->H);
    return prnn_run_launch(c, sru_kernels(c)->vgrad, (n + 255) / 256, 1, 256, &a, sizeof(a),
                           "prnn_sru_vgrad");
}

/* The layers one after another on c's stream: each layer's weight GEMM
 * fills the GPU by itself (split over K where its output is small), and two
 * of them side by side ran slower than in turn (bench/NOTES.md, v0.14). */
static prnnStatus_t weights_layers(const prnn_call_plan *c, const prnn_reserve_layout *r,
                                   const void *buffers, int training)
{
    const prnn_backward_weights_buffers *b = buffers;
    (void)training;
    for (int layer = 0; layer < c->rnn->layers; layer++)
        PRNN_TRY(layer_weights(c, r, b, layer));
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_sru_run(prnn_call_plan *c, const void *buffers)
{
    switch (c->kind) {
    case PRNN_CALL_INFERENCE:
    case PRNN_CALL_FORWARD_TRAINING: return forward_layers(c, &c->r, buffers, c->training);
    case PRNN_CALL_BACKWARD_DATA: return backward_layers(c, &c->r, buffers, 1);
    case PRNN_CALL_BACKWARD_WEIGHTS: return weights_layers(c, &c->r, buffers, 1);
    }
    return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_sru_run: call kind %d", (int)c->kind);
}
