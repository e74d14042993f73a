/*
 * Forward pass, inference and training: layer by layer, and inside a layer
 * direction by direction. The input projection of all steps is one product
 * up front (as the GPU path does), the recurrence then multiplies only R h.
 */
#include <string.h>

#include "ref/ref_internal.h"
#include "ref/ref_rnn.h"
#include "weights_layout.h"

typedef struct {
    const prnn_ref_dims *g;
    prnn_ref_fwd_ws *ws;
    const void *w, *hx, *cx;
    void *hy, *cy;
} fwd_ctx;

/* proj = W in + bW for every row, or in + bW per gate for SKIP_INPUT's
 * layer 0 (as if each W were the identity). */
static void project_input(const fwd_ctx *f, const prnn_pseudo_layer_layout *lay, const double *in,
                          size_t kin)
{
    const prnn_ref_dims *g = f->g;
    prnn_ref_fwd_ws *ws = f->ws;
    size_t gh = g->gh, H = g->hidden;
    for (size_t r = 0; r < g->rows; r++)
        memcpy(ws->proj + r * gh, ws->bw, gh * sizeof(double));
    if (lay->w_cols) {
        prnn_ref_load_transposed(f->w, g->dtype, lay->w_offset, gh, kin, ws->wt);
        prnn_ref_gemm(g->rows, gh, kin, in, kin, 1, ws->wt, gh, ws->proj, gh, ws->pack);
        return;
    }
    for (size_t r = 0; r < g->rows; r++)
        for (size_t q = 0; q < g->gates; q++)
            for (size_t j = 0; j < H; j++)
                ws->proj[r * gh + q * H + j] += in[r * kin + j];
}

/* A bias the bias mode drops is zero. */
static void load_bias(const prnn_ref_dims *g, const void *w, int present, size_t offset,
                      double *dst)
{
    prnn_ref_load_or_zero(present ? w : NULL, g->dtype, offset, g->gh, dst);
}

/* The projection of the rows of one step: h = W_proj m for the nb rows of
 * m ([nb][H]), into the running state h ([nb][P]) and the layer output. */
static void project_state(const fwd_ctx *f, size_t nb, double *out)
{
    const prnn_ref_dims *g = f->g;
    prnn_ref_fwd_ws *ws = f->ws;
    size_t H = g->hidden, P = g->proj;
    memset(ws->h, 0, nb * P * sizeof(double));
    prnn_ref_gemm(nb, P, H, ws->m, H, 1, ws->pt, P, ws->h, P, ws->pack);
    for (size_t b = 0; b < nb; b++)
        memcpy(out + b * g->dh, ws->h + b * P, P * sizeof(double));
}

static void forward_dir(const fwd_ctx *f, size_t l, size_t d, const double *in, double *out,
                        double *act)
{
    const prnn_ref_dims *g = f->g;
    prnn_ref_fwd_ws *ws = f->ws;
    size_t H = g->hidden, P = g->proj, gh = g->gh;
    size_t pl = l * g->dirs + d, sh = g->act_cols * H;
    prnn_pseudo_layer_layout lay;

    prnn_weights_pseudo_layer(g->rnn, (int)g->input, (int)pl, &lay);
    load_bias(g, f->w, g->has_bw, lay.bw_offset, ws->bw);
    load_bias(g, f->w, g->has_br, lay.br_offset, ws->br);
    project_input(f, &lay, in, prnn_ref_layer_input(g, l));
    prnn_ref_load_transposed(f->w, g->dtype, lay.r_offset, gh, P, ws->rt);
    if (g->has_proj)
        prnn_ref_load_transposed(f->w, g->dtype, lay.p_offset, P, H, ws->pt);

    prnn_ref_load_state(g, f->hx, pl, P, ws->h);
    if (g->traits->has_cell)
        prnn_ref_load_state(g, f->cx, pl, H, ws->c);

    /* Rows beyond batch[t] keep their state untouched, so after the loop
     * each sequence's state is the one after its own last step (forward),
     * and in reverse a sequence starts from hx when it first becomes active
     * at its own last step. */
    for (size_t s = 0; s < g->steps; s++) {
        size_t t = prnn_ref_step_time(g, d, s);
        size_t nb = (size_t)g->batch[t], r0 = ws->off[t];
        for (size_t b = 0; b < nb; b++)
            memcpy(ws->rec + b * gh, ws->br, gh * sizeof(double));
        prnn_ref_gemm(nb, gh, P, ws->h, P, 1, ws->rt, gh, ws->rec, gh, ws->pack);
        double *o = out + r0 * g->dh + d * P, *a = act ? act + r0 * sh : NULL;
        if (!g->has_proj) {
            prnn_ref_cell_forward(g, nb, ws->proj + r0 * gh, ws->rec, ws->h, ws->c, o, g->dh, a);
            continue;
        }
        /* the LSTM cell writes m = o tanh(c) (it never reads h) */
        prnn_ref_cell_forward(g, nb, ws->proj + r0 * gh, ws->rec, ws->m, ws->c, ws->m, H, a);
        project_state(f, nb, o);
    }

    if (f->hy)
        prnn_ref_store_state(g, f->hy, pl, P, ws->h);
    if (g->traits->has_cell && f->cy)
        prnn_ref_store_state(g, f->cy, pl, H, ws->c);
}

prnnStatus_t prnn_ref_forward(const prnn_rnn_problem *p, int training, const void *x,
                              const void *hx, const void *cx, const void *w, void *y, void *hy,
                              void *cy, void *workspace, void *reserve)
{
    prnn_ref_dims g;
    prnn_ref_fwd_ws ws;
    prnn_ref_reserve res;

    prnn_ref_dims_init(p, &g);
    prnn_ref_fwd_ws_map(&g, workspace, &ws);
    if (training)
        prnn_ref_reserve_map(&g, reserve, &res);
    prnn_ref_step_offsets(&g, ws.off);
    const fwd_ctx f = {.g = &g, .ws = &ws, .w = w, .hx = hx, .cx = cx, .hy = hy, .cy = cy};

    prnn_ref_load_seq(&g, x, g.input, ws.in);
    const double *in = ws.in;
    double *out = NULL;
    for (size_t l = 0; l < g.layers; l++) {
        /* training keeps every layer's output for the backward calls;
         * inference only needs the previous one */
        out = training ? prnn_ref_res_out(&g, &res, l) : ws.out[l % 2];
        for (size_t d = 0; d < g.dirs; d++) {
            double *act = training ? prnn_ref_res_act(&g, &res, l * g.dirs + d) : NULL;
            if (g.traits->scan)
                prnn_ref_sru_forward_dir(&g, &ws, w, cx, hy, cy, l, d, in, out, act);
            else
                forward_dir(&f, l, d, in, out, act);
        }
        if (training && g.drop_threshold && l + 1 < g.layers) {
            prnn_ref_dropout(&g, l, out, ws.in);
            in = ws.in;
        } else {
            in = out;
        }
    }
    prnn_ref_store_seq(&g, y, g.dh, out, g.io ? g.io->y_fill : NULL);
    return PRNN_STATUS_SUCCESS;
}
