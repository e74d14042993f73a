/*
 * The per-mode cell equations (docs/ARCHITECTURE.md section 5), forward and
 * backward, for the rows of one step: each cell's two functions and its row
 * of ref_cells. The products W x and R h arrive precomputed (proj, rec), so
 * this file holds all of the nonlinear math and nothing else.
 *
 * Gate blocks inside a row are H apart in the weight layout's order:
 * LSTM i f g o, GRU r z n, SRU u0 u1(f) u2(r) u3(x').
 */
#include <math.h>

#include "ref/ref_internal.h"

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* LSTM cell clipping (prnnRNNSetClip_v8): C99's fmin / fmax turn a NaN into
 * the bound (PRNN_NOT_PROPAGATE_NAN), unless NaN propagates. */
static double clip_cell(const prnn_ref_dims *g, double c)
{
    if (!g->clip || (g->clip_nan && isnan(c)))
        return c;
    return fmin(fmax(c, g->lclip), g->rclip);
}

/* Whether the gradient passes through the clip of pre-clip value c: where
 * it was inside the bounds, or a NaN that propagated. */
static int clip_passes(const prnn_ref_dims *g, double c)
{
    if (!g->clip)
        return 1;
    if (isnan(c))
        return g->clip_nan;
    return c >= g->lclip && c <= g->rclip;
}

/* ---- one row of each cell: proj (W x + bW), rec (R h + bR), G*H each;
 * h, c in h_{t-1}, c_{t-1}, out h_t, c_t; a: act_cols*H kept for backward,
 * or NULL. Backward as prnn_ref_cell_backward, for one row. ---- */

static void relu_forward(const prnn_ref_dims *g, const double *p, const double *q, double *h,
                         double *c, double *a)
{
    (void)c, (void)a;
    for (size_t j = 0; j < g->hidden; j++) {
        double s = p[j] + q[j];
        h[j] = s > 0.0 ? s : 0.0;
    }
}

static void relu_backward(const prnn_ref_dims *g, const double *a, const double *ho,
                          const double *dy, const double *hp, const double *cp, double *dh,
                          double *dc, double *d)
{
    (void)a, (void)hp, (void)cp, (void)dc;
    for (size_t j = 0; j < g->hidden; j++) {
        /* h > 0 exactly where the pre-activation is > 0 */
        d[j] = ho[j] > 0.0 ? dh[j] + dy[j] : 0.0;
        dh[j] = 0.0;
    }
}

static void tanh_forward(const prnn_ref_dims *g, const double *p, const double *q, double *h,
                         double *c, double *a)
{
    (void)c, (void)a;
    for (size_t j = 0; j < g->hidden; j++)
        h[j] = tanh(p[j] + q[j]);
}

static void tanh_backward(const prnn_ref_dims *g, const double *a, const double *ho,
                          const double *dy, const double *hp, const double *cp, double *dh,
                          double *dc, double *d)
{
    (void)a, (void)hp, (void)cp, (void)dc;
    for (size_t j = 0; j < g->hidden; j++) {
        d[j] = (dh[j] + dy[j]) * (1.0 - ho[j] * ho[j]);
        dh[j] = 0.0;
    }
}

static void lstm_forward(const prnn_ref_dims *g, const double *p, const double *q, double *h,
                         double *c, double *a)
{
    size_t H = g->hidden;
    for (size_t j = 0; j < H; j++) {
        double ig = sigmoid(p[j] + q[j]);
        double fg = sigmoid(p[H + j] + q[H + j]);
        double gg = tanh(p[2 * H + j] + q[2 * H + j]);
        double og = sigmoid(p[3 * H + j] + q[3 * H + j]);
        double pre = fg * c[j] + ig * gg, cn = clip_cell(g, pre);
        c[j] = cn;
        h[j] = og * tanh(cn);
        if (a) {
            a[REF_LSTM_I * H + j] = ig;
            a[REF_LSTM_F * H + j] = fg;
            a[REF_LSTM_G * H + j] = gg;
            a[REF_LSTM_O * H + j] = og;
            a[REF_LSTM_C * H + j] = cn;
            if (g->clip)
                a[REF_LSTM_PRE_CLIP * H + j] = pre;
        }
    }
}

static void lstm_backward(const prnn_ref_dims *g, const double *a, const double *ho,
                          const double *dy, const double *hp, const double *cp, double *dh,
                          double *dc, double *d)
{
    size_t H = g->hidden;
    (void)ho, (void)hp;
    for (size_t j = 0; j < H; j++) {
        double ig = a[REF_LSTM_I * H + j], fg = a[REF_LSTM_F * H + j], gg = a[REF_LSTM_G * H + j];
        double og = a[REF_LSTM_O * H + j], tc = tanh(a[REF_LSTM_C * H + j]);
        double dhv = dh[j] + dy[j];
        double dcv = dc[j] + dhv * og * (1.0 - tc * tc);
        if (g->clip && !clip_passes(g, a[REF_LSTM_PRE_CLIP * H + j]))
            dcv = 0.0;
        d[j] = dcv * gg * ig * (1.0 - ig);
        d[H + j] = dcv * cp[j] * fg * (1.0 - fg);
        d[2 * H + j] = dcv * ig * (1.0 - gg * gg);
        d[3 * H + j] = dhv * tc * og * (1.0 - og);
        dc[j] = dcv * fg;
        dh[j] = 0.0;
    }
}

static void gru_forward(const prnn_ref_dims *g, const double *p, const double *q, double *h,
                        double *c, double *a)
{
    size_t H = g->hidden;
    (void)c;
    for (size_t j = 0; j < H; j++) {
        double r = sigmoid(p[j] + q[j]);
        double z = sigmoid(p[H + j] + q[H + j]);
        /* q holds R_n h + bR_n: the reset scales the recurrent bias too
         * (cuDNN / PyTorch), unlike the original GRU */
        double m = q[2 * H + j];
        double n = tanh(p[2 * H + j] + r * m);
        h[j] = (1.0 - z) * n + z * h[j];
        if (a) {
            a[j] = r;
            a[H + j] = z;
            a[2 * H + j] = n;
            a[3 * H + j] = m;
        }
    }
}

static void gru_backward(const prnn_ref_dims *g, const double *a, const double *ho,
                         const double *dy, const double *hp, const double *cp, double *dh,
                         double *dc, double *d)
{
    size_t H = g->hidden;
    (void)ho, (void)cp, (void)dc;
    for (size_t j = 0; j < H; j++) {
        double r = a[j], z = a[H + j], n = a[2 * H + j], m = a[3 * H + j];
        double dhv = dh[j] + dy[j];
        double dn = dhv * (1.0 - z) * (1.0 - n * n);
        d[j] = dn * m * r * (1.0 - r);
        d[H + j] = dhv * (hp[j] - n) * z * (1.0 - z);
        d[2 * H + j] = dn * r; /* through R_n h + bR_n */
        d[3 * H + j] = dn;     /* through W_n x + bW_n */
        dh[j] = dhv * z;
    }
}

/* Every cell that multiplies a recurrent matrix; SRU's scan has its own
 * functions below (its inputs differ). */
static const prnn_ref_cell ref_cells[] = {
    {PRNN_RNN_RELU, relu_forward, relu_backward, .reads_hprev = 0, .cprev_col = -1},
    {PRNN_RNN_TANH, tanh_forward, tanh_backward, .reads_hprev = 0, .cprev_col = -1},
    {PRNN_LSTM, lstm_forward, lstm_backward, .reads_hprev = 0, .cprev_col = REF_LSTM_C},
    {PRNN_GRU, gru_forward, gru_backward, .reads_hprev = 1, .cprev_col = -1},
};

const prnn_ref_cell *prnn_ref_cell_of(prnnRNNMode_t mode)
{
    for (size_t i = 0; i < sizeof(ref_cells) / sizeof(ref_cells[0]); i++)
        if (ref_cells[i].mode == mode)
            return &ref_cells[i];
    return NULL;
}

void prnn_ref_cell_forward(const prnn_ref_dims *g, size_t nb, const double *proj, const double *rec,
                           double *h, double *c, double *out, size_t ldo, double *act)
{
    size_t H = g->hidden, gh = g->gh, sh = g->act_cols * H;
    for (size_t b = 0; b < nb; b++) {
        double *hb = h + b * H, *o = out + b * ldo;
        g->cell->forward_row(g, proj + b * gh, rec + b * gh, hb, c + b * H,
                             act ? act + b * sh : NULL);
        for (size_t j = 0; j < H; j++)
            o[j] = hb[j];
    }
}

void prnn_ref_cell_backward(const prnn_ref_dims *g, size_t nb, const double *act,
                            const double *hout, const double *dout, size_t ldo, const double *hprev,
                            const double *cprev, double *dh, double *dc, double *dg)
{
    size_t H = g->hidden, sh = g->act_cols * H, eh = g->dg_cols * H;
    for (size_t b = 0; b < nb; b++)
        g->cell->backward_row(g, act + b * sh, hout + b * ldo, dout + b * ldo, hprev + b * H,
                              cprev + b * H, dh + b * H, dc + b * H, dg + b * eh);
}

/*
 * SRU (Lei et al. 2018, the scan of asappresearch/sru):
 *   f = sigmoid(u1 + v_f c' + b_f), r = sigmoid(u2 + v_r c' + b_r),
 *   c = f c' + (1 - f) u0, h = r g(c) + (1 - r) x',
 * g = tanh or the identity (g->sru_identity). Its own functions because
 * nothing in it multiplies a matrix: c' arrives through the cell state, not
 * through R h.
 */
static double sru_g(const prnn_ref_dims *g, double c)
{
    return g->sru_identity ? c : tanh(c);
}

void prnn_ref_sru_cell_forward(const prnn_ref_dims *g, size_t nb, const double *u, const double *xp,
                               size_t ldx, double xs, const double *vec, double *c, double *h,
                               double *out, size_t ldo, double *act)
{
    size_t H = g->hidden, gh = g->gh, sh = g->act_cols * H;
    const double *bf = vec, *br = vec + H, *vf = vec + 2 * H, *vr = vec + 3 * H;
    for (size_t b = 0; b < nb; b++) {
        const double *p = u + b * gh, *x = xp + b * ldx;
        double *cb = c + b * H, *hb = h + b * H, *o = out + b * ldo;
        double *a = act ? act + b * sh : NULL;
        for (size_t j = 0; j < H; j++) {
            double cp = cb[j];
            double f = sigmoid(p[H + j] + vf[j] * cp + bf[j]);
            double r = sigmoid(p[2 * H + j] + vr[j] * cp + br[j]);
            double cn = f * cp + (1.0 - f) * p[j];
            double xv = xs * x[j];
            double hv = r * sru_g(g, cn) + (1.0 - r) * xv;
            cb[j] = cn;
            hb[j] = hv;
            o[j] = hv;
            if (a) {
                a[j] = f;
                a[H + j] = r;
                a[2 * H + j] = cp;
                a[3 * H + j] = cn;
                a[4 * H + j] = p[j];
                a[5 * H + j] = xv;
            }
        }
    }
}

void prnn_ref_sru_cell_backward(const prnn_ref_dims *g, size_t nb, const double *act,
                                const double *dout, size_t ldo, const double *vec, double *dh,
                                double *dc, double *dg)
{
    size_t H = g->hidden, sh = g->act_cols * H, eh = g->dg_cols * H;
    const double *vf = vec + 2 * H, *vr = vec + 3 * H;
    for (size_t b = 0; b < nb; b++) {
        const double *a = act + b * sh, *dy = dout + b * ldo;
        double *dhb = dh + b * H, *dcb = dc + b * H, *d = dg + b * eh;
        for (size_t j = 0; j < H; j++) {
            double f = a[j], r = a[H + j], cp = a[2 * H + j];
            double tc = sru_g(g, a[3 * H + j]), u0 = a[4 * H + j];
            double dtc = g->sru_identity ? 1.0 : 1.0 - tc * tc; /* g'(c) */
            double xp = a[5 * H + j];
            double dhv = dhb[j] + dy[j];
            double dr = dhv * (tc - xp) * r * (1.0 - r);
            double dcv = dcb[j] + dhv * r * dtc;
            double df = dcv * (cp - u0) * f * (1.0 - f);
            d[j] = dcv * (1.0 - f);
            d[H + j] = df;
            d[2 * H + j] = dr;
            d[3 * H + j] = dhv * (1.0 - r);
            dcb[j] = dcv * f + df * vf[j] + dr * vr[j];
            dhb[j] = 0.0;
        }
    }
}
