/*
 * Backward weights: with the gate gradients of every row that backward data
 * left in the reserve, each weight gradient is one product over all rows of
 * all steps (dW = dg_in^T in, dR = dg_rec^T h_prev) and each bias gradient a
 * column sum. The results are added to dw, as cuDNN v5 does.
 */
#include <math.h>
#include <string.h>

#include "ref/ref_internal.h"
#include "ref/ref_rnn.h"
#include "weights_layout.h"

/* dW_proj = sum over rows of dh_t^T m_t, m = o tanh(c) rebuilt from the
 * gates the forward pass kept (backward data left dh_t in the reserve). */
static void projection_gradient(const prnn_ref_dims *g, prnn_ref_bwd_weights_ws *ws,
                                const prnn_ref_reserve *res, size_t pl,
                                const prnn_pseudo_layer_layout *lay, void *dw)
{
    size_t H = g->hidden, P = g->proj, n = g->rows, sh = g->act_cols * H;
    const double *act = prnn_ref_res_act(g, res, pl);
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < H; j++)
            ws->m[r * H + j] = act[r * sh + REF_LSTM_O * H + j] *
                               tanh(act[r * sh + REF_LSTM_C * H + j]);
    memset(ws->dmat, 0, P * H * sizeof(double));
    prnn_ref_gemm(P, H, n, prnn_ref_res_dp(g, res, pl), 1, P, ws->m, H, ws->dmat, H, ws->pack);
    prnn_ref_accumulate(dw, g->dtype, lay->p_offset, P * H, ws->dmat);
}

static void weights_dir(const prnn_ref_dims *g, prnn_ref_bwd_weights_ws *ws,
                        const prnn_ref_reserve *res, size_t l, size_t d, const double *in,
                        const void *hx, void *dw)
{
    size_t H = g->hidden, P = g->proj, gh = g->gh, n = g->rows, eh = g->dg_cols * H;
    size_t pl = l * g->dirs + d;
    size_t kin = prnn_ref_layer_input(g, l);
    const double *dg = prnn_ref_res_dg(g, res, pl);
    const double *out = prnn_ref_res_out(g, res, l);
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    if (lay.w_cols) {
        memset(ws->dmat, 0, gh * kin * sizeof(double));
        for (int k = 0; k < g->traits->input_runs; k++) {
            const prnn_gate_run *run = &g->traits->input_run[k];
            prnn_ref_gemm((size_t)run->count * H, kin, n, dg + (size_t)run->dg_col * H, 1, eh, in,
                          kin, ws->dmat + (size_t)run->w_row * H * kin, kin, ws->pack);
        }
        prnn_ref_accumulate(dw, g->dtype, lay.w_offset, gh * kin, ws->dmat);
    }

    if (g->has_bw) {
        memset(ws->dbias, 0, gh * sizeof(double));
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < gh; i++)
                ws->dbias[i] += dg[r * eh + prnn_ref_dg_in_col(g, i)];
        prnn_ref_accumulate(dw, g->dtype, lay.bw_offset, gh, ws->dbias);
    }
    if (g->has_br) {
        memset(ws->dbias, 0, gh * sizeof(double));
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < gh; i++)
                ws->dbias[i] += dg[r * eh + i];
        prnn_ref_accumulate(dw, g->dtype, lay.br_offset, gh, ws->dbias);
    }

    /* h_{t-1} of every row, so that dR is one product like dW */
    prnn_ref_load_state(g, hx, pl, P, ws->h0);
    for (size_t t = 0; t < g->steps; t++)
        prnn_ref_gather_prev(g, ws->off, d, t, out + d * P, g->dh, P, ws->h0,
                             ws->hprev + ws->off[t] * P);
    memset(ws->dmat, 0, gh * P * sizeof(double));
    prnn_ref_gemm(gh, P, n, dg, 1, eh, ws->hprev, P, ws->dmat, P, ws->pack);
    prnn_ref_accumulate(dw, g->dtype, lay.r_offset, gh * P, ws->dmat);
    if (g->has_proj)
        projection_gradient(g, ws, res, pl, &lay, dw);
}

prnnStatus_t prnn_ref_backward_weights(const prnn_rnn_problem *p, const void *x, const void *hx,
                                       const void *y, void *workspace, void *dw,
                                       const void *reserve)
{
    prnn_ref_dims g;
    prnn_ref_bwd_weights_ws ws;
    prnn_ref_reserve res;

    (void)y; /* the reserve holds the layer outputs in double */
    prnn_ref_dims_init(p, &g);
    prnn_ref_bwd_weights_ws_map(&g, workspace, &ws);
    /* only read here; the map is shared with the calls that write it */
    prnn_ref_reserve_map(&g, (void *)(uintptr_t)reserve, &res);
    prnn_ref_step_offsets(&g, ws.off);

    for (size_t l = 0; l < g.layers; l++) {
        /* the input exactly as the forward pass saw it */
        const double *in = ws.in;
        if (l == 0) {
            if (!g.skip)
                prnn_ref_load_seq(&g, x, g.input, ws.in);
        } else if (g.drop_threshold) {
            prnn_ref_dropout(&g, l - 1, prnn_ref_res_out(&g, &res, l - 1), ws.in);
        } else {
            in = prnn_ref_res_out(&g, &res, l - 1);
        }
        for (size_t d = 0; d < g.dirs; d++) {
            if (g.traits->scan)
                prnn_ref_sru_weights_dir(&g, &ws, &res, l, d, in, dw);
            else
                weights_dir(&g, &ws, &res, l, d, in, hx, dw);
        }
    }
    return PRNN_STATUS_SUCCESS;
}
