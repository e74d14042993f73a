// The tiny-h engine's backward-data kernel (hidden sizes up to 64): one
// block walks the whole sequence backwards for PRNN_TINY_ROWS batch rows of
// one direction, as rnn_tiny.cu walks it forwards. Unit k's quad holds
// column k of R: lane g < G the H weights R[g H + i][k] (with one gate, the
// four lanes split i between them: rnn_tiny.cuh), so that R^T dg_prev, the
// gradient of h_{t-1} through R, is each lane's H multiply-adds over the
// previous step's gate gradients (shared memory) and a sum over the quad.
// The quad's first lane runs the cell backward (rnn_cell.cuh), keeps what
// carries to the next step (dc, or GRU's z dh) and writes the gate
// gradients to the reserve and, for the next step's products, to shared
// memory. One barrier per step.
//
// The walk is rnn_step.cu's prnn_step_cell_backward's, in one launch:
// phases s = 0 .. S (the last with no step: the rows still running give
// dhx and dcx); a row the previous phase ran gets its gradient through R
// (and the carry), a row that starts in this phase gets dhy and dcy, and
// a row that does not run in this phase but did in the previous one has
// reached its sequence's start in forward order: its gradient is dhx's.
//
// Arguments: prnn_bwd_args (exchange, counter, packed and tag_base unused);
// grid (ceil(miniBatch / PRNN_TINY_ROWS), directions), 4 * H threads.

#include "prnn_kernel_abi.h"
#include "rnn_cell.cuh"
#include "rnn_tiny.cuh"

constexpr int MODE = PRNN_MODE;
constexpr int H = PRNN_H;
constexpr int ROWS = PRNN_TINY_ROWS;
// blocks a multiprocessor runs at once, which the launch bounds hold the
// registers to (src/gpu/engines/tiny/tiny_layout.c)
constexpr int PER_SM = PRNN_TINY_BLOCKS_PER_SM;
typedef Cell<MODE> C;
constexpr int G = C::G;
constexpr int THREADS = 4 * H;
constexpr int KQ = tiny_inputs_per_lane(G, H);
// independent partial sums of a lane's products
constexpr int NA = KQ >= 16 ? 4 : KQ >= 4 ? 2 : 1;
// what a row's cell backward reads at a step: dy, the act columns, h_t or
// the previous state; a quad's lanes load NVQ each
constexpr bool READS_PREV = C::READS_CPREV || C::READS_HPREV;
constexpr int NV = 1 + C::ACT + (C::READS_H ? 1 : 0) + (READS_PREV ? 1 : 0);
constexpr int NVQ = (NV + 3) / 4;
// phases of look-ahead of those loads
constexpr int D = ROWS <= 4 && sizeof(AccT) == 4 ? 4 : 2;
static_assert(H >= 1 && H <= 64, "the tiny-h kernel holds H <= 64");
static_assert(ROWS >= 1 && ROWS <= 8, "1 to 8 batch rows per block");
static_assert(PER_SM >= 1 && PER_SM <= 16, "1 to 16 blocks a multiprocessor");
typedef CellAct<true, PRNN_DTYPE >= 2> Act; // as rnn_tiny.cu's forward

extern "C" __global__ void __launch_bounds__(THREADS, PER_SM) prnn_tiny_backward(const prnn_bwd_args args)
{
    // the recurrent side of each row's gate gradients, by step parity; a
    // unit's G values adjacent, so that a quad reads G neighbouring words
    // (no bank conflict) and the warp's quads the same ones (a broadcast)
    __shared__ __align__(16) AccT dgs[2][ROWS][H][G];
    const int dir = blockIdx.y;
    const prnn_bwd_dir_args d = dir ? args.dir[1] : args.dir[0];
    const int tid = threadIdx.x, k = tid >> 2, q = tid & 3;
    const int b0 = blockIdx.x * ROWS;
    // the caller's sequence of each row, loaded once (prnn_device.cuh's
    // caller_seq says why): the row of its states; and each row's part of
    // its y and dy rows (caller_row_base)
    const int rows_all = PRNN_CALLER_ROWS && args.seq_length > 0 ? args.batch[0] : 0;
    int seq[ROWS], ybase[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        seq[r] = !PRNN_CALLER_ROWS ? b0 + r : b0 + r < rows_all ? caller_seq(args.order, b0 + r) : 0;
        ybase[r] = caller_row_base(b0 + r, seq[r], args.y_rows);
    }
    const int S = args.seq_length;
    const int warp_lanes = THREADS - (tid & ~31) < 32 ? THREADS - (tid & ~31) : 32;
    const unsigned warp_mask = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1;
    const bool owner = q == 0;
    const int gate = G == 1 ? 0 : q;
    const bool computes = gate < G;
    const long ycol = (long)dir * H;

    // column k of gate `gate`'s block of R, the rows this lane covers
    AccT w[KQ];
#pragma unroll
    for (int i = 0; i < KQ; ++i) {
        const int ii = tiny_input<G>(q, i);
        w[i] = computes && ii < H ? ST::load((const T *)d.R, (long)(gate * H + ii) * H + k) : AccT(0);
    }

    // the engine refuses clipped networks (PRNN_CLIP is never defined
    // here): the bounds only complete the cell's arguments
    const CellClip clip(args.clip_lo, args.clip_hi);
    AccT carry[ROWS]; // the owner's: dc (cell state), or the part of dh that bypasses R
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        carry[r] = AccT(0);

    // What a row's cell backward reads at a step (dy, its act columns, h_t
    // or the previous state) comes from global memory, a few hundred cycles
    // away, while a step of the chain is a few hundred cycles: those values
    // are loaded D steps ahead, value v on lane v % 4 of the unit's quad
    // (shuffled to the first lane when the step runs), and the rows and
    // first row of each step (which their addresses need) 2 D steps ahead,
    // in rings of D slots (slot s % D holds phase s; the unrolled loop below
    // keeps the slots in registers).
    auto walk_time = [&](int s) { return dir ? s : S - 1 - s; };
    auto rows_at = [&](int s) { return s < S ? args.batch[walk_time(s)] : 0; };
    auto first_row_at = [&](int s) { return s < S ? args.offset[walk_time(s)] : 0; };
    // this lane's values of every row at a phase with nb rows from row0,
    // whose previous step in forward order (the next phase) has nb_prev
    // rows from row0_prev
    auto fetch = [&](int s, int nb, int row0, int nb_prev, int row0_prev,
                     AccT(&vals)[ROWS][NVQ]) {
        // the phase's time and the forward-order previous one (hout's and
        // dy's rows where they are the caller's: caller_row_step)
        const int t = walk_time(s), t_prev = dir ? t + 1 : t - 1;
        const long ystep = caller_row_step(row0, t, args.y_rows);
        const long ystep_prev = caller_row_step(row0_prev, t_prev, args.y_rows);
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int i = 0; i < NVQ; ++i) {
                const int v = 4 * i + q, gb = b0 + r;
                AccT x = AccT(0);
                if (v < NV && gb < nb) {
                    const long row = (long)row0 + gb;
                    const long yrow = ybase[r] + ystep;
                    if (v == 0) {
                        const long dyi = yrow * args.dy_cols + ycol + k;
                        x = load_output_grad(d.dy, args.dy_storage, dyi);
                    } else if (v <= C::ACT) {
                        x = ((const AccT *)d.act)[(row * C::ACT + v - 1) * H + k];
                    } else if (C::READS_H && v == C::ACT + 1) {
                        x = ST::load((const T *)args.hout, yrow * args.y_cols + ycol + k);
                    } else if (READS_PREV) {
                        const long prow = (long)row0_prev + gb;
                        if (gb < nb_prev)
                            x = C::READS_CPREV
                                    ? ((const AccT *)d.act)[(prow * C::ACT + C::PREV_C_COL) * H + k]
                                    : ST::load((const T *)args.hout,
                                               (ybase[r] + ystep_prev) * args.y_cols + ycol +
                                                   k);
                        else if (C::READS_CPREV ? d.cx != 0 : d.hx != 0)
                            x = ST::load((const T *)(C::READS_CPREV ? d.cx : d.hx),
                                         (long)seq[r] * H + k);
                    }
                }
                vals[r][i] = x;
            }
    };
    int ring_b[D], ring_row0[D];   // phase s: its rows and first row
    int ahead_b[D], ahead_row0[D]; // phase s + D: the same
    AccT ring_v[D][ROWS][NVQ];     // phase s: this lane's values
#pragma unroll
    for (int u = 0; u < D; ++u) {
        ring_b[u] = rows_at(u);
        ring_row0[u] = first_row_at(u);
        ahead_b[u] = rows_at(u + D);
        ahead_row0[u] = first_row_at(u + D);
    }
#pragma unroll
    for (int u = 0; u < D; ++u)
        fetch(u, ring_b[u], ring_row0[u], u + 1 < D ? ring_b[u + 1] : ahead_b[0],
              u + 1 < D ? ring_row0[u + 1] : ahead_row0[0], ring_v[u]);

    int prev_b = 0;
    for (int s0 = 0; s0 <= S; s0 += D) {
#pragma unroll
    for (int u = 0; u < D; ++u) {
        const int s = s0 + u;
        if (s > S)
            break;
        const int par = s & 1;
        const int cur_b = ring_b[u];
        const int row0 = ring_row0[u];

        // R^T dg of the rows the previous phase ran (NA independent partial
        // sums: a chain of KQ dependent multiply-adds would be the step's
        // longest part)
        AccT rec[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            AccT part[NA];
#pragma unroll
            for (int a = 0; a < NA; ++a)
                part[a] = AccT(0);
            if (b0 + r < prev_b) {
#pragma unroll
                for (int i = 0; i < KQ; ++i) {
                    const int ii = tiny_input<G>(q, i);
                    if (tiny_inputs_whole(G, H) || ii < H)
                        part[i % NA] += w[i] * dgs[par ^ 1][r][ii][gate < G ? gate : 0];
                }
            }
#pragma unroll
            for (int a = 1; a < NA; ++a)
                part[0] += part[a];
            AccT sum = part[0];
            sum += __shfl_xor_sync(warp_mask, sum, 1);
            sum += __shfl_xor_sync(warp_mask, sum, 2);
            rec[r] = sum;
        }
        // this phase's values to the quads' first lanes, then phase s + D's
        // loads into the slot just read
        AccT vals[ROWS][NV];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int v = 0; v < NV; ++v)
                vals[r][v] = __shfl_sync(warp_mask, ring_v[u][r][v / 4], (tid & 31 & ~3) + v % 4);
        fetch(s + D, ahead_b[u], ahead_row0[u], ahead_b[(u + 1) % D], ahead_row0[(u + 1) % D],
              ring_v[u]);

#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int gb = b0 + r;
            const bool later = gb < prev_b, active = gb < cur_b;
            if (!owner || !(later || active))
                continue;
            AccT dh_in, dc_in;
            if (later) {
                dh_in = rec[r] + (C::H_BYPASS ? carry[r] : AccT(0));
                dc_in = C::CELL_STATE ? carry[r] : AccT(0);
            } else {
                const long srow = seq[r];
                dh_in = d.dhy ? ST::load((const T *)d.dhy, srow * H + k) : AccT(0);
                dc_in = C::CELL_STATE && d.dcy ? ST::load((const T *)d.dcy, srow * H + k)
                                               : AccT(0);
            }
            if (!active) {
                // its sequence starts here in forward order: the gradient of
                // the initial state
                const long srow = seq[r];
                if (d.dhx)
                    ST::store((T *)d.dhx, srow * H + k, dh_in);
                if (C::CELL_STATE && d.dcx)
                    ST::store((T *)d.dcx, srow * H + k, dc_in);
                continue;
            }
            const long row = (long)row0 + gb;
            AccT act[C::ACTN];
#pragma unroll
            for (int a = 0; a < C::ACTN; ++a)
                act[a] = a < C::ACT ? vals[r][1 + a] : AccT(0);
            const AccT h = C::READS_H ? vals[r][1 + C::ACT] : AccT(0);
            const AccT prev = READS_PREV ? vals[r][NV - 1] : AccT(0);
            AccT dg[C::DG];
            AccT dc = dc_in;
            const AccT bypass =
                C::template backward<Act>(dh_in + vals[r][0], act, h, prev, prev, dc, dg, clip);
            carry[r] = C::CELL_STATE ? dc : bypass;
#pragma unroll
            for (int g = 0; g < C::DG; ++g)
                ST::store((T *)d.dg, (row * C::DG + g) * H + k, dg[g]);
            // the recurrent side (the first G columns) for the next phase's
            // products, as the reserve holds it: rounded to the storage type
#pragma unroll
            for (int g = 0; g < G; ++g)
                dgs[par][r][k][g] = ST::round(dg[g]);
        }
        prev_b = cur_b;
        // the slot moves on to phase s + D, and its look-ahead to s + 2 D
        ring_b[u] = ahead_b[u];
        ring_row0[u] = ahead_row0[u];
        ahead_b[u] = rows_at(s + 2 * D);
        ahead_row0[u] = first_row_at(s + 2 * D);
        __syncthreads();
    }
    }
}
