#include "bench_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

/* ---- counter-based random values ---- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t stream_key(unsigned long long seed, int tag, int a, int b, int c)
{
    uint64_t k = mix64(seed + 0x9e3779b97f4a7c15ull);
    k = mix64(k ^ (uint64_t)(unsigned)tag);
    k = mix64(k ^ ((uint64_t)(unsigned)a << 32 | (uint64_t)(unsigned)b));
    return mix64(k ^ (uint64_t)(unsigned)c);
}

/* Element i of stream key, uniform in [-1, 1). */
static double uniform_pm1(uint64_t key, size_t i)
{
    uint64_t r = mix64(key + (uint64_t)i * 0x9e3779b97f4a7c15ull);
    return (double)(r >> 40) / (double)(1ull << 23) - 1.0;
}

/* Writes count values of stream key, times scale, rounded to t. */
static void fill(void *dst, prnnDataType_t t, size_t count, uint64_t key, double scale)
{
    float *f32 = dst;
    uint16_t *f16 = dst;
    double *f64 = dst;
    switch (t) {
    case PRNN_DATA_FLOAT:
        for (size_t i = 0; i < count; i++)
            f32[i] = (float)(uniform_pm1(key, i) * scale);
        break;
    case PRNN_DATA_HALF:
        for (size_t i = 0; i < count; i++)
            f16[i] = prnn_float_to_half((float)(uniform_pm1(key, i) * scale));
        break;
    case PRNN_DATA_BFLOAT16:
        for (size_t i = 0; i < count; i++)
            f16[i] = prnn_float_to_bf16((float)(uniform_pm1(key, i) * scale));
        break;
    case PRNN_DATA_DOUBLE:
        for (size_t i = 0; i < count; i++)
            f64[i] = uniform_pm1(key, i) * scale;
        break;
    }
}

enum { TAG_WEIGHT = 1, TAG_X, TAG_HX, TAG_CX, TAG_DY, TAG_DHY, TAG_DCY };

/* ---- model ---- */

/* LinLayer ids of each call, the projection aside */
static int nlin_of(prnnRNNMode_t m)
{
    const prnn_cell_traits_row *cell = prnn_cell_traits(m);
    return cell->w_matrices + cell->r_matrices;
}

/* Appends parameter *k of count elements at *off, and moves both on. */
static void add_param(bench_model *m, int *k, int pl, int id, int bias, size_t count, size_t *off)
{
    bench_param *p = &m->params[(*k)++];
    p->pseudo_layer = pl;
    p->lin_id = id;
    p->is_bias = bias;
    p->count = count;
    p->offset = *off;
    *off += count * m->elem;
}

/* SRU's parameters (prnn.h): matrices 0..2, and 3 (the x' projection)
 * where the layer's input width differs from hidden; vectors 0..3. */
static int sru_params(bench_model *m, const bench_point *pt, size_t *off)
{
    size_t H = (size_t)pt->hidden;
    int k = 0;
    for (int pl = 0; pl < pt->layers * m->dirs; pl++) {
        size_t K = pl / m->dirs == 0 ? (size_t)pt->input : H * (size_t)m->dirs;
        for (int bias = 0; bias < 2; bias++)
            for (int id = 0; id < 4; id++)
                if (bias || id != 3 || K != H)
                    add_param(m, &k, pl, id, bias, bias ? H : H * K, off);
    }
    return k;
}

/* The other cells' parameters: per pseudo-layer each id's matrix and
 * bias, W ids (K = the layer's input width) then R ids (K = the width of
 * h, the projection's where there is one), then W_proj (proj x hidden, no
 * bias) for an LSTM with a projection. */
static int cell_params(bench_model *m, const bench_point *pt, size_t *off)
{
    size_t H = (size_t)pt->hidden, P = (size_t)bench_out_size(pt);
    int k = 0;
    for (int pl = 0; pl < pt->layers * m->dirs; pl++) {
        int layer = pl / m->dirs;
        for (int id = 0; id < m->nlin; id++) {
            int is_w = id < m->nlin / 2;
            size_t K = !is_w ? P : layer == 0 ? (size_t)pt->input : P * (size_t)m->dirs;
            for (int bias = 0; bias < 2; bias++)
                add_param(m, &k, pl, id, bias, bias ? H : H * K, off);
        }
        if (pt->proj > 0)
            add_param(m, &k, pl, BENCH_LIN_PROJ, 0, P * H, off);
    }
    return k;
}

int bench_model_create(bench_model *m, const bench_point *pt, unsigned long long seed, char *err,
                       size_t n)
{
    memset(m, 0, sizeof(*m));
    m->pt = *pt;
    m->dirs = pt->bidirectional ? 2 : 1;
    m->nlin = nlin_of(pt->mode);
    m->elem = prnn_dtype_size(pt->dtype);
    /* at most: every id's matrix and bias, and W_proj */
    size_t most = (size_t)pt->layers * (size_t)m->dirs * ((size_t)m->nlin * 2 + 1);
    m->params = calloc(most, sizeof(*m->params));
    if (!m->params) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    size_t off = 0;
    m->n_params = pt->mode == PRNN_SRU ? sru_params(m, pt, &off) : cell_params(m, pt, &off);
    m->total_bytes = off;
    m->bytes = malloc(off ? off : 1);
    if (!m->bytes) {
        snprintf(err, n, "out of host memory (%.1f MiB of weights)",
                 (double)off / (1024.0 * 1024.0));
        bench_model_destroy(m);
        return -1;
    }
    double scale = 1.0 / sqrt((double)pt->hidden);
    for (int i = 0; i < m->n_params; i++) {
        const bench_param *p = &m->params[i];
        fill(m->bytes + p->offset, pt->dtype, p->count,
             stream_key(seed, TAG_WEIGHT, p->pseudo_layer, p->lin_id, p->is_bias), scale);
    }
    return 0;
}

void bench_model_destroy(bench_model *m)
{
    free(m->params);
    free(m->bytes);
    m->params = NULL;
    m->bytes = NULL;
    m->n_params = 0;
}

static int locate_checked(const bench_model *m, const bench_param *p, bench_locate_fn loc,
                          void *user, CUdeviceptr base, CUdeviceptr *ptr, char *err, size_t n)
{
    size_t count = 0;
    if (loc(user, base, p->pseudo_layer, p->lin_id, p->is_bias, ptr, &count, err, n))
        return -1;
    if (count != p->count || !*ptr) {
        snprintf(err, n,
                 "weight layout mismatch: pseudo-layer %d, linLayerID %d %s: %zu elements "
                 "expected, the implementation has %zu%s",
                 p->pseudo_layer, p->lin_id, p->is_bias ? "bias" : "matrix", p->count, count,
                 *ptr ? "" : " (no address)");
        return -1;
    }
    (void)m;
    return 0;
}

int bench_model_upload(const bench_device *d, const bench_model *m, bench_locate_fn loc, void *user,
                       CUdeviceptr w, char *err, size_t n)
{
    for (int i = 0; i < m->n_params; i++) {
        const bench_param *p = &m->params[i];
        CUdeviceptr dst;
        if (locate_checked(m, p, loc, user, w, &dst, err, n))
            return -1;
        if (bench_cu(d, d->cu->cuMemcpyHtoD(dst, m->bytes + p->offset, p->count * m->elem),
                     "cuMemcpyHtoD(weights)", err, n))
            return -1;
    }
    return bench_cu(d, d->cu->cuCtxSynchronize(), "cuCtxSynchronize", err, n);
}

/* ---- shared I/O buffers ---- */

static int upload_random(const bench_device *d, CUdeviceptr dst, prnnDataType_t t, size_t count,
                         uint64_t key, char *err, size_t n)
{
    size_t bytes = count * prnn_dtype_size(t);
    void *h = malloc(bytes ? bytes : 1);
    if (!h) {
        snprintf(err, n, "out of host memory (%.1f MiB)", (double)bytes / (1024.0 * 1024.0));
        return -1;
    }
    fill(h, t, count, key, 1.0);
    int rc = bench_upload(d, dst, h, bytes, err, n);
    free(h);
    return rc;
}

/* One value v stored as t. */
static void put_value(void *dst, prnnDataType_t t, double v)
{
    switch (t) {
    case PRNN_DATA_FLOAT: *(float *)dst = (float)v; break;
    case PRNN_DATA_HALF: *(uint16_t *)dst = prnn_float_to_half((float)v); break;
    case PRNN_DATA_BFLOAT16: *(uint16_t *)dst = prnn_float_to_bf16((float)v); break;
    case PRNN_DATA_DOUBLE: *(double *)dst = v; break;
    }
}

/* x or dy, vectors of V: the packed layout's random values, in a padded
 * layout scattered into it with pad in the padding. */
static int upload_sequences(const bench_device *d, CUdeviceptr dst, prnnDataType_t t,
                            const bench_seqs *s, size_t V, uint64_t key, bench_pad_input pad,
                            char *err, size_t n)
{
    size_t rows = (size_t)s->T * (size_t)s->B;
    if (s->layout == BENCH_LAYOUT_PACKED)
        return upload_random(d, dst, t, rows * V, key, err, n);
    size_t e = prnn_dtype_size(t), row_bytes = V * e;
    unsigned char *packed = malloc(rows * row_bytes), *out = malloc(rows * row_bytes);
    unsigned char *pad_row = malloc(row_bytes);
    int rc = -1;
    if (!packed || !out || !pad_row) {
        snprintf(err, n, "out of host memory (2 x %.1f MiB)",
                 (double)(rows * row_bytes) / (1024.0 * 1024.0));
        goto done;
    }
    fill(packed, t, rows * V, key, 1.0);
    for (size_t i = 0; i < V; i++)
        put_value(pad_row + i * e, t, pad == BENCH_PAD_FINITE ? BENCH_PAD_FINITE : NAN);
    bench_seqs_scatter(s, row_bytes, packed, pad_row, out);
    rc = bench_upload(d, dst, out, rows * row_bytes, err, n);
done:
    free(packed);
    free(out);
    free(pad_row);
    return rc;
}

int bench_io_create(const bench_device *d, bench_io *io, const bench_point *pt,
                    unsigned long long seed, bench_pad_input pad, char *err, size_t n)
{
    memset(io, 0, sizeof(*io));
    if (bench_seqs_init(&io->seqs, pt)) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    size_t e = prnn_dtype_size(pt->dtype);
    size_t dirs = pt->bidirectional ? 2 : 1;
    size_t T = (size_t)pt->seq, B = (size_t)pt->batch, H = (size_t)pt->hidden;
    size_t P = (size_t)bench_out_size(pt);
    size_t x_n = T * B * (size_t)pt->input;
    size_t y_n = T * B * P * dirs;
    size_t h_n = (size_t)pt->layers * dirs * B * P;
    size_t c_n = (size_t)pt->layers * dirs * B * H;
    io->x_bytes = x_n * e;
    io->y_bytes = y_n * e;
    io->h_bytes = h_n * e;
    io->c_bytes = c_n * e;
    int cell = prnn_cell_traits(pt->mode)->has_cell; /* cx, cy */
    int train = pt->pass == BENCH_TRAINING;
    if (bench_alloc(d, &io->x, io->x_bytes, "x", err, n) ||
        bench_alloc(d, &io->hx, io->h_bytes, "hx", err, n) ||
        (cell && bench_alloc(d, &io->cx, io->c_bytes, "cx", err, n)) ||
        bench_alloc(d, &io->y, io->y_bytes, "y", err, n) ||
        bench_alloc(d, &io->hy, io->h_bytes, "hy", err, n) ||
        (cell && bench_alloc(d, &io->cy, io->c_bytes, "cy", err, n)))
        goto fail;
    if (train && (bench_alloc(d, &io->dy, io->y_bytes, "dy", err, n) ||
                  bench_alloc(d, &io->dhy, io->h_bytes, "dhy", err, n) ||
                  (cell && bench_alloc(d, &io->dcy, io->c_bytes, "dcy", err, n)) ||
                  bench_alloc(d, &io->dx, io->x_bytes, "dx", err, n) ||
                  bench_alloc(d, &io->dhx, io->h_bytes, "dhx", err, n) ||
                  (cell && bench_alloc(d, &io->dcx, io->c_bytes, "dcx", err, n))))
        goto fail;
    if (upload_sequences(d, io->x, pt->dtype, &io->seqs, (size_t)pt->input,
                         stream_key(seed, TAG_X, 0, 0, 0), pad, err, n) ||
        upload_random(d, io->hx, pt->dtype, h_n, stream_key(seed, TAG_HX, 0, 0, 0), err, n) ||
        (cell &&
         upload_random(d, io->cx, pt->dtype, c_n, stream_key(seed, TAG_CX, 0, 0, 0), err, n)))
        goto fail;
    if (train &&
        (upload_sequences(d, io->dy, pt->dtype, &io->seqs, P * dirs,
                          stream_key(seed, TAG_DY, 0, 0, 0), pad, err, n) ||
         upload_random(d, io->dhy, pt->dtype, h_n, stream_key(seed, TAG_DHY, 0, 0, 0), err, n) ||
         (cell &&
          upload_random(d, io->dcy, pt->dtype, c_n, stream_key(seed, TAG_DCY, 0, 0, 0), err, n))))
        goto fail;
    return 0;
fail:
    bench_io_destroy(d, io);
    return -1;
}

void bench_io_destroy(const bench_device *d, bench_io *io)
{
    CUdeviceptr *all[] = {&io->x,  &io->hx,  &io->cx,  &io->y,  &io->hy,  &io->cy,
                          &io->dy, &io->dhy, &io->dcy, &io->dx, &io->dhx, &io->dcx};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        bench_free(d, all[i]);
    bench_seqs_free(&io->seqs);
}

int bench_io_poison_outputs(const bench_device *d, const bench_io *io, char *err, size_t n)
{
    if (bench_memset(d, io->y, 0xFF, io->y_bytes, err, n) ||
        bench_memset(d, io->hy, 0xFF, io->h_bytes, err, n) ||
        bench_memset(d, io->cy, 0xFF, io->c_bytes, err, n) ||
        bench_memset(d, io->dx, 0xFF, io->x_bytes, err, n) ||
        bench_memset(d, io->dhx, 0xFF, io->h_bytes, err, n) ||
        bench_memset(d, io->dcx, 0xFF, io->c_bytes, err, n))
        return -1;
    return 0;
}

/* ---- read-back and comparison ---- */

static int sig_reserve(bench_sig *s, size_t more)
{
    size_t need = s->n + more;
    float *v = realloc(s->v, (need ? need : 1) * sizeof(float));
    if (!v)
        return -1;
    s->v = v;
    return 0;
}

int bench_sig_append(bench_sig *s, const char *name, const float *v, size_t count)
{
    if (s->nseg >= (int)(sizeof(s->seg) / sizeof(s->seg[0])) || sig_reserve(s, count))
        return -1;
    bench_seg *g = &s->seg[s->nseg++];
    bench_copy(g->name, sizeof(g->name), name);
    g->off = s->n;
    g->n = count;
    memcpy(s->v + s->n, v, count * sizeof(float));
    s->n += count;
    return 0;
}

/* Reads count elements of type t at src, as floats, into a new segment. */
static int sig_read(const bench_device *d, bench_sig *s, const char *name, CUdeviceptr src,
                    prnnDataType_t t, size_t count, int new_segment, char *err, size_t n)
{
    size_t e = prnn_dtype_size(t);
    if (new_segment && s->nseg >= (int)(sizeof(s->seg) / sizeof(s->seg[0]))) {
        snprintf(err, n, "internal: too many output segments");
        return -1;
    }
    void *h = malloc(count ? count * e : 1);
    if (!h || sig_reserve(s, count)) {
        free(h);
        snprintf(err, n, "out of host memory reading %s", name);
        return -1;
    }
    if (bench_download(d, h, src, count * e, err, n)) {
        free(h);
        return -1;
    }
    float *out = s->v + s->n;
    const uint16_t *h16 = h;
    const double *h64 = h;
    switch (t) {
    case PRNN_DATA_FLOAT: memcpy(out, h, count * sizeof(float)); break;
    case PRNN_DATA_HALF:
        for (size_t i = 0; i < count; i++)
            out[i] = prnn_half_to_float(h16[i]);
        break;
    case PRNN_DATA_BFLOAT16:
        for (size_t i = 0; i < count; i++)
            out[i] = prnn_bf16_to_float(h16[i]);
        break;
    case PRNN_DATA_DOUBLE:
        for (size_t i = 0; i < count; i++)
            out[i] = (float)h64[i];
        break;
    }
    free(h);
    if (new_segment) {
        bench_seg *g = &s->seg[s->nseg++];
        bench_copy(g->name, sizeof(g->name), name);
        g->off = s->n;
        g->n = 0;
    }
    s->seg[s->nseg - 1].n += count;
    s->n += count;
    return 0;
}

/* x-like or y-like output src (vectors of V) of a padded layout: its valid
 * steps as segment name and, when pad_name is not NULL, its padding as
 * segment pad_name. */
static int sig_read_padded(const bench_device *d, bench_sig *s, const char *name,
                           const char *pad_name, CUdeviceptr src, prnnDataType_t t,
                           const bench_seqs *q, size_t V, char *err, size_t n)
{
    bench_sig all;
    memset(&all, 0, sizeof(all));
    if (sig_read(d, &all, name, src, t, (size_t)q->T * (size_t)q->B * V, 1, err, n))
        return -1;
    size_t valid_n = (size_t)q->sum * V;
    float *pad = NULL, *valid = malloc((valid_n ? valid_n : 1) * sizeof(float));
    if (valid && pad_name)
        pad = malloc((all.n - valid_n ? all.n - valid_n : 1) * sizeof(float));
    int rc = -1;
    if (!valid || (pad_name && !pad))
        snprintf(err, n, "out of host memory reading %s", name);
    else {
        bench_seqs_gather(q, V * sizeof(float), all.v, valid, pad);
        rc = bench_sig_append(s, name, valid, valid_n) ||
             (pad_name && bench_sig_append(s, pad_name, pad, all.n - valid_n));
        if (rc)
            snprintf(err, n, "out of host memory reading %s", name);
    }
    free(valid);
    free(pad);
    bench_sig_free(&all);
    return rc ? -1 : 0;
}

/* y (and dx): all of it in the packed layout, see sig_read_padded
 * otherwise. */
static int sig_read_seq(const bench_device *d, bench_sig *s, const char *name, const char *pad_name,
                        CUdeviceptr src, prnnDataType_t t, const bench_io *io, size_t V, char *err,
                        size_t n)
{
    if (io->seqs.layout == BENCH_LAYOUT_PACKED)
        return sig_read(d, s, name, src, t, (size_t)io->seqs.T * (size_t)io->seqs.B * V, 1, err, n);
    return sig_read_padded(d, s, name, pad_name, src, t, &io->seqs, V, err, n);
}

int bench_sig_capture(const bench_device *d, bench_sig *s, const bench_io *io, const bench_model *m,
                      bench_locate_fn loc, void *user, CUdeviceptr dw, char *err, size_t n)
{
    memset(s, 0, sizeof(*s));
    const bench_point *pt = &m->pt;
    prnnDataType_t t = pt->dtype;
    size_t e = m->elem;
    int cell = prnn_cell_traits(pt->mode)->has_cell; /* cy, dcx */
    size_t x_v = (size_t)pt->input, y_v = (size_t)bench_out_size(pt) * (size_t)m->dirs;
    int rc;
    if (pt->pass == BENCH_INFERENCE) {
        rc = sig_read_seq(d, s, "y", "y-pad", io->y, t, io, y_v, err, n) ||
             sig_read(d, s, "hy", io->hy, t, io->h_bytes / e, 1, err, n) ||
             (cell && sig_read(d, s, "cy", io->cy, t, io->c_bytes / e, 1, err, n));
    } else {
        rc = sig_read_seq(d, s, "y", "y-pad", io->y, t, io, y_v, err, n) ||
             sig_read_seq(d, s, "dx", NULL, io->dx, t, io, x_v, err, n) ||
             sig_read(d, s, "dhx", io->dhx, t, io->h_bytes / e, 1, err, n) ||
             (cell && sig_read(d, s, "dcx", io->dcx, t, io->c_bytes / e, 1, err, n));
        for (int i = 0; !rc && loc && i < m->n_params; i++) {
            const bench_param *p = &m->params[i];
            CUdeviceptr src;
            rc = locate_checked(m, p, loc, user, dw, &src, err, n) ||
                 sig_read(d, s, "dw", src, t, p->count, i == 0, err, n);
        }
    }
    if (rc) {
        bench_sig_free(s);
        return -1;
    }
    return 0;
}

void bench_sig_free(bench_sig *s)
{
    if (!s)
        return;
    free(s->v);
    memset(s, 0, sizeof(*s));
}

double bench_sig_diff(const bench_sig *ref, const bench_sig *s)
{
    if (ref->nseg != s->nseg || ref->nseg == 0)
        return NAN;
    double worst = 0;
    for (int k = 0; k < ref->nseg; k++) {
        const bench_seg *a = &ref->seg[k], *b = &s->seg[k];
        if (strcmp(a->name, b->name) != 0 || a->n != b->n)
            return NAN;
        double scale = 0, diff = 0;
        for (size_t i = 0; i < a->n; i++) {
            double r = ref->v[a->off + i], x = s->v[b->off + i];
            if (!isfinite(r) || !isfinite(x))
                return NAN;
            if (fabs(r) > scale)
                scale = fabs(r);
            if (fabs(x - r) > diff)
                diff = fabs(x - r);
        }
        double rel = scale > 0 ? diff / scale : (diff > 0 ? INFINITY : 0);
        if (rel > worst)
            worst = rel;
    }
    return worst;
}
