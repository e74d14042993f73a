/*
 * The v8 calls on the CPU backend:
 *  - gradients against central differences of the forward pass (dx, dhx,
 *    dcx and every element of the weight space), for LSTM projections, cell
 *    clipping, the four bias modes, GRU, SRU, ReLU and tanh, every layout with
 *    unsorted lengths; padding of x and dy is NaN, so a call that reads it
 *    fails every check, and the padding of y and dx must hold the fill;
 *  - the forward pass of an LSTM with projection and clipping against a
 *    direct transcription of the equations (not the reference's code);
 *  - the three layouts give the same numbers, sequence for sequence, and
 *    SEQ_MAJOR_PACKED gives the v5 calls' numbers bit for bit;
 *  - clipping's NaN options; PRNN_WGRAD_MODE_ADD against SET; the Get calls.
 */
#include "v8_fixture.h"

#define EPS 1e-6
#define TOL 2e-6
#define FLOOR 1e-2

/* sum(dy . y) + sum(dhy . hy) + sum(dcy . cy) over the valid positions,
 * after an inference forward pass. */
static double loss(v8_run *r)
{
    EXPECT_OK(v8_forward(r, PRNN_FWD_MODE_INFERENCE));
    double l = 0;
    for (size_t v = 0; v < r->ny / (size_t)r->out_cols; v++)
        if (!v8_is_padding(&r->c, v))
            for (int k = 0; k < r->out_cols; k++)
                l += r->dy[v * (size_t)r->out_cols + (size_t)k] *
                     r->y[v * (size_t)r->out_cols + (size_t)k];
    for (size_t i = 0; i < r->nh; i++)
        l += r->dhy[i] * r->hy[i];
    if (r->c.mode == PRNN_LSTM || r->c.mode == PRNN_SRU)
        for (size_t i = 0; i < r->nc; i++)
            l += r->dcy[i] * r->cy[i];
    return l;
}

/* The largest relative error of grad against central differences of buf,
 * over the n elements whose `cols`-wide vector is not padding (cols 0:
 * every element). */
static double check_grad(v8_run *r, double *buf, const double *grad, size_t n, int cols)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        if (cols && v8_is_padding(&r->c, i / (size_t)cols))
            continue;
        double keep = buf[i];
        buf[i] = keep + EPS;
        double lp = loss(r);
        buf[i] = keep - EPS;
        double lm = loss(r);
        buf[i] = keep;
        double fd = (lp - lm) / (2 * EPS);
        double err = fabs(fd - grad[i]) / fmax(FLOOR, fabs(fd));
        if (!(err <= worst))
            worst = err; /* NaN stays the worst */
    }
    return worst;
}

/* Every padding element of a data buffer holds the fill. */
static int padding_filled(const v8_case *c, const double *buf, size_t n, int cols)
{
    for (size_t i = 0; i < n; i++)
        if (v8_is_padding(c, i / (size_t)cols) && buf[i] != v8_fill)
            return 0;
    return 1;
}

static void gradcheck(const char *name, const v8_case *c)
{
    v8_run r;
    v8_setup(&r, c, 0x5eed0000u + (uint64_t)c->hidden);
    EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_TRAINING));
    EXPECT_OK(v8_backward_data(&r));
    EXPECT_OK(v8_backward_weights(&r, PRNN_WGRAD_MODE_SET));
    EXPECT(padding_filled(c, r.y, r.ny, r.out_cols), "%s: y's padding is not the fill", name);
    EXPECT(padding_filled(c, r.dx, r.nx, c->input), "%s: dx's padding is not the fill", name);
    double *dx = malloc(r.nx * sizeof(double)), *dhx = malloc(r.nh * sizeof(double));
    double *dcx = malloc(r.nc * sizeof(double)), *dw = malloc(r.nw * sizeof(double));
    memcpy(dx, r.dx, r.nx * sizeof(double));
    memcpy(dhx, r.dhx, r.nh * sizeof(double));
    memcpy(dcx, r.dcx, r.nc * sizeof(double));
    memcpy(dw, r.dw, r.nw * sizeof(double));
    double e_x = check_grad(&r, r.x, dx, r.nx, c->input);
    double e_h = check_grad(&r, r.hx, dhx, r.nh, 0);
    int cell = c->mode == PRNN_LSTM || c->mode == PRNN_SRU;
    double e_c = cell ? check_grad(&r, r.cx, dcx, r.nc, 0) : 0.0;
    double e_w = check_grad(&r, r.w, dw, r.nw, 0);
    printf("%-40s dx %.1e dhx %.1e dcx %.1e dw %.1e (%zu weights)\n", name, e_x, e_h, e_c, e_w,
           r.nw);
    EXPECT(e_x <= TOL && e_h <= TOL && e_c <= TOL && e_w <= TOL,
           "%s: gradient errors dx %g dhx %g dcx %g dw %g above %g", name, e_x, e_h, e_c, e_w, TOL);
    free(dx);
    free(dhx);
    free(dcx);
    free(dw);
    v8_teardown(&r);
}

static void test_gradients(void)
{
    /* clang-format off */
    static const struct { const char *name; v8_case c; } cases[] = {
        {"lstm proj 2L bidir seq-major unpacked",
         {PRNN_LSTM, 5, 3, 2, 1, 4, 4, 4, {2, 4, 1, 3}, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
          PRNN_RNN_DOUBLE_BIAS, 0, 0, 0, PRNN_NOT_PROPAGATE_NAN}},
        {"lstm proj+clip 2L batch-major",
         {PRNN_LSTM, 4, 2, 2, 0, 3, 3, 5, {3, 5, 2}, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
          PRNN_RNN_DOUBLE_BIAS, 1, -0.2, 0.25, PRNN_NOT_PROPAGATE_NAN}},
        {"lstm clip bidir packed single-inp-bias",
         {PRNN_LSTM, 4, 0, 1, 1, 3, 3, 4, {4, 3, 1}, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
          PRNN_RNN_SINGLE_INP_BIAS, 1, -0.3, 0.2, PRNN_PROPAGATE_NAN}},
        {"gru 2L bidir seq-major single-rec-bias",
         {PRNN_GRU, 4, 0, 2, 1, 3, 3, 3, {1, 3, 2}, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
          PRNN_RNN_SINGLE_REC_BIAS, 0, 0, 0, PRNN_NOT_PROPAGATE_NAN}},
        {"sru 2L bidir seq-major",
         {PRNN_SRU, 4, 0, 2, 1, 3, 3, 4, {2, 4, 3}, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
          PRNN_RNN_DOUBLE_BIAS, 0, 0, 0, PRNN_NOT_PROPAGATE_NAN}},
        {"relu 2L batch-major",
         {PRNN_RNN_RELU, 3, 0, 2, 0, 2, 4, 3, {1, 3, 2, 3}, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
          PRNN_RNN_SINGLE_INP_BIAS, 0, 0, 0, PRNN_NOT_PROPAGATE_NAN}},
        {"tanh batch-major no-bias",
         {PRNN_RNN_TANH, 3, 0, 2, 0, 2, 3, 4, {2, 4, 3}, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
          PRNN_RNN_NO_BIAS, 0, 0, 0, PRNN_NOT_PROPAGATE_NAN}},
    };
    /* clang-format on */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        gradcheck(cases[i].name, &cases[i].c);
}

/* ---- the forward pass against the equations ---- */

static double sigmoid(double v)
{
    return 1 / (1 + exp(-v));
}

/* A matrix and its bias through prnnGetRNNWeightParams. */
static const double *matrix(v8_run *r, int id, int rows, int cols, const double **bias)
{
    prnnTensorDescriptor_t md, bd;
    void *m = NULL, *b = NULL;
    prnnCreateTensorDescriptor(&md);
    prnnCreateTensorDescriptor(&bd);
    EXPECT_OK(prnnGetRNNWeightParams(r->h, r->rnn, 0, r->w_bytes, r->w, id, md, &m, bd, &b));
    int dims[3] = {0, 0, 0}, strides[3], n = 0;
    EXPECT_OK(prnnGetTensorNdDescriptor(md, 3, NULL, &n, dims, strides));
    EXPECT(dims[0] == 1 && dims[1] == rows && dims[2] == cols,
           "linLayerID %d: mDesc {%d, %d, %d}, expected {1, %d, %d}", id, dims[0], dims[1], dims[2],
           rows, cols);
    if (bias)
        *bias = b;
    else
        EXPECT(b == NULL, "linLayerID %d: the projection has no bias", id);
    prnnDestroyTensorDescriptor(md);
    prnnDestroyTensorDescriptor(bd);
    return m;
}

static void test_projection_equations(void)
{
    enum { H = 3, P = 2, X = 2, B = 2, T = 3 };
    v8_case c = {PRNN_LSTM,
                 H,
                 P,
                 1,
                 0,
                 X,
                 B,
                 T,
                 {2, 3},
                 PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
                 PRNN_RNN_DOUBLE_BIAS,
                 1,
                 -0.15,
                 0.2,
                 PRNN_NOT_PROPAGATE_NAN};
    v8_run r;
    v8_setup(&r, &c, 77);
    EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_INFERENCE));
    const double *W[4], *R[4], *bw[4], *br[4];
    for (int g = 0; g < 4; g++) {
        W[g] = matrix(&r, g, H, X, &bw[g]);
        R[g] = matrix(&r, 4 + g, H, P, &br[g]);
    }
    const double *Wp = matrix(&r, 8, P, H, NULL);
    double worst = 0;
    int clipped = 0;
    for (int s = 0; s < B; s++) {
        double h[P], cst[H];
        for (int k = 0; k < P; k++)
            h[k] = r.hx[s * P + k];
        for (int j = 0; j < H; j++)
            cst[j] = r.cx[s * H + j];
        for (int t = 0; t < c.lengths[s]; t++) {
            const double *xt = r.x + ((size_t)s * T + (size_t)t) * X;
            double m[H];
            for (int j = 0; j < H; j++) {
                double a[4];
                for (int g = 0; g < 4; g++) {
                    a[g] = bw[g][j] + br[g][j];
                    for (int k = 0; k < X; k++)
                        a[g] += W[g][j * X + k] * xt[k];
                    for (int k = 0; k < P; k++)
                        a[g] += R[g][j * P + k] * h[k];
                }
                double pre = sigmoid(a[1]) * cst[j] + sigmoid(a[0]) * tanh(a[2]);
                cst[j] = pre < c.lclip ? c.lclip : pre > c.rclip ? c.rclip : pre;
                clipped += cst[j] != pre;
                m[j] = sigmoid(a[3]) * tanh(cst[j]);
            }
            for (int k = 0; k < P; k++) {
                h[k] = 0;
                for (int j = 0; j < H; j++)
                    h[k] += Wp[k * H + j] * m[j];
                double got = r.y[((size_t)s * T + (size_t)t) * P + (size_t)k];
                worst = fmax(worst, fabs(got - h[k]));
            }
        }
        for (int k = 0; k < P; k++)
            worst = fmax(worst, fabs(r.hy[s * P + k] - h[k]));
        for (int j = 0; j < H; j++)
            worst = fmax(worst, fabs(r.cy[s * H + j] - cst[j]));
    }
    EXPECT(worst < 1e-12, "LSTM projection + clipping: largest difference %g", worst);
    EXPECT(clipped > 0 && clipped < B * T * H, "the case must clip some values, not all (%d)",
           clipped);
    v8_teardown(&r);
}

/* ---- layouts ---- */

/* The vector index of step t of sequence s in c's layout (the packed one
 * needs its lengths sorted: then the rows before step t are min(len, t)
 * each). */
static size_t vector_of(const v8_case *c, int t, int s)
{
    if (c->layout == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return (size_t)s * (size_t)c->max_seq + (size_t)t;
    if (c->layout == PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED)
        return (size_t)t * (size_t)c->batch + (size_t)s;
    size_t row = 0;
    for (int q = 0; q < c->batch; q++)
        row += (size_t)(c->lengths[q] < t ? c->lengths[q] : t);
    return row + (size_t)s;
}

/* The case again in `layout`, sequences in `order` (sequence s of the new
 * run is sequence order[s] of the first); copies every input. */
static void relayout(const v8_run *a, v8_run *b, prnnRNNDataLayout_t layout, const int *order)
{
    v8_case c = a->c;
    c.layout = layout;
    for (int s = 0; s < c.batch; s++)
        c.lengths[s] = a->c.lengths[order[s]];
    v8_setup(b, &c, 1);
    memcpy(b->w, a->w, a->nw * sizeof(double));
    int cols[2] = {c.input, a->out_cols};
    const double *src_buf[2] = {a->x, a->dy};
    double *dst_buf[2] = {b->x, b->dy};
    for (int which = 0; which < 2; which++)
        for (int s = 0; s < c.batch; s++)
            for (int t = 0; t < c.lengths[s]; t++) {
                size_t src = vector_of(&a->c, t, order[s]), dst = vector_of(&b->c, t, s);
                memcpy(dst_buf[which] + dst * (size_t)cols[which],
                       src_buf[which] + src * (size_t)cols[which],
                       (size_t)cols[which] * sizeof(double));
            }
    size_t hw = a->nh / (size_t)(a->c.layers * a->dirs) / (size_t)c.batch;
    size_t cw = a->nc / (size_t)(a->c.layers * a->dirs) / (size_t)c.batch;
    for (int l = 0; l < a->c.layers * a->dirs; l++)
        for (int s = 0; s < c.batch; s++) {
            size_t to = (size_t)l * (size_t)c.batch + (size_t)s;
            size_t from = (size_t)l * (size_t)c.batch + (size_t)order[s];
            memcpy(b->hx + to * hw, a->hx + from * hw, hw * sizeof(double));
            memcpy(b->dhy + to * hw, a->dhy + from * hw, hw * sizeof(double));
            memcpy(b->cx + to * cw, a->cx + from * cw, cw * sizeof(double));
            memcpy(b->dcy + to * cw, a->dcy + from * cw, cw * sizeof(double));
        }
}

static void train(v8_run *r)
{
    EXPECT_OK(v8_forward(r, PRNN_FWD_MODE_TRAINING));
    EXPECT_OK(v8_backward_data(r));
    EXPECT_OK(v8_backward_weights(r, PRNN_WGRAD_MODE_SET));
}

/* Bitwise: every call works on the same packed rows whatever the layout. */
static int same_states(const v8_run *a, const v8_run *b, const int *order)
{
    size_t hw = a->nh / (size_t)(a->c.layers * a->dirs) / (size_t)a->c.batch;
    size_t cw = a->nc / (size_t)(a->c.layers * a->dirs) / (size_t)a->c.batch;
    for (int l = 0; l < a->c.layers * a->dirs; l++)
        for (int s = 0; s < a->c.batch; s++) {
            size_t ib = (size_t)l * (size_t)a->c.batch + (size_t)s;
            size_t ia = (size_t)l * (size_t)a->c.batch + (size_t)order[s];
            if (memcmp(a->hy + ia * hw, b->hy + ib * hw, hw * sizeof(double)) ||
                memcmp(a->dhx + ia * hw, b->dhx + ib * hw, hw * sizeof(double)) ||
                memcmp(a->cy + ia * cw, b->cy + ib * cw, cw * sizeof(double)) ||
                memcmp(a->dcx + ia * cw, b->dcx + ib * cw, cw * sizeof(double)))
                return 0;
        }
    return 1;
}

/* Bitwise, every valid vector of a data buffer of `cols` columns. */
static int same_data(const v8_run *a, const double *da, const v8_run *b, const double *db, int cols,
                     const int *order)
{
    for (int s = 0; s < b->c.batch; s++)
        for (int t = 0; t < b->c.lengths[s]; t++)
            if (memcmp(da + vector_of(&a->c, t, order[s]) * (size_t)cols,
                       db + vector_of(&b->c, t, s) * (size_t)cols, (size_t)cols * sizeof(double)))
                return 0;
    return 1;
}

static void test_layouts(void)
{
    v8_case c = {PRNN_LSTM,
                 4,
                 3,
                 2,
                 1,
                 3,
                 4,
                 5,
                 {3, 5, 1, 4},
                 PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                 PRNN_RNN_DOUBLE_BIAS,
                 1,
                 -0.4,
                 0.4,
                 PRNN_NOT_PROPAGATE_NAN};
    static const int same[4] = {0, 1, 2, 3}, sorted[4] = {1, 3, 0, 2};
    v8_run a, b, p;
    v8_setup(&a, &c, 99);
    relayout(&a, &b, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, same);
    relayout(&a, &p, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, sorted);
    train(&a);
    train(&b);
    train(&p);
    EXPECT(memcmp(a.dw, b.dw, a.nw * sizeof(double)) == 0, "dw: seq-major and batch-major differ");
    EXPECT(memcmp(a.dw, p.dw, a.nw * sizeof(double)) == 0, "dw: unpacked and packed differ");
    EXPECT(same_states(&a, &b, same), "states: seq-major and batch-major differ");
    EXPECT(same_states(&a, &p, sorted), "states: unpacked and packed differ");
    EXPECT(same_data(&a, a.y, &b, b.y, a.out_cols, same) &&
               same_data(&a, a.dx, &b, b.dx, c.input, same),
           "y or dx: seq-major and batch-major differ");
    EXPECT(same_data(&a, a.y, &p, p.y, a.out_cols, sorted) &&
               same_data(&a, a.dx, &p, p.dx, c.input, sorted),
           "y or dx: unpacked and packed differ");
    v8_teardown(&a);
    v8_teardown(&b);
    v8_teardown(&p);
}

/* ---- v8 packed against v5 ---- */

static void test_same_as_v5(void)
{
    enum { H = 4, X = 3, L = 2, D = 2, B = 3, T = 3 };
    static const int lengths[B] = {3, 3, 1};
    v8_case c = {PRNN_LSTM,
                 H,
                 0,
                 L,
                 1,
                 X,
                 B,
                 T,
                 {lengths[0], lengths[1], lengths[2]},
                 PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                 PRNN_RNN_DOUBLE_BIAS,
                 0,
                 0,
                 0,
                 PRNN_NOT_PROPAGATE_NAN};
    static const int steps[T] = {3, 2, 2};
    v8_run r;
    v8_setup(&r, &c, 5);
    train(&r);

    prnnRNNDescriptor_t rnn;
    EXPECT_OK(prnnCreateRNNDescriptor(&rnn));
    EXPECT_OK(prnnSetRNNDescriptor(rnn, H, L, NULL, PRNN_LINEAR_INPUT, PRNN_BIDIRECTIONAL,
                                   PRNN_LSTM, PRNN_DATA_DOUBLE));
    prnnTensorDescriptor_t xd[T], yd[T], sd;
    for (int t = 0; t < T; t++) {
        prnnCreateTensorDescriptor(&xd[t]);
        prnnCreateTensorDescriptor(&yd[t]);
        set_tensor3(xd[t], PRNN_DATA_DOUBLE, steps[t], X, 1);
        set_tensor3(yd[t], PRNN_DATA_DOUBLE, steps[t], D * H, 1);
    }
    prnnCreateTensorDescriptor(&sd);
    set_tensor3(sd, PRNN_DATA_DOUBLE, L * D, B, H);
    size_t wsz = 0, ws = 0, rs = 0;
    EXPECT_OK(prnnGetRNNParamsSize(r.h, rnn, xd[0], &wsz, PRNN_DATA_DOUBLE));
    EXPECT(wsz == r.w_bytes, "v5 params %zu, v8 weight space %zu", wsz, r.w_bytes);
    EXPECT_OK(prnnGetRNNWorkspaceSize(r.h, rnn, T, xd, &ws));
    EXPECT_OK(prnnGetRNNTrainingReserveSize(r.h, rnn, T, xd, &rs));
    prnnFilterDescriptor_t wd;
    int wdims[3] = {(int)(wsz / sizeof(double)), 1, 1};
    prnnCreateFilterDescriptor(&wd);
    prnnSetFilterNdDescriptor(wd, PRNN_DATA_DOUBLE, PRNN_TENSOR_NCHW, 3, wdims);
    double *y = calloc(r.ny, sizeof(double)), *hy = calloc(r.nh, sizeof(double));
    double *cy = calloc(r.nc, sizeof(double)), *dx = calloc(r.nx, sizeof(double));
    double *dhx = calloc(r.nh, sizeof(double)), *dcx = calloc(r.nc, sizeof(double));
    double *dw = calloc(r.nw, sizeof(double));
    void *wsp = malloc(ws), *rsp = malloc(rs);
    EXPECT_OK(prnnRNNForwardTraining(r.h, rnn, T, xd, r.x, sd, r.hx, sd, r.cx, wd, r.w, yd, y, sd,
                                     hy, sd, cy, wsp, ws, rsp, rs));
    EXPECT_OK(prnnRNNBackwardData(r.h, rnn, T, yd, y, yd, r.dy, sd, r.dhy, sd, r.dcy, wd, r.w, sd,
                                  r.hx, sd, r.cx, xd, dx, sd, dhx, sd, dcx, wsp, ws, rsp, rs));
    EXPECT_OK(
        prnnRNNBackwardWeights(r.h, rnn, T, xd, r.x, sd, r.hx, yd, y, wsp, ws, wd, dw, rsp, rs));
    EXPECT(!memcmp(y, r.y, r.ny * sizeof(double)) && !memcmp(hy, r.hy, r.nh * sizeof(double)) &&
               !memcmp(cy, r.cy, r.nc * sizeof(double)),
           "forward: v8 packed differs from v5");
    EXPECT(!memcmp(dx, r.dx, r.nx * sizeof(double)) && !memcmp(dhx, r.dhx, r.nh * sizeof(double)) &&
               !memcmp(dcx, r.dcx, r.nc * sizeof(double)),
           "backward data: v8 packed differs from v5");
    EXPECT(!memcmp(dw, r.dw, r.nw * sizeof(double)), "backward weights: v8 packed differs from v5");

    /* the families do not mix: descriptors, and reserves */
    EXPECT_FAIL(prnnRNNForwardInference(r.h, r.rnn, T, xd, r.x, sd, NULL, sd, NULL, wd, r.w, yd, y,
                                        sd, NULL, sd, NULL, wsp, ws),
                PRNN_STATUS_BAD_PARAM, "set by prnnSetRNNDescriptor_v8");
    EXPECT_FAIL(prnnGetRNNWeightSpaceSize(r.h, rnn, &wsz), PRNN_STATUS_BAD_PARAM,
                "with prnnSetRNNDescriptor_v8");
    EXPECT_FAIL(prnnRNNBackwardData_v8(r.h, r.rnn, NULL, r.yd, r.y, r.dy, r.xd, r.dx, r.hd, r.hx,
                                       r.dhy, r.dhx, r.cd, r.cx, r.dcy, r.dcx, r.w_bytes, r.w,
                                       r.ws_size, r.ws, rs, rsp),
                PRNN_STATUS_BAD_PARAM, "by the v5 calls");

    for (int t = 0; t < T; t++) {
        prnnDestroyTensorDescriptor(xd[t]);
        prnnDestroyTensorDescriptor(yd[t]);
    }
    prnnDestroyTensorDescriptor(sd);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyRNNDescriptor(rnn);
    free(y);
    free(hy);
    free(cy);
    free(dx);
    free(dhx);
    free(dcx);
    free(dw);
    free(wsp);
    free(rsp);
    v8_teardown(&r);
}

/* ---- clipping's NaN option, ADD against SET, Get ---- */

static void test_clip_nan(void)
{
    for (int prop = 0; prop < 2; prop++) {
        v8_case c = {PRNN_LSTM,
                     3,
                     0,
                     1,
                     0,
                     2,
                     1,
                     1,
                     {1},
                     PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                     PRNN_RNN_DOUBLE_BIAS,
                     1,
                     -0.5,
                     0.5,
                     prop ? PRNN_PROPAGATE_NAN : PRNN_NOT_PROPAGATE_NAN};
        v8_run r;
        v8_setup(&r, &c, 3);
        r.x[0] = NAN; /* every gate, so c, is NaN before the clip */
        EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_INFERENCE));
        for (int j = 0; j < 3; j++)
            EXPECT(prop ? isnan(r.cy[j]) : r.cy[j] == -0.5, "%s: cy[%d] = %g",
                   prop ? "PRNN_PROPAGATE_NAN" : "PRNN_NOT_PROPAGATE_NAN", j, r.cy[j]);
        v8_teardown(&r);
    }
}

static void test_wgrad_modes(void)
{
    v8_case c = {PRNN_GRU,
                 3,
                 0,
                 1,
                 1,
                 2,
                 2,
                 3,
                 {3, 2},
                 PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                 PRNN_RNN_DOUBLE_BIAS,
                 0,
                 0,
                 0,
                 PRNN_NOT_PROPAGATE_NAN};
    v8_run r;
    v8_setup(&r, &c, 11);
    EXPECT_OK(v8_forward(&r, PRNN_FWD_MODE_TRAINING));
    EXPECT_OK(v8_backward_data(&r));
    for (size_t i = 0; i < r.nw; i++)
        r.dw[i] = NAN; /* SET must write every element, padding included */
    EXPECT_OK(v8_backward_weights(&r, PRNN_WGRAD_MODE_SET));
    double *g = malloc(r.nw * sizeof(double));
    memcpy(g, r.dw, r.nw * sizeof(double));
    int finite = 1, nonzero = 0;
    for (size_t i = 0; i < r.nw; i++) {
        finite &= isfinite(g[i]);
        nonzero += g[i] != 0.0;
        r.dw[i] = 1.0;
    }
    EXPECT(finite && nonzero > 0, "SET: %d nonzero, all finite: %d", nonzero, finite);
    EXPECT_OK(v8_backward_weights(&r, PRNN_WGRAD_MODE_ADD));
    double worst = 0;
    for (size_t i = 0; i < r.nw; i++)
        worst = fmax(worst, fabs(r.dw[i] - (1.0 + g[i])));
    EXPECT(worst < 1e-12, "ADD: dw differs from 1 + SET's gradient by %g", worst);
    free(g);
    v8_teardown(&r);
}

/* A NULL dx (x needs no gradient): dhx, dcx and the weights' gradient
 * bit for bit as with dx, in a batch-major full-length call (the GPU's
 * in-place layout) with two layers. */
static void test_dx_null(void)
{
    v8_case c = {PRNN_LSTM,
                 3,
                 0,
                 2,
                 1,
                 2,
                 2,
                 3,
                 {3, 3},
                 PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
                 PRNN_RNN_DOUBLE_BIAS,
                 0,
                 0,
                 0,
                 PRNN_NOT_PROPAGATE_NAN};
    v8_run a, b;
    v8_setup(&a, &c, 23);
    v8_setup(&b, &c, 23);
    train(&a);
    double *dx = b.dx;
    b.dx = NULL;
    train(&b);
    b.dx = dx;
    EXPECT(memcmp(a.dhx, b.dhx, a.nh * sizeof(double)) == 0 &&
               memcmp(a.dcx, b.dcx, a.nc * sizeof(double)) == 0 &&
               memcmp(a.dw, b.dw, a.nw * sizeof(double)) == 0,
           "dx NULL: dhx, dcx or dw differ from the call with dx");
    v8_teardown(&a);
    v8_teardown(&b);
}

static void test_getters(void)
{
    v8_case c = {PRNN_LSTM,
                 6,
                 4,
                 3,
                 1,
                 5,
                 3,
                 4,
                 {4, 2, 3},
                 PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
                 PRNN_RNN_SINGLE_REC_BIAS,
                 1,
                 -2.0,
                 3.0,
                 PRNN_PROPAGATE_NAN};
    v8_run r;
    v8_setup(&r, &c, 1);
    prnnRNNAlgo_t algo;
    prnnRNNMode_t mode;
    prnnRNNBiasMode_t bias;
    prnnDirectionMode_t dir;
    prnnRNNInputMode_t in;
    prnnDataType_t dt, prec;
    prnnMathType_t math;
    int input, hidden, proj, layers;
    prnnDropoutDescriptor_t drop = (prnnDropoutDescriptor_t)&r;
    unsigned int aux;
    EXPECT_OK(prnnGetRNNDescriptor_v8(r.rnn, &algo, &mode, &bias, &dir, &in, &dt, &prec, &math,
                                      &input, &hidden, &proj, &layers, &drop, &aux));
    CHECK(algo == PRNN_RNN_ALGO_STANDARD && mode == PRNN_LSTM && bias == PRNN_RNN_SINGLE_REC_BIAS);
    CHECK(dir == PRNN_BIDIRECTIONAL && in == PRNN_LINEAR_INPUT && dt == PRNN_DATA_DOUBLE);
    CHECK(prec == PRNN_DATA_DOUBLE && math == PRNN_DEFAULT_MATH && input == 5 && hidden == 6);
    CHECK(proj == 4 && layers == 3 && drop == NULL && aux == PRNN_RNN_PADDED_IO_ENABLED);
    /* planning takes either family's descriptor (the CPU backend plans nothing) */
    EXPECT_OK(prnnPrepareRNN(r.h, r.rnn, 3, PRNN_DATA_DOUBLE));
    prnnRNNPlanInfo_t info = {.structSize = sizeof info};
    EXPECT_OK(prnnGetRNNPlanInfo(r.h, r.rnn, 3, PRNN_DATA_DOUBLE, &info));
    CHECK(info.path == PRNN_PATH_CPU_REFERENCE);
    prnnRNNClipMode_t cm;
    prnnNanPropagation_t nan;
    double lo, hi;
    EXPECT_OK(prnnRNNGetClip_v8(r.rnn, &cm, &nan, &lo, &hi));
    CHECK(cm == PRNN_RNN_CLIP_MINMAX && nan == PRNN_PROPAGATE_NAN && lo == -2.0 && hi == 3.0);
    int lengths[4] = {0, 0, 0, -1}, max_seq, batch, vec;
    prnnRNNDataLayout_t layout;
    double fill = 0;
    EXPECT_OK(
        prnnGetRNNDataDescriptor(r.xd, &dt, &layout, &max_seq, &batch, &vec, 4, lengths, &fill));
    CHECK(dt == PRNN_DATA_DOUBLE && layout == PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED);
    CHECK(max_seq == 4 && batch == 3 && vec == 5 && fill == v8_fill);
    CHECK(lengths[0] == 4 && lengths[1] == 2 && lengths[2] == 3 && lengths[3] == -1);
    /* SINGLE_REC_BIAS: no bW, a bR; the projection: a matrix, no bias */
    prnnTensorDescriptor_t md, bd;
    void *m, *b;
    prnnCreateTensorDescriptor(&md);
    prnnCreateTensorDescriptor(&bd);
    EXPECT_OK(prnnGetRNNWeightParams(r.h, r.rnn, 5, r.w_bytes, r.w, 1, md, &m, bd, &b));
    CHECK(m != NULL && b == NULL);
    EXPECT_OK(prnnGetRNNWeightParams(r.h, r.rnn, 5, r.w_bytes, r.w, 5, md, &m, bd, &b));
    CHECK(m != NULL && b != NULL);
    int dims[3], strides[3], n;
    EXPECT_OK(prnnGetTensorNdDescriptor(md, 3, NULL, &n, dims, strides));
    CHECK(n == 3 && dims[0] == 1 && dims[1] == 6 && dims[2] == 4); /* R: hidden x proj */
    EXPECT_OK(prnnGetRNNWeightParams(r.h, r.rnn, 2, r.w_bytes, r.w, 0, md, &m, NULL, NULL));
    EXPECT_OK(prnnGetTensorNdDescriptor(md, 3, NULL, &n, dims, strides));
    CHECK(dims[1] == 6 && dims[2] == 8); /* layer 1's W: hidden x dirs * proj */
    /* the matrices tile the weight space without overlapping */
    char *seen = calloc(r.w_bytes, 1);
    int overlap = 0;
    for (int pl = 0; pl < 6; pl++)
        for (int id = 0; id < 9; id++) {
            EXPECT_OK(prnnGetRNNWeightParams(r.h, r.rnn, pl, r.w_bytes, r.w, id, md, &m, bd, &b));
            int md_dims[3], bd_dims[3];
            prnnGetTensorNdDescriptor(md, 3, NULL, &n, md_dims, strides);
            prnnGetTensorNdDescriptor(bd, 3, NULL, &n, bd_dims, strides);
            size_t mo = (size_t)((char *)m - (char *)r.w), bo = (size_t)((char *)b - (char *)r.w);
            for (size_t e = 0; m && e < (size_t)md_dims[1] * (size_t)md_dims[2] * 8; e++)
                overlap += seen[mo + e]++ != 0 || mo + e >= r.w_bytes;
            for (size_t e = 0; b && e < (size_t)bd_dims[1] * 8; e++)
                overlap += seen[bo + e]++ != 0 || bo + e >= r.w_bytes;
        }
    CHECK(overlap == 0);
    free(seen);
    prnnDestroyTensorDescriptor(md);
    prnnDestroyTensorDescriptor(bd);
    v8_teardown(&r);
}

int main(void)
{
    test_gradients();
    test_projection_equations();
    test_layouts();
    test_same_as_v5();
    test_clip_nan();
    test_wgrad_modes();
    test_dx_null();
    test_getters();
    if (test_failures)
        fprintf(stderr, "%d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
