// The tiny-h engine's forward kernel: for hidden sizes up to 64, one block
// runs the whole sequence of PRNN_TINY_ROWS batch rows of one direction,
// every recurrent weight in registers, h_{t-1} in shared memory, one
// barrier per step and nothing else between the steps (no partial sums
// across warps, no hand-off through L2). Batch rows are independent, so
// blocks never wait for each other: any number of them runs, in waves if
// need be.
//
// Each hidden unit j owns a quad of lanes (threads 4j .. 4j+3). With G > 1
// gates, lane q < G computes gate q's row of R h_{t-1} over all H inputs;
// with one gate (RELU, TANH) the four lanes split the inputs between them
// (rnn_tiny.cuh: chunks of four, interleaved) and add their sums. Each lane
// activates its own gate where the cell allows (all four of LSTM's, GRU's r
// and z), so the warp runs one activation where one lane would run four;
// the quad's first lane gathers the gates by shuffles and runs the rest of
// the cell (rnn_cell.cuh); it alone keeps c and writes h.
//
// Arguments: prnn_rnn_args (exchange, counter and packed unused); grid
// (ceil(miniBatch / PRNN_TINY_ROWS), directions), 4 * H threads.

#include "prnn_kernel_abi.h"
#include "rnn_cell.cuh"
#include "rnn_tiny.cuh"

constexpr int MODE = PRNN_MODE;
constexpr int H = PRNN_H;
constexpr int ROWS = PRNN_TINY_ROWS;
// blocks a multiprocessor runs at once, which the launch bounds hold the
// registers to (src/gpu/engines/tiny/tiny_layout.c)
constexpr int PER_SM = PRNN_TINY_BLOCKS_PER_SM;
constexpr bool SKIP = PRNN_SKIP != 0;
constexpr bool TRAIN = PRNN_TRAIN != 0;
typedef Cell<MODE> C;
constexpr int G = C::G;
constexpr int THREADS = 4 * H;
// inputs per lane: all H with a gate per lane, a quarter with one gate
// (rounded up to whole chunks of four: tiny_input)
constexpr int KQ = tiny_inputs_per_lane(G, H);
// independent partial sums of a lane's products
constexpr int NA = KQ >= 16 ? 4 : KQ >= 4 ? 2 : 1;
// steps of look-ahead of the input loads (even: the loop's unrolled slots
// keep the h double buffer's parity); 2 where registers are short (fp64 at
// 2 rows holds 254 of 255 with 4)
constexpr int D = ROWS <= 4 && sizeof(AccT) == 4 ? 4 : 2;
static_assert(H >= 1 && H <= 64, "the tiny-h kernel holds H <= 64");
static_assert(G <= 4, "a unit's quad holds at most 4 gates");
static_assert(ROWS >= 1 && ROWS <= 8, "1 to 8 batch rows per block");
static_assert(PER_SM >= 1 && PER_SM <= 16, "1 to 16 blocks a multiprocessor");
// One block of a few warps: the sigmoid as tanh (no IEEE division), and the
// hardware tanh for 16-bit data, as the persistent kernels' small groups.
typedef CellAct<true, PRNN_DTYPE >= 2> Act;

// Value i of p (storage type S, read-only for the kernel: R), as the math
// type; load4: values i .. i + 3 in one load (two for double), p + i
// aligned to four values (16 bytes for double). Global loads by name
// (__ldg): the alignment test on R's address left ptxas generic loads.
// (Templates: the branches not taken are not compiled.)
template <typename S> __device__ __forceinline__ AccT load1(const void *p, long i)
{
    const S *a = (const S *)p + i;
    if constexpr (sizeof(S) == 4)
        return __ldg((const float *)a);
    else if constexpr (sizeof(S) == 8)
        return __ldg((const double *)a);
    else
        return prnn_storage<S>::from_bits(__ldg((const unsigned short *)a));
}
template <typename S> __device__ __forceinline__ void load4(const void *p, long i, AccT (&v)[4])
{
    const S *a = (const S *)p + i;
    if constexpr (sizeof(S) == 4) {
        const float4 x = __ldg((const float4 *)a);
        v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    } else if constexpr (sizeof(S) == 8) {
        const double2 x = __ldg((const double2 *)a), y = __ldg((const double2 *)a + 1);
        v[0] = x.x, v[1] = x.y, v[2] = y.x, v[3] = y.y;
    } else {
        const uint2 x = __ldg((const uint2 *)a);
        typedef prnn_storage<S> SS;
        v[0] = SS::from_bits((unsigned short)(x.x & 0xffffu));
        v[1] = SS::from_bits((unsigned short)(x.x >> 16));
        v[2] = SS::from_bits((unsigned short)(x.y & 0xffffu));
        v[3] = SS::from_bits((unsigned short)(x.y >> 16));
    }
}

// One layer's forward pass; XIN, YIN: whether xin's and y's rows are the
// caller's (prnn_rnn_args.x_rows, y_rows), known here at compile time (the
// persistent kernel, rnn_persistent.cu, says why). A kernel of packed rows
// alone (PRNN_CALLER_ROWS 0) is this function itself, its code unchanged;
// h's shared buffer is the kernel's, one for every instantiation.
#if PRNN_CALLER_ROWS
template <bool XIN, bool YIN>
__device__ __forceinline__ void forward_layer(const prnn_rnn_args &args, AccT (&hs)[2][ROWS][H])
#else
constexpr bool XIN = false, YIN = false;
extern "C" __global__ void __launch_bounds__(THREADS, PER_SM) prnn_tiny_forward(const prnn_rnn_args args)
#endif
{
#if !PRNN_CALLER_ROWS
    __shared__ __align__(16) AccT hs[2][ROWS][H];
#endif
    const int dir = blockIdx.y;
    const prnn_dir_args d = dir ? args.dir[1] : args.dir[0];
    const int tid = threadIdx.x, j = tid >> 2, q = tid & 3;
    const int b0 = blockIdx.x * ROWS;
    const int S = args.seq_length;
    // the lanes of this thread's warp (the last warp is partial when H is
    // not a multiple of 8)
    // (a constant where every warp is whole: else the compiler recomputed it
    // at every step's shuffles)
    const int warp_lanes = THREADS - (tid & ~31) < 32 ? THREADS - (tid & ~31) : 32;
    const unsigned warp_mask = THREADS % 32 == 0 || warp_lanes == 32
                                   ? 0xffffffffu
                                   : (1u << warp_lanes) - 1;
    const bool owner = q == 0;
    // the gate this lane computes, and the inputs it covers
    const int gate = G == 1 ? 0 : q;
    const bool computes = gate < G;

    // This lane's weights: four adjacent inputs a load where R allows (H a
    // multiple of 4, R aligned to four values; a lane's inputs are whole
    // fours: rnn_tiny.cuh), else one at a time. A warp's load touches 32
    // rows of R, 32 lines: 64 loads a lane were 16384 L1 tag lookups for
    // the block at LSTM H 64, ≈ 20k cycles before the first step (ncu:
    // 10 of 110 samples, LG-throttle; the kernel's 30.8k global tag
    // requests), where 16 are a quarter of that.
    AccT w[KQ];
    constexpr int VB = sizeof(T) == 8 ? 16 : 4 * (int)sizeof(T); // the alignment a four needs
    if (H % 4 == 0 && KQ % 4 == 0 && (unsigned long long)d.R % VB == 0) {
#pragma unroll
        for (int k = 0; k < KQ; k += 4) {
            const int kk = tiny_input<G>(q, k); // kk .. kk + 3 adjacent
            AccT v[4] = {AccT(0), AccT(0), AccT(0), AccT(0)};
            if (computes && kk < H)
                load4<T>(d.R, (long)(gate * H + j) * H + kk, v);
#pragma unroll
            for (int e = 0; e < 4; ++e)
                w[k + e] = v[e];
        }
    } else {
#pragma unroll
        for (int k = 0; k < KQ; ++k) {
            const int kk = tiny_input<G>(q, k);
            w[k] = computes && kk < H ? load1<T>(d.R, (long)(gate * H + j) * H + kk) : AccT(0);
        }
    }
    // this lane's gate's bias (both, except the one the cell scales), and
    // the owner's bias_rn
    AccT bias = AccT(0), bias_rn = AccT(0);
    if (computes) {
        bias = ST::load((const T *)d.bW, (long)gate * H + j);
        if (gate != C::APART_BIAS_GATE)
            bias += ST::load((const T *)d.bR, (long)gate * H + j);
    }
    if (C::APART_BIAS_GATE >= 0)
        bias_rn = ST::load((const T *)d.bR, (long)C::APART_BIAS_GATE * H + j);

    // the engine refuses clipped networks (PRNN_CLIP is never defined
    // here): the bounds only complete the cell's arguments
    const CellClip clip(args.clip_lo, args.clip_hi);
    // every row's initial state (step 0 has every row; in reverse a row
    // keeps it until its sequence's last step)
    const int rows0 = S > 0 ? args.batch[0] : 0;
    // the caller's sequence of each row, loaded once (prnn_device.cuh's
    // caller_seq says why): the row of its states; and each row's part of
    // its xin and y rows (io_row_base)
    int seq[ROWS], xbase[ROWS], ybase[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        seq[r] = b0 + r < rows0 ? caller_seq(args.order, b0 + r) : 0;
        xbase[r] = io_row_base<XIN>(b0 + r, seq[r], args.x_rows);
        ybase[r] = io_row_base<YIN>(b0 + r, seq[r], args.y_rows);
    }
    AccT c[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const int gb = b0 + r;
        c[r] = gb < rows0 && d.cx ? ST::load((const T *)d.cx, (long)seq[r] * H + j) : AccT(0);
    }
    for (int i = tid; i < ROWS * H; i += THREADS) {
        const int r = i / H, k = i % H, gb = b0 + r;
        hs[0][r][k] = gb < rows0 && d.hx
                          ? ST::load((const T *)d.hx, (long)caller_seq(args.order, gb) * H + k)
                          : AccT(0);
    }

    // The steps' inputs come from global memory (L2 at best, a few hundred
    // cycles away) while a step of the chain is a few hundred cycles: they
    // are loaded D steps ahead, and the rows and first row of each step
    // (which the input loads' addresses need) 2 D steps ahead, in rings of
    // D slots (slot s % D holds step s; the unrolled loop below keeps the
    // slots in registers).
    //
    // No load is issued in a pass's last step: ptxas waits at the loop's
    // head for every load still in flight (it carries no scoreboard round
    // the back edge), so a load issued there (step s loading step s + D
    // into its own slot, as before) made every warp wait for it on the
    // chain, ≈ 85 cycles a step of LSTM f32 H 64 B 1's 890 on an H200
    // (ncu's long-scoreboard stalls, nearly all at the loop's head). The
    // last slot's loads go out a step early (step D - 2) into spare
    // registers, moved into the slot once the last step has read it.
    auto step_time = [&](int s) { return dir ? S - 1 - s : s; };
    // this lane's column of a row of the input: the loads add the row's
    // stride (one wide multiply-add, where 64-bit sums of the row and the
    // column took a dozen instructions)
    constexpr int XLD = SKIP ? H : G * H;
    const long x_col = (SKIP ? 0 : gate * H) + j;
    auto load_xp = [&](int nb, int row0, int t, AccT(&xv)[ROWS]) {
        const long xstep = io_row_step<XIN>(row0, t, args.x_rows);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int gb = b0 + r;
            AccT v = AccT(0);
            if (computes && gb < nb && (G > 1 || q == 0)) {
                const long i = (xbase[r] + xstep) * XLD + x_col;
                v = SKIP ? ST::load((const T *)d.xin, i) : ((const AccT *)d.xin)[i];
            }
            xv[r] = v;
        }
    };
    int ring_nb[D], ring_row0[D];   // step s: its rows and first row
    int ahead_nb[D], ahead_row0[D]; // step s + D: the same
    AccT ring_x[D][ROWS];           // step s: this lane's projected inputs
    // the last slot's next inputs and look-ahead rows, loaded in step D - 2
    AccT spare_x[ROWS];
    int spare_nb = 0, spare_row0 = 0;
#pragma unroll
    for (int u = 0; u < D; ++u) {
        ring_nb[u] = u < S ? args.batch[step_time(u)] : 0;
        ring_row0[u] = u < S ? args.offset[step_time(u)] : 0;
        ahead_nb[u] = u + D < S ? args.batch[step_time(u + D)] : 0;
        ahead_row0[u] = u + D < S ? args.offset[step_time(u + D)] : 0;
    }
#pragma unroll
    for (int u = 0; u < D; ++u)
        load_xp(ring_nb[u], ring_row0[u], step_time(u), ring_x[u]);
    __syncthreads();

    for (int s0 = 0; s0 < S; s0 += D) {
#pragma unroll
    for (int u = 0; u < D; ++u) {
        const int s = s0 + u;
        if (s >= S)
            break;
        const int cur = u & 1, nxt = cur ^ 1; // D is even: s & 1
        const int t = step_time(s);
        const int nb = ring_nb[u];
        const int row0 = ring_row0[u];
        const long ystep = io_row_step<YIN>(row0, t, args.y_rows);
        // rows whose sequence ends here: forward, those the next step lacks;
        // reverse, every row at t = 0
        const int next_b = s + 1 < S ? ring_nb[(u + 1) % D] : 0;

        // R h_{t-1}: this lane's gate row (or quarter of it) for every row
        // (NA independent partial sums: a chain of KQ dependent
        // multiply-adds would be the step's longest part)
        AccT acc[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            AccT part[NA];
#pragma unroll
            for (int a = 0; a < NA; ++a)
                part[a] = AccT(0);
#pragma unroll
            for (int k = 0; k < KQ; ++k) {
                const int kk = tiny_input<G>(q, k);
                if (tiny_inputs_whole(G, H) || kk < H)
                    part[k % NA] += w[k] * hs[cur][r][kk];
            }
#pragma unroll
            for (int a = 1; a < NA; ++a)
                part[0] += part[a];
            acc[r] = part[0];
        }
        if (G == 1) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                acc[r] += __shfl_xor_sync(warp_mask, acc[r], 1);
                acc[r] += __shfl_xor_sync(warp_mask, acc[r], 2);
            }
        }
        // The quad's gates to its first lane: activated where the cell
        // lets a gate activate alone (C::gate_alone; every lane of the warp
        // runs the one activation for its own gate, where the first lane
        // would run them one after another), the products and inputs of the
        // others. G == 1 has none alone: its lanes hold quarters of one gate.
        AccT gv[ROWS][G], rec[ROWS][G], xp[ROWS][G];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const AccT xb = ring_x[u][r] + bias;
            AccT mine = AccT(0);
            if constexpr (G > 1)
                mine = C::template activate_gate<Act>(gate, acc[r] + xb);
#pragma unroll
            for (int g = 0; g < G; ++g) {
                // lane src of the quad (shuffles of width 4)
                const int src = G == 1 ? 0 : g;
                gv[r][g] = rec[r][g] = xp[r][g] = AccT(0);
                if (C::gate_alone(g)) {
                    gv[r][g] = __shfl_sync(warp_mask, mine, src, 4);
                } else {
                    rec[r][g] = __shfl_sync(warp_mask, acc[r], src, 4);
                    xp[r][g] = __shfl_sync(warp_mask, xb, src, 4);
                }
            }
        }
        // step s + D's inputs into the slot just read; in step D - 2 the
        // last slot's too (step s + D + 1), which step D - 1 has yet to read
        if (u < D - 1)
            load_xp(ahead_nb[u], ahead_row0[u], step_time(s + D), ring_x[u]);
        if (u == D - 2)
            load_xp(ahead_nb[D - 1], ahead_row0[D - 1], step_time(s + 1 + D), spare_x);

#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int gb = b0 + r;
            AccT hprev = hs[cur][r][j];
            AccT h = hprev;
            if (owner && gb < nb) {
                AccT act[C::ACTN];
                h = C::template forward_activated<Act>(gv[r], rec[r], xp[r], bias_rn, c[r], hprev,
                                                       act, clip);
                h = ST::round(h);
                const long row = (long)row0 + gb; // packed: act's
                ST::store((T *)args.y,
                          (ybase[r] + ystep) * args.y_cols + (long)dir * H + j,
                          h);
                const bool last = dir ? t == 0 : gb >= next_b;
                if (last && d.hy)
                    ST::store((T *)d.hy, (long)seq[r] * H + j, h);
                if (last && d.cy && C::CELL_STATE)
                    ST::store((T *)d.cy, (long)seq[r] * H + j, c[r]);
                if (TRAIN)
#pragma unroll
                    for (int a = 0; a < C::ACT; ++a)
                        ((AccT *)d.act)[(row * C::ACT + a) * H + j] = act[a];
            }
            if (owner)
                hs[nxt][r][j] = h; // rows not running this step keep theirs
        }
        // the slot moves on to step s + D, and its look-ahead to s + 2 D
        // (the last slot's, loaded a step early, from the spares)
        ring_nb[u] = ahead_nb[u];
        ring_row0[u] = ahead_row0[u];
        if (u < D - 1) {
            ahead_nb[u] = s + 2 * D < S ? args.batch[step_time(s + 2 * D)] : 0;
            ahead_row0[u] = s + 2 * D < S ? args.offset[step_time(s + 2 * D)] : 0;
        }
        if (u == D - 2) {
            spare_nb = s + 1 + 2 * D < S ? args.batch[step_time(s + 1 + 2 * D)] : 0;
            spare_row0 = s + 1 + 2 * D < S ? args.offset[step_time(s + 1 + 2 * D)] : 0;
        }
        if (u == D - 1) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                ring_x[u][r] = spare_x[r];
            ahead_nb[u] = spare_nb;
            ahead_row0[u] = spare_row0;
        }
        __syncthreads();
    }
    }
}

#if PRNN_CALLER_ROWS
extern "C" __global__ void __launch_bounds__(THREADS, PER_SM) prnn_tiny_forward(const prnn_rnn_args args)
{
    __shared__ __align__(16) AccT hs[2][ROWS][H];
    io_dispatch(args, [&](auto x, auto y) {
        forward_layer<decltype(x)::value, decltype(y)::value>(args, hs);
    });
}
#endif
