// SRU's recurrence (DESIGN.md section 4; prnn.h at PRNN_SRU): everything but
// the projection U = x W, which cuBLASLt has done for every step at once.
// What is left is elementwise along time, so one thread owns PRNN_SRU_UPT
// adjacent hidden units of one (direction, batch row) and walks the sequence
// with c in registers: no hand-off, no barrier, one launch for both
// directions. The backward scan walks time the other way, recomputing f and
// r from U and the kept c, and leaves dU for the GEMMs (dx, dW) and per-row
// sums for the V block, which prnn_sru_vgrad adds up in a fixed order.
//
// A warp's threads hold consecutive units, so its accesses to U, c and y are
// contiguous; with several units per thread, U, c and dx' move as 8- or
// 16-byte vectors where the host found them aligned. Each thread keeps the
// loads of the next PRNN_SRU_DEPTH steps in flight: a step's loads do not
// depend on c. On sm_80 and newer they go to a ring in shared memory
// (cp.async), each thread copying and reading back only its own data; below
// it, to a ring of registers, which spills past a few steps of a few units
// and whose conditional refills leave register copies that wait for the
// load just issued (bench/NOTES.md, v0.9 and v0.14). One kernel per layer
// kind (x' projected, x' = x, SKIP's layer 0) and pass keeps the step loop
// free of branches on it.
// The conventions (prnnSetRNNSRUConvention: which columns of the input are a
// direction's x', its scale, tanh or the identity as g) are arguments: the
// activation costs one warp-uniform branch per step, where a template
// parameter would double every scan's instantiations.
//
// Defines: PRNN_DTYPE, PRNN_H, PRNN_SRU_THREADS (block size), PRNN_SRU_UPT
// (units per thread), PRNN_SRU_DEPTH (steps in flight).

#include "prnn_kernel_abi.h"
#include "rnn_types.cuh"

#if !defined(PRNN_H) || !defined(PRNN_SRU_THREADS) || !defined(PRNN_SRU_UPT) || \
    !defined(PRNN_SRU_DEPTH)
#error "sru_scan.cu needs PRNN_H, PRNN_SRU_THREADS, PRNN_SRU_UPT and PRNN_SRU_DEPTH"
#endif
// NVRTC compiles for the exact GPU: the ring's kind is fixed per module (the
// host sizes the launch's shared memory the same way: sru_engine.c).
// (SRU_HOST_RING: tests/kernels runs the shared-memory ring on the host, its
// copies emulated.)
#if __CUDA_ARCH__ >= 800 || defined(SRU_HOST_RING)
#define SRU_ASYNC 1
#else
#define SRU_ASYNC 0
#endif
static_assert(PRNN_H >= 1, "hidden size");
static_assert(PRNN_SRU_THREADS % 32 == 0 && PRNN_SRU_THREADS <= 1024, "block size");
static_assert(PRNN_SRU_UPT >= 1 && PRNN_SRU_UPT <= 8, "units per thread");
static_assert(PRNN_SRU_DEPTH >= 1 && PRNN_SRU_DEPTH <= 32, "steps in flight");
#if !SRU_ASYNC
// Every (step in flight, unit) is registers, and a fully unrolled ring: more
// would spill and take NVRTC tens of seconds.
static_assert(PRNN_SRU_DEPTH <= 8, "steps in flight (register ring)");
static_assert(PRNN_SRU_UPT * PRNN_SRU_DEPTH <= 16, "units per thread x steps in flight");
#endif

#define H_ PRNN_H
#define UPT PRNN_SRU_UPT
#define DEPTH PRNN_SRU_DEPTH
// threads per (direction, row)
#define JT ((H_ + UPT - 1) / UPT)
// U, c and dx' (and for float and double data x and y) of a thread's units
// can move as one vector (host-checked alignment: prnn_sru_args.vec) when
// every thread has UPT whole units.
#define SRU_VEC_POSSIBLE ((UPT == 2 || UPT == 4 || UPT == 8) && H_ % UPT == 0)
// float and double data: x and y move as vectors too (the host also checks
// their alignment then).
#define SRU_STORAGE_IS_MATH (sizeof(T) == sizeof(AccT))

// The layer's kind, fixed per kernel so that the step loop carries no
// branch on it (prnn_kernel_abi.h: prnn_sru_variant).
enum {
    SRU_M3 = PRNN_SRU_VARIANT_M3,
    SRU_M4 = PRNN_SRU_VARIANT_M4,
    SRU_SKIP = PRNN_SRU_VARIANT_SKIP
};

// Activations. fp32: 1/(1+e^-x) with the accurate expf but a division
// without IEEE rounding and its slow-path branch (__fdividef, 2 ulp; it
// gives 0 for a denominator beyond 2^126, the limit anyway); the accurate
// tanhf. 16-bit data: the hardware tanh for both, as the recurrent cells do
// (rnn_cell.cuh). fp64: exact. The step's instructions, not its bytes,
// were what held the scan below the memory's bandwidth (bench/NOTES.md).
static __device__ __forceinline__ AccT sru_sigmoid(AccT x)
{
#if PRNN_DTYPE == 0
    return __fdividef(1.0f, 1.0f + expf(-x));
#elif PRNN_DTYPE == 1
    return prnn_sigmoid(x);
#else
    return 0.5f + 0.5f * prnn_tanh_approx(0.5f * x);
#endif
}
static __device__ __forceinline__ AccT sru_tanh(AccT x)
{
#if PRNN_DTYPE == 2 || PRNN_DTYPE == 3
    return prnn_tanh_approx(x);
#else
    return prnn_tanh(x);
#endif
}

// This thread's direction, batch row and first unit (units j0 .. j0+UPT-1,
// contiguous); false past the end.
static __device__ __forceinline__ bool sru_thread(const prnn_sru_args &a, int &d, int &b, int &j0)
{
    const long long tid = (long long)blockIdx.x * PRNN_SRU_THREADS + threadIdx.x;
    j0 = (int)(tid % JT) * UPT;
    const long long rest = tid / JT;
    b = (int)(rest % a.mini_batch);
    d = (int)(rest / a.mini_batch);
    return d < a.dirs;
}

// The steps where sequence b is active: t < len (batches never grow).
// Processing step i (0 .. len-1) of direction d is t = i forward, len-1-i
// in reverse, so both walks see one unbroken run of steps.
static __device__ __forceinline__ int sru_length(const int *batch, int steps, int b)
{
    int lo = 0, hi = steps;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (batch[mid] > b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static __device__ __forceinline__ AccT load_opt(const void *p, long long i)
{
    return p ? ST::load((const T *)p, i) : AccT(0);
}

// A thread's UPT math-type values at p (its units j0..): 16-byte (or, for
// two floats, 8-byte) accesses when VEC, else one per unit inside the
// hidden size.
template <bool VEC>
static __device__ __forceinline__ void units_load(const AccT *p, int j0, AccT (&v)[UPT])
{
    if constexpr (VEC) {
#if PRNN_DTYPE == 1
#pragma unroll
        for (int q = 0; q < UPT / 2; ++q) {
            const double2 t = ((const double2 *)p)[q];
            v[2 * q] = t.x;
            v[2 * q + 1] = t.y;
        }
#else
        if constexpr (UPT == 2) {
            const float2 t = *(const float2 *)p;
            v[0] = t.x;
            v[1] = t.y;
        } else {
#pragma unroll
            for (int q = 0; q < UPT / 4; ++q) {
                const float4 t = ((const float4 *)p)[q];
                v[4 * q] = t.x;
                v[4 * q + 1] = t.y;
                v[4 * q + 2] = t.z;
                v[4 * q + 3] = t.w;
            }
        }
#endif
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            v[k] = j0 + k < H_ ? p[k] : AccT(0);
    }
}

template <bool VEC>
static __device__ __forceinline__ void units_store(AccT *p, int j0, const AccT (&v)[UPT])
{
    if constexpr (VEC) {
#if PRNN_DTYPE == 1
#pragma unroll
        for (int q = 0; q < UPT / 2; ++q)
            ((double2 *)p)[q] = make_double2(v[2 * q], v[2 * q + 1]);
#else
        if constexpr (UPT == 2) {
            *(float2 *)p = make_float2(v[0], v[1]);
        } else {
#pragma unroll
            for (int q = 0; q < UPT / 4; ++q)
                ((float4 *)p)[q] = make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
        }
#endif
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            if (j0 + k < H_)
                p[k] = v[k];
    }
}

// Storage-type values: one access per unit.
static __device__ __forceinline__ void units_load_t(const T *p, int j0, AccT (&v)[UPT])
{
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        v[k] = j0 + k < H_ ? ST::load(p, k) : AccT(0);
}

static __device__ __forceinline__ void units_store_t(T *p, int j0, const AccT (&v)[UPT])
{
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        if (j0 + k < H_)
            ST::store(p, k, v[k]);
}

// Storage-type values of a thread's units: vectors (VEC) where the storage
// type is the math type (float and double data; the host then checks their
// alignment too), else one access per unit.
template <bool VEC>
static __device__ __forceinline__ void units_load_s(const T *p, int j0, AccT (&v)[UPT])
{
    if constexpr (SRU_STORAGE_IS_MATH)
        units_load<VEC>((const AccT *)p, j0, v);
    else
        units_load_t(p, j0, v);
}

template <bool VEC>
static __device__ __forceinline__ void units_store_s(T *p, int j0, const AccT (&v)[UPT])
{
    if constexpr (SRU_STORAGE_IS_MATH)
        units_store<VEC>((AccT *)p, j0, v);
    else
        units_store_t(p, j0, v);
}

// b_f, b_r, v_f, v_r of a thread's units (zeros past the hidden size).
struct sru_vecs {
    AccT bf[UPT], br[UPT], vf[UPT], vr[UPT];
};

static __device__ __forceinline__ void sru_load_vecs(const prnn_sru_args &a, int d, int j0,
                                                     sru_vecs &p)
{
    const T *v = (const T *)a.v + (long long)d * 4 * H_ + j0;
    units_load_t(v, j0, p.bf);
    units_load_t(v + H_, j0, p.br);
    units_load_t(v + 2 * H_, j0, p.vf);
    units_load_t(v + 3 * H_, j0, p.vr);
}

// One step's u0, u1, u2 and x' of a thread's units, and the step's row.
struct sru_in {
    long long row;
    AccT u0[UPT], u1[UPT], u2[UPT], xp[UPT];
};

// SKIP's layer 0 has no projection: its u0, u1 and u2 are x' itself.
static __device__ __forceinline__ void sru_skip_inputs(sru_in &in)
{
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        in.u0[k] = in.u1[k] = in.u2[k] = in.xp[k];
}

// g(c) of a thread's units: the identity, or tanh. One branch for all units,
// the same in every thread.
static __device__ __forceinline__ void sru_activation(bool identity, const AccT (&c)[UPT],
                                                      AccT (&g)[UPT])
{
    if (identity) {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            g[k] = c[k];
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            g[k] = sru_tanh(c[k]);
    }
}

// The factor of the x' that sru_load read: the highway scale where x' is the
// input (m = 3, SKIP), 1 for u3.
template <int V>
static __device__ __forceinline__ AccT sru_xscale(const prnn_sru_args &a)
{
    return V == SRU_M4 ? AccT(1) : AccT(a.xscale);
}

// The row of forward-walk step i (0 .. len-1) of this thread's sequence:
// the step's first row in the setup kernel's table, plus b. Inside the walk
// the table is read before the ring's loads need the row: read when needed,
// its latency stood between every step and its loads (bench/NOTES.md, v0.9).
#define SRU_FIRST_ROW(i) (a.offset[d ? len - 1 - (i) : (i)])
#define SRU_ROW(i) ((long long)SRU_FIRST_ROW(i) + b)

// One forward step of a thread's units from its loads (in): c and h move on,
// and y (and, in training, c) of the step's row are stored.
template <int V, bool VEC>
static __device__ __forceinline__ void sru_forward_step(const prnn_sru_args &a, const sru_vecs &pv,
                                                        const sru_in &in, int d, int j0,
                                                        int y_cols, bool train, bool identity,
                                                        AccT xs, AccT (&c)[UPT], AccT (&h)[UPT])
{
    AccT r[UPT], gc[UPT];
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const AccT f = sru_sigmoid(in.u1[k] + pv.vf[k] * c[k] + pv.bf[k]);
        r[k] = sru_sigmoid(in.u2[k] + pv.vr[k] * c[k] + pv.br[k]);
        c[k] = f * c[k] + (AccT(1) - f) * in.u0[k];
    }
    sru_activation(identity, c, gc);
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        h[k] = r[k] * gc[k] + (AccT(1) - r[k]) * (xs * in.xp[k]);
    units_store_s<VEC>((T *)a.y + in.row * y_cols + d * H_ + j0, j0, h);
    if (train) // (x', where it is the input, is kept by prnn_sru_keep_input)
        units_store<VEC>((AccT *)a.ckeep + ((long long)d * a.rows + in.row) * H_ + j0, j0, c);
}

// What the backward step of one walk step reads besides the running
// gradients: U's values, c_{t-1} (c_t is the previous walk step's c_{t-1})
// and dy.
struct sru_bwd_in {
    sru_in u;
    AccT cp[UPT], dy[UPT];
};

// The running gradients of a thread's units in the backward walk, and its
// row's sums for the V block.
struct sru_bwd_state {
    AccT dh[UPT], dc[UPT], cn[UPT];
    AccT gbf[UPT], gbr[UPT], gvf[UPT], gvr[UPT];
};

// One backward walk step of a thread's units from its loads (in): the
// running gradients move on, and dU (and dx' where x' is the input) of the
// step's row are stored.
template <int V, bool VEC>
static __device__ __forceinline__ void sru_backward_step(const prnn_sru_args &a,
                                                         const sru_vecs &pv, const sru_bwd_in &in,
                                                         int d, int j0, int du_cols,
                                                         bool identity, AccT xs, sru_bwd_state &s)
{
    constexpr int M = V == SRU_M4 ? 4 : 3;
    AccT du0[UPT], df[UPT], dr[UPT], dxp[UPT], gc[UPT];
    sru_activation(identity, s.cn, gc);
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const AccT cp = in.cp[k];
        const AccT f = sru_sigmoid(in.u.u1[k] + pv.vf[k] * cp + pv.bf[k]);
        const AccT r = sru_sigmoid(in.u.u2[k] + pv.vr[k] * cp + pv.br[k]);
        const AccT dhv = s.dh[k] + in.dy[k];
        s.dh[k] = AccT(0);
        const AccT tc = gc[k], dg = identity ? AccT(1) : AccT(1) - tc * tc; // g'(c)
        dr[k] = dhv * (tc - xs * in.u.xp[k]) * r * (AccT(1) - r);
        const AccT dcv = s.dc[k] + dhv * r * dg;
        df[k] = dcv * (cp - in.u.u0[k]) * f * (AccT(1) - f);
        dxp[k] = xs * dhv * (AccT(1) - r); // the gradient of x or of u3
        du0[k] = dcv * (AccT(1) - f);
        s.gbf[k] += df[k];
        s.gbr[k] += dr[k];
        s.gvf[k] += df[k] * cp;
        s.gvr[k] += dr[k] * cp;
        s.dc[k] = dcv * f + df[k] * pv.vf[k] + dr[k] * pv.vr[k];
        s.cn[k] = cp;
    }
    T *du = (T *)a.du + in.u.row * du_cols + d * M * H_ + j0;
    units_store_s<VEC>(du, j0, du0);
    units_store_s<VEC>(du + H_, j0, df);
    units_store_s<VEC>(du + 2 * H_, j0, dr);
    if constexpr (M == 4)
        units_store_s<VEC>(du + 3 * H_, j0, dxp);
    else
        units_store<VEC>((AccT *)a.dxp + (in.u.row * a.dirs + d) * H_ + j0, j0, dxp);
}

// Before the forward walk: c from cx (zeros where absent), h at zero.
static __device__ __forceinline__ void sru_forward_start(const prnn_sru_args &a, long long sb,
                                                         int j0, AccT (&c)[UPT], AccT (&h)[UPT])
{
    if (a.cx)
        units_load_t((const T *)a.cx + sb, j0, c);
    else
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            c[k] = AccT(0);
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        h[k] = AccT(0);
}

// After the forward walk: hy and cy.
static __device__ __forceinline__ void sru_forward_finish(const prnn_sru_args &a, long long sb,
                                                          int j0, const AccT (&c)[UPT],
                                                          const AccT (&h)[UPT])
{
    if (a.hy)
        units_store_t((T *)a.hy + sb, j0, h);
    if (a.cy)
        units_store_t((T *)a.cy + sb, j0, c);
}

// Before the walk: c0, dhy and dcy (zeros where absent or past the hidden
// size), the sums at zero (cn too, which the walk's first load sets).
static __device__ __forceinline__ void sru_backward_start(const prnn_sru_args &a, long long sb,
                                                          int j0, AccT (&c0)[UPT],
                                                          sru_bwd_state &g)
{
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const bool in = j0 + k < H_;
        c0[k] = in ? load_opt(a.cx, sb + k) : AccT(0);
        g.dh[k] = in ? load_opt(a.dhy, sb + k) : AccT(0);
        g.dc[k] = in ? load_opt(a.dcy, sb + k) : AccT(0);
        g.gbf[k] = g.gbr[k] = g.gvf[k] = g.gvr[k] = g.cn[k] = AccT(0);
    }
}

// After the walk: dhx (zeros), dcx and the row's sums for the V block.
static __device__ __forceinline__ void sru_backward_finish(const prnn_sru_args &a, long long sb,
                                                           int d, int b, int j0,
                                                           const sru_bwd_state &g)
{
    if (a.dhx) { // h_{t-1} plays no part in SRU
        AccT zero[UPT];
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            zero[k] = AccT(0);
        units_store_t((T *)a.dhx + sb, j0, zero);
    }
    if (a.dcx)
        units_store_t((T *)a.dcx + sb, j0, g.dc);
    AccT *vp = (AccT *)a.vpart + ((long long)d * a.mini_batch + b) * 4 * H_ + j0;
    units_store<false>(vp, j0, g.gbf);
    units_store<false>(vp + H_, j0, g.gbr);
    units_store<false>(vp + 2 * H_, j0, g.gvf);
    units_store<false>(vp + 3 * H_, j0, g.gvr);
}

#if SRU_ASYNC
// ---- the ring in shared memory (sm_80 and newer) ----
//
// A slot of the ring holds one step: per field (PRNN_SRU_RING_FIELDS), every
// thread's UPT math-type values, then every thread's row (an int). A
// thread's values of a field are SRU_FB bytes in pieces of SRU_CB (16 where
// they divide into 16s: one cp.async.cg each), piece c of all the block's
// threads side by side, so that a warp's accesses to a piece are contiguous.
// Each thread copies and reads back only its own bytes: no barrier. The
// writes of a thread's cp.async are visible to it once cp.async.wait_group
// says their group is complete; a slot is refilled only after the step that
// read it has used every value it read (its stores depend on them), so the
// copy cannot overtake the read (the same order libcu++'s thread-scope
// pipeline relies on: its consumer_release does nothing).
#ifndef SRU_HOST_RING
extern __shared__ __align__(16) unsigned char sru_ring[];
#endif

#define SRU_FB (UPT * (int)sizeof(AccT))
#define SRU_CB (SRU_FB % 16 == 0 ? 16 : SRU_FB)
#define SRU_FIELD_BYTES (PRNN_SRU_THREADS * SRU_FB)

// Bytes of one slot, and where byte `at` of a thread's field f lies in it
// (from the thread's own piece-0 address).
template <bool BWD, int V>
static __device__ constexpr unsigned sru_slot_bytes()
{
    return (unsigned)PRNN_SRU_RING_BYTES(PRNN_SRU_THREADS, UPT, 1, (int)sizeof(AccT),
                                         PRNN_SRU_RING_FIELDS(BWD, V));
}
static __device__ constexpr unsigned sru_piece(int f, int at)
{
    return (unsigned)(f * SRU_FIELD_BYTES + at / SRU_CB * PRNN_SRU_THREADS * SRU_CB + at % SRU_CB);
}

#ifndef SRU_HOST_RING
// N bytes from global src to shared dst, asynchronously (both aligned to N).
template <int N>
static __device__ __forceinline__ void sru_cp(unsigned dst, const void *src)
{
    static_assert(N == 4 || N == 8 || N == 16, "cp.async size");
    const unsigned long long g = __cvta_generic_to_global(src);
    if constexpr (N == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(g) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(g), "n"(N)
                     : "memory");
}

// The same, or N zeros without reading src where !in (src-size 0).
template <int N>
static __device__ __forceinline__ void sru_cp_or_zero(unsigned dst, const void *src, bool in)
{
    static_assert(N == 4 || N == 8, "cp.async size");
    const unsigned long long g = __cvta_generic_to_global(src);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(g), "n"(N),
                 "r"(in ? N : 0)
                 : "memory");
}

static __device__ __forceinline__ void sru_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Until at most N of this thread's committed groups are still in flight.
template <int N>
static __device__ __forceinline__ void sru_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

#endif

// A thread's UPT math-type values at p into its field at dst: pieces when
// VEC, else one copy per unit, zeros past the hidden size.
template <bool VEC>
static __device__ __forceinline__ void ring_copy(unsigned dst, const AccT *p, int j0)
{
    if constexpr (VEC) {
#pragma unroll
        for (int q = 0; q < SRU_FB / SRU_CB; ++q)
            sru_cp<SRU_CB>(dst + sru_piece(0, q * SRU_CB), (const char *)p + q * SRU_CB);
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k) {
            const bool in = j0 + k < H_;
            sru_cp_or_zero<(int)sizeof(AccT)>(dst + sru_piece(0, k * (int)sizeof(AccT)),
                                              in ? p + k : p, in);
        }
    }
}

// Storage-type values at p, vectors only (VEC): as math-type values where
// the storage type is the math type, else UPT 16-bit values as one copy of
// 4, 8 or 16 bytes into piece 0 (the host checks their alignment). Without
// VEC, 16-bit values go through registers (ring_stage_*).
template <bool VEC>
static __device__ __forceinline__ void ring_copy_s(unsigned dst, const T *p, int j0)
{
    if constexpr (SRU_STORAGE_IS_MATH) {
        ring_copy<VEC>(dst, (const AccT *)p, j0);
    } else {
        static_assert(VEC, "16-bit values without vectors are staged");
        sru_cp<UPT * (int)sizeof(T)>(dst, p);
    }
}

// A thread's UPT math-type values from its field at s (the reads match
// ring_copy's layout).
template <bool VEC>
static __device__ __forceinline__ void ring_read(const unsigned char *s, AccT (&v)[UPT])
{
    if constexpr (VEC && sizeof(AccT) == 4 && SRU_CB == 8) {
        const float2 t = *(const float2 *)s;
        v[0] = t.x;
        v[1] = t.y;
    } else if constexpr (VEC && sizeof(AccT) == 4) {
#pragma unroll
        for (int q = 0; q < UPT / 4; ++q) {
            const float4 t = *(const float4 *)(s + sru_piece(0, 16 * q));
            v[4 * q] = t.x;
            v[4 * q + 1] = t.y;
            v[4 * q + 2] = t.z;
            v[4 * q + 3] = t.w;
        }
    } else if constexpr (VEC) {
#pragma unroll
        for (int q = 0; q < UPT / 2; ++q) {
            const double2 t = *(const double2 *)(s + sru_piece(0, 16 * q));
            v[2 * q] = t.x;
            v[2 * q + 1] = t.y;
        }
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            v[k] = *(const AccT *)(s + sru_piece(0, k * (int)sizeof(AccT)));
    }
}

// Storage-type values (ring_copy_s, or staged): 16-bit ones lie in piece 0.
template <bool VEC>
static __device__ __forceinline__ void ring_read_s(const unsigned char *s, AccT (&v)[UPT])
{
    if constexpr (SRU_STORAGE_IS_MATH) {
        ring_read<VEC>(s, v);
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            v[k] = ST::load((const T *)s, k);
    }
}

// 16-bit storage values without vectors (no aligned copy of 4 bytes or
// more): loaded into registers by a step for the step DEPTH ahead, stored
// into its slot when the step is done (the loads had the step to land).
struct sru_stage {
    unsigned short v[UPT];
};

// (S: the storage type, a parameter so that float and double data, which
// never stage, do not compile it)
template <class S>
static __device__ __forceinline__ void ring_stage_load(const S *p, int j0, sru_stage &s)
{
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        s.v[k] = j0 + k < H_ ? p[k].bits : (unsigned short)0;
}

static __device__ __forceinline__ void ring_stage_store(unsigned char *s, const sru_stage &st)
{
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        ((unsigned short *)s)[k] = st.v[k];
}

// Staged values of the first DEPTH steps: SC steps' loads in flight at a
// time (their registers), then stored. ptr_of(q): step q's values.
template <class P>
static __device__ __forceinline__ void ring_stage_prologue(unsigned char *field0, unsigned slot,
                                                           int steps, int j0, P ptr_of)
{
    constexpr int SC = UPT >= 16 ? 1 : 16 / UPT;
#pragma unroll
    for (int q0 = 0; q0 < PRNN_SRU_DEPTH; q0 += SC) {
        sru_stage st[SC];
#pragma unroll
        for (int q = q0; q < q0 + SC && q < PRNN_SRU_DEPTH; ++q)
            if (q < steps)
                ring_stage_load(ptr_of(q), j0, st[q - q0]);
#pragma unroll
        for (int q = q0; q < q0 + SC && q < PRNN_SRU_DEPTH; ++q)
            if (q < steps)
                ring_stage_store(field0 + q * slot, st[q - q0]);
    }
}

template <int V, bool VEC>
static __device__ __forceinline__ void sru_forward_body(const prnn_sru_args &a, int d, int b,
                                                        int j0)
{
    const long long sb = ((long long)d * a.mini_batch + b) * H_ + j0;
    sru_vecs pv;
    sru_load_vecs(a, d, j0, pv);
    AccT c[UPT], h[UPT];
    sru_forward_start(a, sb, j0, c, h);
    const int len = sru_length(a.batch, a.seq_length, b), y_cols = a.dirs * H_;
    const bool train = a.ckeep != nullptr, identity = a.identity != 0;
    const AccT xs = sru_xscale<V>(a);
    const int xoff = a.xp_split ? d * H_ : 0; // this direction's x' columns

    // Fields: u0 u1 u2 x' (x' alone for SKIP). x' is the input (storage
    // type) but for m = 4; 16-bit input without vectors is staged.
    constexpr int NF = PRNN_SRU_RING_FIELDS(0, V);
    constexpr unsigned SLOT = sru_slot_bytes<false, V>();
    constexpr int XP = V == SRU_SKIP ? 0 : 3;
    constexpr bool STAGE = V != SRU_M4 && !SRU_STORAGE_IS_MATH && !VEC;
    unsigned char *const mine = sru_ring + threadIdx.x * SRU_CB;
    const unsigned smine = (unsigned)__cvta_generic_to_shared(mine);
    int *const my_row = (int *)(sru_ring + NF * SRU_FIELD_BYTES) + threadIdx.x;
    const T *const x = (const T *)a.xin + xoff + j0;

    // The copies of step `first + b`'s loads into the slot at byte `slot`
    // (the staged x' apart), and the row beside them.
    auto issue = [&](int first, unsigned slot) {
        const long long row = (long long)first + b;
        my_row[slot / 4] = first;
        const AccT *ur = (const AccT *)a.u + row * a.u_cols;
        if constexpr (V == SRU_M4) {
            const AccT *u = ur + d * 4 * H_ + j0;
#pragma unroll
            for (int f = 0; f < 4; ++f)
                ring_copy<VEC>(smine + slot + sru_piece(f, 0), u + f * H_, j0);
        } else {
            // x_cols and xoff are multiples of the hidden size here: rows
            // and directions stay aligned
            if constexpr (!STAGE)
                ring_copy_s<VEC>(smine + slot + sru_piece(XP, 0), x + row * a.x_cols, j0);
            if constexpr (V != SRU_SKIP) {
                const AccT *u = ur + d * 3 * H_ + j0;
#pragma unroll
                for (int f = 0; f < 3; ++f)
                    ring_copy<VEC>(smine + slot + sru_piece(f, 0), u + f * H_, j0);
            }
        }
    };

    // The first DEPTH steps, one group each (empty past the sequence, so
    // that step i's group is always the (i+1)-th): their table rows read
    // first, all in flight together.
    int first[PRNN_SRU_DEPTH];
#pragma unroll
    for (int q = 0; q < PRNN_SRU_DEPTH; ++q)
        first[q] = q < len ? SRU_FIRST_ROW(q) : 0;
#pragma unroll
    for (int q = 0; q < PRNN_SRU_DEPTH; ++q) {
        if (q < len)
            issue(first[q], q * SLOT);
        sru_commit();
    }
    if constexpr (STAGE)
        ring_stage_prologue(mine + sru_piece(XP, 0), SLOT, len, j0, [&](int q) {
            return x + ((long long)first[q] + b) * a.x_cols;
        });
    // next: the table row of the step the coming refill loads (step i +
    // DEPTH), read a step before the refill (clamped: always a valid entry).
    int next = len > 0 ? SRU_FIRST_ROW(min(PRNN_SRU_DEPTH, len - 1)) : 0;
    unsigned slot = 0;
#pragma unroll 1
    for (int i = 0; i < len; ++i) {
        const bool refill = i + PRNN_SRU_DEPTH < len;
        sru_stage st;
        if constexpr (STAGE) // (for the step DEPTH ahead; a valid row past the end)
            ring_stage_load(x + ((long long)next + b) * a.x_cols, j0, st);
        sru_wait<PRNN_SRU_DEPTH - 1>(); // step i's group (the (i+1)-th) has landed
        const unsigned char *s = mine + slot;
        sru_in in;
        in.row = (long long)my_row[slot / 4] + b;
        if constexpr (V == SRU_M4)
            ring_read<VEC>(s + sru_piece(XP, 0), in.xp);
        else
            ring_read_s<VEC>(s + sru_piece(XP, 0), in.xp);
        if constexpr (V == SRU_SKIP) {
            sru_skip_inputs(in);
        } else {
            ring_read<VEC>(s + sru_piece(0, 0), in.u0);
            ring_read<VEC>(s + sru_piece(1, 0), in.u1);
            ring_read<VEC>(s + sru_piece(2, 0), in.u2);
        }
        sru_forward_step<V, VEC>(a, pv, in, d, j0, y_cols, train, identity, xs, c, h);
        // the slot's values are used: refill it with step i + DEPTH
        if (refill) {
            issue(next, slot);
            if constexpr (STAGE)
                ring_stage_store(mine + slot + sru_piece(XP, 0), st);
        }
        sru_commit();
        next = SRU_FIRST_ROW(min(i + PRNN_SRU_DEPTH + 1, len - 1));
        slot = slot + SLOT == PRNN_SRU_DEPTH * SLOT ? 0 : slot + SLOT;
    }
    sru_forward_finish(a, sb, j0, c, h);
}

template <int V, bool VEC>
static __device__ __forceinline__ void sru_backward_body(const prnn_sru_args &a, int d, int b,
                                                         int j0)
{
    const long long sb = ((long long)d * a.mini_batch + b) * H_ + j0;
    sru_vecs pv;
    sru_load_vecs(a, d, j0, pv);
    AccT c0[UPT];
    sru_bwd_state g;
    sru_backward_start(a, sb, j0, c0, g);
    const AccT *ck = (const AccT *)a.ckeep + (long long)d * a.rows * H_ + j0;
    const int len = sru_length(a.batch, a.seq_length, b), du_cols = a.dirs * (V == SRU_M4 ? 4 : 3) * H_;
    const bool identity = a.identity != 0;
    const AccT xs = sru_xscale<V>(a);
    const int xoff = a.xp_split ? d * H_ : 0;
    const int y_cols = a.dirs * H_;
    // c_t of the first walk step (the sequence's last); each later walk
    // step's c_t is the c_{t-1} its predecessor read.
    if (len > 0)
        units_load<VEC>(ck + SRU_ROW(len - 1) * H_, j0, g.cn);

    // Fields: u0 u1 u2 x' c_{t-1} dy (SKIP: x' c_{t-1} dy). dy is the
    // caller's (storage type, dy_storage) or the layer above's gradient
    // (math type, one copy per unit as the register ring loads it); the
    // caller's 16-bit dy without vectors is staged.
    constexpr int NF = PRNN_SRU_RING_FIELDS(1, V);
    constexpr unsigned SLOT = sru_slot_bytes<true, V>();
    constexpr int XP = V == SRU_SKIP ? 0 : 3, CP = XP + 1, DY = XP + 2;
    constexpr bool STAGE = !SRU_STORAGE_IS_MATH && !VEC; // (where dy_storage)
    const bool dy_storage = SRU_STORAGE_IS_MATH || a.dy_storage;
    unsigned char *const mine = sru_ring + threadIdx.x * SRU_CB;
    const unsigned smine = (unsigned)__cvta_generic_to_shared(mine);
    int *const my_row = (int *)(sru_ring + NF * SRU_FIELD_BYTES) + threadIdx.x;
    const long long dy_at = (long long)d * H_ + j0;

    // The copies of the loads of the walk step whose row is `first + b`
    // into the slot at byte `slot`: prev, the first row of the step before
    // it (its c_{t-1}), or -1 for the sequence's first step (c0 instead).
    auto issue = [&](int first, int prev, unsigned slot) {
        const long long row = (long long)first + b;
        my_row[slot / 4] = first;
        const AccT *ur = (const AccT *)a.u + row * a.u_cols;
        const unsigned s = smine + slot;
        if constexpr (V == SRU_M4) {
            const AccT *u = ur + d * 4 * H_ + j0;
#pragma unroll
            for (int f = 0; f < 4; ++f)
                ring_copy<VEC>(s + sru_piece(f, 0), u + f * H_, j0);
        } else {
            ring_copy<VEC>(s + sru_piece(XP, 0), ur + a.dirs * 3 * H_ + xoff + j0, j0);
            if constexpr (V != SRU_SKIP) {
                const AccT *u = ur + d * 3 * H_ + j0;
#pragma unroll
                for (int f = 0; f < 3; ++f)
                    ring_copy<VEC>(s + sru_piece(f, 0), u + f * H_, j0);
            }
        }
        if (prev >= 0)
            ring_copy<VEC>(s + sru_piece(CP, 0), ck + ((long long)prev + b) * H_, j0);
        const long long yi = row * y_cols + dy_at;
        if (!dy_storage)
            ring_copy<false>(s + sru_piece(DY, 0), (const AccT *)a.dy + yi, j0);
        else if constexpr (!STAGE)
            ring_copy_s<VEC>(s + sru_piece(DY, 0), (const T *)a.dy + yi, j0);
    };

    // Walk step p is forward step i = len-1-p. The first DEPTH walk steps,
    // one group each (empty past the sequence); first[q]: the table row of
    // walk step q, and first[q + 1] that of its c_{t-1}.
    int first[PRNN_SRU_DEPTH + 1];
#pragma unroll
    for (int q = 0; q <= PRNN_SRU_DEPTH; ++q)
        first[q] = len > 0 ? SRU_FIRST_ROW(max(len - 1 - q, 0)) : 0;
#pragma unroll
    for (int q = 0; q < PRNN_SRU_DEPTH; ++q) {
        if (q < len)
            issue(first[q], len - 1 - q > 0 ? first[q + 1] : -1, q * SLOT);
        sru_commit();
    }
    if constexpr (STAGE)
        if (dy_storage)
            ring_stage_prologue(mine + sru_piece(DY, 0), SLOT, len, j0, [&](int q) {
                return (const T *)a.dy + (((long long)first[q] + b) * y_cols + dy_at);
            });
    // next, next_prev: the table rows of the walk step the coming refill
    // loads (p + DEPTH) and of the one after it (its c_{t-1}), read a step
    // ahead (clamped: always valid entries).
    int next = first[PRNN_SRU_DEPTH];
    int next_prev = len > 0 ? SRU_FIRST_ROW(max(len - 2 - PRNN_SRU_DEPTH, 0)) : 0;
    unsigned slot = 0;
#pragma unroll 1
    for (int p = 0; p < len; ++p) {
        const int i = len - 1 - p;
        const bool refill = p + PRNN_SRU_DEPTH < len;
        sru_stage st;
        if constexpr (STAGE)
            if (dy_storage)
                ring_stage_load((const T *)a.dy + (((long long)next + b) * y_cols + dy_at), j0, st);
        sru_wait<PRNN_SRU_DEPTH - 1>(); // walk step p's group has landed
        const unsigned char *s = mine + slot;
        sru_bwd_in in;
        in.u.row = (long long)my_row[slot / 4] + b;
        ring_read<VEC>(s + sru_piece(XP, 0), in.u.xp);
        if constexpr (V == SRU_SKIP) {
            sru_skip_inputs(in.u);
        } else {
            ring_read<VEC>(s + sru_piece(0, 0), in.u.u0);
            ring_read<VEC>(s + sru_piece(1, 0), in.u.u1);
            ring_read<VEC>(s + sru_piece(2, 0), in.u.u2);
        }
        if (i > 0) {
            ring_read<VEC>(s + sru_piece(CP, 0), in.cp);
        } else {
#pragma unroll
            for (int k = 0; k < UPT; ++k)
                in.cp[k] = c0[k];
        }
        if (dy_storage)
            ring_read_s<VEC>(s + sru_piece(DY, 0), in.dy);
        else
            ring_read<false>(s + sru_piece(DY, 0), in.dy);
        sru_backward_step<V, VEC>(a, pv, in, d, j0, du_cols, identity, xs, g);
        // the slot's values are used: refill it with walk step p + DEPTH
        if (refill) {
            issue(next, i - PRNN_SRU_DEPTH > 0 ? next_prev : -1, slot);
            if constexpr (STAGE)
                if (dy_storage)
                    ring_stage_store(mine + slot + sru_piece(DY, 0), st);
        }
        sru_commit();
        next = next_prev;
        next_prev = SRU_FIRST_ROW(max(i - PRNN_SRU_DEPTH - 2, 0));
        slot = slot + SLOT == PRNN_SRU_DEPTH * SLOT ? 0 : slot + SLOT;
    }
    sru_backward_finish(a, sb, d, b, j0, g);
}
#else
// ---- the ring in registers (below sm_80) ----

// One step's loads of a thread's units from global memory (see prnn_sru_args
// for U's columns). FWD: x' of an m = 3 layer comes from the input
// (forward), else from U's x' columns (backward, where the forward scan left
// it).
template <int V, bool FWD, bool VEC>
static __device__ __forceinline__ void sru_load(const prnn_sru_args &a, long long row, int d,
                                                int j0, sru_in &in)
{
    in.row = row;
    const AccT *ur = (const AccT *)a.u + row * a.u_cols;
    const int xoff = a.xp_split ? d * H_ : 0; // this direction's x' columns
    if constexpr (V == SRU_M4) {
        const AccT *u = ur + d * 4 * H_ + j0;
        units_load<VEC>(u, j0, in.u0);
        units_load<VEC>(u + H_, j0, in.u1);
        units_load<VEC>(u + 2 * H_, j0, in.u2);
        units_load<VEC>(u + 3 * H_, j0, in.xp);
        return;
    }
    // x_cols and xoff are multiples of the hidden size here: rows and
    // directions stay aligned
    if constexpr (FWD)
        units_load_s<VEC>((const T *)a.xin + row * a.x_cols + xoff + j0, j0, in.xp);
    else
        units_load<VEC>(ur + a.dirs * 3 * H_ + xoff + j0, j0, in.xp);
    if constexpr (V == SRU_SKIP) {
        sru_skip_inputs(in);
    } else {
        const AccT *u = ur + d * 3 * H_ + j0;
        units_load<VEC>(u, j0, in.u0);
        units_load<VEC>(u + H_, j0, in.u1);
        units_load<VEC>(u + 2 * H_, j0, in.u2);
    }
}

template <int V, bool VEC>
static __device__ __forceinline__ void sru_forward_body(const prnn_sru_args &a, int d, int b,
                                                        int j0)
{
    const long long sb = ((long long)d * a.mini_batch + b) * H_ + j0;
    sru_vecs pv;
    sru_load_vecs(a, d, j0, pv);
    AccT c[UPT], h[UPT];
    sru_forward_start(a, sb, j0, c, h);
    const int len = sru_length(a.batch, a.seq_length, b), y_cols = a.dirs * H_;
    const bool train = a.ckeep != nullptr, identity = a.identity != 0;
    const AccT xs = sru_xscale<V>(a);
    // Slot q of the ring holds step i0 + q (a compile-time index:
    // registers); next[q] the table row of the step it loads next, read
    // DEPTH steps before the refill.
    sru_in ring[DEPTH];
    int next[DEPTH];
#pragma unroll
    for (int q = 0; q < DEPTH; ++q) {
        if (q < len)
            sru_load<V, true, VEC>(a, SRU_ROW(q), d, j0, ring[q]);
        next[q] = q + DEPTH < len ? SRU_FIRST_ROW(q + DEPTH) : 0;
    }
    for (int i0 = 0; i0 < len; i0 += DEPTH) {
#pragma unroll
        for (int q = 0; q < DEPTH; ++q) {
            const int i = i0 + q;
            if (i >= len)
                break;
            const sru_in in = ring[q];
            if (i + DEPTH < len) { // refill the slot before computing: overlap
                const long long row = (long long)next[q] + b;
                if (i + 2 * DEPTH < len)
                    next[q] = SRU_FIRST_ROW(i + 2 * DEPTH);
                sru_load<V, true, VEC>(a, row, d, j0, ring[q]);
            }
            sru_forward_step<V, VEC>(a, pv, in, d, j0, y_cols, train, identity, xs, c, h);
        }
    }
    sru_forward_finish(a, sb, j0, c, h);
}

// A forward-walk step's inputs of a thread's units, from its row in U and
// the row of the step before it (c_{t-1}), or c0 where row_prev < 0 (the
// sequence's first step).
template <int V, bool VEC>
static __device__ __forceinline__ void sru_bwd_load(const prnn_sru_args &a, const AccT *ck, int d,
                                                    long long row, long long row_prev, int j0,
                                                    const AccT (&c0)[UPT], sru_bwd_in &in)
{
    sru_load<V, false, VEC>(a, row, d, j0, in.u);
    if (row_prev >= 0) {
        units_load<VEC>(ck + row_prev * H_ + j0, j0, in.cp);
    } else {
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            in.cp[k] = c0[k];
    }
    const long long yi = in.u.row * (a.dirs * H_) + d * H_ + j0;
    if (SRU_STORAGE_IS_MATH || a.dy_storage) // (the same type where storage is math)
        units_load_s<VEC>((const T *)a.dy + yi, j0, in.dy);
    else
        units_load<false>((const AccT *)a.dy + yi, j0, in.dy);
}

template <int V, bool VEC>
static __device__ __forceinline__ void sru_backward_body(const prnn_sru_args &a, int d, int b,
                                                         int j0)
{
    const long long sb = ((long long)d * a.mini_batch + b) * H_ + j0;
    sru_vecs pv;
    sru_load_vecs(a, d, j0, pv);
    AccT c0[UPT];
    sru_bwd_state g;
    sru_backward_start(a, sb, j0, c0, g);
    const AccT *ck = (const AccT *)a.ckeep + (long long)d * a.rows * H_;
    const int len = sru_length(a.batch, a.seq_length, b), du_cols = a.dirs * (V == SRU_M4 ? 4 : 3) * H_;
    const bool identity = a.identity != 0;
    const AccT xs = sru_xscale<V>(a);
    // c_t of the first walk step (the sequence's last); each later walk
    // step's c_t is the c_{t-1} its predecessor read.
    if (len > 0)
        units_load<VEC>(ck + SRU_ROW(len - 1) * H_ + j0, j0, g.cn);
    // The forward walk's steps backwards, i = len-1 down to 0 (so dhy and
    // dcy meet the sequence's last step first); walk step p is i = len-1-p.
    // As in the forward scan, the step table is read one round of the ring
    // before a refill needs its rows: next[q] and next_prev[q] are the first
    // rows of the steps slot q loads next (i - DEPTH) and of the step before
    // it (its c_{t-1}; -1 for none).
    sru_bwd_in ring[DEPTH];
    int next[DEPTH], next_prev[DEPTH];
#pragma unroll
    for (int q = 0; q < DEPTH; ++q) {
        const int i = len - 1 - q;
        if (q < len)
            sru_bwd_load<V, VEC>(a, ck, d, SRU_ROW(i), i > 0 ? SRU_ROW(i - 1) : -1, j0, c0,
                                 ring[q]);
        next[q] = q + DEPTH < len ? SRU_FIRST_ROW(i - DEPTH) : 0;
        next_prev[q] = q + DEPTH < len && i - DEPTH > 0 ? SRU_FIRST_ROW(i - DEPTH - 1) : -1;
    }
    for (int p0 = 0; p0 < len; p0 += DEPTH) {
#pragma unroll
        for (int q = 0; q < DEPTH; ++q) {
            const int p = p0 + q;
            if (p >= len)
                break;
            const int i = len - 1 - p;
            const sru_bwd_in in = ring[q];
            if (p + DEPTH < len) { // refill the slot before computing: overlap
                const long long row = (long long)next[q] + b;
                const long long row_prev = next_prev[q] < 0 ? -1 : (long long)next_prev[q] + b;
                if (p + 2 * DEPTH < len) {
                    next[q] = SRU_FIRST_ROW(i - 2 * DEPTH);
                    next_prev[q] = i - 2 * DEPTH > 0 ? SRU_FIRST_ROW(i - 2 * DEPTH - 1) : -1;
                }
                sru_bwd_load<V, VEC>(a, ck, d, row, row_prev, j0, c0, ring[q]);
            }
            sru_backward_step<V, VEC>(a, pv, in, d, j0, du_cols, identity, xs, g);
        }
    }
    sru_backward_finish(a, sb, d, b, j0, g);
}
#endif
#undef SRU_ROW
#undef SRU_FIRST_ROW

// The entry points: one per layer kind and pass (prnn_sru_variant order).
#define SRU_ENTRY(name, body, V)                                                        \
    extern "C" __global__ void __launch_bounds__(PRNN_SRU_THREADS) name(const prnn_sru_args a) \
    {                                                                                   \
        int d, b, j0;                                                                   \
        if (!sru_thread(a, d, b, j0))                                                   \
            return;                                                                     \
        if (SRU_VEC_POSSIBLE && a.vec)                                                  \
            body<V, SRU_VEC_POSSIBLE>(a, d, b, j0);                                     \
        else                                                                            \
            body<V, false>(a, d, b, j0);                                                \
    }
SRU_ENTRY(prnn_sru_forward_m3, sru_forward_body, SRU_M3)
SRU_ENTRY(prnn_sru_forward_m4, sru_forward_body, SRU_M4)
SRU_ENTRY(prnn_sru_forward_skip, sru_forward_body, SRU_SKIP)
SRU_ENTRY(prnn_sru_backward_m3, sru_backward_body, SRU_M3)
SRU_ENTRY(prnn_sru_backward_m4, sru_backward_body, SRU_M4)
SRU_ENTRY(prnn_sru_backward_skip, sru_backward_body, SRU_SKIP)
#undef SRU_ENTRY

// One thread per (direction, vector, unit), the batch rows added in order.
extern "C" __global__ void prnn_sru_vgrad(const prnn_sru_vgrad_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.dirs * 4 * H_)
        return;
    const int d = i / (4 * H_), qj = i % (4 * H_);
    const AccT *vp = (const AccT *)a.vpart + (long long)d * a.mini_batch * 4 * H_ + qj;
    AccT sum = AccT(0);
    for (int b = 0; b < a.mini_batch; ++b)
        sum += vp[(long long)b * 4 * H_];
    ST::store((T *)a.dv, i, ST::load((const T *)a.dv, i) + sum);
}

// A grid-stride copy, launched beside the layer's GEMM (sru_run.c): in the
// scan, this store cost more time than its bytes (bench/NOTES.md, v0.9).
extern "C" __global__ void prnn_sru_keep_input(const prnn_sru_keep_input_args a)
{
    const long long n = a.rows * a.cols;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / a.cols;
        const int j = (int)(i % a.cols);
        ((AccT *)a.u)[r * a.u_cols + a.dirs * 3 * H_ + j] = ST::load((const T *)a.x, i);
    }
}

extern "C" __global__ void prnn_sru_input_grad(const prnn_sru_input_grad_args a)
{
    // split: one column per (direction, unit), from that direction alone;
    // else one per unit, summed over the directions
    const int width = a.split ? a.dirs * H_ : H_;
    const long long n = a.rows * width;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / width;
        const int col = (int)(i % width), j = col % H_;
        const int d0 = a.split ? col / H_ : 0, d1 = a.split ? d0 + 1 : a.dirs;
        AccT sum = AccT(0);
        for (int d = d0; d < d1; ++d) {
            if (a.skip) {
                const T *du = (const T *)a.du + (r * a.dirs + d) * 3 * H_;
                sum += ST::load(du, j) + ST::load(du, H_ + j) + ST::load(du, 2 * H_ + j);
            }
            sum += ((const AccT *)a.dxp)[(r * a.dirs + d) * H_ + j];
        }
        if (a.din_storage)
            ST::store((T *)a.din, i, sum);
        else
            ((AccT *)a.din)[i] = sum;
    }
}
