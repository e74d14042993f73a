/*
 * Backward data: layers from the top down, each direction walking its steps
 * in the reverse of its forward order. Per step the cell turns the gradient
 * of h_t (and c_t) into gate gradients, which are kept in the reserve for
 * backward weights; R^T carries them to h_{t-1}. After all steps, W^T carries
 * them to the layer's input, through the dropout mask to the layer below.
 */
#include <string.h>

#include "ref/ref_internal.h"
#include "ref/ref_rnn.h"
#include "weights_layout.h"

typedef struct {
    const prnn_ref_dims *g;
    prnn_ref_bwd_data_ws *ws;
    const prnn_ref_reserve *res;
    const void *w, *hx, *cx, *dhy, *dcy;
    void *dhx, *dcx;
} bwd_ctx;

/* din += dg_in W, or the sum over gates for SKIP_INPUT's layer 0. */
static void input_gradient(const bwd_ctx *c, const prnn_pseudo_layer_layout *lay, const double *dg,
                           size_t kin, double *din)
{
    const prnn_ref_dims *g = c->g;
    size_t H = g->hidden, eh = g->dg_cols * H, n = g->rows;
    const double *w = c->ws->w;
    double *pack = c->ws->pack;
    if (!lay->w_cols) {
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < g->gh; i++)
                din[r * kin + i % H] += dg[r * eh + prnn_ref_dg_in_col(g, i)];
        return;
    }
    if (g->mode == PRNN_GRU) {
        /* gates r, z then n, whose input-side gradient sits after the
         * recurrent-side one */
        prnn_ref_gemm(n, kin, 2 * H, dg, eh, 1, w, kin, din, kin, pack);
        prnn_ref_gemm(n, kin, H, dg + 3 * H, eh, 1, w + 2 * H * kin, kin, din, kin, pack);
    } else {
        prnn_ref_gemm(n, kin, g->gh, dg, eh, 1, w, kin, din, kin, pack);
    }
}

static void backward_dir(const bwd_ctx *c, size_t l, size_t d, double *din)
{
    const prnn_ref_dims *g = c->g;
    prnn_ref_bwd_data_ws *ws = c->ws;
    size_t H = g->hidden, gh = g->gh, dh = g->dh, bh = g->batch0 * H;
    size_t pl = l * g->dirs + d, st = pl * bh;
    size_t sh = g->act_cols * H, eh = g->dg_cols * H;
    size_t kin = prnn_ref_layer_input(g, l);
    int lstm = g->mode == PRNN_LSTM, gru = g->mode == PRNN_GRU;
    const double *out = prnn_ref_res_out(g, c->res, l);
    const double *act = prnn_ref_res_act(g, c->res, pl);
    double *dg = prnn_ref_res_dg(g, c->res, pl);
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    if (lay.w_cols)
        prnn_ref_load(c->w, g->dtype, lay.w_offset, gh * kin, ws->w);
    prnn_ref_load(c->w, g->dtype, lay.r_offset, gh * H, ws->r);
    prnn_ref_load_or_zero(c->hx, g->dtype, st, bh, ws->h0);
    prnn_ref_load_or_zero(c->dhy, g->dtype, st, bh, ws->dh);
    if (lstm) {
        prnn_ref_load_or_zero(c->cx, g->dtype, st, bh, ws->c0);
        prnn_ref_load_or_zero(c->dcy, g->dtype, st, bh, ws->dc);
    }

    /* A row that is not active at step t keeps its gradient: it reaches
     * the step where the forward pass left (or, in reverse, entered) that
     * sequence, which is exactly where dhy applies and dhx is read. */
    for (size_t s = g->steps; s-- > 0;) {
        size_t t = prnn_ref_step_time(g, d, s);
        size_t nb = (size_t)g->batch[t], r0 = ws->off[t];
        if (gru)
            prnn_ref_gather_prev(g, ws->off, d, t, out + d * H, dh, ws->h0, ws->hprev);
        if (lstm)
            prnn_ref_gather_prev(g, ws->off, d, t, act + 4 * H, sh, ws->c0, ws->cprev);
        prnn_ref_cell_backward(g, nb, act + r0 * sh, out + r0 * dh + d * H,
                               ws->dout + r0 * dh + d * H, dh, ws->hprev, ws->cprev, ws->dh, ws->dc,
                               dg + r0 * eh);
        /* the recurrent-side gate gradients are the first G*H columns */
        prnn_ref_gemm(nb, H, gh, dg + r0 * eh, eh, 1, ws->r, H, ws->dh, H, ws->pack);
    }

    if (c->dhx)
        prnn_ref_store(c->dhx, g->dtype, st, bh, ws->dh);
    if (lstm && c->dcx)
        prnn_ref_store(c->dcx, g->dtype, st, bh, ws->dc);
    input_gradient(c, &lay, dg, kin, din);
}

prnnStatus_t prnn_ref_backward_data(const prnn_rnn_problem *p, const void *y, const void *dy,
                                    const void *dhy, const void *dcy, const void *w, const void *hx,
                                    const void *cx, void *dx, void *dhx, void *dcx, void *workspace,
                                    void *reserve)
{
    prnn_ref_dims g;
    prnn_ref_bwd_data_ws ws;
    prnn_ref_reserve res;
    bwd_ctx c;

    /* The reserve holds every layer's output in double; y is the same
     * values rounded to the storage type, so it is not read. */
    (void)y;
    prnn_ref_dims_init(p, &g);
    prnn_ref_bwd_data_ws_map(&g, workspace, &ws);
    prnn_ref_reserve_map(&g, reserve, &res);
    prnn_ref_step_offsets(&g, ws.off);
    c.g = &g;
    c.ws = &ws;
    c.res = &res;
    c.w = w;
    c.hx = hx;
    c.cx = cx;
    c.dhy = dhy;
    c.dcy = dcy;
    c.dhx = dhx;
    c.dcx = dcx;

    prnn_ref_load(dy, g.dtype, 0, g.rows * g.dh, ws.dout);
    for (size_t l = g.layers; l-- > 0;) {
        size_t kin = prnn_ref_layer_input(&g, l);
        memset(ws.din, 0, g.rows * kin * sizeof(double));
        for (size_t d = 0; d < g.dirs; d++) {
            if (g.mode == PRNN_SRU)
                prnn_ref_sru_backward_dir(&g, &ws, &res, w, dhy, dcy, dhx, dcx, l, d, ws.din);
            else
                backward_dir(&c, l, d, ws.din);
        }
        if (l == 0) {
            if (dx) /* NULL: not wanted */
                prnn_ref_store(dx, g.dtype, 0, g.rows * g.input, ws.din);
        } else if (g.drop_threshold)
            prnn_ref_dropout(&g, l - 1, ws.din, ws.dout);
        else
            memcpy(ws.dout, ws.din, g.rows * g.dh * sizeof(double));
    }
    return PRNN_STATUS_SUCCESS;
}
