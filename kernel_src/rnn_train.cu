// The training path's elementwise and reduction kernels, around the
// recurrence and cuBLASLt's GEMMs: dropout between layers (forward on the
// layer output, backward on its gradient), the h_{t-1} of every row that dR
// multiplies, deterministic bias gradients, and SKIP_INPUT's dx. Compiled
// per data type; shapes arrive at run time.

#include "prnn_kernel_abi.h"
#include "prnn_philox.cuh"
#include "rnn_types.cuh"

// op(e, kept) for every element e of a dropout, each thread taking groups
// of four elements (one Philox call each).
template <class Op>
__device__ __forceinline__ void dropout_each(unsigned long long n, unsigned long long seed,
                                             int layer, unsigned threshold, Op op)
{
    const unsigned long long groups = (n + 3) / 4;
    for (unsigned long long grp = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         grp < groups; grp += (unsigned long long)gridDim.x * blockDim.x) {
        const unsigned keep = prnn_dropout_keep4(seed, layer, grp, threshold);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const unsigned long long e = grp * 4 + i;
            if (e < n)
                op(e, (keep >> i) & 1u);
        }
    }
}

extern "C" __global__ void prnn_dropout_forward(const prnn_dropout_args a)
{
    const AccT scale = (AccT)a.scale;
    const T *src = (const T *)a.src;
    T *dst = (T *)a.dst;
    dropout_each(a.n, a.seed, a.layer, a.threshold, [=](unsigned long long e, bool kept) {
        ST::store(dst, (long)e, kept ? ST::load(src, (long)e) * scale : AccT(0));
    });
}

extern "C" __global__ void prnn_dropout_backward(const prnn_dropout_args a)
{
    const AccT scale = (AccT)a.scale;
    AccT *data = (AccT *)a.dst;
    dropout_each(a.n, a.seed, a.layer, a.threshold, [=](unsigned long long e, bool kept) {
        data[e] = kept ? data[e] * scale : AccT(0);
    });
}

// blockIdx.y strides over steps, x over a step's rows * hidden.
extern "C" __global__ void prnn_gather_prev(const prnn_gather_args a)
{
    const int T_ = a.seq_length, Hn = a.hidden;
    for (int t = blockIdx.y; t < T_; t += gridDim.y) {
        const int nb = a.batch[t];
        const long row0 = a.offset[t];
        const int tp = a.reverse ? t + 1 : t - 1;
        const bool has_tp = tp >= 0 && tp < T_;
        const int tp_b = has_tp ? a.batch[tp] : 0;
        const long tp_row0 = has_tp ? a.offset[tp] : 0;
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < (long)nb * Hn;
             i += (long)gridDim.x * blockDim.x) {
            const int b = (int)(i / Hn), u = (int)(i % Hn);
            T v;
            if (b < tp_b)
                v = ((const T *)a.out)[caller_row(tp_row0, b, caller_seq(a.order, b), tp, a.out_rows) * a.ld +
                                       a.col0 + u];
            else if (a.hx)
                v = ((const T *)a.hx)[(long)caller_seq(a.order, b) * Hn + u];
            else
                ST::store(&v, 0, AccT(0));
            ((T *)a.dst)[(row0 + b) * Hn + u] = v;
        }
    }
}

// dg column col summed over rows [r0, r1), in row order.
__device__ __forceinline__ AccT bias_column_sum(const prnn_bias_args &a, int col, long long r0,
                                                long long r1)
{
    AccT sum = AccT(0);
    for (long long r = r0; r < r1; ++r)
        sum += ST::load((const T *)a.dg, r * a.ld + col);
    return sum;
}

// blockIdx.y's bias, column i: the dg column it reads. (The fields are
// picked by a select, not indexed: an index computed at run time into the
// parameter block copies it to local memory.)
__device__ __forceinline__ int bias_dg_column(const prnn_bias_args &a, int i)
{
    const bool second = blockIdx.y != 0;
    const int split = second ? a.col_split[1] : a.col_split[0];
    const int skip = second ? a.col_skip[1] : a.col_skip[0];
    return i + (i >= split ? skip : 0);
}

// blockIdx.y's bias.
__device__ __forceinline__ T *bias_of_block(const prnn_bias_args &a)
{
    return (T *)(blockIdx.y != 0 ? a.bias[1] : a.bias[0]);
}

// blockIdx.y = chunk of rows; each thread sums one of dg's ld columns over
// the chunk, in row order (once for both biases).
extern "C" __global__ void prnn_bias_partial(const prnn_bias_args a)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= a.ld)
        return;
    const long long r0 = (long long)blockIdx.y * a.chunk_rows;
    long long r1 = r0 + a.chunk_rows;
    if (r1 > a.rows)
        r1 = a.rows;
    ((AccT *)a.partial)[(long long)blockIdx.y * a.ld + col] = bias_column_sum(a, col, r0, r1);
}

// blockIdx.y = which bias; its column i: the chunks' sums in order.
extern "C" __global__ void prnn_bias_finish(const prnn_bias_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.cols)
        return;
    const int col = bias_dg_column(a, i);
    AccT sum = AccT(0);
    for (int c = 0; c < a.chunks; ++c)
        sum += ((const AccT *)a.partial)[(long long)c * a.ld + col];
    T *bias = bias_of_block(a);
    ST::store(bias, i, ST::load(bias, i) + sum);
}

// The rows in one chunk: prnn_bias_partial and prnn_bias_finish in one
// launch, the same additions in the same order (the finish's zero first).
extern "C" __global__ void prnn_bias_direct(const prnn_bias_args a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.cols)
        return;
    AccT sum = AccT(0);
    sum += bias_column_sum(a, bias_dg_column(a, i), 0, a.rows);
    T *bias = bias_of_block(a);
    ST::store(bias, i, ST::load(bias, i) + sum);
}

extern "C" __global__ void prnn_skip_dx(const prnn_skip_dx_args a)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.count;
         i += (long long)gridDim.x * blockDim.x) {
        const long long r = i / a.hidden;
        const int j = (int)(i % a.hidden);
        AccT sum = AccT(0);
        for (int d = 0; d < a.dirs; ++d) {
            // a select, not a[d]: see bias_dg_column
            const T *dg = (const T *)(d != 0 ? a.dg[1] : a.dg[0]);
            for (int g = 0; g < a.gates; ++g) {
                // input side: GRU's n is column 3 (PRNN_DG_COLS)
                const int col = a.dg_cols == 4 && a.gates == 3 && g == 2 ? 3 : g;
                sum += ST::load(dg, (r * a.dg_cols + col) * a.hidden + j);
            }
        }
        ST::store((T *)a.dx, i, sum);
    }
}
