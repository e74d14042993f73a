/*
 * The shape of a reference call, and where everything lives in the
 * workspace and the reserve.
 */
#include <stdint.h>
#include <string.h>

#include "checked_size.h"
#include "descriptors.h"
#include "ref/philox.h"
#include "ref/ref_internal.h"
#include "ref/ref_rnn.h"
#include "weights_layout.h"

#define REF_ALIGN 64

void prnn_ref_dims_init(const prnn_rnn_problem *p, prnn_ref_dims *g)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    g->rnn = rnn;
    g->traits = prnn_cell_traits(rnn->mode);
    g->cell = prnn_ref_cell_of(rnn->mode);
    g->dtype = rnn->dtype;
    g->skip = rnn->input_mode == PRNN_SKIP_INPUT;
    g->hidden = (size_t)rnn->hidden;
    /* SRU: the widest projection, u0..u3 (layers without x' use 3) */
    g->gates = (size_t)g->traits->w_matrices;
    g->dirs = (size_t)prnn_rnn_dirs(rnn);
    g->layers = (size_t)rnn->layers;
    g->steps = (size_t)p->seq_length;
    g->batch0 = (size_t)p->mini_batch;
    g->input = (size_t)p->input_size;
    g->rows = p->total_rows;
    g->gh = g->gates * g->hidden;
    g->proj = (size_t)prnn_rnn_out_width(rnn);
    g->has_proj = rnn->proj != 0;
    g->dh = g->dirs * g->proj;
    g->clip = rnn->clip_mode == PRNN_RNN_CLIP_MINMAX;
    g->clip_nan = rnn->clip_nan == PRNN_PROPAGATE_NAN;
    g->lclip = rnn->lclip;
    g->rclip = rnn->rclip;
    g->has_bw = prnn_rnn_has_bias_w(rnn);
    g->has_br = prnn_rnn_has_bias_r(rnn);
    g->io = p->io;
    /* the kernels' reserve columns (the cell's traits), plus LSTM's value
     * before the clip; SRU's scan keeps its own (ref_internal.h) */
    g->act_cols = g->traits->scan ? 6 : (size_t)g->traits->act_cols + (size_t)g->clip;
    g->dg_cols = g->traits->scan ? g->gates : (size_t)g->traits->dg_cols;
    g->kmax = g->input > g->dh ? g->input : g->dh;
    g->sru_identity = rnn->sru_activation == PRNN_SRU_ACTIVATION_IDENTITY;
    g->sru_scale = rnn->sru_scale;
    g->sru_split = rnn->sru_convention == PRNN_SRU_CONVENTION_SRU_PACKAGE;
    g->batch = p->batch;
    g->drop_threshold = prnn_dropout_threshold((double)rnn->dropout);
    g->drop_scale = g->drop_threshold ? 1.0 / (1.0 - (double)rnn->dropout) : 1.0;
    g->seed = rnn->seed;
}

/* A bump allocator over a caller's buffer. With base NULL it only measures,
 * so sizes and layouts come from the same code and cannot disagree. Sizes
 * saturate (checked_size.h): a shape too large for size_t measures as
 * PRNN_SIZE_OVERFLOW, which the API layer turns into BAD_PARAM before any
 * buffer is mapped. */
typedef struct {
    char *base;
    size_t used;
} arena;

static void arena_init(arena *a, void *base)
{
    a->used = 0;
    a->base = NULL;
    if (base) {
        uintptr_t u = (uintptr_t)base;
        a->base = (char *)base + ((REF_ALIGN - u % REF_ALIGN) % REF_ALIGN);
    }
}

static void *take(arena *a, size_t bytes)
{
    size_t at = prnn_align_size(a->used, REF_ALIGN);
    a->used = prnn_add_size(at, bytes);
    return a->base ? a->base + at : NULL;
}

static double *take_d(arena *a, size_t count)
{
    return take(a, prnn_mul_size(count, sizeof(double)));
}

/* The slack pays for aligning the caller's base pointer. */
static size_t arena_size(const arena *a)
{
    return prnn_add_size(a->used, REF_ALIGN);
}

size_t prnn_ref_reserve_map(const prnn_ref_dims *g, void *base, prnn_ref_reserve *r)
{
    arena on_base, *a = &on_base;
    arena_init(a, base);
    size_t pls = prnn_mul_size(g->layers, g->dirs);
    r->out = take_d(a, prnn_mul3_size(g->layers, g->rows, g->dh));
    r->act = take_d(a, prnn_mul4_size(pls, g->rows, g->act_cols, g->hidden));
    r->dg = take_d(a, prnn_mul4_size(pls, g->rows, g->dg_cols, g->hidden));
    r->dp = g->has_proj ? take_d(a, prnn_mul3_size(pls, g->rows, g->proj)) : NULL;
    return arena_size(a);
}

static void map_common(const prnn_ref_dims *g, arena *a, size_t **off, double **pack)
{
    *off = take(a, prnn_mul_size(g->steps + 1, sizeof(size_t)));
    *pack = take_d(a, PRNN_REF_GEMM_PACK);
}

size_t prnn_ref_fwd_ws_map(const prnn_ref_dims *g, void *base, prnn_ref_fwd_ws *w)
{
    arena on_base, *a = &on_base;
    arena_init(a, base);
    size_t n = g->rows, b = g->batch0;
    map_common(g, a, &w->off, &w->pack);
    w->in = take_d(a, prnn_mul_size(n, g->kmax));
    w->out[0] = take_d(a, prnn_mul_size(n, g->dh));
    w->out[1] = g->layers > 1 ? take_d(a, prnn_mul_size(n, g->dh)) : w->out[0];
    w->wt = take_d(a, prnn_mul_size(g->kmax, g->gh));
    w->rt = take_d(a, prnn_mul_size(g->proj, g->gh));
    w->pt = g->has_proj ? take_d(a, prnn_mul_size(g->hidden, g->proj)) : NULL;
    w->m = g->has_proj ? take_d(a, prnn_mul_size(b, g->hidden)) : NULL;
    w->bw = take_d(a, g->gh);
    w->br = take_d(a, g->gh);
    w->vec = take_d(a, prnn_mul_size(PRNN_SRU_VECTORS, g->hidden));
    w->proj = take_d(a, prnn_mul_size(n, g->gh));
    w->rec = take_d(a, prnn_mul_size(b, g->gh));
    w->h = take_d(a, prnn_mul_size(b, g->hidden));
    w->c = take_d(a, prnn_mul_size(b, g->hidden));
    return arena_size(a);
}

size_t prnn_ref_bwd_data_ws_map(const prnn_ref_dims *g, void *base, prnn_ref_bwd_data_ws *w)
{
    arena on_base, *a = &on_base;
    arena_init(a, base);
    size_t n = g->rows, bh = prnn_mul_size(g->batch0, g->hidden);
    map_common(g, a, &w->off, &w->pack);
    w->dout = take_d(a, prnn_mul_size(n, g->dh));
    w->din = take_d(a, prnn_mul_size(n, g->kmax));
    w->w = take_d(a, prnn_mul_size(g->gh, g->kmax));
    w->r = take_d(a, prnn_mul_size(g->gh, g->proj));
    w->wp = g->has_proj ? take_d(a, prnn_mul_size(g->proj, g->hidden)) : NULL;
    w->dm = g->has_proj ? take_d(a, bh) : NULL;
    w->dz = g->has_proj ? take_d(a, bh) : NULL;
    w->vec = take_d(a, prnn_mul_size(PRNN_SRU_VECTORS, g->hidden));
    w->h0 = take_d(a, bh);
    w->c0 = take_d(a, bh);
    w->hprev = take_d(a, bh);
    w->cprev = take_d(a, bh);
    w->dh = take_d(a, bh);
    w->dc = take_d(a, bh);
    return arena_size(a);
}

size_t prnn_ref_bwd_weights_ws_map(const prnn_ref_dims *g, void *base, prnn_ref_bwd_weights_ws *w)
{
    arena on_base, *a = &on_base;
    arena_init(a, base);
    size_t k = g->kmax > g->hidden ? g->kmax : g->hidden;
    map_common(g, a, &w->off, &w->pack);
    w->in = take_d(a, prnn_mul_size(g->rows, g->kmax));
    w->hprev = take_d(a, prnn_mul_size(g->rows, g->proj));
    w->m = g->has_proj ? take_d(a, prnn_mul_size(g->rows, g->hidden)) : NULL;
    w->h0 = take_d(a, prnn_mul_size(g->batch0, g->hidden));
    w->dmat = take_d(a, prnn_mul_size(g->gh, k));
    w->dbias = take_d(a, g->gh);
    return arena_size(a);
}

size_t prnn_ref_reserve_size(const prnn_ref_dims *g)
{
    prnn_ref_reserve r;
    return prnn_ref_reserve_map(g, NULL, &r);
}

size_t prnn_ref_workspace_size(const prnn_ref_dims *g)
{
    prnn_ref_fwd_ws f;
    prnn_ref_bwd_data_ws d;
    prnn_ref_bwd_weights_ws w;
    size_t best = prnn_ref_fwd_ws_map(g, NULL, &f);
    size_t n = prnn_ref_bwd_data_ws_map(g, NULL, &d);
    if (n > best)
        best = n;
    n = prnn_ref_bwd_weights_ws_map(g, NULL, &w);
    return n > best ? n : best;
}

size_t prnn_ref_workspace_bytes(const prnn_rnn_problem *p)
{
    prnn_ref_dims g;
    prnn_ref_dims_init(p, &g);
    return prnn_ref_workspace_size(&g);
}

size_t prnn_ref_reserve_bytes(const prnn_rnn_problem *p)
{
    prnn_ref_dims g;
    prnn_ref_dims_init(p, &g);
    return prnn_ref_reserve_size(&g);
}

void prnn_ref_step_offsets(const prnn_ref_dims *g, size_t *off)
{
    off[0] = 0;
    for (size_t t = 0; t < g->steps; t++)
        off[t + 1] = off[t] + (size_t)g->batch[t];
}

void prnn_ref_gather_prev(const prnn_ref_dims *g, const size_t *off, size_t dir, size_t t,
                          const double *src, size_t lds, size_t width, const double *init,
                          double *dst)
{
    size_t h = width, nb = (size_t)g->batch[t], np = 0, tp = 0;
    if (dir == 0 && t > 0) {
        tp = t - 1;
        np = nb; /* batch sizes never increase */
    } else if (dir == 1 && t + 1 < g->steps) {
        tp = t + 1;
        np = (size_t)g->batch[tp] < nb ? (size_t)g->batch[tp] : nb;
    }
    /* rows np.. are sequences whose reverse recurrence starts at step t */
    for (size_t b = 0; b < np; b++)
        memcpy(dst + b * h, src + (off[tp] + b) * lds, h * sizeof(double));
    for (size_t b = np; b < nb; b++)
        memcpy(dst + b * h, init + b * h, h * sizeof(double));
}
