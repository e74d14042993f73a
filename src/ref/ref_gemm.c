/*
 * The one dense product of the reference, in double: C += A B.
 *
 * The reference must be fast enough to produce expected values for the GPU
 * tests at real sizes (hidden 1024, batch 64, 64 steps: about 70 GFLOP per
 * call), and nearly all of its time is spent here. This is the classic
 * packed, blocked structure (Goto & van de Geijn) in portable C: a KB x NC
 * panel of B and an MB x KB block of A are copied into contiguous,
 * zero-padded tiles, and a register-blocked kernel multiplies 4 x 8 tiles
 * from L1.
 *
 * Every element of C is summed in the same order whatever the kernel: its
 * own accumulator runs over k within a KB block (one multiply, one add, each
 * rounded: no FMA), and blocks are added to C in order of k. So the AVX2
 * kernel, chosen at run time where the CPU has it, gives the same bits as
 * the portable one, and results depend only on the shapes.
 *
 * A large product is shared among threads (PRNN_REF_THREADS, by default the
 * CPUs the process may run on, at most 64): each takes whole NC-column
 * panels, or row ranges of them, and runs the same loop nest over them, so
 * every element still sums its k blocks in order and the bits do not depend
 * on how many threads ran. k is never split (that would change the order),
 * so a product of at most MB rows and NC columns stays on one thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref_internal.h"
#include "thread_count.h"

/* Contracting a * b + c into an FMA would change the bits between kernels
 * and machines. GCC does not contract in ISO C mode (c_std=c99) and warns
 * about this pragma; clang contracts by default but honours it. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define MR 4
#define NR 8
#define MB PRNN_REF_GEMM_MB
#define KB PRNN_REF_GEMM_KB
#define NC PRNN_REF_GEMM_NC

#if defined(__GNUC__) && defined(__x86_64__)
#define REF_HAVE_AVX2_KERNEL 1
#endif

static size_t min_z(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* ap[blk][p][r] = A(blk * MR + r, p), zero beyond mb rows. */
static void pack_a(size_t mb, size_t kb, const double *a, size_t a_rs, size_t a_cs, double *ap)
{
    for (size_t i0 = 0; i0 < mb; i0 += MR) {
        size_t mr = min_z(MR, mb - i0);
        double *dst = ap + i0 * kb;
        for (size_t p = 0; p < kb; p++)
            for (size_t r = 0; r < MR; r++)
                dst[p * MR + r] = r < mr ? a[(i0 + r) * a_rs + p * a_cs] : 0.0;
    }
}

/* bp[strip][p][q] = B(p, strip * NR + q), zero beyond nc columns. */
static void pack_b(size_t kb, size_t nc, const double *b, size_t ldb, double *bp)
{
    for (size_t j0 = 0; j0 < nc; j0 += NR) {
        size_t nr = min_z(NR, nc - j0);
        double *dst = bp + j0 * kb;
        for (size_t p = 0; p < kb; p++) {
            const double *row = b + p * ldb + j0;
            for (size_t q = 0; q < NR; q++)
                dst[p * NR + q] = q < nr ? row[q] : 0.0;
        }
    }
}

/* C[mr][nr] += t[MR][NR]: only the valid corner of a padded tile. */
static void add_tile(const double t[MR][NR], double *c, size_t ldc, size_t mr, size_t nr)
{
    for (size_t r = 0; r < mr; r++)
        for (size_t q = 0; q < nr; q++)
            c[r * ldc + q] += t[r][q];
}

/* Columns q0 .. q0+3 of a 4 x 8 tile. Sixteen independent accumulators
 * keep the floating-point units busy instead of waiting on one chain. */
static void kernel_4x4(size_t kb, const double *ap, const double *bp, size_t q0, double t[MR][NR])
{
    double c00 = 0, c01 = 0, c02 = 0, c03 = 0;
    double c10 = 0, c11 = 0, c12 = 0, c13 = 0;
    double c20 = 0, c21 = 0, c22 = 0, c23 = 0;
    double c30 = 0, c31 = 0, c32 = 0, c33 = 0;
    for (size_t p = 0; p < kb; p++) {
        const double *x = ap + p * MR, *y = bp + p * NR + q0;
        double b0 = y[0], b1 = y[1], b2 = y[2], b3 = y[3];
        double a0 = x[0], a1 = x[1], a2 = x[2], a3 = x[3];
        /* clang-format off */
        c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3;
        c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3;
        c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3;
        c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3;
        /* clang-format on */
    }
    /* clang-format off */
    t[0][q0] = c00; t[0][q0 + 1] = c01; t[0][q0 + 2] = c02; t[0][q0 + 3] = c03;
    t[1][q0] = c10; t[1][q0 + 1] = c11; t[1][q0 + 2] = c12; t[1][q0 + 3] = c13;
    t[2][q0] = c20; t[2][q0 + 1] = c21; t[2][q0 + 2] = c22; t[2][q0 + 3] = c23;
    t[3][q0] = c30; t[3][q0 + 1] = c31; t[3][q0 + 2] = c32; t[3][q0 + 3] = c33;
    /* clang-format on */
}

static void kernel_generic(size_t kb, const double *ap, const double *bp, double *c, size_t ldc,
                           size_t mr, size_t nr)
{
    /* zeroed: with nr <= 4 the right half is never computed, and the
     * vectorized add_tile should not even look at undefined values */
    double t[MR][NR] = {{0}};
    kernel_4x4(kb, ap, bp, 0, t);
    if (nr > 4)
        kernel_4x4(kb, ap, bp, 4, t);
    add_tile(t, c, ldc, mr, nr);
}

#ifdef REF_HAVE_AVX2_KERNEL
/* The same tile in 256-bit vectors (GCC vector extensions, so no intrinsics
 * header). Separate multiply and add, never FMA: see the top comment. The
 * type may alias double, so tiles are read and written through it directly;
 * going through memcpy would split the loads on the stack. */
typedef double ref_v4d __attribute__((vector_size(32), aligned(8), may_alias));

__attribute__((target("avx2"))) static void kernel_avx2(size_t kb, const double *ap,
                                                        const double *bp, double *c, size_t ldc,
                                                        size_t mr, size_t nr)
{
    ref_v4d c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0};
    ref_v4d c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0};
    for (size_t p = 0; p < kb; p++) {
        ref_v4d b0 = *(const ref_v4d *)(bp + p * NR);
        ref_v4d b1 = *(const ref_v4d *)(bp + p * NR + 4);
        const double *x = ap + p * MR;
        ref_v4d a0 = {x[0], x[0], x[0], x[0]};
        ref_v4d a1 = {x[1], x[1], x[1], x[1]};
        ref_v4d a2 = {x[2], x[2], x[2], x[2]};
        ref_v4d a3 = {x[3], x[3], x[3], x[3]};
        ref_v4d m;
        /* clang-format off */
        m = a0 * b0; c00 += m; m = a0 * b1; c01 += m;
        m = a1 * b0; c10 += m; m = a1 * b1; c11 += m;
        m = a2 * b0; c20 += m; m = a2 * b1; c21 += m;
        m = a3 * b0; c30 += m; m = a3 * b1; c31 += m;
        /* clang-format on */
    }
    double t[MR][NR];
    /* clang-format off */
    *(ref_v4d *)&t[0][0] = c00; *(ref_v4d *)&t[0][4] = c01;
    *(ref_v4d *)&t[1][0] = c10; *(ref_v4d *)&t[1][4] = c11;
    *(ref_v4d *)&t[2][0] = c20; *(ref_v4d *)&t[2][4] = c21;
    *(ref_v4d *)&t[3][0] = c30; *(ref_v4d *)&t[3][4] = c31;
    /* clang-format on */
    add_tile(t, c, ldc, mr, nr);
}
#endif

int prnn_ref_gemm_has_avx2(void)
{
#ifdef REF_HAVE_AVX2_KERNEL
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

typedef void (*kernel_fn)(size_t, const double *, const double *, double *, size_t, size_t, size_t);

static kernel_fn pick_kernel(int kernel)
{
#ifdef REF_HAVE_AVX2_KERNEL
    if (kernel == PRNN_REF_GEMM_AVX2 && prnn_ref_gemm_has_avx2())
        return kernel_avx2;
#else
    (void)kernel;
#endif
    return kernel_generic;
}

/* The operands of one product, as prnn_ref_gemm takes them. */
typedef struct {
    kernel_fn fn;
    size_t m, n, k;
    const double *a;
    size_t a_rs, a_cs;
    const double *b;
    size_t ldb;
    double *c;
    size_t ldc;
} gemm_args;

/* C's rows [i_begin, i_end) x columns [j_begin, j_end) += A B over all of
 * k: the blocked loop nest, a B panel packed per (jc, pc) and an A block
 * per (ic, pc). */
static void gemm_range(const gemm_args *g, size_t i_begin, size_t i_end, size_t j_begin,
                       size_t j_end, double *pack)
{
    double *ap = pack, *bp = pack + MB * KB;
    for (size_t jc = j_begin; jc < j_end; jc += NC) {
        size_t nc = min_z(NC, j_end - jc);
        for (size_t pc = 0; pc < g->k; pc += KB) {
            size_t kb = min_z(KB, g->k - pc);
            pack_b(kb, nc, g->b + pc * g->ldb + jc, g->ldb, bp);
            for (size_t ic = i_begin; ic < i_end; ic += MB) {
                size_t mb = min_z(MB, i_end - ic);
                pack_a(mb, kb, g->a + ic * g->a_rs + pc * g->a_cs, g->a_rs, g->a_cs, ap);
                for (size_t j0 = 0; j0 < nc; j0 += NR)
                    for (size_t i0 = 0; i0 < mb; i0 += MR)
                        g->fn(kb, ap + i0 * kb, bp + j0 * kb, g->c + (ic + i0) * g->ldc + jc + j0,
                              g->ldc, min_z(MR, mb - i0), min_z(NR, nc - j0));
            }
        }
    }
}

void prnn_ref_gemm_kernel(int kernel, size_t m, size_t n, size_t k, const double *a, size_t a_rs,
                          size_t a_cs, const double *b, size_t ldb, double *c, size_t ldc,
                          double *pack)
{
    const gemm_args g = {pick_kernel(kernel), m, n, k, a, a_rs, a_cs, b, ldb, c, ldc};
    gemm_range(&g, 0, m, 0, n, pack);
}

/* ---- sharing a product among threads ---- */

/* A worker for every this many multiply-adds of a product (so below twice
 * as many it runs on its caller's thread alone): a thread's start, tens of
 * microseconds, is small beside a few milliseconds of work. */
#define REF_GEMM_SHARE_MADDS (1u << 23)
#define REF_THREADS_MAX 64

/* Helper threads running now, process-wide: every product's helpers count
 * against PRNN_REF_THREADS, so that callers on many threads (the GPU
 * tests', the autotuner's) do not multiply it. */
static pthread_mutex_t helpers_lock = PTHREAD_MUTEX_INITIALIZER;
static int helpers_running;
static unsigned long helpers_started; /* ever: for the tests */

static int take_helpers(int wanted, int threads)
{
    pthread_mutex_lock(&helpers_lock);
    int free_slots = threads - 1 - helpers_running;
    int got = wanted < free_slots ? wanted : free_slots;
    if (got < 0)
        got = 0;
    helpers_running += got;
    pthread_mutex_unlock(&helpers_lock);
    return got;
}

/* n helpers back to the budget, of which started ran as threads. */
static void give_helpers(int n, int started)
{
    pthread_mutex_lock(&helpers_lock);
    helpers_running -= n;
    helpers_started += (unsigned long)started;
    pthread_mutex_unlock(&helpers_lock);
}

unsigned long prnn_ref_gemm_helpers_started(void)
{
    pthread_mutex_lock(&helpers_lock);
    unsigned long n = helpers_started;
    pthread_mutex_unlock(&helpers_lock);
    return n;
}

/* The product cut into items: n_panels column panels (NC wide) times
 * row_ranges ranges of whole MB-row blocks; worker w runs items w, w +
 * workers, ... (a worker may have none). */
typedef struct {
    const gemm_args *g;
    size_t part_rows, n_panels, items, workers, worker;
    double *pack; /* a helper's own scratch (the caller's worker uses its pack) */
} gemm_share;

static void run_items(const gemm_share *s, double *pack)
{
    const gemm_args *g = s->g;
    for (size_t item = s->worker; item < s->items; item += s->workers) {
        size_t j = item % s->n_panels * NC, i = item / s->n_panels * s->part_rows;
        gemm_range(g, i, min_z(g->m, i + s->part_rows), j, min_z(g->n, j + NC), pack);
    }
}

static void *helper_main(void *arg)
{
    const gemm_share *s = arg;
    run_items(s, s->pack);
    return NULL;
}

void prnn_ref_gemm_threads(int threads, size_t m, size_t n, size_t k, const double *a, size_t a_rs,
                           size_t a_cs, const double *b, size_t ldb, double *c, size_t ldc,
                           double *pack)
{
    const gemm_args g = {pick_kernel(PRNN_REF_GEMM_AVX2), m, n, k, a, a_rs, a_cs, b, ldb, c, ldc};
    if (threads > REF_THREADS_MAX)
        threads = REF_THREADS_MAX;
    const size_t n_panels = (n + NC - 1) / NC, m_blocks = (m + MB - 1) / MB;
    const double madds = (double)m * (double)n * (double)k;
    /* as many workers as threads, items and work allow */
    size_t workers = threads > 1 ? (size_t)threads : 1;
    if (workers > n_panels * m_blocks)
        workers = n_panels * m_blocks;
    if (madds < (double)REF_GEMM_SHARE_MADDS * (double)workers)
        workers = madds < 2.0 * REF_GEMM_SHARE_MADDS ? 1 : (size_t)(madds / REF_GEMM_SHARE_MADDS);
    int helpers = workers > 1 ? take_helpers((int)workers - 1, threads) : 0;
    if (helpers == 0) {
        gemm_range(&g, 0, m, 0, n, pack);
        return;
    }
    /* whole panels where there are enough of them; else each panel's rows
     * in as many ranges as it takes to give every worker an item */
    const size_t want = (size_t)helpers + 1;
    const size_t row_parts_wanted = (want + n_panels - 1) / n_panels;
    const size_t row_parts = row_parts_wanted < m_blocks ? row_parts_wanted : m_blocks;
    const size_t part_rows = (m_blocks + row_parts - 1) / row_parts * MB;
    const size_t items = n_panels * ((m + part_rows - 1) / part_rows);
    /* rounding the ranges to whole blocks may leave fewer items than
     * workers: hand the surplus back */
    if (items < want) {
        give_helpers(helpers - (int)(items - 1), 0);
        helpers = (int)(items - 1);
    }
    workers = (size_t)helpers + 1;
    gemm_share share[REF_THREADS_MAX];
    pthread_t tid[REF_THREADS_MAX];
    int started[REF_THREADS_MAX] = {0}, n_started = 0;
    for (size_t w = 0; w < workers; w++)
        share[w] = (gemm_share){.g = &g,
                                .part_rows = part_rows,
                                .n_panels = n_panels,
                                .items = items,
                                .workers = workers,
                                .worker = w};
    /* a helper that cannot get its scratch or its thread leaves its items
     * to the caller, which runs them after its own */
    for (int h = 1; h <= helpers; h++) {
        share[h].pack = malloc(PRNN_REF_GEMM_PACK * sizeof(double));
        started[h] = share[h].pack && pthread_create(&tid[h], NULL, helper_main, &share[h]) == 0;
        n_started += started[h];
    }
    run_items(&share[0], pack);
    for (int h = 1; h <= helpers; h++) {
        if (started[h])
            pthread_join(tid[h], NULL);
        else
            run_items(&share[h], pack);
        free(share[h].pack);
    }
    give_helpers(helpers, n_started);
}

void prnn_ref_gemm(size_t m, size_t n, size_t k, const double *a, size_t a_rs, size_t a_cs,
                   const double *b, size_t ldb, double *c, size_t ldc, double *pack)
{
    /* a small product never shares: no need to count the CPUs for it */
    const int threads = (double)m * (double)n * (double)k < 2.0 * REF_GEMM_SHARE_MADDS
                            ? 1
                            : prnn_thread_count("PRNN_REF_THREADS", REF_THREADS_MAX);
    prnn_ref_gemm_threads(threads, m, n, k, a, a_rs, a_cs, b, ldb, c, ldc, pack);
}
