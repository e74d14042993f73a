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
// give each thread more independent loads in flight. Each thread loads the
// next step's inputs before computing the current one.
//
// Defines: PRNN_DTYPE, PRNN_H, PRNN_SRU_THREADS (block size), PRNN_SRU_UPT.

#include "prnn_kernel_abi.h"
#include "rnn_types.cuh"

#if !defined(PRNN_H) || !defined(PRNN_SRU_THREADS) || !defined(PRNN_SRU_UPT)
#error "sru_scan.cu needs PRNN_H, PRNN_SRU_THREADS and PRNN_SRU_UPT"
#endif
static_assert(PRNN_H >= 1, "hidden size");
static_assert(PRNN_SRU_THREADS % 32 == 0 && PRNN_SRU_THREADS <= 1024, "block size");
static_assert(PRNN_SRU_UPT >= 1 && PRNN_SRU_UPT <= 8, "units per thread");

#define H_ PRNN_H
#define UPT PRNN_SRU_UPT
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
    // The next step's inputs load while this step computes: the loads do
    // not depend on c, so the scan's critical path is the arithmetic alone.
    sru_in cur[UPT] = {}, nxt[UPT] = {}; // (zeros past the last step)
    long long row = len ? a.offset[d ? len - 1 : 0] + b : 0;
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        if (len && j < H_)
            cur[k] = sru_load(a, row, d, j, true);
    }
    for (int i = 0; i < len; ++i) {
        long long next_row = 0;
        if (i + 1 < len) {
            next_row = a.offset[d ? len - 2 - i : i + 1] + b;
#pragma unroll
            for (int k = 0; k < UPT; ++k) {
                const int j = jt + k * JT;
                if (j < H_)
                    nxt[k] = sru_load(a, next_row, d, j, true);
            }
        }
#pragma unroll
        for (int k = 0; k < UPT; ++k) {
            const int j = jt + k * JT;
            if (j >= H_)
                continue;
            const sru_in in = cur[k];
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
            cur[k] = nxt[k];
        }
        row = next_row;
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
    const int len = sru_length(a.batch, a.seq_length, b);
    const int y_cols = a.dirs * H_, du_cols = a.dirs * a.m * H_;
    // The forward walk's steps i = len-1 down to 0 (so dhy and dcy meet the
    // sequence's last step first); c_{t-1} is step i-1's c, or c0 at i = 0.
    // As forward, step i-1's inputs load while step i computes.
#define SRU_ROW(i) (a.offset[d ? len - 1 - (i) : (i)] + b)
    sru_bwd_in cur[UPT] = {}, nxt[UPT] = {};
    long long row = len ? SRU_ROW(len - 1) : 0;
    long long prow = len > 1 ? SRU_ROW(len - 2) : 0;
#pragma unroll
    for (int k = 0; k < UPT; ++k) {
        const int j = jt + k * JT;
        if (!len || j >= H_)
            continue;
        cur[k].u = sru_load(a, row, d, j, false);
        cur[k].cn = ck[row * H_ + j];
        cur[k].cp = len > 1 ? ck[prow * H_ + j] : c0[k];
        const long long yi = row * y_cols + d * H_ + j;
        cur[k].dy = a.dy_storage ? ST::load((const T *)a.dy, yi) : ((const AccT *)a.dy)[yi];
    }
    for (int i = len - 1; i >= 0; --i) {
        long long next_row = 0;
        if (i > 0) {
            next_row = prow;
            const long long pprow = i > 1 ? SRU_ROW(i - 2) : 0;
#pragma unroll
            for (int k = 0; k < UPT; ++k) {
                const int j = jt + k * JT;
                if (j >= H_)
                    continue;
                nxt[k].u = sru_load(a, next_row, d, j, false);
                nxt[k].cn = ck[next_row * H_ + j];
                nxt[k].cp = i > 1 ? ck[pprow * H_ + j] : c0[k];
                const long long yi = next_row * y_cols + d * H_ + j;
                nxt[k].dy = a.dy_storage ? ST::load((const T *)a.dy, yi)
                                         : ((const AccT *)a.dy)[yi];
            }
            prow = pprow;
        }
        T *du = (T *)a.du + row * du_cols + d * a.m * H_;
#pragma unroll
        for (int k = 0; k < UPT; ++k) {
            const int j = jt + k * JT;
            if (j >= H_)
                continue;
            const sru_bwd_in in = cur[k];
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
            cur[k] = nxt[k];
        }
        row = next_row;
    }
#undef SRU_ROW
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
