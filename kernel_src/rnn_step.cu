// The standard (non-persistent) path: after a cuBLASLt GEMM has computed the
// recurrent product R h_{t-1} for the step's active rows, one thread per
// (row, unit) adds the projected input and biases and applies the cell --
// the same equations as the persistent kernel's cell, one launch per step.
// Used when no persistent configuration fits the device (or on request), and
// as the classic baseline the benchmark compares against.

#include "prnn_device.cuh"
#include "prnn_kernel_abi.h"

#if PRNN_DTYPE == 0
typedef float T;
#elif PRNN_DTYPE == 1
typedef double T;
#elif PRNN_DTYPE == 2
typedef prnn_half T;
#elif PRNN_DTYPE == 3
typedef prnn_bf16 T;
#else
#error "PRNN_DTYPE must be 0..3"
#endif
typedef prnn_storage<T> ST;
typedef typename ST::acc AccT;

#define MODE PRNN_MODE
#define G (MODE == 2 ? 4 : MODE == 3 ? 3 : 1)
#define H PRNN_H

extern "C" __global__ void prnn_step_init(const prnn_step_init_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.count)
        return;
    ((T *)a.hstate)[i] = a.hx ? ((const T *)a.hx)[i] : T();
    if (a.cstate)
        ((AccT *)a.cstate)[i] = a.cx ? ST::load((const T *)a.cx, i) : AccT(0);
}

extern "C" __global__ void prnn_step_cell(const prnn_step_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.batch * H)
        return;
    const int b = i / H, u = i % H;
    const long long row = a.row0 + b;
    const AccT *rec = (const AccT *)a.rec + (long long)b * (G * H);
    AccT pre[G], x[G];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        pre[g] = rec[g * H + u];
        AccT xv;
#if PRNN_SKIP
        xv = ST::load((const T *)a.xin, row * H + u);
#else
        xv = ((const AccT *)a.xin)[row * (G * H) + g * H + u];
#endif
        x[g] = xv + ST::load((const T *)a.bW, g * H + u);
        if (!(MODE == 3 && g == 2))
            x[g] += ST::load((const T *)a.bR, g * H + u);
    }
    T *hs = (T *)a.hstate;
    AccT h;
    AccT c = AccT(0);
    if (MODE == 2) {
        AccT *cs = (AccT *)a.cstate;
        AccT ig = prnn_sigmoid(pre[0] + x[0]);
        AccT fg = prnn_sigmoid(pre[1] + x[1]);
        AccT gg = prnn_tanh(pre[2] + x[2]);
        AccT og = prnn_sigmoid(pre[3] + x[3]);
        c = fg * cs[i] + ig * gg;
        cs[i] = c;
        h = og * prnn_tanh(c);
    } else if (MODE == 3) {
        AccT hp = ST::load(hs, i);
        AccT br = ST::load((const T *)a.bR, 2 * H + u);
        AccT rg = prnn_sigmoid(pre[0] + x[0]);
        AccT zg = prnn_sigmoid(pre[1] + x[1]);
        AccT ng = prnn_tanh(x[2] + rg * (pre[2] + br));
        h = (AccT(1) - zg) * ng + zg * hp;
    } else {
        AccT v = pre[0] + x[0];
        h = MODE == 0 ? prnn_relu(v) : prnn_tanh(v);
    }
    ST::store(hs, i, h);
    ST::store((T *)a.y, row * a.y_cols + a.y_offset + u, h);
    bool last = a.reverse ? a.final_step : (b >= a.next_batch);
    if (last && a.hy)
        ST::store((T *)a.hy, i, h);
    if (last && a.cy && MODE == 2)
        ST::store((T *)a.cy, i, c);
}
