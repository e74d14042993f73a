// The tiny-h engine's backward-data kernel (hidden sizes up to 64): one
// block walks the whole sequence backwards for PRNN_TINY_ROWS batch rows of
// one direction, as rnn_tiny.cu walks it forwards. Unit k's quad holds
// column k of R: lane g < G the H weights R[g H + i][k] (with one gate, the
// four lanes split i in quarters), so that R^T dg_prev, the gradient of
// h_{t-1} through R, is each lane's H multiply-adds over the previous
// step's gate gradients (shared memory) and a sum over the quad. The quad's
// first lane runs the cell backward (rnn_cell.cuh), keeps what carries to
// the next step (dc, or GRU's z dh) and writes the gate gradients to the
// reserve and, for the next step's products, to shared memory. One barrier
// per step.
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

constexpr int MODE = PRNN_MODE;
constexpr int H = PRNN_H;
constexpr int ROWS = PRNN_TINY_ROWS;
typedef Cell<MODE> C;
constexpr int G = C::G;
constexpr int THREADS = 4 * H;
constexpr int KQ = G == 1 ? (H + 3) / 4 : H;
static_assert(H >= 1 && H <= 64, "the tiny-h kernel holds H <= 64");
static_assert(ROWS >= 1 && ROWS <= 8, "1 to 8 batch rows per block");
typedef CellAct<true, PRNN_DTYPE >= 2> Act; // as rnn_tiny.cu's forward

extern "C" __global__ void __launch_bounds__(THREADS) prnn_tiny_backward(const prnn_bwd_args args)
{
    // the recurrent side of each row's gate gradients, by step parity; a
    // unit's G values adjacent, so that a quad reads G neighbouring words
    // (no bank conflict) and the warp's quads the same ones (a broadcast)
    __shared__ __align__(16) AccT dgs[2][ROWS][H][G];
    const int dir = blockIdx.y;
    const prnn_bwd_dir_args d = dir ? args.dir[1] : args.dir[0];
    const int tid = threadIdx.x, k = tid >> 2, q = tid & 3;
    const int b0 = blockIdx.x * ROWS;
    const int S = args.seq_length;
    const int warp_lanes = THREADS - (tid & ~31) < 32 ? THREADS - (tid & ~31) : 32;
    const unsigned warp_mask = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1;
    const bool owner = q == 0;
    const int gate = G == 1 ? 0 : q;
    const bool computes = gate < G;
    const int i0 = G == 1 ? q * KQ : 0;
    const long ycol = (long)dir * H;

    // column k of gate `gate`'s block of R, rows i0 .. i0 + KQ - 1
    AccT w[KQ];
#pragma unroll
    for (int i = 0; i < KQ; ++i) {
        const int ii = i0 + i;
        w[i] = computes && ii < H ? ST::load((const T *)d.R, (long)(gate * H + ii) * H + k) : AccT(0);
    }

    AccT carry[ROWS]; // the owner's: dc (cell state), or the part of dh that bypasses R
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        carry[r] = AccT(0);

    int prev_b = 0;
    for (int s = 0; s <= S; ++s) {
        const int par = s & 1;
        const int t = dir ? s : S - 1 - s;
        const int cur_b = s < S ? args.batch[t] : 0;
        const long row0 = s < S ? args.offset[t] : 0;
        // the step before this one in forward order, whose state it started from
        const int tp = dir ? t + 1 : t - 1;
        const bool has_tp = s < S && tp >= 0 && tp < S;
        const int tp_b = has_tp ? args.batch[tp] : 0;
        const long tp_row0 = has_tp ? args.offset[tp] : 0;

        // R^T dg of the rows the previous phase ran
        AccT rec[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            AccT sum = AccT(0);
            if (b0 + r < prev_b) {
#pragma unroll
                for (int i = 0; i < KQ; ++i)
                    if (i0 + i < H)
                        sum += w[i] * dgs[par ^ 1][r][i0 + i][gate < G ? gate : 0];
            }
            sum += __shfl_xor_sync(warp_mask, sum, 1);
            sum += __shfl_xor_sync(warp_mask, sum, 2);
            rec[r] = sum;
        }

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
                dh_in = d.dhy ? ST::load((const T *)d.dhy, (long)gb * H + k) : AccT(0);
                dc_in = C::CELL_STATE && d.dcy ? ST::load((const T *)d.dcy, (long)gb * H + k)
                                               : AccT(0);
            }
            if (!active) {
                // its sequence starts here in forward order: the gradient of
                // the initial state
                if (d.dhx)
                    ST::store((T *)d.dhx, (long)gb * H + k, dh_in);
                if (C::CELL_STATE && d.dcx)
                    ST::store((T *)d.dcx, (long)gb * H + k, dc_in);
                continue;
            }
            const long row = row0 + gb;
            const long dyi = row * args.dy_cols + ycol + k;
            const AccT dy = args.dy_storage ? ST::load((const T *)d.dy, dyi) : ((const AccT *)d.dy)[dyi];
            AccT act[C::ACTN];
#pragma unroll
            for (int a = 0; a < C::ACTN; ++a)
                act[a] = a < C::ACT ? ((const AccT *)d.act)[(row * C::ACT + a) * H + k] : AccT(0);
            AccT h = AccT(0), prev = AccT(0);
            if (C::READS_H)
                h = ST::load((const T *)args.hout, row * args.y_cols + ycol + k);
            if (C::READS_CPREV || C::READS_HPREV) {
                const long prow = tp_row0 + gb;
                if (gb < tp_b)
                    prev = C::READS_CPREV
                               ? ((const AccT *)d.act)[(prow * C::ACT + C::PREV_C_COL) * H + k]
                               : ST::load((const T *)args.hout, prow * args.y_cols + ycol + k);
                else if (C::READS_CPREV ? d.cx != 0 : d.hx != 0)
                    prev = ST::load((const T *)(C::READS_CPREV ? d.cx : d.hx), (long)gb * H + k);
            }
            AccT dg[C::DG];
            AccT dc = dc_in;
            const AccT bypass = C::template backward<Act>(dh_in + dy, act, h, prev, prev, dc, dg);
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
        __syncthreads();
    }
}
