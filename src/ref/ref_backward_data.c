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
    /* the cell's input-side runs: dg columns against rows of W (GRU's n has
     * its input-side gradient after the recurrent-side one) */
    for (int k = 0; k < g->traits->input_runs; k++) {
        const prnn_gate_run *run = &g->traits->input_run[k];
        prnn_ref_gemm(n, kin, (size_t)run->count * H, dg + (size_t)run->dg_col * H, eh, 1,
                      w + (size_t)run->w_row * H * kin, kin, din, kin, pack);
    }
}

/*
 * The LSTM cell's step backward with a projection (h = W_proj m): the
 * gradient of each row's h_t (from later steps and from above) is kept in
 * the reserve for dW_proj, carried through W_proj to m = o tanh(c), and the
 * cell takes it from there as it would take the gradient of its own h.
 */
static void cell_backward_projected(const bwd_ctx *c, size_t nb, size_t r0, size_t d,
                                    const double *act, double *dp, double *dg)
{
    const prnn_ref_dims *g = c->g;
    prnn_ref_bwd_data_ws *ws = c->ws;
    size_t H = g->hidden, P = g->proj;
    for (size_t b = 0; b < nb; b++)
        for (size_t k = 0; k < P; k++) {
            dp[b * P + k] = ws->dh[b * P + k] + ws->dout[(r0 + b) * g->dh + d * P + k];
            ws->dh[b * P + k] = 0.0;
        }
    memset(ws->dm, 0, nb * H * sizeof(double));
    prnn_ref_gemm(nb, H, P, dp, P, 1, ws->wp, H, ws->dm, H, ws->pack);
    prnn_ref_cell_backward(g, nb, act, ws->dm, ws->dm, H, ws->hprev, ws->cprev, ws->dz, ws->dc, dg);
}

static void backward_dir(const bwd_ctx *c, size_t l, size_t d, double *din)
{
    const prnn_ref_dims *g = c->g;
    prnn_ref_bwd_data_ws *ws = c->ws;
    size_t H = g->hidden, P = g->proj, gh = g->gh, dh = g->dh, bh = g->batch0 * H;
    size_t pl = l * g->dirs + d;
    size_t sh = g->act_cols * H, eh = g->dg_cols * H;
    size_t kin = prnn_ref_layer_input(g, l);
    int has_cell = g->traits->has_cell;
    const double *out = prnn_ref_res_out(g, c->res, l);
    const double *act = prnn_ref_res_act(g, c->res, pl);
    double *dg = prnn_ref_res_dg(g, c->res, pl);
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    if (lay.w_cols)
        prnn_ref_load(c->w, g->dtype, lay.w_offset, gh * kin, ws->w);
    prnn_ref_load(c->w, g->dtype, lay.r_offset, gh * P, ws->r);
    if (g->has_proj) {
        prnn_ref_load(c->w, g->dtype, lay.p_offset, P * H, ws->wp);
        memset(ws->dz, 0, bh * sizeof(double));
    }
    prnn_ref_load_state(g, c->hx, pl, P, ws->h0);
    prnn_ref_load_state(g, c->dhy, pl, P, ws->dh);
    if (has_cell) {
        prnn_ref_load_state(g, c->cx, pl, H, ws->c0);
        prnn_ref_load_state(g, c->dcy, pl, H, ws->dc);
    }

    /* A row that is not active at step t keeps its gradient: it reaches
     * the step where the forward pass left (or, in reverse, entered) that
     * sequence, which is exactly where dhy applies and dhx is read. */
    for (size_t s = g->steps; s-- > 0;) {
        size_t t = prnn_ref_step_time(g, d, s);
        size_t nb = (size_t)g->batch[t], r0 = ws->off[t];
        if (g->cell->reads_hprev)
            prnn_ref_gather_prev(g, ws->off, d, t, out + d * H, dh, H, ws->h0, ws->hprev);
        if (g->cell->cprev_col >= 0)
            prnn_ref_gather_prev(g, ws->off, d, t, act + (size_t)g->cell->cprev_col * H, sh, H,
                                 ws->c0, ws->cprev);
        if (g->has_proj)
            cell_backward_projected(c, nb, r0, d, act + r0 * sh,
                                    prnn_ref_res_dp(g, c->res, pl) + r0 * P, dg + r0 * eh);
        else
            prnn_ref_cell_backward(g, nb, act + r0 * sh, out + r0 * dh + d * H,
                                   ws->dout + r0 * dh + d * H, dh, ws->hprev, ws->cprev, ws->dh,
                                   ws->dc, dg + r0 * eh);
        /* the recurrent-side gate gradients are the first G*H columns */
        prnn_ref_gemm(nb, P, gh, dg + r0 * eh, eh, 1, ws->r, P, ws->dh, P, ws->pack);
    }

    if (c->dhx)
        prnn_ref_store_state(g, c->dhx, pl, P, ws->dh);
    if (has_cell && c->dcx)
        prnn_ref_store_state(g, c->dcx, pl, H, ws->dc);
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

    /* The reserve holds every layer's output in double; y is the same
     * values rounded to the storage type, so it is not read. */
    (void)y;
    prnn_ref_dims_init(p, &g);
    prnn_ref_bwd_data_ws_map(&g, workspace, &ws);
    prnn_ref_reserve_map(&g, reserve, &res);
    prnn_ref_step_offsets(&g, ws.off);
    const bwd_ctx c = {&g, &ws, &res, w, hx, cx, dhy, dcy, dhx, dcx};

    prnn_ref_load_seq(&g, dy, g.dh, ws.dout);
    for (size_t l = g.layers; l-- > 0;) {
        size_t kin = prnn_ref_layer_input(&g, l);
        memset(ws.din, 0, g.rows * kin * sizeof(double));
        for (size_t d = 0; d < g.dirs; d++) {
            if (g.traits->scan)
                prnn_ref_sru_backward_dir(&g, &ws, &res, w, dhy, dcy, dhx, dcx, l, d, ws.din);
            else
                backward_dir(&c, l, d, ws.din);
        }
        if (l == 0) {
            if (dx) /* NULL: not wanted */
                prnn_ref_store_seq(&g, dx, g.input, ws.din, g.io ? g.io->x_fill : NULL);
        } else if (g.drop_threshold)
            prnn_ref_dropout(&g, l - 1, ws.din, ws.dout);
        else
            memcpy(ws.dout, ws.din, g.rows * g.dh * sizeof(double));
    }
    return PRNN_STATUS_SUCCESS;
}
