/* prnn-bench's host-side data: the model's parameter list (cuDNN's
 * numbering, sizes; an LSTM's projection), deterministic random values in
 * range, and the output comparison. */
#include <stdlib.h>

#include "bench_data.h"
#include "bench_layout.h"
#include "bench_test.h"
#include "dtype.h"

static bench_point pt_of(prnnRNNMode_t mode, prnnDataType_t t, int h, int in, int layers, int bidi)
{
    bench_point p;
    memset(&p, 0, sizeof(p));
    p.mode = mode;
    p.dtype = t;
    p.hidden = h;
    p.input = in;
    p.batch = 2;
    p.seq = 3;
    p.layers = layers;
    p.bidirectional = bidi;
    return p;
}

static void test_layout(void)
{
    char err[256];
    bench_model m;
    bench_point p = pt_of(PRNN_LSTM, PRNN_DATA_FLOAT, 16, 8, 2, 1);
    EXPECT(bench_model_create(&m, &p, 1, err, sizeof(err)) == 0, "%s", err);
    /* 2 layers x 2 directions x 8 ids x (matrix + bias) */
    EXPECT(m.n_params == 2 * 2 * 8 * 2 && m.nlin == 8 && m.dirs == 2, "n_params %d", m.n_params);
    size_t total = 0;
    for (int i = 0; i < m.n_params; i++) {
        const bench_param *q = &m.params[i];
        int layer = q->pseudo_layer / 2;
        size_t K = q->lin_id >= 4 ? 16 : layer == 0 ? 8 : 32;
        size_t want = q->is_bias ? 16 : 16 * K;
        EXPECT(q->count == want, "pl %d id %d bias %d: %zu, want %zu", q->pseudo_layer, q->lin_id,
               q->is_bias, q->count, want);
        EXPECT(q->offset == total, "offset");
        total += q->count * 4;
    }
    EXPECT(m.total_bytes == total, "total %zu", m.total_bytes);
    /* Values in [-1/sqrt(H), 1/sqrt(H)], not all equal, never all zero. */
    const float *v = (const float *)m.bytes;
    size_t nv = total / 4, zeros = 0;
    float lo = 1, hi = -1;
    for (size_t i = 0; i < nv; i++) {
        if (v[i] < lo)
            lo = v[i];
        if (v[i] > hi)
            hi = v[i];
        zeros += v[i] == 0;
    }
    EXPECT(lo >= -0.25f && hi <= 0.25f && lo < -0.2f && hi > 0.2f, "range [%g, %g]", lo, hi);
    EXPECT(zeros < nv / 100, "%zu zeros", zeros);

    /* Same seed, same bytes; another seed, other bytes. */
    bench_model m2, m3;
    EXPECT(bench_model_create(&m2, &p, 1, err, sizeof(err)) == 0, "%s", err);
    EXPECT(bench_model_create(&m3, &p, 2, err, sizeof(err)) == 0, "%s", err);
    EXPECT(!memcmp(m.bytes, m2.bytes, total), "not deterministic");
    EXPECT(memcmp(m.bytes, m3.bytes, total) != 0, "seed ignored");
    bench_model_destroy(&m);
    bench_model_destroy(&m2);
    bench_model_destroy(&m3);

    /* GRU: 6 ids; half storage: 2 bytes each, same values rounded. */
    p = pt_of(PRNN_GRU, PRNN_DATA_HALF, 8, 8, 1, 0);
    EXPECT(bench_model_create(&m, &p, 1, err, sizeof(err)) == 0, "%s", err);
    EXPECT(m.n_params == 12 && m.elem == 2, "gru half");
    bench_point pf = p;
    pf.dtype = PRNN_DATA_FLOAT;
    EXPECT(bench_model_create(&m2, &pf, 1, err, sizeof(err)) == 0, "%s", err);
    const uint16_t *h = (const uint16_t *)m.bytes;
    const float *f = (const float *)m2.bytes;
    for (size_t i = 0; i < m.total_bytes / 2; i++)
        if (prnn_half_to_float(h[i]) != prnn_half_to_float(prnn_float_to_half(f[i]))) {
            EXPECT(0, "element %zu: half %g vs float %g", i, prnn_half_to_float(h[i]), f[i]);
            break;
        }
    bench_model_destroy(&m);
    bench_model_destroy(&m2);

    /* RELU/TANH: W and R only. */
    p = pt_of(PRNN_RNN_TANH, PRNN_DATA_DOUBLE, 4, 3, 1, 0);
    EXPECT(bench_model_create(&m, &p, 1, err, sizeof(err)) == 0, "%s", err);
    EXPECT(m.n_params == 4 && m.params[0].count == 12 && m.params[2].count == 16 && m.elem == 8,
           "tanh double");
    bench_model_destroy(&m);
}

/* An LSTM with a projection (--proj): per pseudo-layer the 8 ids' matrices
 * and biases, W of a deeper layer and R as wide as the projection, then
 * W_proj (linLayerID 8, proj x hidden, no bias) with values of its own
 * stream; the parameters both models have hold the same values. */
static void test_projection(void)
{
    char err[256];
    bench_model m, plain;
    bench_point p = pt_of(PRNN_LSTM, PRNN_DATA_FLOAT, 16, 12, 2, 1);
    EXPECT(bench_model_create(&plain, &p, 7, err, sizeof(err)) == 0, "%s", err);
    p.proj = 6;
    EXPECT(bench_model_create(&m, &p, 7, err, sizeof(err)) == 0, "%s", err);
    EXPECT(bench_out_size(&p) == 6, "out size %d", bench_out_size(&p));
    /* 2 layers x 2 directions x (8 ids x 2 + W_proj) */
    EXPECT(m.n_params == 2 * 2 * 17 && m.nlin == 8, "n_params %d", m.n_params);
    size_t total = 0;
    int proj_seen = 0;
    for (int i = 0; i < m.n_params; i++) {
        const bench_param *q = &m.params[i];
        int layer = q->pseudo_layer / 2;
        size_t want;
        if (q->lin_id == BENCH_LIN_PROJ) {
            EXPECT(!q->is_bias && i % 17 == 16, "W_proj at %d: bias %d", i, q->is_bias);
            want = 6 * 16;
            proj_seen++;
        } else {
            size_t K = q->lin_id >= 4 ? 6 : layer == 0 ? 12 : 2 * 6;
            want = q->is_bias ? 16 : 16 * K;
        }
        EXPECT(q->count == want, "pl %d id %d bias %d: %zu, want %zu", q->pseudo_layer, q->lin_id,
               q->is_bias, q->count, want);
        EXPECT(q->offset == total, "offset of %d", i);
        total += q->count * 4;
    }
    EXPECT(proj_seen == 4 && m.total_bytes == total, "W_proj %d times, total %zu", proj_seen,
           m.total_bytes);
    /* Same (pseudo-layer, id, bias), same shape: the same values as
     * without the projection (layer 0's W, every bias); W_proj random in
     * range and unlike any other matrix. */
    for (int i = 0; i < m.n_params; i++) {
        const bench_param *q = &m.params[i];
        for (int j = 0; j < plain.n_params; j++) {
            const bench_param *r = &plain.params[j];
            if (r->pseudo_layer != q->pseudo_layer || r->lin_id != q->lin_id ||
                r->is_bias != q->is_bias || r->count != q->count)
                continue;
            EXPECT(!memcmp(m.bytes + q->offset, plain.bytes + r->offset, q->count * 4),
                   "pl %d id %d bias %d differs from the unprojected model's", q->pseudo_layer,
                   q->lin_id, q->is_bias);
        }
        if (q->lin_id != BENCH_LIN_PROJ)
            continue;
        const float *v = (const float *)(m.bytes + q->offset);
        int zeros = 0, out = 0;
        for (size_t k = 0; k < q->count; k++) {
            zeros += v[k] == 0;
            out += v[k] < -0.25f || v[k] > 0.25f;
        }
        EXPECT(zeros < 2 && !out, "W_proj of pl %d: %d zeros, %d out of range", q->pseudo_layer,
               zeros, out);
        EXPECT(memcmp(v, m.bytes + m.params[i - 2].offset, q->count * 4) != 0,
               "W_proj repeats R's values");
    }
    bench_model_destroy(&m);
    bench_model_destroy(&plain);
}

static void test_diff(void)
{
    float a[6] = {1, -2, 0.5f, 0, 0, 4};
    float b[6] = {1, -2, 0.5f, 0, 0, 4};
    bench_sig ra, rb;
    memset(&ra, 0, sizeof(ra));
    memset(&rb, 0, sizeof(rb));
    EXPECT(bench_sig_append(&ra, "y", a, 3) == 0 && bench_sig_append(&ra, "hy", a + 3, 3) == 0,
           "append");
    EXPECT(bench_sig_append(&rb, "y", b, 3) == 0 && bench_sig_append(&rb, "hy", b + 3, 3) == 0,
           "append");
    EXPECT(bench_sig_diff(&ra, &rb) == 0, "identical: %g", bench_sig_diff(&ra, &rb));
    /* Relative to each segment's own scale: y scale 2, hy scale 4. */
    rb.v[1] = -2.02f; /* 0.02 / 2 = 1e-2 */
    rb.v[5] = 4.004f; /* 0.004 / 4 = 1e-3 */
    EXPECT_NEAR(bench_sig_diff(&ra, &rb), 1e-2, 1e-6);
    rb.v[3] = NAN;
    EXPECT(isnan(bench_sig_diff(&ra, &rb)), "NaN must poison");
    rb.v[3] = INFINITY;
    EXPECT(isnan(bench_sig_diff(&ra, &rb)), "Inf must poison");
    bench_sig_free(&rb);
    memset(&rb, 0, sizeof(rb));
    bench_sig_append(&rb, "y", b, 3);
    EXPECT(isnan(bench_sig_diff(&ra, &rb)), "segments differ");
    bench_sig_append(&rb, "cy", b + 3, 3);
    EXPECT(isnan(bench_sig_diff(&ra, &rb)), "names differ");
    bench_sig_free(&ra);
    bench_sig_free(&rb);
    bench_sig_free(NULL);
}

/* --lengths varied: sequence 0 T long, every length in [ceil(T/2), T],
 * spaced evenly (sorted, they are the ramp), not sorted as given, the same
 * every time; full and packed: all T. */
static void test_lengths(void)
{
    static const struct {
        int T, B;
    } shapes[] = {{256, 16}, {256, 64}, {7, 5}, {2, 2}, {1, 8}, {1024, 256}, {16, 1}, {3, 300}};
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        const int T = shapes[k].T, B = shapes[k].B, lo = (T + 1) / 2;
        int *len = malloc((size_t)B * sizeof(int)), *again = malloc((size_t)B * sizeof(int));
        int *count = calloc((size_t)T + 1, sizeof(int));
        if (!len || !again || !count) {
            EXPECT(0, "out of memory");
            return;
        }
        bench_lengths_fill(BENCH_LAYOUT_BATCH_PADDED, BENCH_LENGTHS_VARIED, T, B, len);
        bench_lengths_fill(BENCH_LAYOUT_SEQ_PADDED, BENCH_LENGTHS_VARIED, T, B, again);
        EXPECT(!memcmp(len, again, (size_t)B * sizeof(int)), "T %d B %d: not the same twice", T, B);
        EXPECT(len[0] == T, "T %d B %d: sequence 0 is %d long", T, B, len[0]);
        int in_range = 1, descending = 1, shorter = 0;
        for (int b = 0; b < B; b++) {
            in_range &= len[b] >= lo && len[b] <= T;
            shorter += len[b] < T;
            if (b)
                descending &= len[b] <= len[b - 1];
            if (len[b] >= 0 && len[b] <= T)
                count[len[b]]++;
        }
        EXPECT(in_range, "T %d B %d: a length outside [%d, %d]", T, B, lo, T);
        /* the multiset is the ramp T - floor(j (T - lo) / (B - 1)) */
        for (int j = 0; j < B; j++) {
            int v = B == 1 ? T : T - (int)((long long)j * (T - lo) / (B - 1));
            count[v]--;
        }
        int ramp = 1;
        for (int v = 0; v <= T; v++)
            ramp &= count[v] == 0;
        EXPECT(ramp, "T %d B %d: the lengths are not the ramp from T to %d", T, B, lo);
        if (B >= 2 && T >= 2)
            EXPECT(shorter > 0, "T %d B %d: every length is T", T, B);
        if (B >= 16 && T >= 16)
            EXPECT(!descending, "T %d B %d: the lengths come sorted", T, B);
        bench_lengths_fill(BENCH_LAYOUT_BATCH_PADDED, BENCH_LENGTHS_FULL, T, B, again);
        int all_t = 1;
        for (int b = 0; b < B; b++)
            all_t &= again[b] == T;
        bench_lengths_fill(BENCH_LAYOUT_PACKED, BENCH_LENGTHS_VARIED, T, B, again);
        for (int b = 0; b < B; b++)
            all_t &= again[b] == T;
        EXPECT(all_t, "T %d B %d: full or packed lengths not all T", T, B);
        free(len);
        free(again);
        free(count);
    }
    /* The sum, as the CSV reports it. */
    bench_point p = pt_of(PRNN_LSTM, PRNN_DATA_FLOAT, 8, 8, 1, 0);
    p.seq = 256;
    p.batch = 16;
    p.layout = BENCH_LAYOUT_BATCH_PADDED;
    p.lengths = BENCH_LENGTHS_FULL;
    EXPECT(bench_lengths_sum(&p) == 256 * 16, "full sum %lld", bench_lengths_sum(&p));
    p.lengths = BENCH_LENGTHS_VARIED;
    long long sum = bench_lengths_sum(&p);
    EXPECT(sum < 256 * 16 && sum > 256 * 16 / 2 && llabs(sum - 256 * 16 * 3 / 4) <= 16,
           "varied sum %lld", sum);
}

/* Rows of a layout, and scatter / gather: valid steps where they belong,
 * the pad row in the padding, and back in time-major order. */
static void test_seqs(void)
{
    bench_point p = pt_of(PRNN_GRU, PRNN_DATA_FLOAT, 8, 8, 1, 0);
    p.seq = 5;
    p.batch = 4;
    for (int l = 0; l < BENCH_NUM_LAYOUTS; l++) {
        p.layout = (bench_layout)l;
        p.lengths = BENCH_LENGTHS_VARIED;
        bench_seqs s;
        EXPECT(bench_seqs_init(&s, &p) == 0, "init");
        const int T = 5, B = 4, V = 3;
        EXPECT(s.T == T && s.B == B && s.layout == p.layout, "seqs of layout %d", l);
        EXPECT(l == BENCH_LAYOUT_PACKED ? s.equal && s.sum == T * B : !s.equal && s.sum < T * B,
               "layout %d: sum %ld equal %d", l, s.sum, s.equal);
        EXPECT(bench_seqs_row(&s, 2, 3) ==
                   (l == BENCH_LAYOUT_BATCH_PADDED ? 3u * T + 2 : 2u * B + 3),
               "layout %d: row of (2, 3) %zu", l, bench_seqs_row(&s, 2, 3));
        /* src (time-major, full): element v of (t, b) = 100 t + 10 b + v */
        float src[5 * 4 * 3], dst[5 * 4 * 3], valid[5 * 4 * 3], pad[5 * 4 * 3];
        const float pad_row[3] = {NAN, NAN, NAN};
        for (int t = 0; t < T; t++)
            for (int b = 0; b < B; b++)
                for (int v = 0; v < V; v++)
                    src[(t * B + b) * V + v] = (float)(100 * t + 10 * b + v);
        bench_seqs_scatter(&s, V * sizeof(float), src, pad_row, dst);
        int placed = 1, padded = 1;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < B; b++)
                for (int v = 0; v < V; v++) {
                    float x = dst[bench_seqs_row(&s, t, b) * V + (size_t)v];
                    if (t < s.len[b])
                        placed &= x == (float)(100 * t + 10 * b + v);
                    else
                        padded &= isnan(x);
                }
        EXPECT(placed && padded, "layout %d: scatter (placed %d, padded %d)", l, placed, padded);
        bench_seqs_gather(&s, V * sizeof(float), dst, valid, pad);
        size_t k = 0, npad = 0;
        int back = 1;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < B; b++) {
                if (t >= s.len[b]) {
                    npad++;
                    continue;
                }
                for (int v = 0; v < V; v++)
                    back &= valid[k++] == (float)(100 * t + 10 * b + v);
            }
        EXPECT(back && k == (size_t)s.sum * V, "layout %d: gather of the valid steps", l);
        int pad_nan = 1;
        for (size_t i = 0; i < npad * V; i++)
            pad_nan &= isnan(pad[i]);
        EXPECT(pad_nan && npad == (size_t)(T * B - s.sum), "layout %d: gather of the padding", l);
        bench_seqs_free(&s);
    }
}

int main(void)
{
    test_layout();
    test_projection();
    test_diff();
    test_lengths();
    test_seqs();
    return test_done("tools-bench-data: parameter list, random values in range, output comparison, "
                     "the padded layouts' lengths, rows, scatter and gather");
}
