// The hand-off between the blocks of a batch group: every step each block
// publishes its share of the vector the next step multiplies (h_t forward,
// the gate gradients backward) and waits for everyone else's, through L2,
// never resetting within a call:
//  HANDOFF 0: "Lamport" 64-bit words carrying (step tag, value): readers
//    spin on the data itself, no flag round trip;
//  HANDOFF 1: plain values + a release/acquire step counter per direction
//    and batch group (needed for fp64, whose value fills a whole word);
//  HANDOFF 2: a group of one block (the small-h engine): plain values in the
//    block's shared memory, a barrier instead of the L2 round trip.
// Double-buffered by step parity: a block can only write step s+1 after
// every block of its group has finished step s, hence finished reading s-1.
#pragma once

#include "rnn_config.cuh"

// Word of vector element k of batch row gb in one parity of the FMA engine's
// buffer: group-major, then k, then the group's rows, so that a warp's poll
// reads whole sectors.
__device__ __forceinline__ long ex_fma(int k, int gb)
{
    if (HANDOFF == 2)
        return (long)k * GSTRIDE + gb % GSTRIDE;
    const int gbase = gb / GSTRIDE * GSTRIDE;
    return (long)gbase * KD + (long)k * GSTRIDE + (gb - gbase);
}

// Word of the pair (2p, 2p+1) of batch row gb in the MMA engine's buffer.
__device__ __forceinline__ long ex_mma(int pair, int gb)
{
    return (long)(HANDOFF == 2 ? gb % GSTRIDE : gb) * (KD2 / 2) + pair;
}

// One value (FMA engine) published for step tag `tag` into parity `par`.
__device__ __forceinline__ void handoff_publish(void *exchange, int par, long word, unsigned tag,
                                                AccT value)
{
    if (HANDOFF == 2) {
        ((AccT *)exchange)[par * EX_PAR + word] = value;
    } else if (HANDOFF == 0) {
        u64 *dst = (u64 *)exchange + par * EX_PAR + word;
        prnn_st_relaxed_u64(dst, ((u64)tag << 32) | __float_as_uint((float)value));
    } else {
        AccT *dst = (AccT *)exchange + par * EX_PAR + word;
        *(volatile AccT *)dst = value;
    }
}

// A pair of 16-bit values (MMA engine) published likewise.
__device__ __forceinline__ void handoff_publish_pair(void *exchange, int par, long word,
                                                     unsigned tag, u32 bits)
{
    if (HANDOFF == 2) {
        ((u32 *)exchange)[par * EX_PAR + word] = bits;
    } else if (HANDOFF == 0) {
        u64 *dst = (u64 *)exchange + par * EX_PAR + word;
        prnn_st_relaxed_u64(dst, ((u64)tag << 32) | bits);
    } else {
        u32 *dst = (u32 *)exchange + par * EX_PAR + word;
        *(volatile u32 *)dst = bits;
    }
}

// Every spin in the persistent kernels is warp-uniform: the lanes of a warp
// leave it together, on a vote. A lane that left a spin on its own (its
// words arrived first) left the warp diverged at the barrier and shuffles
// after it, which the compiled code takes for converged (its SASS had no
// WARPSYNC for the __syncwarp after the poll): synccheck saw the warp reach
// __syncthreads divergent, racecheck saw the partial sums read across that
// barrier as they were written, and the backward-data kernel returned wrong
// gradients or never finished (bench/NOTES.md v0.13). Both functions below
// must be called by all 32 lanes of the warp.

// Waits until every pending Lamport word carries the wanted tag, re-reading
// all the lane's missing words each round: they come from different
// producer blocks, and waiting for one before asking for the next would cost
// an L2 round trip each (bench/NOTES.md v0.3).
template <int PW>
__device__ __forceinline__ void lamport_settle(u64 (&v)[PW], const u64 *const (&addr)[PW],
                                               unsigned pending, unsigned want)
{
    for (;;) {
#pragma unroll
        for (int q = 0; q < PW; ++q)
            if ((pending & (1u << q)) && (unsigned)(v[q] >> 32) == want)
                pending &= ~(1u << q);
        if (!__any_sync(0xffffffffu, pending != 0))
            return;
#pragma unroll
        for (int q = 0; q < PW; ++q)
            if (pending & (1u << q))
                v[q] = prnn_ld_relaxed_u64(addr[q]);
    }
}

// Waits until the group's step counter reaches target (HANDOFF 1). Every
// lane acquires it itself: its own loads of the values come after.
__device__ __forceinline__ void counter_wait(const unsigned *counter, unsigned target)
{
    while (__any_sync(0xffffffffu, prnn_ld_acquire_u32(counter) < target)) {
    }
}

// Where a lane's staging element comes from (HandoffWords::source).
enum { WORD_NONE = 0, WORD_HANDOFF = 1, WORD_LOCAL = 2 };

// The one poll skeleton of both engines: stages the N words of a warp's
// K-range and batch chunk, where each engine's `Words` says which hand-off
// word (or local value: hx for rows that start now) element w is and where
// it goes in the staging buffer:
//   static constexpr int N;
//   int source(int w, long &word, u64 &value) const;   WORD_*
//   void stage(int w, u64 value) const;
// Every word a lane polls is requested before any is checked (up to
// POLL_MAX): each further group would cost one more L2 round trip.
template <class Words>
__device__ __forceinline__ void handoff_poll(const Words &words, const void *exchange, int par,
                                             unsigned want, int lane, const unsigned *counter,
                                             bool wait_counter, unsigned counter_target)
{
    constexpr int N = Words::N;
    constexpr int PW = ceil_div(N, 32) < POLL_MAX ? ceil_div(N, 32) : POLL_MAX;
    if (HANDOFF == 2) {
        // The block's own stores of the previous step, in shared memory:
        // every thread comes here for every chunk, so one barrier orders them.
        __syncthreads();
#pragma unroll 1
        for (int w = lane; w < N; w += 32) {
            long word = 0;
            u64 v = 0;
            if (words.source(w, word, v) == WORD_HANDOFF) {
                if (MMA)
                    v = ((const u32 *)exchange)[par * EX_PAR + word];
                else if (sizeof(AccT) == 8)
                    v = (u64)__double_as_longlong((double)((const AccT *)exchange)[par * EX_PAR + word]);
                else
                    v = __float_as_uint((float)((const AccT *)exchange)[par * EX_PAR + word]);
            }
            words.stage(w, v);
        }
        return;
    }
    if (HANDOFF == 1 && wait_counter)
        counter_wait(counter, counter_target);
#pragma unroll 1
    for (int w0 = 0; w0 < N; w0 += 32 * PW) {
        u64 v[PW];
        const u64 *addr[PW];
        unsigned pending = 0;
#pragma unroll
        for (int q = 0; q < PW; ++q) {
            const int w = w0 + 32 * q + lane;
            v[q] = 0;
            addr[q] = 0;
            long word = 0;
            if (w < N && words.source(w, word, v[q]) == WORD_HANDOFF) {
                if (HANDOFF == 0) {
                    addr[q] = (const u64 *)exchange + par * EX_PAR + word;
                    v[q] = prnn_ld_relaxed_u64(addr[q]);
                    pending |= 1u << q;
                } else if (!MMA && sizeof(AccT) == 8) {
                    const double *src = (const double *)exchange + par * EX_PAR + word;
                    v[q] = (u64)__double_as_longlong(prnn_ld_relaxed_f64(src));
                } else {
                    const u32 *src = (const u32 *)exchange + par * EX_PAR + word;
                    v[q] = prnn_ld_relaxed_u32(src);
                }
            }
        }
        if (HANDOFF == 0)
            lamport_settle<PW>(v, addr, pending, want);
#pragma unroll
        for (int q = 0; q < PW; ++q) {
            const int w = w0 + 32 * q + lane;
            if (w < N)
                words.stage(w, v[q]);
        }
    }
}
