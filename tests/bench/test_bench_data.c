/* prnn-bench's host-side data: the model's parameter list (cuDNN's
 * numbering, sizes), deterministic random values in range, and the output
 * comparison. */
#include <stdlib.h>

#include "bench_data.h"
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

int main(void)
{
    test_layout();
    test_diff();
    return test_done("tools-bench-data: parameter list, random values in range, output comparison");
}
