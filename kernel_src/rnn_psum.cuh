// The backward-data pass's partial-sum hand-off (PRNN_PSUM 1).
//
// Without it, every block needs the gate gradients of every unit (G values
// per unit) to form dh for its own units: each block reads G * H words per
// batch row and step, G times the forward pass's hand-off. With it, block i
// multiplies its own units' gate gradients by its own rows of R, which gives
// its share of dh for all H units (R^T restricted to its gate rows: the
// product's rows are the H units, its K the block's G * UPB gradients), and
// sends each block the share of that block's units. A block then reads H
// words per row (NBLK senders x UPB units), the forward's volume, and sums
// them in a fixed order (the same bits every run). It writes H words per row
// instead of G * UPB; every word written is read once, by one block.
//
// Words: (word row, sender, unit) with the unit fastest (psum_word): one
// value per word with the FMA engine; with the MMA engine the values of two
// batch rows of one unit in the storage type, as the gate gradients travel
// without partial sums (one fp32 value per word doubled the words and took
// 1.7 times as long at H 1024, B 16: bench/NOTES.md v0.12).
#pragma once

#include "rnn_block.cuh"

static_assert(PSUM, "rnn_psum.cuh is the partial-sum hand-off");

// Batch rows per word.
constexpr int PS_RW = MMA ? 2 : 1;
// Senders one thread requests at once.
constexpr int PS_PW = PS_SPAN < POLL_MAX ? PS_SPAN : POLL_MAX;

// Word of (word row pr of chunk c of group grp, sender, receiving unit u).
__device__ __forceinline__ long psum_word(int grp, int c, int pr, int sender, int u)
{
    return (((long)(grp * NCH + c) * PS_ROWS + pr) * NBLK + sender) * H + u;
}

// Adds the value(s) a hand-off word carries: rows 2pr, 2pr + 1 (MMA), row
// pr (FMA, `hi` unused).
__device__ __forceinline__ void psum_add(u64 v, AccT &lo, AccT &hi)
{
#if PRNN_MMA
    lo += ST::from_bits((unsigned short)(v & 0xffffu));
    hi += ST::from_bits((unsigned short)((v >> 16) & 0xffffu));
#else
    lo += sizeof(AccT) == 8 ? (AccT)__longlong_as_double((long long)v)
                            : (AccT)__uint_as_float((u32)v);
#endif
}

// Sums what every block sent this block for the rows of chunk c below lim_b
// (the previous step's rows, parity par, tag `want`) and returns red, where
// red[(slice * BC + b) * UPB + j] holds slice `slice`'s sum for unit u0 + j
// and row b of the chunk, complete for every thread (after a barrier). Each
// thread sums its senders in ascending order; the cell sums the slices in
// order. A chunk whose rows all finished sends nothing, so no barrier
// follows its cell's reads of red: with two buffers, the next chunk's
// barrier comes between those reads and the writes of the chunk after it;
// with one, a barrier first.
__device__ __forceinline__ const AccT *psum_gather(Block &k, const void *exchange, int par,
                                                   unsigned want, const unsigned *counter,
                                                   unsigned counter_target, int c, int b0,
                                                   int lim_b)
{
    AccT *red = k.red_base + k.red_flip * (SM_RED1 / (int)sizeof(AccT));
    if (RED_BUFS == 2)
        k.red_flip ^= 1;
    else
        __syncthreads();
    if (HANDOFF == 1 && b0 < lim_b)
        counter_wait(counter, counter_target);
    // Whole warps walk the items, every lane the same number of senders, so
    // that the spin in lamport_settle is warp-uniform (rnn_handoff.cuh).
    constexpr int TOTAL = PS_ITEMS * PS_SLICES;
#pragma unroll 1
    for (int idx0 = k.tid - k.lane; idx0 < TOTAL; idx0 += THREADS) {
        const int idx = idx0 + k.lane;
        const int item = idx % PS_ITEMS, slice = idx / PS_ITEMS;
        const int j = item % UPB, pr = item / UPB;
        const int u = k.u0 + j;
        const bool wanted = idx < TOTAL && u < H && b0 + pr * PS_RW < lim_b;
        const int s0 = slice * PS_SPAN;
        const int s1 = s0 + PS_SPAN < NBLK ? s0 + PS_SPAN : NBLK;
        AccT lo = AccT(0), hi = AccT(0);
#pragma unroll 1
        for (int sj = 0; sj < PS_SPAN; sj += PS_PW) {
            const int sb = s0 + sj;
            u64 v[PS_PW];
            const u64 *addr[PS_PW];
            unsigned pending = 0;
#pragma unroll
            for (int q = 0; q < PS_PW; ++q) {
                v[q] = 0;
                addr[q] = 0;
                if (!wanted || sb + q >= s1)
                    continue;
                const long word = par * EX_PAR + psum_word(k.grp, c, pr, sb + q, u);
                if (HANDOFF == 0) {
                    addr[q] = (const u64 *)exchange + word;
                    v[q] = prnn_ld_relaxed_u64(addr[q]);
                    pending |= 1u << q;
                } else if (!MMA && sizeof(AccT) == 8) {
                    v[q] = (u64)__double_as_longlong(
                        prnn_ld_relaxed_f64((const double *)exchange + word));
                } else {
                    v[q] = prnn_ld_relaxed_u32((const u32 *)exchange + word);
                }
            }
            if (HANDOFF == 0)
                lamport_settle<PS_PW>(v, addr, pending, want);
#pragma unroll
            for (int q = 0; q < PS_PW; ++q)
                if (wanted && sb + q < s1)
                    psum_add(v[q], lo, hi);
        }
        if (idx >= TOTAL)
            continue;
        red[(slice * BC + pr * PS_RW) * UPB + j] = lo;
        if (PS_RW == 2 && pr * 2 + 1 < BC)
            red[(slice * BC + pr * 2 + 1) * UPB + j] = hi;
    }
    __syncthreads();
    return red;
}

// dh through R for unit j (of the block) and row b (of the chunk).
__device__ __forceinline__ AccT psum_dh(const AccT *red, int b, int j)
{
    AccT s = AccT(0);
#pragma unroll
    for (int slice = 0; slice < PS_SLICES; ++slice)
        s += red[(slice * BC + b) * UPB + j];
    return s;
}

// An item's gate gradients (units ju * VEC + v, row b of the chunk) into the
// vector the block multiplies: hb[k * F_BCP + b] (FMA), the pair of units
// (k, k+1) of row b at hb[b * M_HBS + k / 2] (MMA), k = g * UPB + unit. The
// first G of the DG columns are the recurrent side (GRU keeps a fourth).
template <int DG>
__device__ __forceinline__ void psum_stage(const Block &k, int ju, int b, const AccT (&dgv)[VEC][DG])
{
#if PRNN_MMA
    u32 *hb = (u32 *)k.sm_hb;
#pragma unroll
    for (int g = 0; g < G; ++g)
        hb[b * M_HBS + (g * UPB) / 2 + ju] = pack2(ST::bits(dgv[0][g]), ST::bits(dgv[1][g]));
#else
    AccT *hb = (AccT *)k.sm_hb;
#pragma unroll
    for (int g = 0; g < G; ++g)
        hb[(g * UPB + ju) * F_BCP + b] = dgv[0][g];
#endif
}

// Zeroes the staging buffer once: its padding (k beyond G * UPB, rows beyond
// the chunk) meets zero weights, and 0 * NaN would not be zero.
__device__ __forceinline__ void psum_init(const Block &k)
{
    for (int i = k.tid; i < HB_BYTES / 4; i += THREADS)
        ((u32 *)k.sm_hb)[i] = 0u;
    __syncthreads();
}

// The staged gradients of chunk c times the block's rows of R, sent to every
// block: the words of the rows below lim_b (this step's), tag `tag`, parity
// par. Starts with the barrier that completes the staging.
__device__ __forceinline__ void psum_send(const Block &k, const RegWeights &wr, const void *packed,
                                          void *exchange, int par, unsigned tag, int c, int b0,
                                          int lim_b)
{
    __syncthreads();
#if PRNN_MMA
    float acc[M_RT][M_NTN][4];
    mma_compute(acc, wr, (const uint4 *)k.sm_w, (const uint4 *)packed, (const u32 *)k.sm_hb,
                k.lane, k.tid, k.pblk);
    // acc[rt][nt][q]: row (unit) rt*16 + lane/4 (+8 for q >= 2), batch
    // columns nt*8 + (lane%4)*2 and the next (q odd): the m16n8 accumulator
    // layout, so a thread holds the two rows of its words.
#pragma unroll
    for (int rt = 0; rt < M_RT; ++rt)
#pragma unroll
        for (int nt = 0; nt < M_NTN; ++nt)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int r = k.rg * M_RPG + rt * 16 + k.lane / 4 + half * 8;
                const int n = nt * 8 + (k.lane % 4) * 2;
                if (r < H && n < BC && b0 + n < lim_b)
                    handoff_publish_pair(exchange, par, psum_word(k.grp, c, n / 2, k.blk, r), tag,
                                         pack2(ST::bits(acc[rt][nt][half * 2]),
                                               ST::bits(acc[rt][nt][half * 2 + 1])));
            }
#else
    AccT acc[F_RPL][F_BCP];
    fma_compute(acc, wr, (const AccT *)k.sm_w, (const AccT *)packed, (const AccT *)k.sm_hb, 0,
                k.tid, k.pblk);
#pragma unroll
    for (int i = 0; i < F_RPL; ++i) {
        const int r = fma_row(k.rg, k.lr, i);
        if (r >= (k.rg + 1) * F_RPG || r >= H)
            continue;
#pragma unroll
        for (int b = 0; b < BC; ++b)
            if (b0 + b < lim_b)
                handoff_publish(exchange, par, psum_word(k.grp, c, b, k.blk, r), tag, acc[i][b]);
    }
#endif
}
