// The MMA engine (fp16 / bf16 on sm_80+): mma.sync m16n8k16 with the block's
// weights as the A operand, held in registers (then shared memory, then
// streamed), and the staged vector as B; fp32 accumulation. Used by both
// passes (rnn_config.cuh: rows, K and the weight view).
#pragma once

#include "rnn_handoff.cuh"

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
#pragma unroll
    for (int half = 0; half < 2; ++half) { // k, k+8
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            int r = rows[rr];
            bool valid = r < (rg + 1) * M_RPG && r < ROWS;
            int k = kc + half * 8;
            if (!BWD) { // the original kernel's form (see weight_value)
                int g = valid ? r / UPB : G, u = u0 + r % UPB;
                a[half * 2 + rr] = pack2(weight_bits_at(R, g, u, k), weight_bits_at(R, g, u, k + 1));
            } else if (PSUM) {
                // R[(g*H + u0 + j)*H + r] with k = g*UPB + j (weight_index),
                // offsets from row u0 of R, the address chosen and the load
                // unconditional: the general form below loaded this tile's
                // 16-bit R about as one load at a time (66 us a call at LSTM
                // f16 H 1024 B 16, 32 so: bench/NOTES.md v0.26)
                const unsigned short *Rb = reinterpret_cast<const unsigned short *>(R) + (long)u0 * H;
                unsigned short b[2];
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int g = (k + e) / UPB, j = (k + e) - g * UPB;
                    const bool ok = valid && g < G && u0 + j < H;
                    const unsigned short v = Rb[ok ? (long)(g * H + j) * H + r : 0];
                    b[e] = ok ? v : (unsigned short)0;
                }
                a[half * 2 + rr] = pack2(b[0], b[1]);
            } else {
                a[half * 2 + rr] =
                    valid ? pack2(weight_bits(R, u0, r, k), weight_bits(R, u0, r, k + 1)) : 0u;
            }
        }
    }
}

__device__ __forceinline__ void mma_load_weights(u32 (&areg)[KREG > 0 ? KREG : 1][M_RT][4],
                                                 uint4 *wsm, uint4 *packed, const T *R, int u0,
                                                 int ks, int rg, int lane, int tid, int blk)
{
    if (!BWD) {
        // Forward register k-steps: per fragment row a base pointer, then one
        // 32-bit load (even H) or two 16-bit loads per register, so the
        // unrolled loop stays small for the compiler.
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
    } else {
        // Backward: R^T's pairs along k are two rows of R apart; loaded once
        // per call, element by element.
#pragma unroll
        for (int kt = 0; kt < KREG; ++kt)
#pragma unroll
            for (int rt = 0; rt < M_RT; ++rt)
                mma_fragment(areg[kt][rt], R, u0, rg, rt, ks * M_KTW + kt, lane);
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

// The MMA engine's view of the hand-off (rnn_handoff.cuh): the warp stages
// the pairs of its K-range for its batch chunk as hb[n * M_HBS + pair] =
// (v[2p], v[2p+1]) of batch row b0 + n. Rows below lim_b come from the
// hand-off; rows in [lim_b, need_b) from hx, or zero.
struct MmaWords {
    static constexpr int PAIRS = M_KPW / 2;
    static constexpr int N = M_NTN * 8 * PAIRS;
    u32 *hb;
    const T *hx;
    const int *order; /* hx's rows (caller_seq) */
    int p0, b0, lim_b, need_b;

    __device__ __forceinline__ int source(int w, long &word, u64 &value) const
    {
        const int n = w / PAIRS, pair = p0 + w % PAIRS, gb = b0 + n;
        if (n >= BC || pair >= KD2 / 2 || gb >= need_b)
            return WORD_NONE;
        if (gb < lim_b) {
            word = ex_mma(pair, gb);
            return WORD_HANDOFF;
        }
        if (!hx)
            return WORD_NONE;
        const int k = 2 * pair;
        const unsigned short *hxb = (const unsigned short *)hx + (long)caller_seq(order, gb) * H;
        unsigned short lo = hxb[k];
        unsigned short hi = k + 1 < H ? hxb[k + 1] : 0;
        value = pack2(lo, hi);
        return WORD_LOCAL;
    }

    __device__ __forceinline__ void stage(int w, u64 value) const
    {
        hb[(w / PAIRS) * M_HBS + (w % PAIRS)] = (u32)value;
    }
};

// acc += the weights a of k-step kt times its pairs of the staged vector,
// every row tile by every batch tile.
__device__ __forceinline__ void mma_kstep(float (&acc)[M_RT][M_NTN][4], const u32 (&a)[M_RT][4],
                                          const u32 *hl, int kt)
{
#pragma unroll
    for (int nt = 0; nt < M_NTN; ++nt) {
        u32 b0 = hl[nt * 8 * M_HBS + kt * 8];
        u32 b1 = hl[nt * 8 * M_HBS + kt * 8 + 4];
#pragma unroll
        for (int rt = 0; rt < M_RT; ++rt)
            prnn_mma<T>::run(acc[rt][nt], a[rt], b0, b1);
    }
}

// The k-steps whose weights are read each step: from shared memory, or
// (STREAMED) from this block's share of the packed copy in global memory.
template <bool STREAMED>
__device__ __forceinline__ void mma_k_steps(float (&acc)[M_RT][M_NTN][4], const uint4 *wsm,
                                            const uint4 *packed, const u32 *hl, int tid, int blk)
{
#pragma unroll 2
    for (int j = 0; j < (STREAMED ? KGLB : KSMEM); ++j) {
        int kt = KREG + (STREAMED ? KSMEM : 0) + j;
        u32 a[M_RT][4];
        const uint4 *src = packed + ((long)blk * KGLB + j) * M_RT * THREADS + tid;
#pragma unroll
        for (int rt = 0; rt < M_RT; ++rt) {
            uint4 v = STREAMED ? __ldcg(src + rt * THREADS) : wsm[(j * M_RT + rt) * THREADS + tid];
            a[rt][0] = v.x;
            a[rt][1] = v.y;
            a[rt][2] = v.z;
            a[rt][3] = v.w;
        }
        mma_kstep(acc, a, hl, kt);
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
    for (int kt = 0; kt < KREG; ++kt)
        mma_kstep(acc, areg[kt], hl, kt);
    mma_k_steps<false>(acc, wsm, packed, hl, tid, blk);
    mma_k_steps<true>(acc, wsm, packed, hl, tid, blk);
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
