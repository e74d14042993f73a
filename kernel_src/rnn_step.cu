// The standard (non-persistent) path, one launch per step: after a cuBLASLt
// GEMM has computed the step's recurrent product for its active rows, one
// thread per (row, unit) runs the cell (rnn_cell.cuh, exact activations).
// Forward: rec = h_{t-1} R^T, then the cell (keeping `act` when training).
// Backward: rec = dg R (the gradient of h through R), then the cell
// backward, the same per-item logic as the persistent backward kernel.
// Used when no persistent configuration fits the device (or on request),
// and as the classic baseline the benchmark compares against.
// With an LSTM projection (PRNN_PROJ = projSize, h = Wp m with m = o *
// tanh(c)), the only engine that has one: the forward cell leaves m for a
// GEMM that writes h into y, and prnn_step_proj_hy gathers hy; the
// backward's prnn_step_dh_proj assembles dh (P wide) for the GEMM dm = dh
// Wp that the cell backward reads.

#include "prnn_kernel_abi.h"
#include "rnn_cell.cuh"

constexpr int MODE = PRNN_MODE;
constexpr int H = PRNN_H;
typedef Cell<MODE> C;
constexpr int G = C::G;
#ifndef PRNN_PROJ
#define PRNN_PROJ 0
#endif
constexpr int P = PRNN_PROJ; // 0: no projection
constexpr bool PROJ = P > 0;

extern "C" __global__ void prnn_step_init(const prnn_step_init_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.h_count) {
        const int b = i / a.h_width;
        ((T *)a.hstate)[i] =
            a.hx ? ((const T *)a.hx)[(long)caller_seq(a.order, b) * a.h_width + i % a.h_width]
                 : T();
    }
    if (a.cstate && i < a.c_count) {
        const int b = i / a.c_width;
        ((AccT *)a.cstate)[i] =
            a.cx ? ST::load((const T *)a.cx, (long)caller_seq(a.order, b) * a.c_width + i % a.c_width)
                 : AccT(0);
    }
}

extern "C" __global__ void prnn_step_cell(const prnn_step_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.batch * H)
        return;
    const int b = i / H, u = i % H;
    const int s = caller_seq(a.order, b); // the row of its states; x and y in place
    const long long row = a.row0 + b, xrow = caller_row(a.row0, b, s, a.t, a.x_rows);
    const AccT *rec = (const AccT *)a.rec + (long long)b * (G * H);
    AccT pre[G], x[G];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        pre[g] = rec[g * H + u];
        AccT xv;
#if PRNN_SKIP
        xv = ST::load((const T *)a.xin, xrow * H + u);
#else
        xv = ((const AccT *)a.xin)[xrow * (G * H) + g * H + u];
#endif
        x[g] = xv + ST::load((const T *)a.bW, g * H + u);
        if (g != C::APART_BIAS_GATE)
            x[g] += ST::load((const T *)a.bR, g * H + u);
    }
    T *hs = (T *)a.hstate;
    AccT *cs = (AccT *)a.cstate;
    AccT c = C::CELL_STATE ? cs[i] : AccT(0);
    AccT bias_rn = C::APART_BIAS_GATE >= 0
                       ? ST::load((const T *)a.bR, C::APART_BIAS_GATE * H + u)
                       : AccT(0);
    AccT act[C::ACTN];
    // (a projected LSTM's cell reads no h_{t-1}: only GRU's does)
    AccT h = C::template forward<ExactAct>(pre, x, bias_rn, c, PROJ ? AccT(0) : ST::load(hs, i),
                                           act, CellClip(a.clip_lo, a.clip_hi));
    if (C::CELL_STATE)
        cs[i] = c;
    if (PROJ) {
        ST::store((T *)a.m, i, h); // m; the projection GEMM makes h
    } else {
        ST::store(hs, i, h);
        ST::store((T *)a.y, caller_row(a.row0, b, s, a.t, a.y_rows) * a.y_cols + a.y_offset + u,
                  h);
    }
    if (a.act)
#pragma unroll
        for (int k = 0; k < C::ACT; ++k)
            ((AccT *)a.act)[(row * C::ACT + k) * H + u] = act[k];
    bool last = a.reverse ? a.final_step : (b >= a.next_batch);
    if (!PROJ && last && a.hy)
        ST::store((T *)a.hy, (long long)s * H + u, h);
    if (last && a.cy && C::CELL_STATE)
        ST::store((T *)a.cy, (long long)s * H + u, c);
}

extern "C" __global__ void prnn_step_cell_backward(const prnn_step_bwd_args a)
{
    const int hi_b = a.cur_b > a.prev_b ? a.cur_b : a.prev_b;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= hi_b * H)
        return;
    const int b = i / H, u = i % H;
    const bool later = b < a.prev_b, active = b < a.cur_b;
    // the caller's element of this (row, unit) in the states (caller_seq):
    // dhy and dcy where it ends here, dhx and dcx where it starts (a row
    // can do both, or start after arriving through R)
    const int s = caller_seq(a.order, b);
    const long long si = (long long)s * H + u;
    AccT *carry = (AccT *)a.carry;
    AccT dh_in, dc_in;
    if (PROJ) {
        // dm of the active rows: dh (rec, dhy and dy) through Wp
        dh_in = active ? ((const AccT *)a.rec)[i] : AccT(0);
        dc_in = later ? carry[i] : a.dcy ? ST::load((const T *)a.dcy, si) : AccT(0);
    } else if (later) {
        AccT rec = ((const AccT *)a.rec)[i];
        dh_in = rec + (C::H_BYPASS ? carry[i] : AccT(0));
        dc_in = C::CELL_STATE ? carry[i] : AccT(0);
    } else {
        dh_in = a.dhy ? ST::load((const T *)a.dhy, si) : AccT(0);
        dc_in = C::CELL_STATE && a.dcy ? ST::load((const T *)a.dcy, si) : AccT(0);
    }
    if (!active) {
        if (!PROJ && a.dhx) // (with a projection, prnn_step_dh_proj's)
            ST::store((T *)a.dhx, si, dh_in);
        if (C::CELL_STATE && a.dcx)
            ST::store((T *)a.dcx, si, dc_in);
        return;
    }
    const long long row = a.row0 + b, yrow = caller_row(a.row0, b, s, a.t, a.y_rows);
    const long long dyi = yrow * a.dy_cols + a.y_offset + u;
    AccT dy = PROJ ? AccT(0) : load_output_grad(a.dy, a.dy_storage, dyi); // PROJ: in dm already
    AccT act[C::ACTN];
#pragma unroll
    for (int k = 0; k < C::ACTN; ++k)
        act[k] = k < C::ACT ? ((const AccT *)a.act)[(row * C::ACT + k) * H + u] : AccT(0);
    AccT h = AccT(0), prev = AccT(0);
    if (C::READS_H)
        h = ST::load((const T *)a.hout, yrow * a.y_cols + a.y_offset + u);
    if (C::READS_CPREV || C::READS_HPREV) {
        const long long prow = a.tp_row0 + b;
        if (b < a.tp_b)
            prev = C::READS_CPREV
                       ? ((const AccT *)a.act)[(prow * C::ACT + C::PREV_C_COL) * H + u]
                       : ST::load((const T *)a.hout,
                                  caller_row(a.tp_row0, b, s, a.tp, a.y_rows) * a.y_cols +
                                      a.y_offset + u);
        else if (C::READS_CPREV ? a.cx != 0 : a.hx != 0)
            prev = ST::load((const T *)(C::READS_CPREV ? a.cx : a.hx), si);
    }
    AccT dg[C::DG];
    AccT dc = dc_in;
    AccT bypass = C::template backward<ExactAct>(dh_in + dy, act, h, prev, prev, dc, dg,
                                                 CellClip(a.clip_lo, a.clip_hi));
    carry[i] = C::CELL_STATE ? dc : bypass;
#pragma unroll
    for (int g = 0; g < C::DG; ++g)
        ST::store((T *)a.dg, (row * C::DG + g) * H + u, dg[g]);
}

#if PRNN_PROJ
extern "C" __global__ void prnn_step_dh_proj(const prnn_step_dh_args a)
{
    const int hi_b = a.cur_b > a.prev_b ? a.cur_b : a.prev_b;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= hi_b * P)
        return;
    const int b = i / P, u = i % P;
    AccT r = b < a.prev_b ? ((const AccT *)a.rec)[i]
             : a.dhy      ? ST::load((const T *)a.dhy, i)
                          : AccT(0);
    if (b >= a.cur_b) {
        if (a.dhx)
            ST::store((T *)a.dhx, i, r);
        return;
    }
    const long long row = a.row0 + b;
    const long long dyi = row * a.dy_cols + a.y_offset + u;
    ST::store((T *)a.dh, row * P + u, r + load_output_grad(a.dy, a.dy_storage, dyi));
}

extern "C" __global__ void prnn_step_proj_hy(const prnn_step_proj_hy_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.rows * P)
        return;
    const int b = i / P, u = i % P;
    int t = 0;
    if (!a.reverse) {
        // the last step with more than b rows (batch[] never grows)
        int lo = 0, hi = a.seq_length - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (a.batch[mid] > b)
                lo = mid;
            else
                hi = mid - 1;
        }
        t = lo;
    }
    const long long row = (long long)a.offset[t] + b;
    ((T *)a.hy)[i] = ((const T *)a.y)[row * a.y_cols + a.y_offset + u];
}
#endif
