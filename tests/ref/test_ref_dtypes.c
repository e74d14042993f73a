/*
 * Storage types: the same problem stored as FLOAT, HALF and BFLOAT16 must
 * give the DOUBLE results up to the rounding of the outputs, for every output
 * of every call (y, hy, cy, dx, dhx, dcx, dw). Weights are matched through
 * the layout, whose padding depends on the element size. Every input is a multiple of
 * 1/64 below 2 in magnitude, exact in all four types, so any difference
 * beyond output rounding means a conversion or an index is wrong.
 *
 * Also: forward inference and forward training give bit-identical outputs
 * when dropout is 0, in every type.
 */
#include "ref_test_util.h"

typedef struct {
    prnnDataType_t t;
    double tol;
} dtype_case;

enum { X, HX, CX, W, DY, DHY, DCY, NIN };
enum { Y, HY, CY, DX, DHX, DCX, DW, NOUT };
static const char *out_names[NOUT] = {"y", "hy", "cy", "dx", "dhx", "dcx", "dw"};

typedef struct {
    rt_problem q;
    size_t n_in[NIN], n_out[NOUT];
    void *in[NIN];
    void *out[NOUT];
    double *res[NOUT]; /* outputs as double; dw in rt_weight_indices order */
    size_t es;
    size_t *widx, nw;
} typed_run;

static void alloc_run(typed_run *r, prnnRNNMode_t mode, prnnDataType_t t)
{
    static const int batch[4] = {3, 3, 2, 1};
    rt_problem_init(&r->q, mode, 4, 2, 1, 0, 3, 4, batch, t, 0.0f, 0);
    size_t nx = rt_rows(&r->q) * 3, ns = rt_state_elems(&r->q);
    size_t ny = rt_rows(&r->q) * rt_out_cols(&r->q), nw = rt_weight_elems(&r->q);
    size_t in_sizes[NIN] = {nx, ns, ns, nw, ny, ns, ns};
    size_t out_sizes[NOUT] = {ny, ns, ns, nx, ns, ns, nw};
    r->es = prnn_dtype_size(t);
    r->widx = malloc(nw * sizeof(size_t));
    r->nw = rt_weight_indices(&r->q, r->widx);
    for (int i = 0; i < NIN; i++) {
        r->n_in[i] = in_sizes[i];
        r->in[i] = calloc(in_sizes[i], r->es);
    }
    for (int i = 0; i < NOUT; i++) {
        r->n_out[i] = out_sizes[i];
        r->out[i] = calloc(out_sizes[i], r->es);
        r->res[i] = calloc(out_sizes[i], sizeof(double));
    }
}

static void free_run(typed_run *r)
{
    free(r->widx);
    for (int i = 0; i < NIN; i++)
        free(r->in[i]);
    for (int i = 0; i < NOUT; i++) {
        free(r->out[i]);
        free(r->res[i]);
    }
}

/* Runs forward training, backward data, backward weights; returns 0 when
 * inference matched training bit for bit. */
static int run_all(typed_run *r)
{
    const prnn_rnn_problem *p = &r->q.p;
    int fails = 0;
    void *ws = malloc(prnn_ref_workspace_bytes(p));
    void *rs = malloc(prnn_ref_reserve_bytes(p));
    prnn_ref_forward(p, 1, r->in[X], r->in[HX], r->in[CX], r->in[W], r->out[Y], r->out[HY],
                     r->out[CY], ws, rs);
    void *y2 = calloc(r->n_out[Y], r->es), *hy2 = calloc(r->n_out[HY], r->es);
    void *cy2 = calloc(r->n_out[CY], r->es);
    prnn_ref_forward(p, 0, r->in[X], r->in[HX], r->in[CX], r->in[W], y2, hy2, cy2, ws, NULL);
    if (memcmp(y2, r->out[Y], r->n_out[Y] * r->es) ||
        memcmp(hy2, r->out[HY], r->n_out[HY] * r->es) ||
        memcmp(cy2, r->out[CY], r->n_out[CY] * r->es)) {
        printf("  %s %s: inference differs from training without dropout\n",
               rt_mode_name(r->q.rnn.mode), prnn_dtype_name(r->q.rnn.dtype));
        fails++;
    }
    prnn_ref_backward_data(p, r->out[Y], r->in[DY], r->in[DHY], r->in[DCY], r->in[W], r->in[HX],
                           r->in[CX], r->out[DX], r->out[DHX], r->out[DCX], ws, rs);
    prnn_ref_backward_weights(p, r->in[X], r->in[HX], r->out[Y], ws, r->out[DW], rs);
    for (int i = 0; i < NOUT; i++)
        for (size_t k = 0; k < r->n_out[i]; k++)
            r->res[i][k] = rt_get(r->out[i], r->q.rnn.dtype, k);
    for (size_t k = 0; k < r->nw; k++)
        r->res[DW][k] = rt_get(r->out[DW], r->q.rnn.dtype, r->widx[k]);
    for (size_t k = r->nw; k < r->n_out[DW]; k++)
        r->res[DW][k] = 0; /* padding */
    free(y2);
    free(hy2);
    free(cy2);
    free(ws);
    free(rs);
    return fails;
}

int main(void)
{
    static const prnnRNNMode_t modes[5] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU,
                                           PRNN_SRU};
    static const dtype_case types[3] = {
        {PRNN_DATA_FLOAT, 1e-6}, {PRNN_DATA_HALF, 1e-2}, {PRNN_DATA_BFLOAT16, 2e-2}};
    int fails = 0;
    printf("max relative error against DOUBLE storage (2 layers, bidir, lengths {3,3,2,1}, hidden "
           "4)\n");
    for (int m = 0; m < 5; m++) {
        typed_run ref;
        alloc_run(&ref, modes[m], PRNN_DATA_DOUBLE);
        rt_seed(77 + (uint64_t)m);
        /* the same exact values for every type: k / 64 */
        for (int i = 0; i < NIN; i++) {
            double lo = i == W ? -40 : -64, hi = i == W ? 40 : 64;
            for (size_t k = 0; k < ref.n_in[i]; k++)
                rt_set(ref.in[i], PRNN_DATA_DOUBLE, k, floor(rt_uniform(lo, hi)) / 64.0);
        }
        fails += run_all(&ref);
        for (int ti = 0; ti < 3; ti++) {
            typed_run r;
            alloc_run(&r, modes[m], types[ti].t);
            for (int i = 0; i < NIN; i++)
                if (i != W)
                    for (size_t k = 0; k < r.n_in[i]; k++)
                        rt_set(r.in[i], types[ti].t, k, rt_get(ref.in[i], PRNN_DATA_DOUBLE, k));
            for (size_t k = 0; k < r.nw; k++)
                rt_set(r.in[W], types[ti].t, r.widx[k],
                       rt_get(ref.in[W], PRNN_DATA_DOUBLE, ref.widx[k]));
            fails += run_all(&r);
            printf("%-4s %-8s", rt_mode_name(modes[m]), prnn_dtype_name(types[ti].t));
            for (int o = 0; o < NOUT; o++) {
                double worst = 0;
                int nonzero = 0;
                size_t n = o == DW ? r.nw : r.n_out[o];
                for (size_t k = 0; k < n; k++) {
                    double e = rt_rel_err(r.res[o][k], ref.res[o][k], 1e-3);
                    if (e > worst)
                        worst = e;
                    nonzero |= ref.res[o][k] != 0.0;
                }
                if ((o == CY || o == DCX) && !prnn_cell_traits(modes[m])->has_cell)
                    continue;
                if (o == DHX && modes[m] == PRNN_SRU) {
                    /* hx plays no part in SRU: dhx must be exactly zero */
                    if (nonzero || worst > 0) {
                        printf("  dhx not zero");
                        fails++;
                    }
                    continue;
                }
                printf("  %s %.1e", out_names[o], worst);
                if (worst > types[ti].tol) {
                    printf(" (> %g)", types[ti].tol);
                    fails++;
                }
                if (!nonzero) {
                    printf(" (all zero)");
                    fails++;
                }
            }
            printf("\n");
            free_run(&r);
        }
        free_run(&ref);
    }
    printf(fails ? "FAILED\n" : "all storage types agree\n");
    return fails ? 1 : 0;
}
