// The FMA engine: fp32, fp64, or 16-bit storage with fp32 math. The 32 lanes
// of a warp split its rows x K as LR x LK; each lane multiplies F_RPL rows by
// its share of the K-range, then the LK lanes that share rows sum their
// partials. Used by both passes (rnn_config.cuh: rows, K and the weight view).
#pragma once

#include "rnn_handoff.cuh"

// Along k, consecutive weights of one row are W_KSTRIDE elements apart in R:
// a row of R forward, a column of R backward (the FMA engine pads no gate, so
// the backward vector's k is R's row index).
static_assert(!BWD || MMA || KPU == H, "the FMA engine's backward k is R's row");
constexpr long W_KSTRIDE = BWD ? H : 1;

struct FmaLane {
    int lk, lr;
};

// Row handled by (row-group, lane row lr, i).
__device__ __forceinline__ int fma_row(int rg, int lr, int i) { return rg * F_RPG + lr + LR * i; }

// Where weight (k-step jj, row i) of thread tid lives in the shared or the
// streamed copy: the F_WVW weights of a vector are adjacent, and the vectors
// of one k-step are THREADS apart, so a warp's vector loads are contiguous
// (no bank conflicts, whole sectors).
__device__ __forceinline__ long fma_slot(int jj, int i, int tid)
{
    return (((long)jj * F_WV + i / F_WVW) * THREADS + tid) * F_WVW + i % F_WVW;
}

// One weight of this thread's share (zero for padding).
__device__ __forceinline__ AccT fma_weight(const T *R, int u0, int ks, int rg, int lk, int lr,
                                           int j, int i)
{
    int kk = lk + LK * j;
    int r = fma_row(rg, lr, i);
    if (kk >= F_KPW || r >= (rg + 1) * F_RPG || r >= ROWS)
        return AccT(0);
    return weight_value(R, u0, r, ks * F_KPW + kk);
}

// Where weight i of k-step j (past the register ones) goes: its shared-memory
// slot, or for a streamed k-step its slot in the block's packed global copy.
__device__ __forceinline__ void fma_store_weight(AccT v, int j, int i, int tid, int blk,
                                                 AccT *wsm, AccT *packed)
{
    long slot = fma_slot(j < KREG + KSMEM ? j - KREG : j - KREG - KSMEM, i, tid);
    if (j < KREG + KSMEM)
        wsm[slot] = v;
    else
        packed[(long)blk * KGLB * F_RPL * THREADS + slot] = v;
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
    // The forward pass keeps its own copy of this loop: written through
    // weight_index (below), its row bases changed the compiler's register
    // allocation for the whole kernel and slowed small tiles
    // (bench/NOTES.md v0.6).
    // The 16-bit rows as the register part reads them, for the
    // shared-memory fill below: a base pointer, and the count of k-steps
    // inside R (gather tiles) or of the block's units (partial sums).
    constexpr bool FILL_ROWS = BWD && sizeof(T) == 2;
    const T *fill_row[FILL_ROWS ? F_RPL : 1];
    int fill_steps[FILL_ROWS ? F_RPL : 1];
#pragma unroll
    for (int i = 0; i < F_RPL; ++i) {
        if (PSUM && sizeof(T) == 2) {
            // 16-bit weights: each load of the general form (fma_weight)
            // sat alone in a branch with its conversion to fp32, so the
            // loads ran one after another (~80 us a call at LSTM f16 H 1024,
            // bench/NOTES.md v0.26); fp32 loads are predicated instead, and
            // keep that form. Here k = g * UPB + j (no single stride along
            // k) is the k-step itself (ksplit and lanes_k are 1 with partial
            // sums): one base pointer per row, an offset known at compile
            // time per weight, and the block's count of units (the last
            // block may own fewer); the address is chosen and the load is
            // unconditional.
            const int r = fma_row(rg, lr, i);
            const bool rvalid = r < (rg + 1) * F_RPG && r < ROWS;
            const T *p = R + (long)u0 * H + (rvalid ? r : 0);
            const int units = rvalid ? (H - u0 < UPB ? H - u0 : UPB) : 0;
            fill_row[FILL_ROWS ? i : 0] = p;
            fill_steps[FILL_ROWS ? i : 0] = units;
#pragma unroll
            for (int j = 0; j < KREG; ++j) {
                const int g = j / UPB, jj = j % UPB;
                const bool ok = g < G && jj < units;
                const AccT v = ST::load(p, ok ? ((long)g * H + jj) * H : 0);
                wreg[j][i] = ok ? v : AccT(0);
            }
            continue;
        }
        if (PSUM) { // k crosses gates: no single stride along k
#pragma unroll
            for (int j = 0; j < KREG; ++j)
                wreg[j][i] = fma_weight(R, u0, ks, rg, lk, lr, j, i);
            continue;
        }
        int r = fma_row(rg, lr, i);
        int k0 = ks * F_KPW + lk;
        int kend = min(ks * F_KPW + F_KPW, KD);
        const T *p;
        bool rvalid;
        if (!BWD) {
            int u = u0 + r % UPB;
            rvalid = r < (rg + 1) * F_RPG && r < ROWS && u < H;
            p = R + ((long)(r / UPB) * H + u) * H + k0;
        } else {
            // R^T: the row is column u of R, k its row index
            long base = r < (rg + 1) * F_RPG && r < ROWS ? weight_index(u0, r, 0) : -1;
            rvalid = base >= 0;
            p = R + (rvalid ? base : 0) + (long)k0 * W_KSTRIDE;
        }
        int jmax = rvalid && kend > k0 ? (kend - k0 + LK - 1) / LK : 0;
        if (FILL_ROWS) {
            fill_row[FILL_ROWS ? i : 0] = p;
            fill_steps[FILL_ROWS ? i : 0] = jmax;
        }
        if (FILL_ROWS && !PSUM && jmax >= KREG) {
            // every register k-step of the row inside R: unconditional
            // loads at offsets known at compile time (the general form
            // below puts each 16-bit load in a branch with its conversion)
#pragma unroll
            for (int j = 0; j < KREG; ++j)
                wreg[j][i] = ST::load(p, (long)LK * W_KSTRIDE * j);
            continue;
        }
#pragma unroll
        for (int j = 0; j < KREG; ++j)
            wreg[j][i] = j < jmax ? ST::load(p, (long)LK * W_KSTRIDE * j) : AccT(0);
    }
    if constexpr (FILL_ROWS) {
        // Each 16-bit load of the general form below sits in a branch with
        // its conversion, and the shared-memory store after it waits for
        // it: one load at a time (tanh f16 H 2048 B 1: 96 a thread, ~10 us
        // of the call). Here a k-step's loads are issued first, at
        // addresses chosen (R itself outside the row's steps), then stored;
        // a partial-sum tile's k-step j is unit j % UPB of gate j / UPB.
        // Unrolled over k-steps the loads went back to one at a time
        // (bench/NOTES.md v0.27).
#pragma unroll 1
        for (int j = KREG; j < KSTEPS; ++j) {
            AccT v[F_RPL];
#pragma unroll
            for (int i = 0; i < F_RPL; ++i) {
                const int f = FILL_ROWS ? i : 0;
                bool inside;
                const T *at;
                if constexpr (PSUM) { // k = g * UPB + jj, the k-step itself
                    const int g = j / UPB, jj = j - g * UPB;
                    inside = g < G && jj < fill_steps[f];
                    at = fill_row[f] + ((long)g * H + jj) * H;
                } else {
                    inside = j < fill_steps[f];
                    at = fill_row[f] + (long)LK * W_KSTRIDE * j;
                }
                v[i] = ST::load(inside ? at : R, 0);
                v[i] = inside ? v[i] : AccT(0);
            }
#pragma unroll
            for (int i = 0; i < F_RPL; ++i)
                fma_store_weight(v[i], j, i, tid, blk, wsm, packed);
        }
    } else {
#pragma unroll 1
        for (int j = KREG; j < KSTEPS; ++j)
#pragma unroll
            for (int i = 0; i < F_RPL; ++i)
                fma_store_weight(fma_weight(R, u0, ks, rg, lk, lr, j, i), j, i, tid, blk, wsm,
                                 packed);
    }
}

// The FMA engine's view of the hand-off (rnn_handoff.cuh): the warp stages
// vector elements [k0, k0 + F_KPL*LK) of its batch chunk as hb[kk * F_BCP + b].
// Rows below lim_b come from the hand-off; rows in [lim_b, need_b) from hx
// (forward: the reverse direction picks up shorter sequences late) or zero.
struct FmaWords {
    static constexpr int N = F_KPL * LK * F_BCP;
    AccT *hb;
    const T *hx;
    const int *order; /* hx's rows (caller_seq) */
    int k0, b0, lim_b, need_b;

    __device__ __forceinline__ int source(int w, long &word, u64 &value) const
    {
        const int b = w % F_BCP, kk = w / F_BCP;
        const int k = k0 + kk, gb = b0 + b;
        if (kk >= F_KPW || k >= KD || b >= BC || gb >= need_b)
            return WORD_NONE;
        if (gb < lim_b) {
            word = ex_fma(k, gb);
            return WORD_HANDOFF;
        }
        if (!hx)
            return WORD_NONE;
        AccT h0 = ST::load(hx, (long)caller_seq(order, gb) * H + k);
        value = sizeof(AccT) == 8 ? (u64)__double_as_longlong((double)h0)
                                  : (u64)__float_as_uint((float)h0);
        return WORD_LOCAL;
    }

    __device__ __forceinline__ void stage(int w, u64 value) const
    {
        hb[w] = sizeof(AccT) == 8 ? (AccT)__longlong_as_double((long long)value)
                                  : (AccT)__uint_as_float((u32)value);
    }
};

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

// The k-steps whose weights are read each step, from w: shared memory, or
// (STREAMED) this block's share of the packed copy in global memory. The
// shared ones are unrolled by 2, not 4: by 4, tiles with several shared
// k-steps and many register weights reach the register limit and run slower
// (bench/NOTES.md v0.5).
template <bool STREAMED>
__device__ __forceinline__ void fma_k_steps(AccT (&acc)[F_RPL][F_BCP], const AccT *w_src,
                                            const AccT *hb, int lk, int tid)
{
    constexpr int UNROLL = STREAMED ? 4 : 2;
#pragma unroll UNROLL
    for (int j = 0; j < (STREAMED ? KGLB : KSMEM); ++j) {
        AccT w[F_RPL];
#pragma unroll
        for (int v = 0; v < F_WV; ++v) {
            if (STREAMED)
                VecLoad<F_WVW>::run_cg(w_src + fma_slot(j, v * F_WVW, tid), w + v * F_WVW);
            else
                VecLoad<F_WVW>::run(w_src + fma_slot(j, v * F_WVW, tid), w + v * F_WVW);
        }
        fma_kstep(acc, w, hb + (lk + LK * (KREG + (STREAMED ? KSMEM : 0) + j)) * F_BCP);
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
    fma_k_steps<false>(acc, wsm, hb, lk, tid);
    fma_k_steps<true>(acc, packed + (long)blk * KGLB * F_RPL * THREADS, hb, lk, tid);
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
