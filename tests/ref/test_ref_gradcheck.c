/*
 * The reference's backward calls against central differences of its forward
 * pass, in double, over every mode x {1, 2 layers} x {uni, bi} x {LINEAR,
 * SKIP} x {equal, variable lengths} x {with, without hx/cx/hy/cy}, plus
 * training with dropout between two layers; and, on a random sample of
 * elements, three mid-size problems whose products cross every blocking
 * boundary of the reference's GEMM (the tiny ones never leave one block).
 * SRU's cases also cover x' = x (SKIP, and a unidirectional second layer)
 * and x' = u3 (an input of another width, a bidirectional second layer);
 * its dhx must be zero, as hx plays no part. SRU again under its other
 * conventions (prnnSetRNNSRUConvention: the sru package's highway split
 * across directions, the identity activation, a highway scale), with an
 * input as wide as the output (the package's x' = x) and not.
 *
 * Loss = sum(dy * y) + sum(dhy * hy) + sum(dcy * cy) with random dy, dhy, dcy,
 * so its gradient is exactly what backward data / weights compute for those
 * incoming gradients. Checked: dx, dhx, dcx and every element of every W, R,
 * bW, bR (SRU: W and b_f, b_r, v_f, v_r). Also checked: backward weights adds to dw (twice on a
 * nonzero dw gives dw + 2 g) and leaves the layout's padding alone, forward inference equals
 * forward training bit for bit without dropout, backward data can be repeated, and no call writes
 * outside its buffers.
 */
#include "ref_test_util.h"

#define EPS 1e-6
#define TOL 1e-6
/* gradients smaller than this are compared in absolute terms */
#define FLOOR 1e-2

typedef struct {
    prnnRNNMode_t mode;
    int layers, bidir, skip, var, state;
    float dropout;
    /* 0 for the tiny default shape; else hidden, input, and how many
     * elements of each gradient to check (the batches are large_batch) */
    int hidden, input, samples;
    /* SRU: rt_problem_sru's case; tiny shapes: input dirs * hidden wide */
    int sru, wide;
} gc_case;

static const int tiny_var[3] = {3, 2, 1}, tiny_eq[3] = {2, 2, 2};
static const int large_batch[3] = {70, 66, 65};

typedef struct {
    const gc_case *c;
    rt_problem q;
    size_t n_x, n_s, n_w, n_y;
    double *x, *hx, *cx, *w, *y, *hy, *cy, *dy, *dhy, *dcy;
    double *ws, *rs;
} gc_ctx;

static double loss(gc_ctx *g)
{
    const gc_case *c = g->c;
    int cell = prnn_cell_traits(c->mode)->has_cell; /* cx, cy, dcx, dcy */
    prnn_ref_forward(&g->q.p, c->dropout > 0, g->x, c->state ? g->hx : NULL,
                     c->state && cell ? g->cx : NULL, g->w, g->y, c->state ? g->hy : NULL,
                     c->state && cell ? g->cy : NULL, g->ws, g->rs);
    /* compensated sums: at the mid-size shapes, plain rounding of the
     * thousands of terms would swamp the finite differences */
    double l = 0, comp = 0;
    for (size_t i = 0; i < g->n_y + (c->state ? g->n_s : 0); i++) {
        double v;
        if (i < g->n_y)
            v = g->dy[i] * g->y[i];
        else
            v = g->dhy[i - g->n_y] * g->hy[i - g->n_y] +
                (cell ? g->dcy[i - g->n_y] * g->cy[i - g->n_y] : 0.0);
        double t = l + (v - comp);
        comp = (t - l) - (v - comp);
        l = t;
    }
    return l;
}

/* Largest error of grad[k] against the central difference of buf[k], for
 * k = idx[i] (or i), i < n; only `samples` random i when that is nonzero. */
static double check_grad(gc_ctx *g, double *buf, const size_t *idx, size_t n, const double *grad,
                         const char *what, int *fails)
{
    double worst = 0;
    size_t count = g->c->samples && (size_t)g->c->samples < n ? (size_t)g->c->samples : n;
    for (size_t s = 0; s < count; s++) {
        size_t i = count < n ? (size_t)(rt_next() % n) : s;
        size_t k = idx ? idx[i] : i;
        double v = buf[k];
        buf[k] = v + EPS;
        double lp = loss(g);
        buf[k] = v - EPS;
        double lm = loss(g);
        buf[k] = v;
        double fd = (lp - lm) / (2 * EPS);
        double e = rt_rel_err(grad[k], fd, FLOOR);
        if (e > worst)
            worst = e;
        if (e > TOL && (*fails)++ < 5)
            printf("    %s[%zu]: analytic %.10g, finite difference %.10g\n", what, k, grad[k], fd);
    }
    return worst;
}

static void fill(double *p, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = rt_uniform(lo, hi);
}

static int run_case(const gc_case *c)
{
    int hidden = c->hidden ? c->hidden : 3;
    int input = c->hidden ? c->input : c->skip ? 3 : c->wide ? 3 * (1 + c->bidir) : 2;
    int cell = prnn_cell_traits(c->mode)->has_cell; /* cx, cy, dcx, dcy */
    const int *batch = c->hidden ? large_batch : c->var ? tiny_var : tiny_eq;
    /* keep pre-activations O(1) whatever the fan-in */
    double wscale = c->hidden ? 1.5 / sqrt((double)(input + hidden)) : 0.6;
    gc_ctx g;
    int fails = 0;
    char name[96];

    snprintf(name, sizeof name, "%-4s L%d %s %s %s %s%s%s%s%s", rt_mode_name(c->mode), c->layers,
             c->bidir ? "bi " : "uni", c->skip ? "SKIP  " : "LINEAR", c->var ? "var" : "eq ",
             c->state ? "hx   " : "no-hx", c->dropout > 0 ? " dropout" : "",
             c->hidden ? " mid-size" : "", rt_sru_name(c->sru), c->wide ? " wide" : "");
    memset(&g, 0, sizeof g);
    g.c = c;
    rt_problem_init(&g.q, c->mode, hidden, c->layers, c->bidir, c->skip, input, 3, batch,
                    PRNN_DATA_DOUBLE, c->dropout, 1234);
    rt_problem_sru(&g.q, c->sru);
    g.n_x = rt_rows(&g.q) * (size_t)input;
    g.n_s = rt_state_elems(&g.q);
    g.n_w = rt_weight_elems(&g.q);
    g.n_y = rt_rows(&g.q) * rt_out_cols(&g.q);

    enum { X, HX, CX, W, Y, HY, CY, DY, DHY, DCY, DX, DHX, DCX, DW, WS, RS, NBUF };
    static const char *names[NBUF] = {"x",   "hx", "cx",        "w",      "y",  "hy",
                                      "cy",  "dy", "dhy",       "dcy",    "dx", "dhx",
                                      "dcx", "dw", "workspace", "reserve"};
    size_t sizes[NBUF] = {g.n_x, g.n_s, g.n_s, g.n_w, g.n_y, g.n_s, g.n_s, g.n_y,
                          g.n_s, g.n_s, g.n_x, g.n_s, g.n_s, g.n_w, 0,     0};
    rt_buf bufs[NBUF];
    void *ptr[NBUF];
    for (int i = 0; i < NBUF; i++)
        ptr[i] = rt_alloc(&bufs[i], sizes[i] * sizeof(double));
    rt_free(&bufs[WS]);
    rt_free(&bufs[RS]);
    ptr[WS] = rt_alloc(&bufs[WS], prnn_ref_workspace_bytes(&g.q.p));
    ptr[RS] = rt_alloc(&bufs[RS], prnn_ref_reserve_bytes(&g.q.p));
    /* clang-format off */
    g.x = ptr[X]; g.hx = ptr[HX]; g.cx = ptr[CX]; g.w = ptr[W];
    g.y = ptr[Y]; g.hy = ptr[HY]; g.cy = ptr[CY];
    g.dy = ptr[DY]; g.dhy = ptr[DHY]; g.dcy = ptr[DCY];
    g.ws = ptr[WS]; g.rs = ptr[RS];
    /* clang-format on */
    double *dx = ptr[DX], *dhx = ptr[DHX], *dcx = ptr[DCX], *dw = ptr[DW];

    size_t *widx = malloc(g.n_w * sizeof(size_t));
    size_t nw = rt_weight_indices(&g.q, widx);
    /* padding stays at a value no computation would produce */
    for (size_t i = 0; i < g.n_w; i++)
        g.w[i] = 777.0;
    for (size_t i = 0; i < nw; i++)
        g.w[widx[i]] = rt_uniform(-wscale, wscale);
    fill(g.x, g.n_x, -1, 1);
    fill(g.hx, g.n_s, -0.8, 0.8);
    fill(g.cx, g.n_s, -0.8, 0.8);
    fill(g.dy, g.n_y, -1, 1);
    fill(g.dhy, g.n_s, -1, 1);
    fill(g.dcy, g.n_s, -1, 1);

    if (c->dropout > 0) {
        /* the case is only meaningful if the mask both keeps and drops */
        uint32_t th = prnn_dropout_threshold(c->dropout);
        size_t kept = 0;
        for (size_t e = 0; e < g.n_y; e++)
            kept += (size_t)prnn_dropout_keep(1234, 0, e, th);
        if (kept == 0 || kept == g.n_y) {
            printf("  %s: dropout mask keeps %zu of %zu: pick another seed\n", name, kept, g.n_y);
            fails++;
        }
    }

    /* analytic gradients */
    prnn_ref_forward(&g.q.p, 1, g.x, c->state ? g.hx : NULL, c->state && cell ? g.cx : NULL, g.w,
                     g.y, c->state ? g.hy : NULL, c->state && cell ? g.cy : NULL, g.ws, g.rs);
    if (c->dropout == 0) {
        double *y_inf = malloc(g.n_y * sizeof(double));
        prnn_ref_forward(&g.q.p, 0, g.x, c->state ? g.hx : NULL, c->state && cell ? g.cx : NULL,
                         g.w, y_inf, NULL, NULL, g.ws, NULL);
        if (memcmp(y_inf, g.y, g.n_y * sizeof(double)) != 0) {
            printf("  %s: inference and training outputs differ\n", name);
            fails++;
        }
        free(y_inf);
    }
    for (size_t i = 0; i < g.n_x; i++)
        dx[i] = 555.0;
    prnn_ref_backward_data(&g.q.p, g.y, g.dy, c->state ? g.dhy : NULL,
                           c->state && cell ? g.dcy : NULL, g.w, c->state ? g.hx : NULL,
                           c->state && cell ? g.cx : NULL, dx, c->state ? dhx : NULL,
                           c->state && cell ? dcx : NULL, g.ws, g.rs);
    memset(dw, 0, g.n_w * sizeof(double));
    prnn_ref_backward_weights(&g.q.p, g.x, c->state ? g.hx : NULL, g.y, g.ws, dw, g.rs);
    double *gw = malloc(g.n_w * sizeof(double));
    memcpy(gw, dw, g.n_w * sizeof(double));

    /* repeating backward data changes nothing */
    double *dx2 = malloc(g.n_x * sizeof(double));
    memcpy(dx2, dx, g.n_x * sizeof(double));
    prnn_ref_backward_data(&g.q.p, g.y, g.dy, c->state ? g.dhy : NULL,
                           c->state && cell ? g.dcy : NULL, g.w, c->state ? g.hx : NULL,
                           c->state && cell ? g.cx : NULL, dx, c->state ? dhx : NULL,
                           c->state && cell ? dcx : NULL, g.ws, g.rs);
    if (memcmp(dx, dx2, g.n_x * sizeof(double)) != 0) {
        printf("  %s: a second backward data gives another dx\n", name);
        fails++;
    }

    /* backward weights accumulates: dw0 + g, then dw0 + 2 g; padding kept */
    double *dw0 = malloc(g.n_w * sizeof(double));
    for (size_t i = 0; i < g.n_w; i++)
        dw[i] = dw0[i] = 333.0;
    for (size_t i = 0; i < nw; i++)
        dw[widx[i]] = dw0[widx[i]] = rt_uniform(-2, 2);
    double acc_err = 0;
    for (int rep = 1; rep <= 2; rep++) {
        prnn_ref_backward_weights(&g.q.p, g.x, c->state ? g.hx : NULL, g.y, g.ws, dw, g.rs);
        for (size_t i = 0; i < g.n_w; i++) {
            double e = rt_rel_err(dw[i], dw0[i] + rep * gw[i], 1.0);
            if (e > acc_err)
                acc_err = e;
        }
    }
    if (acc_err > 1e-12) {
        printf("  %s: backward weights does not accumulate (error %.2e)\n", name, acc_err);
        fails++;
    }

    /* finite differences */
    double e_x = check_grad(&g, g.x, NULL, g.n_x, dx, "dx", &fails);
    double e_hx = 0, e_cx = 0;
    if (c->state) {
        e_hx = check_grad(&g, g.hx, NULL, g.n_s, dhx, "dhx", &fails);
        if (cell)
            e_cx = check_grad(&g, g.cx, NULL, g.n_s, dcx, "dcx", &fails);
    }
    double e_w = check_grad(&g, g.w, widx, nw, gw, "dw", &fails);

    for (int i = 0; i < NBUF; i++)
        fails += rt_check_guard(&bufs[i], names[i]);

    int ok = fails == 0 && e_x <= TOL && e_hx <= TOL && e_cx <= TOL && e_w <= TOL;
    printf("%-66s dx %.1e  dhx %.1e  dcx %.1e  dw %.1e  %s\n", name, e_x, e_hx, e_cx, e_w,
           ok ? "ok" : "FAILED");

    for (int i = 0; i < NBUF; i++)
        rt_free(&bufs[i]);
    free(widx);
    free(gw);
    free(dx2);
    free(dw0);
    return ok;
}

int main(void)
{
    static const prnnRNNMode_t modes[5] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU,
                                           PRNN_SRU};
    int total = 0, failed = 0;
    rt_seed(20240611);
    printf("max relative error against central differences (eps %g, tolerance %g)\n", EPS, TOL);
    for (int m = 0; m < 5; m++)
        for (int layers = 1; layers <= 2; layers++)
            for (int bidir = 0; bidir <= 1; bidir++)
                for (int skip = 0; skip <= 1; skip++)
                    for (int var = 0; var <= 1; var++)
                        for (int state = 0; state <= 1; state++) {
                            gc_case c = {modes[m], layers, bidir, skip, var, state,
                                         0.0f,     0,      0,     0,    0,   0};
                            total++;
                            failed += !run_case(&c);
                        }
    for (int m = 0; m < 5; m++)
        for (int bidir = 0; bidir <= 1; bidir++) {
            gc_case c = {modes[m], 2, bidir, 0, 1, 1, 0.3f, 0, 0, 0, 0, 0};
            total++;
            failed += !run_case(&c);
        }
    /* LSTM: 4 * 70 = 280 gate rows > NC; input 260 > KB; 201 rows > MB */
    {
        gc_case c = {PRNN_LSTM, 2, 1, 0, 1, 1, 0.3f, 70, 260, 40, 0, 0};
        total++;
        failed += !run_case(&c);
    }
    {
        gc_case c = {PRNN_GRU, 2, 1, 0, 1, 1, 0.0f, 70, 260, 40, 0, 0};
        total++;
        failed += !run_case(&c);
    }
    /* SRU: 4 * 70 = 280 projection rows > NC, input 260 > KB (x' from u3),
     * and a second layer of input 140 != 70 (u3 again) */
    {
        gc_case c = {PRNN_SRU, 2, 1, 0, 1, 1, 0.3f, 70, 260, 40, 0, 0};
        total++;
        failed += !run_case(&c);
    }
    /* SRU's other conventions (the package's SKIP_INPUT is unidirectional
     * only) */
    for (int sru = 1; sru < RT_SRU_CONVENTIONS; sru++)
        for (int layers = 1; layers <= 2; layers++)
            for (int bidir = 0; bidir <= 1; bidir++)
                for (int input = 0; input < 3; input++) {
                    int skip = input == 2, wide = input == 1;
                    if (skip && bidir && rt_problem_sru_split(sru))
                        continue;
                    /* equal and variable lengths (with hx) in turn: the
                     * default convention's cases cover both everywhere */
                    int var = (sru + layers + bidir + input) & 1;
                    gc_case c = {PRNN_SRU, layers, bidir, skip, var, var, 0.0f, 0, 0, 0, sru, wide};
                    total++;
                    failed += !run_case(&c);
                }
    for (int sru = 1; sru < RT_SRU_CONVENTIONS; sru++) {
        gc_case c = {PRNN_SRU, 2, 1, 0, 1, 1, 0.3f, 0, 0, 0, sru, 1};
        total++;
        failed += !run_case(&c);
    }
    /* the package's x' = x split at a mid-size layer 0 (input 140 = 2 * 70; tanh:
     * the identity's larger values leave the finite differences less margin,
     * and the tiny cases check it) */
    {
        gc_case c = {PRNN_SRU, 2, 1, 0, 1, 1, 0.3f, 70, 140, 20, 2, 0};
        total++;
        failed += !run_case(&c);
    }
    printf("%d of %d cases passed\n", total - failed, total);
    return failed ? 1 : 0;
}
