/*
 * kernel_src/sru_scan.cu's kernels on the host, thread by thread, with the
 * data flow of src/gpu/sru_run.c (U = x W^T over both directions, the
 * forward scan keeping c and x', the backward scan, the input gradient as
 * the direct part plus dU W, dW = dU^T x, the V-block reduction), against
 * the CPU reference: every output and gradient of a training step, over
 * layers, directions, SKIP input, input size != hidden (x' projected or
 * not), equal and variable lengths, and SRU's conventions
 * (prnnSetRNNSRUConvention: the sru package's highway split across
 * directions, its scale, the identity activation). Buffers the kernels
 * should write start as NaN, so an element never written shows.
 *
 * What it does not check: the GPU's own arithmetic and 16-bit types, the
 * cuBLASLt calls, launches (tests/gpu does, on a device).
 *
 * Built per (data type, hidden size, block size, units per thread, steps in
 * flight) by tests/kernels/meson.build.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

extern "C" {
#include "descriptors.h"
#include "ref/ref_rnn.h"
#include "rnn_problem.h"
#include "weights_layout.h"
}

/* The CUDA built-ins the kernels use, as host globals. */
struct host_dim3 {
    unsigned x, y, z;
};
static host_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)

#undef PRNN_H /* prnn.h's include guard: the kernel's hidden size from here on */
#define PRNN_H SRU_HIDDEN

#ifdef SRU_HOST_RING
/* The shared-memory ring of sm_80 and newer (SRU_HOST_RING), its cp.async
 * copies emulated: each one is checked (size, alignment, bounds) and then
 * either performed at once (eager: a slot refilled before the step that
 * reads it has read it gives that step the wrong values) or queued in its
 * group until a wait retires the group, its bytes NaN until then (lazy: a
 * slot read before its group is waited for gives NaN). */
#include "prnn_kernel_abi.h"
#include "rnn_types.cuh"

enum {
    RING_BYTES = PRNN_SRU_RING_BYTES(PRNN_SRU_THREADS, PRNN_SRU_UPT, PRNN_SRU_DEPTH,
                                     (int)sizeof(AccT), 6)
};
alignas(16) static unsigned char sru_ring[RING_BYTES];
static int ring_lazy;

struct ring_copy_op {
    unsigned dst;
    const unsigned char *src;
    int n, src_n;
};
static std::vector<std::vector<ring_copy_op>> ring_groups; /* committed, oldest first */
static std::vector<ring_copy_op> ring_open;                 /* not yet committed */

static size_t __cvta_generic_to_shared(const void *p)
{
    return (size_t)((const unsigned char *)p - sru_ring);
}

static void ring_perform(const ring_copy_op &c)
{
    memcpy(sru_ring + c.dst, c.src, (size_t)c.src_n);
    memset(sru_ring + c.dst + c.src_n, 0, (size_t)(c.n - c.src_n));
}

static void ring_issue(unsigned dst, const void *src, int n, int src_n)
{
    if (dst % n || (uintptr_t)src % n || (size_t)dst + n > sizeof sru_ring) {
        printf("FAIL: cp.async of %d bytes to %u from %p: misaligned or past the ring (%zu "
               "bytes)\n", n, dst, src, sizeof sru_ring);
        exit(1);
    }
    ring_copy_op c = {dst, (const unsigned char *)src, n, src_n};
    if (!ring_lazy) {
        ring_perform(c);
        return;
    }
    memset(sru_ring + dst, 0xff, (size_t)n); /* NaN until it lands */
    ring_open.push_back(c);
}

template <int N>
static void sru_cp(unsigned dst, const void *src)
{
    static_assert(N == 4 || N == 8 || N == 16, "cp.async size");
    ring_issue(dst, src, N, N);
}

template <int N>
static void sru_cp_or_zero(unsigned dst, const void *src, bool in)
{
    static_assert(N == 4 || N == 8, "cp.async size");
    ring_issue(dst, src, N, in ? N : 0);
}

static void sru_commit()
{
    ring_groups.push_back(ring_open);
    ring_open.clear();
}

template <int N>
static void sru_wait()
{
    while (ring_groups.size() > (size_t)N) {
        for (const ring_copy_op &c : ring_groups.front())
            ring_perform(c);
        ring_groups.erase(ring_groups.begin());
    }
}

static int min(int a, int b) { return a < b ? a : b; }
static int max(int a, int b) { return a > b ? a : b; }
#endif

#include "sru_scan_host.cu"

static const int H = PRNN_H;

/* Every thread of a grid, one after the other: the kernels' threads never
 * talk to each other. */
template <typename Args>
static void launch(void (*fn)(const Args), const Args &a, unsigned long long threads,
                   unsigned block)
{
    blockDim.x = block;
    gridDim.x = (unsigned)((threads + block - 1) / block);
    for (unsigned bx = 0; bx < gridDim.x; bx++)
        for (unsigned tx = 0; tx < block; tx++) {
            blockIdx.x = bx;
            threadIdx.x = tx;
#ifdef SRU_HOST_RING
            /* a new thread: none of its copies in flight, the ring NaN */
            ring_groups.clear();
            ring_open.clear();
            memset(sru_ring, 0xff, sizeof sru_ring);
#endif
            fn(a);
        }
}

typedef void (*scan_kernel)(const prnn_sru_args);
static const scan_kernel forward_kernels[PRNN_SRU_VARIANTS] = {
    prnn_sru_forward_m3, prnn_sru_forward_m4, prnn_sru_forward_skip};
static const scan_kernel backward_kernels[PRNN_SRU_VARIANTS] = {
    prnn_sru_backward_m3, prnn_sru_backward_m4, prnn_sru_backward_skip};

/* As sru_run.c: the vector path where U, c and dx' (float and double data:
 * x and y too) start on a vector's size (std::vector's storage does, for
 * these sizes). */
static void launch_scan(scan_kernel fn, prnn_sru_args a)
{
    const uintptr_t size = (uintptr_t)UPT * sizeof(AccT);
    const bool same = sizeof(T) == sizeof(AccT);
    a.vec = (uintptr_t)a.u % size == 0 && (uintptr_t)a.ckeep % size == 0 &&
            (uintptr_t)a.dxp % size == 0 && (!same || (uintptr_t)a.xin % size == 0) &&
            (!same || (uintptr_t)a.y % size == 0);
    launch(fn, a, (unsigned long long)a.dirs * a.mini_batch * ((H + UPT - 1) / UPT),
           PRNN_SRU_THREADS);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double rnd(void) /* uniform in [-1, 1) */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static int failures;

/* ||got - want|| / ||want||; unwritten (NaN) elements fail. */
static void compare(const char *name, const char *what, const T *got, const double *want,
                    size_t n)
{
    double num = 0, den = 0;
    size_t nan = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan((double)got[i]))
            nan++;
        double d = (double)got[i] - want[i];
        num += d * d;
        den += want[i] * want[i];
    }
    double e = den > 0 ? sqrt(num / den) : sqrt(num);
    double tol = PRNN_DTYPE == 1 ? 1e-12 : 1e-5;
    if (nan || !(e <= tol)) {
        printf("  %s: %s relative error %.2e (tolerance %.0e), %zu of %zu unwritten\n", name,
               what, e, tol, nan, n);
        failures++;
    }
}

/* One layer's weights, as sru_run.c finds them. */
struct layer_info {
    prnn_pseudo_layer_layout pl;
    int k, m, skip;
};

static layer_info layer_of(const struct prnnRNNStruct *rnn, int input, int layer)
{
    layer_info li;
    int dirs = prnn_rnn_dirs(rnn);
    prnn_weights_pseudo_layer(rnn, input, layer * dirs, &li.pl);
    li.k = layer == 0 ? input : dirs * H;
    li.skip = li.pl.w_cols == 0;
    li.m = prnn_sru_matrices(rnn, li.pl.w_cols);
    return li;
}

/* The layer's scan kernel, as sru_run.c picks it. */
static int variant(const layer_info &li)
{
    return li.skip ? PRNN_SRU_VARIANT_SKIP : li.m == 4 ? PRNN_SRU_VARIANT_M4 : PRNN_SRU_VARIANT_M3;
}

/* SRU's conventions of a case: 0 the default. */
struct convention {
    const char *name;
    prnnSRUConvention_t convention;
    prnnSRUActivation_t activation;
    double scale;
};
static const convention conventions[] = {
    {"", PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_TANH, 1.0},
    {" package identity x1.7", PRNN_SRU_CONVENTION_SRU_PACKAGE, PRNN_SRU_ACTIVATION_IDENTITY,
     1.7320508075688772},
    {" package tanh x0.8", PRNN_SRU_CONVENTION_SRU_PACKAGE, PRNN_SRU_ACTIVATION_TANH, 0.8},
    {" prnn identity x1.25", PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_IDENTITY, 1.25},
};

static void run_case(int layers, int dirs, int skip, int input, int steps, const int *batch,
                     int conv = 0)
{
    const convention &cv = conventions[conv];
    const int split = cv.convention == PRNN_SRU_CONVENTION_SRU_PACKAGE;
    char name[128];
    snprintf(name, sizeof name, "L%d %s %s in=%d lengths %s%s", layers, dirs == 2 ? "bi" : "uni",
             skip ? "SKIP" : "LINEAR", input, batch[0] == batch[steps - 1] ? "equal" : "varying",
             cv.name);
    struct prnnRNNStruct rnn;
    memset(&rnn, 0, sizeof rnn);
    rnn.magic = PRNN_MAGIC_RNN;
    rnn.is_set = 1;
    rnn.hidden = H;
    rnn.layers = layers;
    rnn.input_mode = skip ? PRNN_SKIP_INPUT : PRNN_LINEAR_INPUT;
    rnn.direction = dirs == 2 ? PRNN_BIDIRECTIONAL : PRNN_UNIDIRECTIONAL;
    rnn.mode = PRNN_SRU;
    rnn.dtype = PRNN_DATA_DOUBLE;
    rnn.sru_convention = cv.convention;
    rnn.sru_activation = cv.activation;
    rnn.sru_scale = cv.scale;
    size_t rows = 0;
    for (int t = 0; t < steps; t++)
        rows += (size_t)batch[t];
    prnn_rnn_problem p = {&rnn, input, steps, batch, batch[0], rows, NULL};
    const int B = batch[0];
    const size_t nw = prnn_weights_bytes(&rnn, input) / sizeof(double);
    const size_t ns = (size_t)layers * dirs * B * H, ny = rows * dirs * H, nx = rows * input;

    /* the reference, in double */
    std::vector<double> w(nw), x(nx), cx(ns), dy(ny), dhy(ns), dcy(ns);
    for (double &v : w)
        v = 0.5 * rnd();
    for (std::vector<double> *b : {&x, &cx, &dy, &dhy, &dcy})
        for (double &v : *b)
            v = rnd();
    std::vector<double> y(ny), hy(ns), cy(ns), dx(nx), dhx(ns), dcx(ns), dw(nw, 0.0);
    std::vector<char> ws(prnn_ref_workspace_bytes(&p)), rs(prnn_ref_reserve_bytes(&p));
    prnn_ref_forward(&p, 1, x.data(), NULL, cx.data(), w.data(), y.data(), hy.data(), cy.data(),
                     ws.data(), rs.data());
    prnn_ref_backward_data(&p, y.data(), dy.data(), dhy.data(), dcy.data(), w.data(), NULL,
                           cx.data(), dx.data(), dhx.data(), dcx.data(), ws.data(), rs.data());
    prnn_ref_backward_weights(&p, x.data(), NULL, y.data(), ws.data(), dw.data(), rs.data());

    /* the kernels, in T, with sru_run.c's buffers */
    const T nan_t = (T)NAN;
    auto typed = [](const std::vector<double> &v) {
        return std::vector<T>(v.begin(), v.end());
    };
    std::vector<T> gw = typed(w), gx = typed(x), gcx = typed(cx), gdy = typed(dy);
    std::vector<T> gdhy = typed(dhy), gdcy = typed(dcy);
    std::vector<int> steps_b(batch, batch + steps), offset(steps);
    for (int t = 0, r = 0; t < steps; r += batch[t], t++)
        offset[t] = r;
    const size_t u_cols = (size_t)dirs * 4 * H, state = (size_t)B * H * dirs;
    std::vector<std::vector<T>> out(layers, std::vector<T>(ny, nan_t));
    std::vector<std::vector<AccT>> U(layers, std::vector<AccT>(rows * u_cols, nan_t));
    std::vector<std::vector<AccT>> C(layers, std::vector<AccT>(dirs * rows * H, nan_t));
    std::vector<std::vector<T>> dU(layers, std::vector<T>(rows * u_cols, nan_t));
    std::vector<std::vector<AccT>> vpart(layers, std::vector<AccT>(dirs * B * 4 * H, nan_t));
    std::vector<T> ghy(ns, nan_t), gcy(ns, nan_t);
    auto scan_args = [&](const layer_info &li, int layer) {
        prnn_sru_args a;
        memset(&a, 0, sizeof a);
        a.v = gw.data() + li.pl.v_offset;
        a.batch = steps_b.data();
        a.offset = offset.data();
        a.rows = (long long)rows;
        a.seq_length = steps;
        a.mini_batch = B;
        a.dirs = dirs;
        a.u_cols = (int)u_cols;
        a.x_cols = li.k;
        a.u = U[layer].data();
        a.cx = gcx.data() + layer * state;
        a.ckeep = C[layer].data();
        a.xp_split = split;
        a.identity = cv.activation == PRNN_SRU_ACTIVATION_IDENTITY;
        a.xscale = cv.scale;
        return a;
    };

    const T *in = gx.data();
    for (int l = 0; l < layers; l++) {
        layer_info li = layer_of(&rnn, input, l);
        if (!li.skip) { /* U = in W^T, both directions */
            const T *W = gw.data() + li.pl.w_offset;
            for (size_t r = 0; r < rows; r++)
                for (int n = 0; n < dirs * li.m * H; n++) {
                    AccT s = 0;
                    for (int k = 0; k < li.k; k++)
                        s += in[r * li.k + k] * W[(size_t)n * li.k + k];
                    U[l][r * u_cols + n] = s;
                }
        }
        if (li.m == 3) { /* x' is the input: kept in U for the backward */
            prnn_sru_keep_input_args ka;
            memset(&ka, 0, sizeof ka);
            ka.x = in;
            ka.u = U[l].data();
            ka.rows = (long long)rows;
            ka.u_cols = (int)u_cols;
            ka.dirs = dirs;
            ka.cols = split ? dirs * H : H;
            launch(prnn_sru_keep_input, ka, rows * ka.cols, 256);
        }
        prnn_sru_args a = scan_args(li, l);
        a.xin = in;
        a.hy = ghy.data() + l * state;
        a.cy = gcy.data() + l * state;
        a.y = out[l].data();
        launch_scan(forward_kernels[variant(li)], a);
        in = out[l].data();
    }
    compare(name, "y", out[layers - 1].data(), y.data(), ny);
    compare(name, "hy", ghy.data(), hy.data(), ns);
    compare(name, "cy", gcy.data(), cy.data(), ns);

    std::vector<AccT> dgrad(rows * dirs * H, nan_t), dxp(rows * dirs * H, nan_t);
    std::vector<T> gdx(nx, nan_t), gdhx(ns, nan_t), gdcx(ns, nan_t), gdw(nw, (T)0);
    for (int l = layers - 1; l >= 0; l--) {
        layer_info li = layer_of(&rnn, input, l);
        prnn_sru_args a = scan_args(li, l);
        a.dhy = gdhy.data() + l * state;
        a.dcy = gdcy.data() + l * state;
        a.dhx = gdhx.data() + l * state;
        a.dcx = gdcx.data() + l * state;
        a.dy_storage = l == layers - 1;
        a.dy = a.dy_storage ? (const void *)gdy.data() : (const void *)dgrad.data();
        a.du = dU[l].data();
        a.dxp = dxp.data();
        a.vpart = vpart[l].data();
        launch_scan(backward_kernels[variant(li)], a);
        const int bottom = l == 0, direct = li.m == 3;
        if (direct) {
            prnn_sru_input_grad_args g;
            memset(&g, 0, sizeof g);
            g.du = dU[l].data();
            g.dxp = dxp.data();
            g.din = bottom ? (void *)gdx.data() : (void *)dgrad.data();
            g.rows = (long long)rows;
            g.dirs = dirs;
            g.skip = li.skip;
            g.din_storage = bottom;
            g.split = split;
            launch(prnn_sru_input_grad, g, rows * (split ? dirs * H : H), 256);
        }
        if (!li.skip) { /* din (+)= dU W, both directions */
            const T *W = gw.data() + li.pl.w_offset;
            const int kk = dirs * li.m * H;
            for (size_t r = 0; r < rows; r++)
                for (int n = 0; n < li.k; n++) {
                    AccT s = 0;
                    for (int i = 0; i < kk; i++)
                        s += dU[l][r * kk + i] * W[(size_t)i * li.k + n];
                    if (bottom)
                        gdx[r * li.k + n] = direct ? gdx[r * li.k + n] + s : s;
                    else
                        dgrad[r * li.k + n] = direct ? dgrad[r * li.k + n] + s : s;
                }
        }
    }
    compare(name, "dx", gdx.data(), dx.data(), nx);
    compare(name, "dhx", gdhx.data(), dhx.data(), ns);
    compare(name, "dcx", gdcx.data(), dcx.data(), ns);

    for (int l = 0; l < layers; l++) {
        layer_info li = layer_of(&rnn, input, l);
        const T *inp = l == 0 ? gx.data() : out[l - 1].data();
        if (!li.skip) { /* dW += dU^T in */
            T *dW = gdw.data() + li.pl.w_offset;
            const int mm = dirs * li.m * H;
            for (int i = 0; i < mm; i++)
                for (int n = 0; n < li.k; n++) {
                    AccT s = 0;
                    for (size_t r = 0; r < rows; r++)
                        s += dU[l][r * mm + i] * inp[r * li.k + n];
                    dW[(size_t)i * li.k + n] += s;
                }
        }
        prnn_sru_vgrad_args g;
        memset(&g, 0, sizeof g);
        g.vpart = vpart[l].data();
        g.dv = gdw.data() + li.pl.v_offset;
        g.dirs = dirs;
        g.mini_batch = B;
        launch(prnn_sru_vgrad, g, (unsigned long long)dirs * 4 * H, 256);
    }
    compare(name, "dw", gdw.data(), dw.data(), nw);
}

/* Every case of the suite (main runs it once per ring emulation). */
static int run_cases(void)
{
    static const int varying[5] = {4, 3, 3, 2, 1}, equal[5] = {3, 3, 3, 3, 3};
    int cases = 0;
    for (int layers = 1; layers <= 2; layers++)
        for (int dirs = 1; dirs <= 2; dirs++)
            for (int skip = 0; skip <= 1; skip++)
                for (int var = 0; var <= 1; var++) {
                    /* SKIP: input = hidden (x' = x, no W at layer 0) */
                    run_case(layers, dirs, skip, skip ? H : 5, 5, var ? varying : equal);
                    cases++;
                }
    /* LINEAR with input = hidden: three matrices at layer 0, x' = x */
    for (int dirs = 1; dirs <= 2; dirs++, cases++)
        run_case(2, dirs, 0, H, 5, varying);
    /* one step */
    run_case(2, 2, 0, 3, 1, varying);
    cases++;
    /* the other conventions: the package's x' = x where the input is dirs *
     * hidden wide (both layers of a stack whose input is), u3 elsewhere;
     * SKIP with the package's convention is unidirectional only */
    for (int conv = 1; conv < (int)(sizeof conventions / sizeof conventions[0]); conv++)
        for (int dirs = 1; dirs <= 2; dirs++)
            for (int var = 0; var <= 1; var++) {
                run_case(2, dirs, 0, dirs * H, 5, var ? varying : equal, conv);
                run_case(2, dirs, 0, 5, 5, var ? varying : equal, conv);
                cases += 2;
                if (dirs == 1 || conventions[conv].convention == PRNN_SRU_CONVENTION_PRNN) {
                    run_case(2, dirs, 1, H, 5, var ? varying : equal, conv);
                    cases++;
                }
            }
    /* sequences longer than twice the steps in flight: every slot of the
     * ring refilled, wrapping, and the walks end at different steps */
    static int longer[40], longer_equal[40];
    for (int t = 0; t < 40; t++) {
        longer[t] = t < 23 ? 4 : t < 31 ? 3 : t < 37 ? 2 : 1;
        longer_equal[t] = 2;
    }
    for (int dirs = 1; dirs <= 2; dirs++, cases += 4) {
        run_case(2, dirs, 0, 5, 40, longer);
        run_case(2, dirs, 1, H, 40, longer);
        run_case(2, dirs, 0, H, 40, longer_equal);
        run_case(2, dirs, 0, dirs * H, 40, longer, 1);
    }
    return cases;
}

int main(void)
{
    int cases = 0;
#ifdef SRU_HOST_RING
    const char *ring = "shared-memory ring, eager and lazy copies";
    for (ring_lazy = 0; ring_lazy <= 1; ring_lazy++)
        cases += run_cases();
#else
    const char *ring = "register ring";
    cases = run_cases();
#endif
    printf("kernels-sru-host (%s, H=%d, %d threads, %d units per thread, %d steps in "
           "flight, %s): %d cases, %d failures\n", PRNN_DTYPE == 1 ? "double" : "float", H,
           PRNN_SRU_THREADS, UPT, DEPTH, ring, cases, failures);
    return failures ? 1 : 0;
}
