// SRU's recurrence (DESIGN.md section 4; prnn.h at PRNN_SRU): everything but
// the projection U = x W, which cuBLASLt has done for every step at once.
// What is left is elementwise along time, so one thread owns PRNN_SRU_UPT
// hidden units of one (direction, batch row) and walks the sequence with c
// in registers: no hand-off, no barrier, one launch for both directions.
// The backward scan walks time the other way, recomputing f and r from U and
// the kept c, and leaves dU for the GEMMs (dx, dW) and per-row sums for the
// V block, which prnn_sru_vgrad adds up in a fixed order.
//
// Units of a thread are ceil(H / UPT) apart, so that the threads of a warp
// read consecutive columns of U and y (coalesced); more units per thread
// give each thread more independent work. Each thread keeps the loads of
// the next PRNN_SRU_DEPTH steps in flight (a ring of registers), which is
// what keeps enough bytes in flight on the device to run at its bandwidth
// (a step's loads do not depend on c).
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

// This thread's direction, batch row and first unit; false past the end.
static __device__ __forceinline__ bool sru_thread(const prnn_sru_args &a, int &d, int &b, int &jt)
{
    const long long tid = (long long)blockIdx.x * PRNN_SRU_THREADS + threadIdx.x;
    jt = (int)(tid % JT);
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

// b_f, b_r, v_f, v_r of a thread's units (zeros past the hidden size).
struct sru_vecs {
    AccT bf[UPT], br[UPT], vf[UPT], vr[UPT];
};

static __device__ __forceinline__ void sru_load_vecs(const prnn_sru_args &a, int d, int jt,
                                                     sru_vecs &p)
{
    const T *v = (const T *)a.v + (long long)d * 4 * H_;
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        const bool in = j < H_;
        p.bf[k] = in ? ST::load(v, j) : AccT(0);
        p.br[k] = in ? ST::load(v, H_ + j) : AccT(0);
        p.vf[k] = in ? ST::load(v, 2 * H_ + j) : AccT(0);
        p.vr[k] = in ? ST::load(v, 3 * H_ + j) : AccT(0);
    }
}

// u0, u1, u2 and x' of one unit of one row (see prnn_sru_args for U's
// columns). fwd_x: x' of an m = 3 layer from the input (forward), else from
// U's x' columns (backward, where the forward scan left it).
struct sru_in {
    AccT u0, u1, u2, xp;
};

static __device__ __forceinline__ sru_in sru_load(const prnn_sru_args &a, long long row, int d,
                                                  int j, bool fwd_x)
{
    sru_in in;
    const AccT *ur = a.u ? (const AccT *)a.u + row * a.u_cols : nullptr;
    const int xcol = a.dirs * 3 * H_ + d * H_;
    if (a.skip) {
        in.xp = fwd_x ? ST::load((const T *)a.xin, row * a.x_cols + j) : ur[xcol + j];
        in.u0 = in.u1 = in.u2 = in.xp;
        return in;
    }
    const int ucol = d * a.m * H_;
    in.u0 = ur[ucol + j];
    in.u1 = ur[ucol + H_ + j];
    in.u2 = ur[ucol + 2 * H_ + j];
    if (a.m == 4)
        in.xp = ur[ucol + 3 * H_ + j];
    else
        in.xp = fwd_x ? ST::load((const T *)a.xin, row * a.x_cols + j) : ur[xcol + j];
    return in;
}

// The row of forward-walk step i (0 .. len-1) of this thread's sequence.
#define SRU_ROW(i) ((long long)a.offset[d ? len - 1 - (i) : (i)] + b)

extern "C" __global__ void __launch_bounds__(PRNN_SRU_THREADS) prnn_sru_forward(const prnn_sru_args a)
{
    int d, b, jt;
    if (!sru_thread(a, d, b, jt))
        return;
    const long long sb = ((long long)d * a.mini_batch + b) * H_;
    sru_vecs pv;
    sru_load_vecs(a, d, jt, pv);
    AccT c[UPT], h[UPT];
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        h[k] = AccT(0);
        c[k] = j < H_ ? load_opt(a.cx, sb + j) : AccT(0);
    }
    const int len = sru_length(a.batch, a.seq_length, b), y_cols = a.dirs * H_;
    // The loads of the next DEPTH steps are in flight while a step computes:
    // they do not depend on c, so the critical path is the arithmetic, and
    // the loads in flight over the device cover the memory's latency. Slot
    // q of the ring holds step i0 + q (a compile-time index: registers).
    sru_in ring[DEPTH][UPT] = {};
#pragma unroll
    for (int q = 0; q < DEPTH; ++q)
#pragma unroll
        for (int k = 0; k < UPT; ++k) {
            const int j = jt + k * JT;
            if (q < len && j < H_)
                ring[q][k] = sru_load(a, SRU_ROW(q), d, j, true);
        }
    for (int i0 = 0; i0 < len; i0 += DEPTH) {
#pragma unroll
        for (int q = 0; q < DEPTH; ++q) {
            const int i = i0 + q;
            if (i >= len)
                break;
            const long long row = SRU_ROW(i);
            const long long ahead = i + DEPTH < len ? SRU_ROW(i + DEPTH) : -1;
#pragma unroll
            for (int k = 0; k < UPT; ++k) {
                const int j = jt + k * JT;
                if (j >= H_)
                    continue;
                const sru_in in = ring[q][k];
                if (ahead >= 0) // refill the slot before computing: overlap
                    ring[q][k] = sru_load(a, ahead, d, j, true);
                const AccT f = prnn_sigmoid(in.u1 + pv.vf[k] * c[k] + pv.bf[k]);
                const AccT r = prnn_sigmoid(in.u2 + pv.vr[k] * c[k] + pv.br[k]);
                const AccT cn = f * c[k] + (AccT(1) - f) * in.u0;
                const AccT hv = r * prnn_tanh(cn) + (AccT(1) - r) * in.xp;
                ST::store((T *)a.y, row * y_cols + d * H_ + j, hv);
                if (a.ckeep) {
                    ((AccT *)a.ckeep)[((long long)d * a.rows + row) * H_ + j] = cn;
                    if (a.keep_xp) // U is the reserve's here: BackwardData reads x' back
                        ((AccT *)a.u)[row * a.u_cols + a.dirs * 3 * H_ + d * H_ + j] = in.xp;
                }
                c[k] = cn;
                h[k] = hv;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        if (j >= H_)
            continue;
        if (a.hy)
            ST::store((T *)a.hy, sb + j, h[k]);
        if (a.cy)
            ST::store((T *)a.cy, sb + j, c[k]);
    }
}

// What the backward step of one unit reads besides the running gradients.
struct sru_bwd_in {
    sru_in u;
    AccT cp, cn, dy;
};

// Forward-walk step i's inputs of unit j: c_{t-1} is step i-1's c, or c0.
static __device__ __forceinline__ sru_bwd_in sru_bwd_load(const prnn_sru_args &a,
                                                          const AccT *ck, int d, int b,
                                                          int len, int i, int j, AccT c0)
{
    sru_bwd_in in;
    const long long row = SRU_ROW(i);
    in.u = sru_load(a, row, d, j, false);
    in.cn = ck[row * H_ + j];
    in.cp = i > 0 ? ck[SRU_ROW(i - 1) * H_ + j] : c0;
    const long long yi = row * (a.dirs * H_) + d * H_ + j;
    in.dy = a.dy_storage ? ST::load((const T *)a.dy, yi) : ((const AccT *)a.dy)[yi];
    return in;
}

extern "C" __global__ void __launch_bounds__(PRNN_SRU_THREADS) prnn_sru_backward(const prnn_sru_args a)
{
    int d, b, jt;
    if (!sru_thread(a, d, b, jt))
        return;
    const long long sb = ((long long)d * a.mini_batch + b) * H_;
    sru_vecs pv;
    sru_load_vecs(a, d, jt, pv);
    AccT c0[UPT], dh[UPT], dc[UPT];
    AccT gbf[UPT], gbr[UPT], gvf[UPT], gvr[UPT]; // this row's sums for the V block
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        const bool in = j < H_;
        c0[k] = in ? load_opt(a.cx, sb + j) : AccT(0);
        dh[k] = in ? load_opt(a.dhy, sb + j) : AccT(0);
        dc[k] = in ? load_opt(a.dcy, sb + j) : AccT(0);
        gbf[k] = gbr[k] = gvf[k] = gvr[k] = AccT(0);
    }
    const AccT *ck = (const AccT *)a.ckeep + (long long)d * a.rows * H_;
    const int len = sru_length(a.batch, a.seq_length, b), du_cols = a.dirs * a.m * H_;
    // The forward walk's steps backwards, i = len-1 down to 0 (so dhy and
    // dcy meet the sequence's last step first); walk step p is i = len-1-p,
    // with the forward scan's ring of DEPTH steps in flight.
    sru_bwd_in ring[DEPTH][UPT] = {};
#pragma unroll
    for (int q = 0; q < DEPTH; ++q)
#pragma unroll
        for (int k = 0; k < UPT; ++k) {
            const int j = jt + k * JT;
            if (q < len && j < H_)
                ring[q][k] = sru_bwd_load(a, ck, d, b, len, len - 1 - q, j, c0[k]);
        }
    for (int p0 = 0; p0 < len; p0 += DEPTH) {
#pragma unroll
        for (int q = 0; q < DEPTH; ++q) {
            const int p = p0 + q;
            if (p >= len)
                break;
            const int i = len - 1 - p;
            const long long row = SRU_ROW(i);
            T *du = (T *)a.du + row * du_cols + d * a.m * H_;
#pragma unroll
            for (int k = 0; k < UPT; ++k) {
                const int j = jt + k * JT;
                if (j >= H_)
                    continue;
                const sru_bwd_in in = ring[q][k];
                if (p + DEPTH < len)
                    ring[q][k] = sru_bwd_load(a, ck, d, b, len, i - DEPTH, j, c0[k]);
                const AccT cp = in.cp;
                const AccT f = prnn_sigmoid(in.u.u1 + pv.vf[k] * cp + pv.bf[k]);
                const AccT r = prnn_sigmoid(in.u.u2 + pv.vr[k] * cp + pv.br[k]);
                const AccT dhv = dh[k] + in.dy;
                dh[k] = AccT(0);
                const AccT tc = prnn_tanh(in.cn);
                const AccT dr = dhv * (tc - in.u.xp) * r * (AccT(1) - r);
                const AccT dcv = dc[k] + dhv * r * (AccT(1) - tc * tc);
                const AccT df = dcv * (cp - in.u.u0) * f * (AccT(1) - f);
                const AccT dxp = dhv * (AccT(1) - r);
                ST::store(du, j, dcv * (AccT(1) - f));
                ST::store(du, H_ + j, df);
                ST::store(du, 2 * H_ + j, dr);
                if (a.m == 4)
                    ST::store(du, 3 * H_ + j, dxp);
                else
                    ((AccT *)a.dxp)[(row * a.dirs + d) * H_ + j] = dxp;
                gbf[k] += df;
                gbr[k] += dr;
                gvf[k] += df * cp;
                gvr[k] += dr * cp;
                dc[k] = dcv * f + df * pv.vf[k] + dr * pv.vr[k];
            }
        }
    }
    AccT *vp = (AccT *)a.vpart + ((long long)d * a.mini_batch + b) * 4 * H_;
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        if (j >= H_)
            continue;
        if (a.dhx) // h_{t-1} plays no part in SRU
            ST::store((T *)a.dhx, sb + j, AccT(0));
        if (a.dcx)
            ST::store((T *)a.dcx, sb + j, dc[k]);
        vp[j] = gbf[k];
        vp[H_ + j] = gbr[k];
        vp[2 * H_ + j] = gvf[k];
        vp[3 * H_ + j] = gvr[k];
    }
}
#undef SRU_ROW

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

extern "C" __global__ void prnn_sru_input_grad(const prnn_sru_input_grad_args a)
{
    const long long n = a.rows * H_;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / H_;
        const int j = (int)(i % H_);
        AccT sum = AccT(0);
        for (int d = 0; d < a.dirs; ++d) {
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
