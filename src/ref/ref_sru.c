/*
 * SRU, one direction of one layer: forward, backward data, backward weights.
 * The layer loops (input, dropout between layers, y and dx) are the other
 * modes' (ref_forward.c, ref_backward_data.c, ref_backward_weights.c); what
 * differs is everything inside a direction: no recurrent product, the
 * projection U = in W^T of 3 or 4 matrices, x' taken from the input (all of
 * it, or the direction's columns, scaled: prnnSetRNNSRUConvention) or from
 * u3, and the V block (b_f, b_r, v_f, v_r) instead of bias pairs.
 */
#include <string.h>

#include "ref/ref_internal.h"
#include "weights_layout.h"

/* Whether the layer's x' is its input (no u3). */
static int highway_is_input(const prnn_ref_dims *g, const prnn_pseudo_layer_layout *lay)
{
    return (size_t)lay->w_rows != 4 * g->hidden;
}

/* The column of the input where direction d's x' starts, where x' is the
 * input: 0 (prnn's convention: the input is hidden wide), or d * hidden
 * (the sru package's: dirs * hidden wide, split across directions). */
static size_t highway_col(const prnn_ref_dims *g, size_t d)
{
    return g->sru_split ? d * g->hidden : 0;
}

/* x' of row 0, the distance between rows and its factor: u3 where the
 * layer projects its input, else the input itself, scaled. */
static const double *highway(const prnn_ref_dims *g, const prnn_pseudo_layer_layout *lay, size_t d,
                             const double *u, const double *in, size_t kin, size_t *ldx, double *xs)
{
    if (!highway_is_input(g, lay)) {
        *ldx = g->gh;
        *xs = 1.0;
        return u + 3 * g->hidden;
    }
    *ldx = kin;
    *xs = g->sru_scale;
    return in + highway_col(g, d);
}

void prnn_ref_sru_forward_dir(const prnn_ref_dims *g, prnn_ref_fwd_ws *ws, const void *w,
                              const void *cx, void *hy, void *cy, size_t l, size_t d,
                              const double *in, double *out, double *act)
{
    size_t H = g->hidden, gh = g->gh, bh = g->batch0 * H;
    size_t pl = l * g->dirs + d, sh = g->act_cols * H;
    size_t kin = prnn_ref_layer_input(g, l);
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    prnn_ref_load(w, g->dtype, lay.v_offset, PRNN_SRU_VECTORS * H, ws->vec);
    memset(ws->proj, 0, g->rows * gh * sizeof(double));
    if (lay.w_cols) {
        size_t m = (size_t)lay.w_rows;
        prnn_ref_load_transposed(w, g->dtype, lay.w_offset, m, kin, ws->wt);
        prnn_ref_gemm(g->rows, m, kin, in, kin, 1, ws->wt, m, ws->proj, gh, ws->pack);
    } else {
        /* SKIP_INPUT: u0 = u1 = u2 = x, as if each W were the identity */
        for (size_t r = 0; r < g->rows; r++)
            for (size_t q = 0; q < 3; q++)
                memcpy(ws->proj + r * gh + q * H, in + r * kin, H * sizeof(double));
    }
    size_t ldx;
    double xs;
    const double *xp = highway(g, &lay, d, ws->proj, in, kin, &ldx, &xs);

    prnn_ref_load_state(g, cx, pl, H, ws->c);
    memset(ws->h, 0, bh * sizeof(double));
    /* Rows beyond batch[t] keep c and h, so after the loop each sequence
     * holds the state of its own last step in this direction. */
    for (size_t s = 0; s < g->steps; s++) {
        size_t t = prnn_ref_step_time(g, d, s);
        size_t nb = (size_t)g->batch[t], r0 = ws->off[t];
        prnn_ref_sru_cell_forward(g, nb, ws->proj + r0 * gh, xp + r0 * ldx, ldx, xs, ws->vec, ws->c,
                                  ws->h, out + r0 * g->dh + d * H, g->dh,
                                  act ? act + r0 * sh : NULL);
    }
    if (hy)
        prnn_ref_store_state(g, hy, pl, H, ws->h);
    if (cy)
        prnn_ref_store_state(g, cy, pl, H, ws->c);
}

void prnn_ref_sru_backward_dir(const prnn_ref_dims *g, prnn_ref_bwd_data_ws *ws,
                               const prnn_ref_reserve *res, const void *w, const void *dhy,
                               const void *dcy, void *dhx, void *dcx, size_t l, size_t d,
                               double *din)
{
    size_t H = g->hidden, dh = g->dh, bh = g->batch0 * H, n = g->rows;
    size_t pl = l * g->dirs + d;
    size_t sh = g->act_cols * H, eh = g->dg_cols * H;
    size_t kin = prnn_ref_layer_input(g, l);
    const double *act = prnn_ref_res_act(g, res, pl);
    double *dg = prnn_ref_res_dg(g, res, pl);
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    prnn_ref_load(w, g->dtype, lay.v_offset, PRNN_SRU_VECTORS * H, ws->vec);
    prnn_ref_load_state(g, dhy, pl, H, ws->dh);
    prnn_ref_load_state(g, dcy, pl, H, ws->dc);
    /* A row not active at step t keeps dh and dc until the step where the
     * forward pass left that sequence, which is where dhy and dcy apply. */
    for (size_t s = g->steps; s-- > 0;) {
        size_t t = prnn_ref_step_time(g, d, s);
        size_t nb = (size_t)g->batch[t], r0 = ws->off[t];
        prnn_ref_sru_cell_backward(g, nb, act + r0 * sh, ws->dout + r0 * dh + d * H, dh, ws->vec,
                                   ws->dh, ws->dc, dg + r0 * eh);
    }
    if (dhx) {
        /* hx plays no part in SRU: its gradient is zero */
        memset(ws->dh, 0, bh * sizeof(double));
        prnn_ref_store_state(g, dhx, pl, H, ws->dh);
    }
    if (dcx)
        prnn_ref_store_state(g, dcx, pl, H, ws->dc);

    if (lay.w_cols) {
        size_t m = (size_t)lay.w_rows;
        prnn_ref_load(w, g->dtype, lay.w_offset, m * kin, ws->w);
        prnn_ref_gemm(n, kin, m, dg, eh, 1, ws->w, kin, din, kin, ws->pack);
    } else {
        for (size_t r = 0; r < n; r++)
            for (size_t j = 0; j < H; j++)
                din[r * kin + j] += dg[r * eh + j] + dg[r * eh + H + j] + dg[r * eh + 2 * H + j];
    }
    if (highway_is_input(g, &lay)) { /* x' = scale * (the input's columns) */
        size_t c0 = highway_col(g, d);
        for (size_t r = 0; r < n; r++)
            for (size_t j = 0; j < H; j++)
                din[r * kin + c0 + j] += g->sru_scale * dg[r * eh + 3 * H + j];
    }
}

void prnn_ref_sru_weights_dir(const prnn_ref_dims *g, prnn_ref_bwd_weights_ws *ws,
                              const prnn_ref_reserve *res, size_t l, size_t d, const double *in,
                              void *dw)
{
    size_t H = g->hidden, n = g->rows, pl = l * g->dirs + d;
    size_t sh = g->act_cols * H, eh = g->dg_cols * H;
    size_t kin = prnn_ref_layer_input(g, l);
    const double *act = prnn_ref_res_act(g, res, pl);
    const double *dg = prnn_ref_res_dg(g, res, pl);
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    if (lay.w_cols) {
        size_t m = (size_t)lay.w_rows;
        memset(ws->dmat, 0, m * kin * sizeof(double));
        prnn_ref_gemm(m, kin, n, dg, 1, eh, in, kin, ws->dmat, kin, ws->pack);
        prnn_ref_accumulate(dw, g->dtype, lay.w_offset, m * kin, ws->dmat);
    }

    /* b_f, b_r, v_f, v_r: f and r see c_{t-1} (act's third block) through
     * v, and their bias directly */
    double *dv = ws->dbias;
    memset(dv, 0, PRNN_SRU_VECTORS * H * sizeof(double));
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < H; j++) {
            double df = dg[r * eh + H + j], dr = dg[r * eh + 2 * H + j];
            double cp = act[r * sh + 2 * H + j];
            dv[j] += df;
            dv[H + j] += dr;
            dv[2 * H + j] += df * cp;
            dv[3 * H + j] += dr * cp;
        }
    prnn_ref_accumulate(dw, g->dtype, lay.v_offset, PRNN_SRU_VECTORS * H, dv);
}
