// The persistent recurrent kernel: one launch runs every timestep of one layer
// (both directions when bidirectional), with the recurrent weights R held
// on-chip for the whole sequence.
//
// Decomposition (src/tuning/tile_config.h names the knobs):
//  - Each direction runs NGRP independent copies of the recurrence ("batch
//    groups"), each on NBLK blocks with its own copy of R on-chip; group g
//    runs batch rows [g*GSTRIDE, (g+1)*GSTRIDE). Rows of a batch never
//    interact, so at large batch more copies of the weights mean fewer
//    batch chunks serialised inside each block, and fewer blocks per
//    hand-off. Block i of a group owns hidden units [i*UPB, (i+1)*UPB) with
//    all their gates, so the cell update is local.
//  - Its G*UPB rows of R are ordered gate-major (row = g*UPB + unit) and split
//    among the warps: warp w takes K-range (w % KSPLIT) of the hidden input
//    h_{t-1} and row group (w / KSPLIT). Partial products meet in shared
//    memory (`red`), where every thread then runs the cell for its own fixed
//    (unit, batch) items, keeping c (LSTM) and h (GRU) in registers.
//  - A thread's weights are "k-steps": the first KREG stay in registers, the
//    next KSMEM in shared memory, the rest are re-read from a packed copy in
//    global memory every step (the streamed variant: same loop, still one
//    launch).
//  - Two engines: FMA (fp32, fp64, or 16-bit storage with FMA math), lanes
//    split rows x K; MMA (fp16/bf16 on sm_80+), mma.sync m16n8k16 with R as
//    the A operand held in registers and h_{t-1} as B.
//  - Hand-off of h_t between blocks through L2, never reset within a call:
//    HANDOFF 0: "Lamport" 64-bit words carrying (step tag, value) -- readers
//      spin on the data itself, no flag round trip;
//    HANDOFF 1: plain values + a release/acquire step counter per direction
//      and batch group (needed for fp64, whose value fills a whole word).
//    Double-buffered by step parity: a block can only write step s+1 after
//    every block of its group has finished step s, hence finished reading
//    step s-1.
//
// Every shape parameter is a compile-time constant (-D from the planner), so
// register arrays are indexed by constants and loops unroll.

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
#error "PRNN_DTYPE must be 0 (float), 1 (double), 2 (half) or 3 (bfloat16)"
#endif
typedef prnn_storage<T> ST;
typedef typename ST::acc AccT;

namespace cfg {
// Macros, not constexpr functions: NVRTC treats an unannotated function as
// host code, which JIT mode rejects.
#define ceil_div(a, b) (((a) + (b)-1) / (b))
#define round_up(a, b) (ceil_div(a, b) * (b))

constexpr int MODE = PRNN_MODE; // 0 relu, 1 tanh, 2 lstm, 3 gru
constexpr int G = MODE == 2 ? 4 : MODE == 3 ? 3 : 1;
constexpr int H = PRNN_H;
constexpr int BMAX = PRNN_BMAX;
constexpr int NBLK = PRNN_NBLK;
constexpr int NGRP = PRNN_BGRP;
constexpr int GSTRIDE = PRNN_GSTRIDE; // batch rows per group, a multiple of BC
constexpr int UPB = PRNN_UPB;
constexpr int THREADS = PRNN_THREADS;
constexpr int NW = THREADS / 32;
constexpr int KSPLIT = PRNN_KSPLIT;
constexpr int RSPLIT = NW / KSPLIT;
constexpr int BC = PRNN_BC;
constexpr int NCH = GSTRIDE / BC; // batch chunks per group
constexpr bool MMA = PRNN_MMA != 0;
constexpr int HANDOFF = PRNN_HANDOFF;
constexpr bool SKIP = PRNN_SKIP != 0;
constexpr int ROWS = G * UPB;
constexpr int ACC_WORDS = sizeof(AccT) / 4;

// FMA engine geometry.
constexpr int LK = MMA ? 1 : PRNN_LANES_K;
constexpr int LR = 32 / LK;
constexpr int F_RPG = ceil_div(ROWS, RSPLIT);
constexpr int F_RPL = ceil_div(F_RPG, LR);
constexpr int F_KPW = ceil_div(H, KSPLIT);
constexpr int F_KPL = ceil_div(F_KPW, LK);
constexpr int F_VW = sizeof(AccT) == 4 ? (BC >= 4 ? 4 : 1) : (BC >= 2 ? 2 : 1);
constexpr int F_BCP = round_up(BC, F_VW);
// A thread's F_RPL weights of one k-step in shared or streamed memory are
// read as vectors of F_WVW (16 bytes at most): one load instruction instead
// of F_WVW.
constexpr int F_WVW = sizeof(AccT) == 4 ? (F_RPL % 4 == 0 ? 4 : F_RPL % 2 == 0 ? 2 : 1)
                                        : (F_RPL % 2 == 0 ? 2 : 1);
constexpr int F_WV = F_RPL / F_WVW; // vectors per k-step
// Accumulators one lane reduces over the LK lanes that share its rows,
// padded so that every halving round splits them evenly.
constexpr int F_RED_N = round_up(F_RPL * BC, LK);
constexpr int F_RED_ROUNDS = LK >= 32 ? 5 : LK >= 16 ? 4 : LK >= 8 ? 3 : LK >= 4 ? 2 : LK >= 2 ? 1 : 0;

// MMA engine geometry.
constexpr int HP2 = round_up(H, 2);
constexpr int M_KT = ceil_div(HP2, 16);
constexpr int M_KTW = ceil_div(M_KT, KSPLIT);
constexpr int M_KPW = 16 * M_KTW;
constexpr int M_RPG = round_up(ceil_div(ROWS, RSPLIT), 16);
constexpr int M_RT = M_RPG / 16;
constexpr int M_NTN = ceil_div(BC, 8);
constexpr int M_HBS = M_KPW / 2 + 4; // words; = 4 mod 8 words: no bank conflicts

constexpr int RPG = MMA ? M_RPG : F_RPG;
constexpr int ROWSP = RSPLIT * RPG;
constexpr int KSTEPS = MMA ? M_KTW : F_KPL;
constexpr int WPK = MMA ? 4 * M_RT : F_RPL * ACC_WORDS; // 32-bit words per k-step
constexpr int KREG = PRNN_KREG;
constexpr int KSMEM = PRNN_KSMEM;
constexpr int KGLB = KSTEPS - KREG - KSMEM;

// Cell items: (unit or unit pair, batch) owned by one thread every step.
constexpr int VEC = MMA ? 2 : 1;
constexpr int UI = UPB / VEC;
constexpr int NIT = UI * BC;
constexpr int NI = ceil_div(NIT, THREADS);

// Shared memory carve-up, in bytes, each part 16-byte aligned.
constexpr int SM_W = KSMEM * WPK * THREADS * 4;
constexpr int HB_ELEMS = MMA ? M_NTN * 8 * M_HBS : F_KPL * LK * F_BCP;
constexpr int HB_BYTES = round_up(HB_ELEMS * (MMA ? 4 : (int)sizeof(AccT)), 16);
constexpr int SM_HB = NW * HB_BYTES;
// Partial sums: one buffer per chunk in flight. With two, the barrier that
// protects a buffer from the next chunk's writes is the previous chunk's
// own barrier, so each chunk needs one __syncthreads instead of two.
constexpr int RED_BUFS = PRNN_RED_BUFS;
constexpr int SM_RED1 = round_up(KSPLIT * BC * ROWSP * (int)sizeof(AccT), 16);
constexpr int SM_RED = RED_BUFS * SM_RED1;
constexpr int SMEM_BYTES = SM_W + SM_HB + SM_RED;

// Hand-off words one lane requests at once (registers: two per word).
constexpr int POLL_MAX = 16;

// Hand-off buffer strides (elements of its word type), per parity. FMA:
// group-major, then k, then the group's batch rows (ex_fma below); MMA: batch
// row-major pairs, already contiguous per row.
constexpr long EX_PAR = MMA ? (long)BMAX * (HP2 / 2) : (long)NGRP * GSTRIDE * H;

static_assert(THREADS % 32 == 0 && NW % KSPLIT == 0, "warps must split evenly");
static_assert(SMEM_BYTES <= 232448, "more shared memory than any GPU offers a block");
static_assert(32 % LK == 0, "lanes_k must divide 32");
static_assert(KGLB >= 0, "more register/shared k-steps than k-steps");
static_assert(RED_BUFS == 1 || RED_BUFS == 2, "PRNN_RED_BUFS must be 1 or 2");
static_assert(!MMA || (UPB % 2 == 0), "the MMA engine owns units in pairs");
static_assert(!(MMA && sizeof(AccT) != 4), "MMA needs 16-bit storage");
static_assert(!(HANDOFF == 0 && sizeof(AccT) != 4), "fp64 needs hand-off 1");
static_assert((NBLK - 1) * UPB < H && NBLK * UPB >= H, "blocks must cover H");
static_assert(GSTRIDE % BC == 0, "a group runs whole batch chunks");
static_assert((NGRP - 1) * GSTRIDE < BMAX && NGRP * GSTRIDE >= BMAX, "groups must cover the batch");
#ifdef PRNN_SMEM_BYTES
static_assert(PRNN_SMEM_BYTES == SMEM_BYTES, "host and kernel disagree on shared memory");
#endif
#ifdef PRNN_KSTEPS
static_assert(PRNN_KSTEPS == KSTEPS, "host and kernel disagree on k-steps");
#endif
#ifdef PRNN_WPK
static_assert(PRNN_WPK == WPK, "host and kernel disagree on words per k-step");
#endif
#ifdef PRNN_EX_BYTES
static_assert(PRNN_EX_BYTES == 2 * EX_PAR * 8, "host and kernel disagree on the hand-off area");
#endif
#ifdef PRNN_PACKED_BYTES
static_assert(PRNN_PACKED_BYTES == (long)NGRP * NBLK * KGLB * WPK * THREADS * 4,
              "host and kernel disagree on the streamed weights");
#endif
} // namespace cfg

using namespace cfg;

// R element (g, unit u, k) as the math type; zero outside the layer (padding).
__device__ __forceinline__ AccT weight_at(const T *R, int g, int u, int k)
{
    if (g >= G || u >= H || k >= H)
        return AccT(0);
    return ST::load(R, ((long)g * H + u) * H + k);
}

__device__ __forceinline__ unsigned short weight_bits(const T *R, int g, int u, int k)
{
    if (g >= G || u >= H || k >= H)
        return 0;
    return reinterpret_cast<const unsigned short *>(R)[((long)g * H + u) * H + k];
}

// Waits until every pending Lamport word carries the wanted tag, re-reading
// all the lane's missing words each round: they come from different
// producer blocks, and waiting for one before asking for the next would cost
// an L2 round trip each. (v0.2 re-read only the first missing word, to keep
// spinning loads from flooding L2 while producers store. A/B runs on an
// H100, same tiles: re-reading all of up to 4 words was 8 % faster at B = 1
// and 4 (geomean of 48 points, up to 28 %), and all of up to 16 another 2 %
// over the 120-point grid (up to 31 %); bench/NOTES.md, v0.3.)
template <int PW>
__device__ __forceinline__ void lamport_settle(u64 (&v)[PW], const u64 *const (&addr)[PW],
                                               unsigned pending, unsigned want)
{
    for (;;) {
#pragma unroll
        for (int q = 0; q < PW; ++q)
            if ((pending & (1u << q)) && (unsigned)(v[q] >> 32) == want)
                pending &= ~(1u << q);
        if (!pending)
            return;
#pragma unroll
        for (int q = 0; q < PW; ++q)
            if (pending & (1u << q))
                v[q] = prnn_ld_relaxed_u64(addr[q]);
    }
}

// ===========================================================================
// FMA engine
// ===========================================================================

// Word of h_t[gb][k] in one parity of the FMA hand-off buffer: the batch rows
// of one group are adjacent, so a warp's poll reads whole sectors.
__device__ __forceinline__ long ex_fma(int k, int gb)
{
    const int gbase = gb / GSTRIDE * GSTRIDE;
    return (long)gbase * H + (long)k * GSTRIDE + (gb - gbase);
}

struct FmaLane {
    int lk, lr;
};

// Row handled by (row-group, lane row lr, i) and its gate/unit.
__device__ __forceinline__ int fma_row(int rg, int lr, int i) { return rg * F_RPG + lr + LR * i; }

// Where weight (k-step jj, row i) of thread tid lives in the shared or the
// streamed copy: the F_WVW weights of a vector are adjacent, and the vectors
// of one k-step are THREADS apart, so a warp's vector loads are contiguous
// (no bank conflicts, whole sectors).
__device__ __forceinline__ long fma_slot(int jj, int i, int tid)
{
    return (((long)jj * F_WV + i / F_WVW) * THREADS + tid) * F_WVW + i % F_WVW;
}

// One weight of this thread's share of R (zero for padding).
__device__ __forceinline__ AccT fma_weight(const T *R, int u0, int ks, int rg, int lk, int lr, int j,
                                           int i)
{
    int kk = lk + LK * j;
    int r = fma_row(rg, lr, i);
    if (kk >= F_KPW || r >= (rg + 1) * F_RPG || r >= ROWS)
        return AccT(0);
    return weight_at(R, r / UPB, u0 + r % UPB, ks * F_KPW + kk);
}

// Loads this thread's weights: registers, shared memory, and the packed
// global copy for the streamed k-steps.
__device__ __forceinline__ void fma_load_weights(AccT (&wreg)[KREG > 0 ? KREG : 1][F_RPL],
                                                 AccT *wsm, AccT *packed, const T *R,
                                                 int u0, int ks, int rg, int lk, int lr,
                                                 int tid, int blk)
{
    // Register k-steps: one base pointer per row and a count of valid k, so
    // the unrolled loop is a load and a select per weight (compile time).
#pragma unroll
    for (int i = 0; i < F_RPL; ++i) {
        int r = fma_row(rg, lr, i);
        int u = u0 + r % UPB;
        bool rvalid = r < (rg + 1) * F_RPG && r < ROWS && u < H;
        int k0 = ks * F_KPW + lk;
        // valid j: lk + LK*j < F_KPW and k0 + LK*(j - 0) < H
        int kend = min(ks * F_KPW + F_KPW, H);
        int jmax = rvalid && kend > k0 ? (kend - k0 + LK - 1) / LK : 0;
        const T *p = R + ((long)(r / UPB) * H + u) * H + k0;
#pragma unroll
        for (int j = 0; j < KREG; ++j)
            wreg[j][i] = j < jmax ? ST::load(p, (long)LK * j) : AccT(0);
    }
#pragma unroll 1
    for (int j = KREG; j < KSTEPS; ++j) {
#pragma unroll
        for (int i = 0; i < F_RPL; ++i) {
            AccT v = fma_weight(R, u0, ks, rg, lk, lr, j, i);
            long slot = fma_slot(j < KREG + KSMEM ? j - KREG : j - KREG - KSMEM, i, tid);
            if (j < KREG + KSMEM)
                wsm[slot] = v;
            else
                packed[(long)blk * KGLB * F_RPL * THREADS + slot] = v;
        }
    }
}

// Waits for h_{s-1} over this warp's K-range and batch chunk and stages it in
// the warp's buffer hb[kk * F_BCP + b]. Rows with b >= prevB that are active
// now start from hx (the reverse direction picks up shorter sequences late).
__device__ __forceinline__ void fma_poll(AccT *hb, const prnn_dir_args &d, int par, unsigned want,
                                         int k0, int b0, int cur_b, int prev_b, int lane,
                                         unsigned counter_target)
{
    constexpr int N = F_KPL * LK * F_BCP;
    // Every word a lane polls is requested before any is checked (up to
    // POLL_MAX): each further group would cost one more L2 round trip.
    constexpr int PW = ceil_div(N, 32) < POLL_MAX ? ceil_div(N, 32) : POLL_MAX;
    const T *hx = (const T *)d.hx;
    if (HANDOFF == 1 && prev_b > 0) {
        while (prnn_ld_acquire_u32(d.counter) < counter_target) {
        }
    }
#pragma unroll 1
    for (int w0 = 0; w0 < N; w0 += 32 * PW) {
        u64 v[PW];
        const u64 *addr[PW];
        unsigned pending = 0;
#pragma unroll
        for (int q = 0; q < PW; ++q) {
            int w = w0 + 32 * q + lane;
            int b = w % F_BCP, kk = w / F_BCP;
            int k = k0 + kk, gb = b0 + b;
            v[q] = 0;
            addr[q] = 0;
            if (w < N && kk < F_KPW && k < H && b < BC && gb < cur_b) {
                if (gb < prev_b) {
                    if (HANDOFF == 0) {
                        addr[q] = (const u64 *)d.exchange + par * EX_PAR + ex_fma(k, gb);
                        v[q] = prnn_ld_relaxed_u64(addr[q]);
                        pending |= 1u << q;
                    } else if (sizeof(AccT) == 8) {
                        const double *src = (const double *)d.exchange + par * EX_PAR + ex_fma(k, gb);
                        v[q] = (u64)__double_as_longlong(prnn_ld_relaxed_f64(src));
                    } else {
                        const u32 *src = (const u32 *)d.exchange + par * EX_PAR + ex_fma(k, gb);
                        v[q] = prnn_ld_relaxed_u32(src);
                    }
                } else if (hx) {
                    AccT h0 = ST::load(hx, (long)gb * H + k);
                    v[q] = sizeof(AccT) == 8 ? (u64)__double_as_longlong((double)h0)
                                             : (u64)__float_as_uint((float)h0);
                }
            }
        }
        if (HANDOFF == 0)
            lamport_settle<PW>(v, addr, pending, want);
#pragma unroll
        for (int q = 0; q < PW; ++q) {
            int w = w0 + 32 * q + lane;
            if (w < N) {
                AccT h;
                if (sizeof(AccT) == 8)
                    h = (AccT)__longlong_as_double((long long)v[q]);
                else
                    h = (AccT)__uint_as_float((u32)v[q]);
                hb[w] = h; // w == kk * F_BCP + b
            }
        }
    }
}

__device__ __forceinline__ float prnn_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double prnn_fma(double a, double b, double c) { return __fma_rn(a, b, c); }

// A if C, else B (NVRTC has no <type_traits> without headers).
template <bool C, class A, class B> struct select_type { typedef A type; };
template <class A, class B> struct select_type<false, A, B> { typedef B type; };

// The vector type of VW adjacent AccT (16 bytes at most) and its elements.
template <int VW> struct AccVec;
template <> struct AccVec<1> {
    typedef AccT type;
    static __device__ __forceinline__ void unpack(const AccT &v, AccT *out) { out[0] = v; }
};
template <> struct AccVec<2> {
    typedef typename select_type<sizeof(AccT) == 8, double2, float2>::type type;
    static __device__ __forceinline__ void unpack(const type &v, AccT *out)
    {
        out[0] = (AccT)v.x;
        out[1] = (AccT)v.y;
    }
};
template <> struct AccVec<4> { // float only
    typedef float4 type;
    static __device__ __forceinline__ void unpack(const float4 &v, AccT *out)
    {
        out[0] = (AccT)v.x;
        out[1] = (AccT)v.y;
        out[2] = (AccT)v.z;
        out[3] = (AccT)v.w;
    }
};

// Vector loads of VW adjacent AccT, plain (shared memory) or L2-only (the
// streamed weights, read once per step by one thread).
template <int VW> struct VecLoad {
    typedef AccVec<VW> A;
    static __device__ __forceinline__ void run(const AccT *p, AccT *out)
    {
        A::unpack(*reinterpret_cast<const typename A::type *>(p), out);
    }
    static __device__ __forceinline__ void run_cg(const AccT *p, AccT *out)
    {
        A::unpack(__ldcg(reinterpret_cast<const typename A::type *>(p)), out);
    }
};

// acc[i][b] += w[i] * h[kk][b] over the batch chunk.
__device__ __forceinline__ void fma_kstep(AccT (&acc)[F_RPL][F_BCP], const AccT (&w)[F_RPL],
                                          const AccT *hrow)
{
#pragma unroll
    for (int b = 0; b < F_BCP; b += F_VW) {
        AccT h[F_VW];
        VecLoad<F_VW>::run(hrow + b, h);
#pragma unroll
        for (int i = 0; i < F_RPL; ++i)
#pragma unroll
            for (int q = 0; q < F_VW; ++q)
                acc[i][b + q] = prnn_fma(w[i], h[q], acc[i][b + q]);
    }
}

__device__ __forceinline__ void fma_compute(AccT (&acc)[F_RPL][F_BCP],
                                            const AccT (&wreg)[KREG > 0 ? KREG : 1][F_RPL],
                                            const AccT *wsm, const AccT *packed, const AccT *hb,
                                            int lk, int tid, int blk)
{
#pragma unroll
    for (int i = 0; i < F_RPL; ++i)
#pragma unroll
        for (int b = 0; b < F_BCP; ++b)
            acc[i][b] = AccT(0);
#pragma unroll
    for (int j = 0; j < KREG; ++j)
        fma_kstep(acc, wreg[j], hb + (lk + LK * j) * F_BCP);
    // Unrolled by 2, not 4: by 4, tiles with KSMEM = 4 and 168 register
    // weights rose from 240 to 255 registers and ran 1.2x slower (H100).
#pragma unroll 2
    for (int j = 0; j < KSMEM; ++j) {
        AccT w[F_RPL];
#pragma unroll
        for (int v = 0; v < F_WV; ++v)
            VecLoad<F_WVW>::run(wsm + fma_slot(j, v * F_WVW, tid), w + v * F_WVW);
        fma_kstep(acc, w, hb + (lk + LK * (KREG + j)) * F_BCP);
    }
    const AccT *src = packed + (long)blk * KGLB * F_RPL * THREADS; // this block's share
#pragma unroll 4
    for (int j = 0; j < KGLB; ++j) {
        AccT w[F_RPL];
#pragma unroll
        for (int v = 0; v < F_WV; ++v)
            VecLoad<F_WVW>::run_cg(src + fma_slot(j, v * F_WVW, tid), w + v * F_WVW);
        fma_kstep(acc, w, hb + (lk + LK * (KREG + KSMEM + j)) * F_BCP);
    }
}

// One round of the halving below, then the next (a template, so that every
// round's sizes are constants and `a` stays in registers).
template <int ROUND> __device__ __forceinline__ void halving_round(AccT (&a)[F_RED_N], int lk, int &base)
{
    if constexpr (ROUND < F_RED_ROUNDS) {
        constexpr int off = LK >> (ROUND + 1), half = (F_RED_N >> ROUND) / 2;
        const bool upper = (lk & off) != 0;
#pragma unroll
        for (int j = 0; j < half; ++j) {
            AccT send = upper ? a[j] : a[j + half];
            AccT keep = upper ? a[j + half] : a[j];
            a[j] = keep + __shfl_xor_sync(0xffffffffu, send, off);
        }
        base += upper ? half : 0;
        halving_round<ROUND + 1>(a, lk, base);
    }
}

// Sums the LK lanes that share rows and writes the warp's partial sums.
// Reduce-scatter by recursive halving: in each round a lane keeps half of its
// accumulators and sends the other half to its partner, so the LK lanes end
// with a different 1/LK of the sums each and store them all at once. (An
// all-reduce with every accumulator in every round used log2(LK)/(1-1/LK)
// times the shuffles, 2x at LK = 2 and 2.7x at 4, and left 1/LK of the lanes
// to store. Measured in bench/NOTES.md, v0.5.)
__device__ __forceinline__ void fma_write_partials(AccT *red, const AccT (&acc)[F_RPL][F_BCP],
                                                   int ks, int rg, int lk, int lr)
{
    AccT a[F_RED_N];
#pragma unroll
    for (int f = 0; f < F_RED_N; ++f)
        a[f] = f < F_RPL * BC ? acc[f / BC][f % BC] : AccT(0);
    int base = 0; // flat index of a[0] once the rounds are done
    halving_round<0>(a, lk, base);
#pragma unroll
    for (int j = 0; j < F_RED_N / LK; ++j) {
        int f = base + j;
        int i = f / BC, b = f % BC;
        int r = fma_row(rg, lr, i);
        if (f < F_RPL * BC && r < (rg + 1) * F_RPG && r < ROWSP)
            red[(ks * BC + b) * ROWSP + r] = a[j];
    }
}

// ===========================================================================
// MMA engine (fp16 / bf16, sm_80+)
// ===========================================================================

#if PRNN_MMA
__device__ __forceinline__ u32 pack2(unsigned short lo, unsigned short hi)
{
    return (u32)lo | ((u32)hi << 16);
}

// A-fragment of row tile rt, k tile kt (m16n8k16 layout).
__device__ __forceinline__ void mma_fragment(u32 (&a)[4], const T *R, int u0, int rg, int rt,
                                             int kt_global, int lane)
{
    int ra = rg * M_RPG + rt * 16 + lane / 4;
    int kc = kt_global * 16 + (lane % 4) * 2;
    int rows[2] = {ra, ra + 8};
    u32 out[4];
#pragma unroll
    for (int half = 0; half < 2; ++half) { // k, k+8
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            int r = rows[rr];
            bool valid = r < (rg + 1) * M_RPG && r < ROWS;
            int g = valid ? r / UPB : G, u = u0 + r % UPB;
            int k = kc + half * 8;
            out[half * 2 + rr] = pack2(weight_bits(R, g, u, k), weight_bits(R, g, u, k + 1));
        }
    }
    a[0] = out[0];
    a[1] = out[1];
    a[2] = out[2];
    a[3] = out[3];
}

__device__ __forceinline__ void mma_load_weights(u32 (&areg)[KREG > 0 ? KREG : 1][M_RT][4],
                                                 uint4 *wsm, uint4 *packed, const T *R, int u0,
                                                 int ks, int rg, int lane, int tid, int blk)
{
    // Register k-steps: per fragment row a base pointer, then one 32-bit load
    // (even H) or two 16-bit loads per register, so the unrolled loop stays
    // small for the compiler.
#pragma unroll
    for (int rt = 0; rt < M_RT; ++rt) {
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            int r = rg * M_RPG + rt * 16 + lane / 4 + rr * 8;
            int u = u0 + r % UPB;
            bool valid = r < (rg + 1) * M_RPG && r < ROWS && u < H;
            const unsigned short *p =
                reinterpret_cast<const unsigned short *>(R) + ((long)(r / UPB) * H + u) * H;
            int kc0 = ks * M_KTW * 16 + (lane % 4) * 2;
#pragma unroll
            for (int kt = 0; kt < KREG; ++kt) {
#pragma unroll
                for (int hf = 0; hf < 2; ++hf) {
                    int k = kc0 + kt * 16 + hf * 8;
                    u32 word;
                    if (H % 2 == 0)
                        word = (valid && k < H) ? *reinterpret_cast<const u32 *>(p + k) : 0u;
                    else
                        word = pack2((valid && k < H) ? p[k] : (unsigned short)0,
                                     (valid && k + 1 < H) ? p[k + 1] : (unsigned short)0);
                    areg[kt][rt][hf * 2 + rr] = word;
                }
            }
        }
    }
#pragma unroll 1
    for (int kt = KREG; kt < KSTEPS; ++kt) {
#pragma unroll
        for (int rt = 0; rt < M_RT; ++rt) {
            u32 a[4];
            mma_fragment(a, R, u0, rg, rt, ks * M_KTW + kt, lane);
            uint4 v = make_uint4(a[0], a[1], a[2], a[3]);
            if (kt < KREG + KSMEM)
                wsm[((kt - KREG) * M_RT + rt) * THREADS + tid] = v;
            else
                packed[(((long)blk * KGLB + (kt - KREG - KSMEM)) * M_RT + rt) * THREADS + tid] = v;
        }
    }
}

// Stages h_{s-1} pairs for this warp's K-range and batch chunk:
// hb[n * M_HBS + pair] = (h[k], h[k+1]) of batch b0 + n.
__device__ __forceinline__ void mma_poll(u32 *hb, const prnn_dir_args &d, int par, unsigned want,
                                         int ks, int b0, int cur_b, int prev_b, int lane,
                                         unsigned counter_target)
{
    constexpr int PAIRS = M_KPW / 2;
    constexpr int N = M_NTN * 8 * PAIRS;
    constexpr int PW = ceil_div(N, 32) < POLL_MAX ? ceil_div(N, 32) : POLL_MAX;
    const T *hx = (const T *)d.hx;
    const int p0 = ks * PAIRS;
    if (HANDOFF == 1 && prev_b > 0) {
        while (prnn_ld_acquire_u32(d.counter) < counter_target) {
        }
    }
#pragma unroll 1
    for (int w0 = 0; w0 < N; w0 += 32 * PW) {
        u64 v[PW];
        const u64 *addr[PW];
        unsigned pending = 0;
#pragma unroll
        for (int q = 0; q < PW; ++q) {
            int w = w0 + 32 * q + lane;
            int n = w / PAIRS, pr = w % PAIRS;
            int pair = p0 + pr, gb = b0 + n;
            v[q] = 0;
            addr[q] = 0;
            if (w < N && n < BC && pair < HP2 / 2 && gb < cur_b) {
                if (gb < prev_b) {
                    if (HANDOFF == 0) {
                        addr[q] = (const u64 *)d.exchange + par * EX_PAR + (long)gb * (HP2 / 2) + pair;
                        v[q] = prnn_ld_relaxed_u64(addr[q]);
                        pending |= 1u << q;
                    } else {
                        const u32 *src = (const u32 *)d.exchange + par * EX_PAR + (long)gb * (HP2 / 2) + pair;
                        v[q] = prnn_ld_relaxed_u32(src);
                    }
                } else if (hx) {
                    int k = 2 * pair;
                    const unsigned short *hxb = (const unsigned short *)hx;
                    unsigned short lo = hxb[(long)gb * H + k];
                    unsigned short hi = k + 1 < H ? hxb[(long)gb * H + k + 1] : 0;
                    v[q] = pack2(lo, hi);
                }
            }
        }
        if (HANDOFF == 0)
            lamport_settle<PW>(v, addr, pending, want);
#pragma unroll
        for (int q = 0; q < PW; ++q) {
            int w = w0 + 32 * q + lane;
            if (w < N)
                hb[(w / PAIRS) * M_HBS + (w % PAIRS)] = (u32)v[q];
        }
    }
}

__device__ __forceinline__ void mma_compute(float (&acc)[M_RT][M_NTN][4],
                                            const u32 (&areg)[KREG > 0 ? KREG : 1][M_RT][4],
                                            const uint4 *wsm, const uint4 *packed, const u32 *hb,
                                            int lane, int tid, int blk)
{
#pragma unroll
    for (int rt = 0; rt < M_RT; ++rt)
#pragma unroll
        for (int nt = 0; nt < M_NTN; ++nt)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                acc[rt][nt][q] = 0.0f;
    const u32 *hl = hb + (lane / 4) * M_HBS + (lane % 4);
#pragma unroll
    for (int kt = 0; kt < KREG; ++kt) {
#pragma unroll
        for (int nt = 0; nt < M_NTN; ++nt) {
            u32 b0 = hl[nt * 8 * M_HBS + kt * 8];
            u32 b1 = hl[nt * 8 * M_HBS + kt * 8 + 4];
#pragma unroll
            for (int rt = 0; rt < M_RT; ++rt)
                prnn_mma<T>::run(acc[rt][nt], areg[kt][rt], b0, b1);
        }
    }
#pragma unroll 2
    for (int j = 0; j < KSMEM; ++j) {
        int kt = KREG + j;
        u32 a[M_RT][4];
#pragma unroll
        for (int rt = 0; rt < M_RT; ++rt) {
            uint4 v = wsm[(j * M_RT + rt) * THREADS + tid];
            a[rt][0] = v.x;
            a[rt][1] = v.y;
            a[rt][2] = v.z;
            a[rt][3] = v.w;
        }
#pragma unroll
        for (int nt = 0; nt < M_NTN; ++nt) {
            u32 b0 = hl[nt * 8 * M_HBS + kt * 8];
            u32 b1 = hl[nt * 8 * M_HBS + kt * 8 + 4];
#pragma unroll
            for (int rt = 0; rt < M_RT; ++rt)
                prnn_mma<T>::run(acc[rt][nt], a[rt], b0, b1);
        }
    }
#pragma unroll 2
    for (int j = 0; j < KGLB; ++j) {
        int kt = KREG + KSMEM + j;
        u32 a[M_RT][4];
        const uint4 *src = packed + ((long)blk * KGLB + j) * M_RT * THREADS + tid;
#pragma unroll
        for (int rt = 0; rt < M_RT; ++rt) {
            uint4 v = __ldcg(src + rt * THREADS);
            a[rt][0] = v.x;
            a[rt][1] = v.y;
            a[rt][2] = v.z;
            a[rt][3] = v.w;
        }
#pragma unroll
        for (int nt = 0; nt < M_NTN; ++nt) {
            u32 b0 = hl[nt * 8 * M_HBS + kt * 8];
            u32 b1 = hl[nt * 8 * M_HBS + kt * 8 + 4];
#pragma unroll
            for (int rt = 0; rt < M_RT; ++rt)
                prnn_mma<T>::run(acc[rt][nt], a[rt], b0, b1);
        }
    }
}

__device__ __forceinline__ void mma_write_partials(float *red, const float (&acc)[M_RT][M_NTN][4],
                                                   int ks, int rg, int lane)
{
#pragma unroll
    for (int rt = 0; rt < M_RT; ++rt) {
        int r = rg * M_RPG + rt * 16 + lane / 4;
#pragma unroll
        for (int nt = 0; nt < M_NTN; ++nt) {
            int n = nt * 8 + (lane % 4) * 2;
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                int rr = r + (q >= 2 ? 8 : 0);
                int nn = n + (q & 1);
                if (nn < BC)
                    red[(ks * BC + nn) * ROWSP + rr] = acc[rt][nt][q];
            }
        }
    }
}
#endif // PRNN_MMA

// ===========================================================================
// The cell
// ===========================================================================

struct CellState {
    AccT c[NCH][NI][VEC]; // LSTM cell state
    AccT h[NCH][NI][VEC]; // previous output (GRU needs it; rounded to storage)
};

// Cell activations. The cheap forms: sigmoid as 1/2 + tanh(x/2)/2 (no IEEE
// division, whose slow-path branch sat in the middle of the cell), and for
// 16-bit data the hardware tanh (max error 2^-10.99, below half an fp16 ulp
// near 1). fp32 and fp64 keep the accurate tanh (the fp32 check is 1e-5).
// Measured on the H100 (bench/NOTES.md, v0.4): LSTM fp16 0.90x, fp32 0.96x
// (geomeans of their 20 points each; 0.97x over all 120); but groups of 128
// blocks (H = 2048) ran 7-28 % slower, reproducibly on three machines,
// though the cell itself took half the time (ncu: the wait at the
// partial-sum barrier and in the hand-off grew instead); not understood.
// Those keep the exact forms.
constexpr bool CHEAP_ACT = NBLK < 128;
constexpr bool APPROX_TANH = CHEAP_ACT && PRNN_DTYPE >= 2;

__device__ __forceinline__ AccT cell_tanh(AccT x)
{
    return APPROX_TANH ? prnn_tanh_approx(x) : prnn_tanh(x);
}

__device__ __forceinline__ AccT cell_sigmoid(AccT x)
{
    return CHEAP_ACT ? AccT(0.5) + AccT(0.5) * cell_tanh(AccT(0.5) * x) : prnn_sigmoid(x);
}

__device__ __forceinline__ AccT act(AccT x)
{
    return MODE == 0 ? prnn_relu(x) : cell_tanh(x);
}

// ===========================================================================
// The kernel
// ===========================================================================

extern "C" __global__ void __launch_bounds__(THREADS, 1) prnn_rnn_persistent(const prnn_rnn_args args)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int dir = blockIdx.x / (NGRP * NBLK);
    const int grp = blockIdx.x % (NGRP * NBLK) / NBLK;
    const int blk = blockIdx.x % NBLK;
    const int gbase = grp * GSTRIDE; // this group's first batch row
    const int pblk = grp * NBLK + blk; // this block's share of the packed (streamed) weights
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int ks = warp % KSPLIT, rg = warp / KSPLIT;
    const int lk = lane % LK, lr = lane / LK;
    (void)lk; // the MMA engine has no lane split
    (void)lr;
    const int u0 = blk * UPB;
    prnn_dir_args d = dir ? args.dir[1] : args.dir[0];
    d.counter += grp; // one step counter per group (hand-off 1)
    const T *R = (const T *)d.R;
    const int S = args.seq_length;

    unsigned char *sm_w = smem;
    unsigned char *sm_hb = smem + SM_W + warp * HB_BYTES;
    AccT *const red_base = (AccT *)(smem + SM_W + SM_HB);
    int red_flip = 0; // which partial-sum buffer the next chunk uses

    // ---- weights on-chip, once ----
#if PRNN_MMA
    u32 areg[KREG > 0 ? KREG : 1][M_RT][4];
    mma_load_weights(areg, (uint4 *)sm_w, (uint4 *)d.packed, R, u0, ks, rg, lane, tid, pblk);
#else
    AccT wreg[KREG > 0 ? KREG : 1][F_RPL];
    fma_load_weights(wreg, (AccT *)sm_w, (AccT *)d.packed, R, u0, ks, rg, lk, lr, tid, pblk);
    // Padding columns of the staging buffer stay zero forever.
    for (int i = lane; i < HB_ELEMS; i += 32)
        ((AccT *)sm_hb)[i] = AccT(0);
#endif

    // ---- per-item constants and state ----
    AccT bias[NI][VEC][G];
    AccT bias_rn[NI][VEC]; // GRU: bR_n stays inside r * (R_n h + bR_n)
    CellState st;
#pragma unroll
    for (int q = 0; q < NI; ++q) {
        int it = tid + THREADS * q;
        int ju = it % UI, b = it / UI;
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            int u = u0 + ju * VEC + v;
            bool uvalid = it < NIT && u < H && ju * VEC + v < UPB;
#pragma unroll
            for (int g = 0; g < G; ++g) {
                AccT bw = uvalid ? ST::load((const T *)d.bW, (long)g * H + u) : AccT(0);
                AccT br = uvalid ? ST::load((const T *)d.bR, (long)g * H + u) : AccT(0);
                if (MODE == 3 && g == 2) {
                    bias[q][v][g] = bw;
                    bias_rn[q][v] = br;
                } else {
                    bias[q][v][g] = bw + br;
                }
            }
            if (MODE != 3)
                bias_rn[q][v] = AccT(0);
#pragma unroll
            for (int c = 0; c < NCH; ++c) {
                int gb = gbase + c * BC + b;
                bool ok = uvalid && b < BC && gb < BMAX;
                st.h[c][q][v] = (ok && d.hx) ? ST::load((const T *)d.hx, (long)gb * H + u) : AccT(0);
                st.c[c][q][v] = (ok && d.cx) ? ST::load((const T *)d.cx, (long)gb * H + u) : AccT(0);
            }
        }
    }

    // ---- the recurrence ----
    // Step s's batch and first row, loaded one step ahead so that their
    // latency never sits between the hand-off and the products.
    int cur_b = args.batch[dir ? S - 1 : 0];
    long row0 = args.offset[dir ? S - 1 : 0];
    int prev_b = 0;
#pragma unroll 1
    for (int s = 0; s < S; ++s) {
        const int t = dir ? S - 1 - s : s;
        const int tn = dir ? t - 1 : t + 1;
        const int next_b = s + 1 < S ? args.batch[tn] : 0;
        const long next_row0 = s + 1 < S ? args.offset[tn] : 0;
        const int par_prev = (s - 1) & 1, par = s & 1;
        const unsigned want = args.tag_base + (unsigned)s; // tag written at step s-1
        const unsigned tag = args.tag_base + (unsigned)s + 1;
        const unsigned counter_target = (args.tag_base + (unsigned)s) * NBLK;

#pragma unroll 1
        for (int c = 0; c < NCH; ++c) {
            const int b0 = gbase + c * BC;
            if (b0 >= cur_b)
                break;

            // Prefetch this chunk's projected inputs: independent of the
            // recurrence, so their latency hides behind the wait for h.
            AccT xp[NI][VEC][G];
#pragma unroll
            for (int q = 0; q < NI; ++q) {
                int it = tid + THREADS * q;
                int ju = it % UI, b = it / UI, gb = b0 + b;
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    int u = u0 + ju * VEC + v;
                    bool ok = it < NIT && gb < cur_b && u < H && ju * VEC + v < UPB;
#pragma unroll
                    for (int g = 0; g < G; ++g) {
                        AccT x = AccT(0);
                        if (ok) {
                            if (SKIP)
                                x = ST::load((const T *)d.xin, (row0 + gb) * H + u);
                            else
                                x = ((const AccT *)d.xin)[(row0 + gb) * (G * H) + (long)g * H + u];
                        }
                        xp[q][v][g] = x + bias[q][v][g];
                    }
                }
            }

#if PRNN_MMA
            u32 *hb = (u32 *)sm_hb;
            mma_poll(hb, d, par_prev, want, ks, b0, cur_b, prev_b, lane, counter_target);
            __syncwarp();
            float acc[M_RT][M_NTN][4];
            mma_compute(acc, areg, (const uint4 *)sm_w, (const uint4 *)d.packed, hb, lane, tid, pblk);
            __syncwarp();
            AccT *red = red_base + red_flip * (SM_RED1 / (int)sizeof(AccT));
            if (RED_BUFS == 1)
                __syncthreads(); // the previous chunk's cell has read `red`
            mma_write_partials(red, acc, ks, rg, lane);
#else
            AccT *hb = (AccT *)sm_hb;
            fma_poll(hb, d, par_prev, want, ks * F_KPW, b0, cur_b, prev_b, lane, counter_target);
            __syncwarp();
            AccT acc[F_RPL][F_BCP];
            fma_compute(acc, wreg, (const AccT *)sm_w, (const AccT *)d.packed, hb, lk, tid, pblk);
            __syncwarp();
            AccT *red = red_base + red_flip * (SM_RED1 / (int)sizeof(AccT));
            if (RED_BUFS == 1)
                __syncthreads(); // the previous chunk's cell has read `red`
            fma_write_partials(red, acc, ks, rg, lk, lr);
#endif
            __syncthreads(); // partials complete
            if (RED_BUFS == 2)
                red_flip ^= 1;

            // ---- cell update for this chunk's items ----
            // The chunk index is not a compile-time constant, so move this
            // chunk's state into fixed registers and back (predicated moves)
            // rather than index the state arrays at run time (local memory).
            AccT cst[NI][VEC], hst[NI][VEC];
#pragma unroll
            for (int cc = 0; cc < NCH; ++cc)
                if (cc == c)
#pragma unroll
                    for (int q = 0; q < NI; ++q)
#pragma unroll
                        for (int v = 0; v < VEC; ++v) {
                            cst[q][v] = st.c[cc][q][v];
                            hst[q][v] = st.h[cc][q][v];
                        }
#pragma unroll
            for (int q = 0; q < NI; ++q) {
                int it = tid + THREADS * q;
                int ju = it % UI, b = it / UI, gb = b0 + b;
                if (it >= NIT || gb >= cur_b)
                    continue;
                AccT hv[VEC];
                bool uok[VEC];
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    int j = ju * VEC + v;
                    int u = u0 + j;
                    uok[v] = u < H && j < UPB;
                    AccT pre[G];
#pragma unroll
                    for (int g = 0; g < G; ++g) {
                        AccT sum = AccT(0);
#pragma unroll
                        for (int k2 = 0; k2 < KSPLIT; ++k2)
                            sum += red[(k2 * BC + b) * ROWSP + g * UPB + j];
                        pre[g] = sum;
                    }
                    AccT h;
                    if (MODE == 2) {
                        AccT ig = cell_sigmoid(pre[0] + xp[q][v][0]);
                        AccT fg = cell_sigmoid(pre[1] + xp[q][v][1]);
                        AccT gg = cell_tanh(pre[2] + xp[q][v][2]);
                        AccT og = cell_sigmoid(pre[3] + xp[q][v][3]);
                        AccT cn = fg * cst[q][v] + ig * gg;
                        cst[q][v] = cn;
                        h = og * cell_tanh(cn);
                    } else if (MODE == 3) {
                        AccT rg2 = cell_sigmoid(pre[0] + xp[q][v][0]);
                        AccT zg = cell_sigmoid(pre[1] + xp[q][v][1]);
                        AccT ng = cell_tanh(xp[q][v][2] + rg2 * (pre[2] + bias_rn[q][v]));
                        h = (AccT(1) - zg) * ng + zg * hst[q][v];
                    } else {
                        h = act(pre[0] + xp[q][v][0]);
                    }
                    if (!uok[v])
                        h = AccT(0); // padding unit of an odd H: finite, never used
                    h = ST::round(h);
                    hst[q][v] = h;
                    hv[v] = h;
                    if (uok[v]) {
                        ST::store((T *)args.y, (row0 + gb) * args.y_cols + (long)dir * H + u, h);
                        bool last = dir ? (t == 0) : (gb >= next_b);
                        if (last && d.hy)
                            ST::store((T *)d.hy, (long)gb * H + u, h);
                        if (last && d.cy && MODE == 2)
                            ST::store((T *)d.cy, (long)gb * H + u, cst[q][v]);
                    }
                }
                // Publish h_t for the other blocks.
#if PRNN_MMA
                if (u0 + ju * 2 < HP2) {
                    int pair = (u0 + ju * 2) / 2;
                    u32 bits = pack2(ST::bits(hv[0]), ST::bits(hv[1]));
                    if (HANDOFF == 0) {
                        u64 *dst = (u64 *)d.exchange + par * EX_PAR + (long)gb * (HP2 / 2) + pair;
                        prnn_st_relaxed_u64(dst, ((u64)tag << 32) | bits);
                    } else {
                        u32 *dst = (u32 *)d.exchange + par * EX_PAR + (long)gb * (HP2 / 2) + pair;
                        *(volatile u32 *)dst = bits;
                    }
                }
#else
                if (uok[0]) {
                    int u = u0 + ju;
                    if (HANDOFF == 0) {
                        u64 *dst = (u64 *)d.exchange + par * EX_PAR + ex_fma(u, gb);
                        prnn_st_relaxed_u64(dst, ((u64)tag << 32) | __float_as_uint((float)hv[0]));
                    } else {
                        AccT *dst = (AccT *)d.exchange + par * EX_PAR + ex_fma(u, gb);
                        *(volatile AccT *)dst = hv[0];
                    }
                }
#endif
            }
#pragma unroll
            for (int cc = 0; cc < NCH; ++cc)
                if (cc == c)
#pragma unroll
                    for (int q = 0; q < NI; ++q)
#pragma unroll
                        for (int v = 0; v < VEC; ++v) {
                            st.c[cc][q][v] = cst[q][v];
                            st.h[cc][q][v] = hst[q][v];
                        }
        }
        prev_b = cur_b;
        cur_b = next_b;
        row0 = next_row0;
        if (HANDOFF == 1) {
            __syncthreads(); // every h_t store of this block precedes the release
            if (tid == 0) {
                __threadfence();
                prnn_red_release_add_u32(d.counter, 1u);
            }
        }
    }
}

// ===========================================================================
// Per-call setup: per-step batch sizes and first rows from the batch runs,
// and a clean hand-off area (tags restart at every call).
// ===========================================================================

extern "C" __global__ void prnn_rnn_setup(const prnn_setup_args a)
{
    const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
    const long nthreads = (long)gridDim.x * blockDim.x;
    for (unsigned long long i = tid; i < a.zero_words; i += nthreads)
        a.zero[i] = 0u;
    if (a.num_runs <= 0)
        return;
    const int t_last = a.t_end[a.num_runs - 1];
    for (long t = a.t_begin + tid; t < t_last; t += nthreads) {
        long row = a.row_base;
        int start = a.t_begin;
        for (int r = 0; r < a.num_runs; ++r) {
            int end = a.t_end[r];
            if (t < end) {
                a.batch[t] = a.run_batch[r];
                a.offset[t] = (int)(row + (t - start) * (long)a.run_batch[r]);
                break;
            }
            row += (long)(end - start) * a.run_batch[r];
            start = end;
        }
    }
}
