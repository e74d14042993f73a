/*
 * The reference's blocked product against the plain triple loop, at shapes
 * that cross every blocking boundary (MB rows, KB depth, NC columns, the
 * 4 x 8 tile), with A plain and transposed, padded leading dimensions (the
 * padding of C must stay untouched) and a nonzero C (it accumulates). The
 * portable and AVX2 kernels must agree bit for bit, so that the reference
 * gives the same values on every machine.
 */
#include <float.h>

#include "ref_test_util.h"
#include "ref/ref_internal.h"

static int run(size_t m, size_t n, size_t k, int trans_a)
{
    size_t lda = trans_a ? m + 3 : k + 5, ldb = n + 2, ldc = n + 7;
    size_t a_rs = trans_a ? 1 : lda, a_cs = trans_a ? lda : 1;
    size_t na = trans_a ? k * lda : m * lda;
    double *a = malloc(na * sizeof(double));
    double *b = malloc(k * ldb * sizeof(double));
    double *c0 = malloc(m * ldc * sizeof(double));
    double *c[2] = {malloc(m * ldc * sizeof(double)), malloc(m * ldc * sizeof(double))};
    double *pack = malloc(PRNN_REF_GEMM_PACK * sizeof(double));
    int fails = 0;

    for (size_t i = 0; i < na; i++)
        a[i] = rt_uniform(-1, 1);
    for (size_t i = 0; i < k * ldb; i++)
        b[i] = rt_uniform(-1, 1);
    for (size_t i = 0; i < m * ldc; i++)
        c0[i] = rt_uniform(-1, 1);
    for (int kern = 0; kern < 2; kern++) {
        memcpy(c[kern], c0, m * ldc * sizeof(double));
        prnn_ref_gemm_kernel(kern, m, n, k, a, a_rs, a_cs, b, ldb, c[kern], ldc, pack);
    }

    double worst = 0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < ldc; j++) {
            if (j >= n) { /* padding */
                if (c[0][i * ldc + j] != c0[i * ldc + j])
                    fails++;
                continue;
            }
            double s = c0[i * ldc + j], mag = fabs(s);
            for (size_t p = 0; p < k; p++) {
                double t = a[i * a_rs + p * a_cs] * b[p * ldb + j];
                s += t;
                mag += fabs(t);
            }
            double e = fabs(c[0][i * ldc + j] - s) / mag;
            if (e > worst)
                worst = e;
        }
    }
    int same = memcmp(c[0], c[1], m * ldc * sizeof(double)) == 0;
    /* both sums carry at most about k roundings relative to sum |terms| */
    int ok = fails == 0 && worst < 2.0 * (double)(k + 1) * DBL_EPSILON && same;
    printf("%4zu x %4zu x %4zu %s: error %.1e, kernels %s%s %s\n", m, n, k, trans_a ? "A^T" : "A  ",
           worst, same ? "identical" : "DIFFER", fails ? ", padding of C written" : "",
           ok ? "ok" : "FAILED");
    free(a);
    free(b);
    free(c0);
    free(c[0]);
    free(c[1]);
    free(pack);
    return ok;
}

int main(void)
{
    static const size_t shapes[][3] = {
        {1, 1, 1},      {3, 5, 7},      {4, 8, 256},     {5, 9, 257},
        {64, 256, 256}, {65, 257, 513}, {130, 520, 300}, {200, 70, 600},
    };
    int failed = 0;
    rt_seed(99);
    printf("AVX2 kernel %s\n", prnn_ref_gemm_has_avx2()
                                   ? "available: both kernels compared"
                                   : "not available: the portable kernel runs twice");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 2; t++)
            failed += !run(shapes[s][0], shapes[s][1], shapes[s][2], t);
    printf(failed ? "FAILED\n" : "gemm ok\n");
    return failed ? 1 : 0;
}
