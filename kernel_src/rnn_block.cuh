// One block of a persistent kernel, whichever pass: where it sits (direction,
// batch group, hidden units, warp roles), its share of the weights on-chip
// (engines: rnn_fma.cuh, rnn_mma.cuh), and per batch chunk and step the
// product of the vector waited for through the hand-off by those weights,
// left as partial sums in shared memory for the cell.
#pragma once

#include "rnn_fma.cuh"
#include "rnn_mma.cuh"

struct Block {
    int dir, grp, blk;
    int gbase; // this group's first batch row
    int pblk;  // this block's share of the packed (streamed) weights
    int tid, lane, warp;
    int ks, rg; // the warp's K-range and row group
    int lk, lr; // the lane's place in the FMA engine's rows x K split
    int u0;     // first hidden unit
    unsigned char *sm_w, *sm_hb;
    AccT *red_base;
    int red_flip; // which partial-sum buffer the next chunk uses
};

// A thread's register-held weights (kept out of Block: with them inside, the
// compiler split the struct into registers less cleanly and the forward
// kernel's step took more instructions: bench/NOTES.md v0.6).
#if PRNN_MMA
typedef u32 RegWeights[KREG > 0 ? KREG : 1][M_RT][4];
#else
typedef AccT RegWeights[KREG > 0 ? KREG : 1][F_RPL];
#endif

__device__ __forceinline__ void block_init(Block &k, unsigned char *smem)
{
    k.dir = blockIdx.x / (NGRP * NBLK);
    k.grp = blockIdx.x % (NGRP * NBLK) / NBLK;
    k.blk = blockIdx.x % NBLK;
    k.gbase = k.grp * GSTRIDE;
    k.pblk = k.grp * NBLK + k.blk;
    k.tid = threadIdx.x;
    k.lane = k.tid & 31;
    k.warp = k.tid >> 5;
    k.ks = k.warp % KSPLIT;
    k.rg = k.warp / KSPLIT;
    k.lk = k.lane % LK; // the MMA engine has no lane split
    k.lr = k.lane / LK;
    k.u0 = k.blk * UPB;
    k.sm_w = smem;
    k.sm_hb = smem + SM_W + (PSUM ? 0 : k.warp * HB_BYTES);
    k.red_base = (AccT *)(smem + SM_W + SM_HB);
    k.red_flip = 0;
}

// The weights on-chip (and the streamed rest packed), once per call.
__device__ __forceinline__ void block_load_weights(const Block &k, RegWeights &wr, const T *R,
                                                   void *packed)
{
#if PRNN_MMA
    mma_load_weights(wr, (uint4 *)k.sm_w, (uint4 *)packed, R, k.u0, k.ks, k.rg, k.lane, k.tid,
                     k.pblk);
#else
    fma_load_weights(wr, (AccT *)k.sm_w, (AccT *)packed, R, k.u0, k.ks, k.rg, k.lk, k.lr,
                     k.tid, k.pblk);
    // Padding columns of the staging buffer stay zero forever.
    for (int i = k.lane; i < HB_ELEMS; i += 32)
        ((AccT *)k.sm_hb)[i] = AccT(0);
#endif
}

// The arguments of a block's direction made its group's: the hand-off
// (HANDOFF 2: in this block's shared memory) and the step counter
// (hand-off 1: one per group).
template <class DirArgs>
__device__ __forceinline__ void block_group_args(const Block &k, unsigned char *smem, DirArgs &d)
{
    if (HANDOFF == 2)
        d.exchange = smem + SM_EX_OFFSET;
    d.counter += k.grp;
}

// The product for batch chunk b0 of one step: waits for the vector of the
// previous step (rows below lim_b from the hand-off's parity par_prev, tag
// `want`; rows in [lim_b, need_b) from hx, at their caller's rows
// (caller_seq: a row's first step only), zero without it), multiplies it by
// the block's weights, and returns the partial sums red[(ks * BC + b) *
// ROWSP + row], complete for every thread (after a barrier).
__device__ __forceinline__ const AccT *block_product(Block &k, const RegWeights &wr,
                                                    const void *exchange,
                                                    const T *hx, const int *order,
                                                    const void *packed, int b0,
                                                    int lim_b, int need_b, int par_prev,
                                                    unsigned want, const unsigned *counter,
                                                    unsigned counter_target)
{
#if PRNN_MMA
    u32 *hb = (u32 *)k.sm_hb;
    const MmaWords words = {hb, hx, order, k.ks * MmaWords::PAIRS, b0, lim_b, need_b};
    handoff_poll(words, exchange, par_prev, want, k.lane, counter, lim_b > 0, counter_target);
    __syncwarp();
    float acc[M_RT][M_NTN][4];
    mma_compute(acc, wr, (const uint4 *)k.sm_w, (const uint4 *)packed, hb, k.lane, k.tid,
                k.pblk);
    __syncwarp();
    AccT *red = k.red_base + k.red_flip * (SM_RED1 / (int)sizeof(AccT));
    if (RED_BUFS == 1)
        __syncthreads(); // the previous chunk's cell has read `red`
    mma_write_partials(red, acc, k.ks, k.rg, k.lane);
#else
    AccT *hb = (AccT *)k.sm_hb;
    const FmaWords words = {hb, hx, order, k.ks * F_KPW, b0, lim_b, need_b};
    handoff_poll(words, exchange, par_prev, want, k.lane, counter, lim_b > 0, counter_target);
    __syncwarp();
    AccT acc[F_RPL][F_BCP];
    fma_compute(acc, wr, (const AccT *)k.sm_w, (const AccT *)packed, hb, k.lk, k.tid, k.pblk);
    __syncwarp();
    AccT *red = k.red_base + k.red_flip * (SM_RED1 / (int)sizeof(AccT));
    if (RED_BUFS == 1)
        __syncthreads(); // the previous chunk's cell has read `red`
    fma_write_partials(red, acc, k.ks, k.rg, k.lk, k.lr);
#endif
    __syncthreads(); // partials complete
    if (RED_BUFS == 2)
        k.red_flip ^= 1;
    return red;
}

// Per-item state of every batch chunk, and the chunk's own in fixed
// registers: the chunk index is not a compile-time constant, so the state
// moves in and out with predicated moves rather than being indexed at run
// time (which would put it in local memory).
typedef AccT ChunkState[NCH][NI][VEC];
typedef AccT ItemState[NI][VEC];

// Which way chunk_copy moves a chunk's state: into the chunk's own
// registers, or back into the state of every chunk.
enum ChunkCopy { CHUNK_GET, CHUNK_PUT };

template <ChunkCopy WAY>
__device__ __forceinline__ void chunk_copy(ChunkState &chunks, ItemState &item, int c)
{
#pragma unroll
    for (int cc = 0; cc < NCH; ++cc)
        if (cc == c)
#pragma unroll
            for (int q = 0; q < NI; ++q)
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    if (WAY == CHUNK_GET)
                        item[q][v] = chunks[cc][q][v];
                    else
                        chunks[cc][q][v] = item[q][v];
                }
}

// The caller's sequence of each item's batch row (caller_seq), every chunk,
// loaded once before the steps (prnn_device.cuh says why); items past the
// block's rows take 0. Without PRNN_CALLER_ROWS nothing is loaded or held:
// an item's sequence is its row (item_seq, chunk_item_seq).
typedef int ChunkSeqs[NCH][NI];
typedef int ItemSeqs[NI];

__device__ __forceinline__ void chunk_seqs_load(ChunkSeqs &seqs, const int *order, int gbase,
                                                int tid)
{
#if PRNN_CALLER_ROWS
#pragma unroll
    for (int c = 0; c < NCH; ++c)
#pragma unroll
        for (int q = 0; q < NI; ++q) {
            const int it = tid + THREADS * q, b = it / UI, gb = gbase + c * BC + b;
            seqs[c][q] = it < NIT && b < BC && gb < BMAX ? caller_seq(order, gb) : 0;
        }
#endif
}

__device__ __forceinline__ void chunk_seqs_get(const ChunkSeqs &seqs, ItemSeqs &item, int c)
{
#if PRNN_CALLER_ROWS
#pragma unroll
    for (int cc = 0; cc < NCH; ++cc)
        if (cc == c)
#pragma unroll
            for (int q = 0; q < NI; ++q)
                item[q] = seqs[cc][q];
#endif
}

// Item q's sequence (row gb) in the chunk chunk_seqs_get filled, and in
// chunk c of every chunk's.
__device__ __forceinline__ int item_seq(const ItemSeqs &item, int q, int gb)
{
    return PRNN_CALLER_ROWS ? item[q] : gb;
}

__device__ __forceinline__ int chunk_item_seq(const ChunkSeqs &seqs, int c, int q, int gb)
{
    return PRNN_CALLER_ROWS ? seqs[c][q] : gb;
}
