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
// loads of the next PRNN_SRU_DEPTH steps in flight (a ring of registers): a
// step's loads do not depend on c. One kernel per layer kind (x' projected,
// x' = x, SKIP's layer 0) and pass keeps the step loop free of branches on it.
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
static_assert(PRNN_H >= 1, "hidden size");
static_assert(PRNN_SRU_THREADS % 32 == 0 && PRNN_SRU_THREADS <= 1024, "block size");
static_assert(PRNN_SRU_UPT >= 1 && PRNN_SRU_UPT <= 8, "units per thread");
static_assert(PRNN_SRU_DEPTH >= 1 && PRNN_SRU_DEPTH <= 8, "steps in flight");
// Every (step in flight, unit) is registers, and a fully unrolled ring: more
// would spill and take NVRTC tens of seconds.
static_assert(PRNN_SRU_UPT * PRNN_SRU_DEPTH <= 16, "units per thread x steps in flight");

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

// One step's u0, u1, u2 and x' of a thread's units, and the step's row. See
// prnn_sru_args for U's columns. FWD: x' of an m = 3 layer comes from the
// input (forward), else from U's x' columns (backward, where the forward
// scan left it).
struct sru_in {
    long long row;
    AccT u0[UPT], u1[UPT], u2[UPT], xp[UPT];
};

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
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            in.u0[k] = in.u1[k] = in.u2[k] = in.xp[k];
    } else {
        const AccT *u = ur + d * 3 * H_ + j0;
        units_load<VEC>(u, j0, in.u0);
        units_load<VEC>(u + H_, j0, in.u1);
        units_load<VEC>(u + 2 * H_, j0, in.u2);
    }
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
// the table is read DEPTH steps before the ring's loads need the row: read
// when needed, its latency stood between every step and its loads
// (bench/NOTES.md, v0.9).
#define SRU_FIRST_ROW(i) (a.offset[d ? len - 1 - (i) : (i)])
#define SRU_ROW(i) ((long long)SRU_FIRST_ROW(i) + b)

template <int V, bool VEC>
static __device__ __forceinline__ void sru_forward_body(const prnn_sru_args &a, int d, int b,
                                                        int j0)
{
    const long long sb = ((long long)d * a.mini_batch + b) * H_ + j0;
    sru_vecs pv;
    sru_load_vecs(a, d, j0, pv);
    AccT c[UPT], h[UPT];
    if (a.cx)
        units_load_t((const T *)a.cx + sb, j0, c);
    else
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            c[k] = AccT(0);
#pragma unroll
    for (int k = 0; k < UPT; ++k)
        h[k] = AccT(0);
    const int len = sru_length(a.batch, a.seq_length, b), y_cols = a.dirs * H_;
    const bool train = a.ckeep != nullptr, identity = a.identity != 0;
    const AccT xs = sru_xscale<V>(a);
    // The loads of the next DEPTH steps are in flight while a step computes:
    // they do not depend on c. Slot q of the ring holds step i0 + q (a
    // compile-time index: registers); next[q] the table row of the step it
    // loads next (see SRU_FIRST_ROW).
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
                units_store<VEC>((AccT *)a.ckeep + ((long long)d * a.rows + in.row) * H_ + j0,
                                 j0, c);
        }
    }
    if (a.hy)
        units_store_t((T *)a.hy + sb, j0, h);
    if (a.cy)
        units_store_t((T *)a.cy + sb, j0, c);
}

// What the backward step of one walk step reads besides the running
// gradients: U's values, c_{t-1} (c_t is the previous walk step's c_{t-1})
// and dy.
struct sru_bwd_in {
    sru_in u;
    AccT cp[UPT], dy[UPT];
};

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
    constexpr int M = V == SRU_M4 ? 4 : 3;
    const long long sb = ((long long)d * a.mini_batch + b) * H_ + j0;
    sru_vecs pv;
    sru_load_vecs(a, d, j0, pv);
    AccT c0[UPT], dh[UPT], dc[UPT], cn[UPT];
    AccT gbf[UPT], gbr[UPT], gvf[UPT], gvr[UPT]; // this row's sums for the V block
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const bool in = j0 + k < H_;
        c0[k] = in ? load_opt(a.cx, sb + k) : AccT(0);
        dh[k] = in ? load_opt(a.dhy, sb + k) : AccT(0);
        dc[k] = in ? load_opt(a.dcy, sb + k) : AccT(0);
        gbf[k] = gbr[k] = gvf[k] = gvr[k] = AccT(0);
    }
    const AccT *ck = (const AccT *)a.ckeep + (long long)d * a.rows * H_;
    const int len = sru_length(a.batch, a.seq_length, b), du_cols = a.dirs * M * H_;
    const bool identity = a.identity != 0;
    const AccT xs = sru_xscale<V>(a);
    // c_t of the first walk step (the sequence's last); each later walk
    // step's c_t is the c_{t-1} its predecessor read.
    if (len > 0)
        units_load<VEC>(ck + SRU_ROW(len - 1) * H_ + j0, j0, cn);
    // The forward walk's steps backwards, i = len-1 down to 0 (so dhy and
    // dcy meet the sequence's last step first); walk step p is i = len-1-p,
    // with the forward scan's ring of DEPTH steps in flight.
    // As in the forward scan, the step table is read one round of the ring
    // before a refill needs its rows: next[q] and next_prev[q] are the first
    // rows of the steps slot q loads next (i - DEPTH) and of the step before
    // it (its c_{t-1}; -1 for none). Read at the refill, each step waited
    // for the table before its loads could start.
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
            AccT du0[UPT], df[UPT], dr[UPT], dxp[UPT], gc[UPT];
            sru_activation(identity, cn, gc);
#pragma unroll
            for (int k = 0; k < UPT; ++k) {
                const AccT cp = in.cp[k];
                const AccT f = sru_sigmoid(in.u.u1[k] + pv.vf[k] * cp + pv.bf[k]);
                const AccT r = sru_sigmoid(in.u.u2[k] + pv.vr[k] * cp + pv.br[k]);
                const AccT dhv = dh[k] + in.dy[k];
                dh[k] = AccT(0);
                const AccT tc = gc[k], dg = identity ? AccT(1) : AccT(1) - tc * tc; // g'(c)
                dr[k] = dhv * (tc - xs * in.u.xp[k]) * r * (AccT(1) - r);
                const AccT dcv = dc[k] + dhv * r * dg;
                df[k] = dcv * (cp - in.u.u0[k]) * f * (AccT(1) - f);
                dxp[k] = xs * dhv * (AccT(1) - r); // the gradient of x or of u3
                du0[k] = dcv * (AccT(1) - f);
                gbf[k] += df[k];
                gbr[k] += dr[k];
                gvf[k] += df[k] * cp;
                gvr[k] += dr[k] * cp;
                dc[k] = dcv * f + df[k] * pv.vf[k] + dr[k] * pv.vr[k];
                cn[k] = cp;
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
    }
    if (a.dhx) { // h_{t-1} plays no part in SRU
        AccT zero[UPT];
#pragma unroll
        for (int k = 0; k < UPT; ++k)
            zero[k] = AccT(0);
        units_store_t((T *)a.dhx + sb, j0, zero);
    }
    if (a.dcx)
        units_store_t((T *)a.dcx + sb, j0, dc);
    AccT *vp = (AccT *)a.vpart + ((long long)d * a.mini_batch + b) * 4 * H_ + j0;
    units_store<false>(vp, j0, gbf);
    units_store<false>(vp + H_, j0, gbr);
    units_store<false>(vp + 2 * H_, j0, gvf);
    units_store<false>(vp + 3 * H_, j0, gvr);
}
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
