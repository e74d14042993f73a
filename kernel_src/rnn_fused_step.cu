// The step engine's kernel: one timestep of one layer, both directions
// (blockIdx.y), with the input projection, the recurrence and the cell in
// one launch -- for short sequences, where the persistent kernel's set-up
// (step tables, the projection GEMM, a cooperative launch and loading R
// on-chip) costs more than the steps. A warp owns one hidden unit and up to
// RPW batch rows: its lanes walk K (the input, then h_{t-1}) for every gate
// of the unit, a butterfly sums them, and lane r runs the cell of row r
// (rnn_cell.cuh, exact activations, as the standard path). Where the host
// allows it per operand (a.vec, PRNN_STEP_VEC_*), a lane reads 16 bytes at
// a time (2 doubles, 4 floats, 8 halves): a half to an eighth of the loads
// and loop trips.

#include "prnn_kernel_abi.h"
#include "rnn_cell.cuh"

constexpr int MODE = PRNN_MODE;
constexpr int H = PRNN_H;
constexpr int RPW = PRNN_STEP_RPW; // batch rows per warp
constexpr bool SKIP = PRNN_SKIP != 0;
constexpr bool TRAIN = PRNN_TRAIN != 0;
typedef Cell<MODE> C;
constexpr int G = C::G;
static_assert(RPW >= 1 && RPW <= 32, "rows per warp must be 1..32");

// Elements of a 16-byte vector.
constexpr int V = 16 / (int)sizeof(T);

// V elements from p + i (16-byte aligned), as the math type.
__device__ __forceinline__ void load_vec(const T *p, long i, AccT out[V])
{
    union {
        uint4 u;
        T t[V];
    } raw;
    raw.u = *(const uint4 *)(p + i);
#pragma unroll
    for (int j = 0; j < V; ++j)
        out[j] = ST::load(raw.t, j);
}

// acc[g][r] += sum over this lane's columns c of M[g * H + u][c] * rows[r][c]:
// M's rows ld elements long, row r of `rows` at rows_at(r) (or zeros where
// it returns false). Vectors of V elements: lane l reads the ones starting
// at columns l * V, l * V + 32 * V, ...
template <typename RowAt>
__device__ __forceinline__ void products_vec(const T *M, long ld, int K, int u, int lane,
                                             RowAt rows_at, AccT (&acc)[G][RPW])
{
    for (int k = lane * V; k < K; k += 32 * V) {
        AccT v[RPW][V];
#pragma unroll
        for (int r = 0; r < RPW; ++r) {
            const T *src;
            long at;
            if (rows_at(r, &src, &at))
                load_vec(src, at + k, v[r]);
            else
#pragma unroll
                for (int j = 0; j < V; ++j)
                    v[r][j] = AccT(0);
        }
#pragma unroll
        for (int g = 0; g < G; ++g) {
            AccT w[V];
            load_vec(M, ((long)g * H + u) * ld + k, w);
#pragma unroll
            for (int j = 0; j < V; ++j)
#pragma unroll
                for (int r = 0; r < RPW; ++r)
                    acc[g][r] += w[j] * v[r][j];
        }
    }
}

__device__ __forceinline__ AccT warp_sum(AccT v)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

extern "C" __global__ void __launch_bounds__(256) prnn_fused_step(const prnn_fused_step_args a)
{
    const int d = blockIdx.y;
    const int lane = threadIdx.x & 31;
    const int u = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
    const int b0 = blockIdx.z * RPW;
    const int batch = a.batch[d];
    if (u >= H || b0 >= batch)
        return; // a whole warp: nothing below needs every lane of the block
    const int rows = batch - b0 < RPW ? batch - b0 : RPW;
    const int prev_b = a.prev_batch[d];
    const T *W = (const T *)a.W[d];
    const T *R = (const T *)a.R[d];
    const T *x = (const T *)a.x;
    const T *hp = (const T *)a.hprev[d];
    const T *hx = (const T *)a.hx[d];
    const long long row0 = a.row0[d];
    // the caller's sequence of each row: the row of its states, x and y in
    // place (caller_seq)
    int seq[RPW];
#pragma unroll
    for (int r = 0; r < RPW; ++r)
        seq[r] = r < rows ? caller_seq(a.order, b0 + r) : 0;

    // W x_t and R h_{t-1}, per gate and row
    AccT xw[G][RPW], rh[G][RPW];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int r = 0; r < RPW; ++r)
            xw[g][r] = rh[g][r] = AccT(0);
    if (!SKIP && (a.vec & PRNN_STEP_VEC_X)) {
        products_vec(W, a.x_cols, a.x_cols, u, lane,
                     [&](int r, const T **src, long *at) {
                         if (r >= rows)
                             return false;
                         *src = x;
                         *at = caller_row(row0, b0 + r, seq[r], a.t[d], a.x_rows) * a.x_cols;
                         return true;
                     },
                     xw);
    } else if (!SKIP) {
        for (int k = lane; k < a.x_cols; k += 32) {
            AccT xv[RPW];
#pragma unroll
            for (int r = 0; r < RPW; ++r)
                xv[r] = r < rows ? ST::load(x, caller_row(row0, b0 + r, seq[r], a.t[d], a.x_rows) *
                                                       a.x_cols +
                                                   k)
                                 : AccT(0);
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const AccT w = ST::load(W, ((long)g * H + u) * a.x_cols + k);
#pragma unroll
                for (int r = 0; r < RPW; ++r)
                    xw[g][r] += w * xv[r];
            }
        }
    }
    // R h_{t-1}: rows below prev_b continue from hprev, the others start
    // from hx (at the caller's row of the state) or zeros
    auto hprev_row = [&](int r) -> long { return b0 + r < prev_b ? (long)(b0 + r) : (long)seq[r]; };
    if (a.vec & PRNN_STEP_VEC_H) {
        products_vec(R, H, H, u, lane,
                     [&](int r, const T **src, long *at) {
                         const int b = b0 + r;
                         *src = b < prev_b ? hp : hx;
                         *at = r < rows ? hprev_row(r) * H : 0;
                         return r < rows && *src != nullptr;
                     },
                     rh);
    } else {
        for (int k = lane; k < H; k += 32) {
            AccT hv[RPW];
#pragma unroll
            for (int r = 0; r < RPW; ++r) {
                const int b = b0 + r;
                const T *src = b < prev_b ? hp : hx;
                hv[r] = r < rows && src ? ST::load(src, hprev_row(r) * H + k) : AccT(0);
            }
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const AccT w = ST::load(R, ((long)g * H + u) * H + k);
#pragma unroll
                for (int r = 0; r < RPW; ++r)
                    rh[g][r] += w * hv[r];
            }
        }
    }
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int r = 0; r < RPW; ++r) {
            xw[g][r] = warp_sum(xw[g][r]);
            rh[g][r] = warp_sum(rh[g][r]);
        }

    // the cell of row `lane` (every lane holds every sum)
    const T *bW = (const T *)a.bW[d], *bR = (const T *)a.bR[d];
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        if (lane != r || r >= rows)
            continue;
        const int b = b0 + r;
        const long long row = row0 + b;
        AccT rec[G], xp[G];
#pragma unroll
        for (int g = 0; g < G; ++g) {
            AccT xv = SKIP ? ST::load(x, caller_row(row0, b, seq[r], a.t[d], a.x_rows) * a.x_cols + u)
                           : xw[g][r];
            xp[g] = xv + ST::load(bW, (long)g * H + u);
            if (g != C::APART_BIAS_GATE)
                xp[g] += ST::load(bR, (long)g * H + u);
            rec[g] = rh[g][r];
        }
        const AccT bias_rn =
            C::APART_BIAS_GATE >= 0 ? ST::load(bR, (long)C::APART_BIAS_GATE * H + u) : AccT(0);
        const T *hsrc = b < prev_b ? hp : hx;
        const AccT hprev = hsrc ? ST::load(hsrc, hprev_row(r) * H + u) : AccT(0);
        AccT c = AccT(0);
        if (C::CELL_STATE) {
            if (b < prev_b)
                c = ((const AccT *)a.cstate[d])[(long)b * H + u];
            else if (a.cx[d])
                c = ST::load((const T *)a.cx[d], hprev_row(r) * H + u);
        }
        AccT act[C::ACTN];
        AccT h = C::template forward<ExactAct>(rec, xp, bias_rn, c, hprev, act,
                                               CellClip(a.clip_lo, a.clip_hi));
        h = ST::round(h);
        if (C::CELL_STATE)
            ((AccT *)a.cstate[d])[(long)b * H + u] = c;
        ST::store((T *)a.hnext[d], (long)b * H + u, h);
        ST::store((T *)a.y, caller_row(row0, b, seq[r], a.t[d], a.y_rows) * a.y_cols + (long)d * H + u,
                  h);
        if (b >= a.next_batch[d]) { // its sequence ends here
            const long srow = seq[r];
            if (a.hy[d])
                ST::store((T *)a.hy[d], srow * H + u, h);
            if (C::CELL_STATE && a.cy[d])
                ST::store((T *)a.cy[d], srow * H + u, c);
        }
        if (TRAIN)
#pragma unroll
            for (int q = 0; q < C::ACT; ++q)
                ((AccT *)a.act[d])[(row * C::ACT + q) * H + u] = act[q];
    }
}
