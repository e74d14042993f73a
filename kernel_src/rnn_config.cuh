// The persistent kernels' geometry: every shape parameter is a compile-time
// constant (-D from the planner), so register arrays are indexed by
// constants and loops unroll. src/gpu/engines/persistent/kernel_geometry.c
// is the host's mirror of this arithmetic; the planner passes its results as
// PRNN_SMEM_BYTES, PRNN_KSTEPS, PRNN_WPK, PRNN_EX_BYTES and
// PRNN_PACKED_BYTES and the static_asserts below compare them, so the two
// cannot drift apart silently.
//
// Both passes multiply a vector of length KD by a block's ROWS rows of a
// matrix every step:
//  - forward (PRNN_PASS 0): rows = every gate of the block's units (R), the
//    vector h_{t-1} (KD = H);
//  - backward-data (PRNN_PASS 1): rows = the block's units (R^T), the vector
//    the gate gradients of the step after (KD = G * KPU): the block computes
//    dh for its own units, needing every block's gate gradients;
//  - backward-data with partial sums (PRNN_PSUM 1, rnn_psum.cuh): rows =
//    every hidden unit (R^T restricted to the block's gate rows), the vector
//    the block's own gate gradients (KD = G * UPB): the block computes its
//    share of dh for every unit, and the blocks exchange those partial sums.
// Names (src/tuning/tile_config.h has the knobs):
//  - NGRP batch groups per direction, each on NBLK blocks with its own copy
//    of the weights, running GSTRIDE batch rows; block i owns hidden units
//    [i*UPB, (i+1)*UPB) with all their gates, so the cell is local;
//  - warp w takes K-range (w % KSPLIT) and row group (w / KSPLIT); partial
//    products meet in shared memory (`red`), where each thread then runs the
//    cell for its fixed (unit, batch) items;
//  - a thread's weights are k-steps: KREG in registers, KSMEM in shared
//    memory, KGLB re-read every step from a packed copy in global memory;
//  - two engines: FMA (lanes split rows x K) and MMA (mma.sync m16n8k16 with
//    the weights as A in registers and the vector as B; fp16/bf16 on sm_80+).
#pragma once

#include "prnn_kernel_abi.h"
#include "rnn_types.cuh"

namespace cfg {
// Macros, not constexpr functions: NVRTC treats an unannotated function as
// host code, which JIT mode rejects.
#define ceil_div(a, b) (((a) + (b)-1) / (b))
#define round_up(a, b) (ceil_div(a, b) * (b))

constexpr int MODE = PRNN_MODE;
constexpr int G = PRNN_KMODE_GATES(MODE);
constexpr bool BWD = PRNN_PASS == PRNN_KPASS_BACKWARD_DATA;
#ifndef PRNN_PSUM
#define PRNN_PSUM 0
#endif
constexpr bool PSUM = BWD && PRNN_PSUM != 0;
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
constexpr int ACC_WORDS = sizeof(AccT) / 4;

// One gate's share of the backward vector: padded to even for the mma
// engine, whose 32-bit words carry pairs, so that no pair straddles gates.
constexpr int KPU = MMA ? round_up(H, 2) : H;
constexpr int KD = PSUM ? G * UPB : BWD ? G * KPU : H;
constexpr int KD2 = round_up(KD, 2);
constexpr int GOUT = BWD ? 1 : G; // rows per unit
constexpr int ROWS = PSUM ? H : GOUT * UPB;

// FMA engine geometry.
constexpr int LK = MMA ? 1 : PRNN_LANES_K;
constexpr int LR = 32 / LK;
constexpr int F_RPG = ceil_div(ROWS, RSPLIT);
constexpr int F_RPL = ceil_div(F_RPG, LR);
constexpr int F_KPW = ceil_div(KD, KSPLIT);
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
constexpr int M_KT = ceil_div(KD2, 16);
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
// With partial sums every warp multiplies the same vector (the block's own
// gate gradients): one staging buffer for all.
constexpr int SM_HB = (PSUM ? 1 : NW) * HB_BYTES;
// Partial sums with PSUM: what the blocks sent, summed per slice of the
// senders (PS_SLICES threads share one (unit, word row) item:
// rnn_psum.cuh). Batch rows travel in pairs with the MMA engine (a word
// holds the values of two rows of one unit), one per word with the FMA
// engine.
constexpr int PS_ROWS = MMA ? ceil_div(BC, 2) : BC; // word rows per chunk
constexpr int PS_ITEMS = UPB * PS_ROWS;
constexpr int PS_SLICES = PS_ITEMS >= THREADS     ? 1
                          : THREADS / PS_ITEMS > NBLK ? NBLK
                                                      : THREADS / PS_ITEMS;
constexpr int PS_SPAN = ceil_div(NBLK, PS_SLICES); // senders per slice
// Partial sums: one buffer per chunk in flight. With two, the barrier that
// protects a buffer from the next chunk's writes is the previous chunk's
// own barrier, so each chunk needs one __syncthreads instead of two.
constexpr int RED_BUFS = PRNN_RED_BUFS;
constexpr int SM_RED1 = PSUM ? round_up(PS_SLICES * BC * UPB * (int)sizeof(AccT), 16)
                             : round_up(KSPLIT * BC * ROWSP * (int)sizeof(AccT), 16);
constexpr int SM_RED = RED_BUFS * SM_RED1;
constexpr int SMEM_BYTES = SM_W + SM_HB + SM_RED;

// Hand-off words one lane requests at once (registers: two per word).
constexpr int POLL_MAX = 16;

// Hand-off buffer strides (elements of its word type), per parity. FMA:
// group-major, then k, then the group's batch rows (ex_fma); MMA: batch
// row-major pairs, already contiguous per row. HANDOFF 2 (a group of one
// block, the small-h engine) keeps its group's words in shared memory as
// plain values: k, then the group's rows (FMA), or its rows' pairs (MMA).
// PSUM: sender-major within each word row, then the receiving unit
// (psum_word), so one sender's words of a row are contiguous.
constexpr long EX_PAR = PSUM ? (long)NGRP * NCH * PS_ROWS * NBLK * H
                        : HANDOFF == 2 ? (MMA ? (long)GSTRIDE * (KD2 / 2) : (long)GSTRIDE * KD)
                        : MMA          ? (long)BMAX * (KD2 / 2)
                                       : (long)NGRP * GSTRIDE * KD;
// Shared memory of the local hand-off (both parities), after the partial sums.
constexpr int SM_EX = HANDOFF == 2 ? round_up(2 * (int)EX_PAR * (MMA ? 4 : (int)sizeof(AccT)), 16)
                                   : 0;
constexpr int SM_EX_OFFSET = SM_W + SM_HB + SM_RED;
constexpr int SMEM_ALL = SMEM_BYTES + SM_EX;

static_assert(THREADS % 32 == 0 && NW % KSPLIT == 0, "warps must split evenly");
static_assert(SMEM_ALL <= 232448, "more shared memory than any GPU offers a block");
static_assert(HANDOFF != 2 || NBLK == 1, "the shared-memory hand-off needs one block per group");
static_assert(!PSUM || (HANDOFF != 2 && KSPLIT == 1 && LK == 1),
              "partial sums need an L2 hand-off, ksplit 1 and lanes_k 1");
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
static_assert(PRNN_SMEM_BYTES == SMEM_ALL, "host and kernel disagree on shared memory");
#endif
#ifdef PRNN_KSTEPS
static_assert(PRNN_KSTEPS == KSTEPS, "host and kernel disagree on k-steps");
#endif
#ifdef PRNN_WPK
static_assert(PRNN_WPK == WPK, "host and kernel disagree on words per k-step");
#endif
#ifdef PRNN_EX_BYTES
static_assert(PRNN_EX_BYTES == (HANDOFF == 2 ? 0 : 2 * EX_PAR * 8),
              "host and kernel disagree on the hand-off area");
#endif
#ifdef PRNN_PACKED_BYTES
static_assert(PRNN_PACKED_BYTES == (long)NGRP * NBLK * KGLB * WPK * THREADS * 4,
              "host and kernel disagree on the streamed weights");
#endif
} // namespace cfg

using namespace cfg;

// Where one weight of this block's matrix lives in R: row r of the block's
// ROWS rows, column k of the KD-long vector. Forward: R[g*H + u][k] with
// gate g = r / UPB and unit u = u0 + r % UPB. Backward: R^T, i.e.
// R[g*H + uk][u] with u = u0 + r and k = g*KPU + uk. Partial sums:
// R[g*H + u0 + j][r] with k = g*UPB + j. -1 for padding (zero).
__device__ __forceinline__ long weight_index(int u0, int r, int k)
{
    if (PSUM) { // row r: output unit; k = g * UPB + j: the block's unit u0 + j
        const int g = k / UPB, j = k % UPB;
        if (r >= H || g >= G || u0 + j >= H)
            return -1;
        return ((long)g * H + u0 + j) * H + r;
    }
    if (!BWD) {
        const int g = r / UPB, u = u0 + r % UPB;
        if (g >= G || u >= H || k >= H)
            return -1;
        return ((long)g * H + u) * H + k;
    }
    const int u = u0 + r, g = k / KPU, uk = k % KPU;
    if (r >= UPB || u >= H || g >= G || uk >= H)
        return -1;
    return ((long)g * H + uk) * H + u;
}

// The forward pass's accessors keep the form of the original kernel (gate,
// unit, k and an early zero): written through weight_index, they changed
// the compiler's register allocation for the whole kernel (bench/NOTES.md,
// v0.6).
__device__ __forceinline__ AccT weight_value(const T *R, int u0, int r, int k)
{
    if (!BWD) {
        const int g = r / UPB, u = u0 + r % UPB;
        if (g >= G || u >= H || k >= H)
            return AccT(0);
        return ST::load(R, ((long)g * H + u) * H + k);
    }
    const long i = weight_index(u0, r, k);
    return i < 0 ? AccT(0) : ST::load(R, i);
}

// Forward: the bits of R[g*H + u][k], zero outside the layer.
__device__ __forceinline__ unsigned short weight_bits_at(const T *R, int g, int u, int k)
{
    if (g >= G || u >= H || k >= H)
        return 0;
    return reinterpret_cast<const unsigned short *>(R)[((long)g * H + u) * H + k];
}

__device__ __forceinline__ unsigned short weight_bits(const T *R, int u0, int r, int k)
{
    if (!BWD)
        return weight_bits_at(R, r / UPB, u0 + r % UPB, k);
    const long i = weight_index(u0, r, k);
    return i < 0 ? (unsigned short)0 : reinterpret_cast<const unsigned short *>(R)[i];
}
