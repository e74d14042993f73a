/*
 * The reference's blocked product against the plain triple loop, at shapes
 * that cross every blocking boundary (MB rows, KB depth, NC columns, the
 * 4 x 8 tile), with A plain and transposed, padded leading dimensions (the
 * padding of C must stay untouched) and a nonzero C (it accumulates). The
 * portable and AVX2 kernels must agree bit for bit, so that the reference
 * gives the same values on every machine; and so must the product shared
 * among 2, 3 and 8 threads (the larger shapes are above the size at which
 * it shares, and the test checks after each call how many helpers ran).
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
    double *shared = malloc(m * ldc * sizeof(double));
    int same_shared = 1;
    static const int thread_counts[] = {2, 3, 8};
    for (int i = 0; i < 3; i++) {
        const unsigned long before = prnn_ref_gemm_helpers_started();
        memcpy(shared, c0, m * ldc * sizeof(double));
        prnn_ref_gemm_threads(thread_counts[i], m, n, k, a, a_rs, a_cs, b, ldb, shared, ldc, pack);
        same_shared = same_shared && memcmp(shared, c[1], m * ldc * sizeof(double)) == 0;
        /* a worker per 8.4 M multiply-adds, up to the thread count (these
         * shapes have items enough): none below twice that, all 8 from 67 M */
        const size_t unit = (size_t)1 << 23, madds = m * n * k;
        const unsigned long helpers = prnn_ref_gemm_helpers_started() - before;
        if ((madds < 2 * unit) != (helpers == 0) ||
            (thread_counts[i] == 8 && madds >= 8 * unit && helpers != 7))
            same_shared = 0;
    }
    free(shared);
    /* both sums carry at most about k roundings relative to sum |terms| */
    int ok = fails == 0 && worst < 2.0 * (double)(k + 1) * DBL_EPSILON && same && same_shared;
    printf("%4zu x %4zu x %4zu %s: error %.1e, kernels %s, threads %s%s %s\n", m, n, k,
           trans_a ? "A^T" : "A  ", worst, same ? "identical" : "DIFFER",
           same_shared ? "identical" : "DIFFER", fails ? ", padding of C written" : "",
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
        {1, 1, 1},
        {3, 5, 7},
        {4, 8, 256},
        {5, 9, 257},
        {64, 256, 256},
        {65, 257, 513},
        {130, 520, 300},
        {200, 70, 600},
        /* shared: 3 panels x 2 row blocks; one panel's rows in ranges;
         * 2 panels x 5 row blocks, the last rows and columns partial; on
         * 8 threads, one panel's 5 row blocks in 3 ranges (4 workers
         * wanted, one handed back); 2 panels x 8 row blocks on 8 workers */
        {100, 700, 260},
        {700, 200, 200},
        {300, 300, 300},
        {300, 200, 600},
        {512, 512, 256},
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
