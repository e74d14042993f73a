// The persistent backward-data kernel: one launch walks every timestep of
// one layer backwards (both directions when bidirectional), with R^T held
// on-chip the way the forward kernel holds R.
//
// Block i of a group owns hidden units U_i = [i*UPB, (i+1)*UPB). Every step
// it computes the gate gradients dg of its units locally (cell backward, from
// dh, dy and what forward training kept in `act`), writes them for dx and
// the weight gradients, and publishes the recurrent side for every block:
// the next step in this walk needs dh_{t-1}[U_i] = (R^T dg_t)[U_i], which
// takes the gate gradients of all units (the hand-off carries G values per
// unit, G times the forward's). The products run on the forward's engines
// (rnn_config.cuh: rows = the block's units, K = G * KPU).
//
// The walk has S + 1 phases: phase s multiplies the gradients of the step
// processed at s - 1, then runs step s (if s < S). Batch rows follow the
// forward pass's packing: a row joins the walk at its own last step, with
// dhy / dcy; a row whose sequence began at a later step in this walk (the
// reverse direction) or at t = 0 (the last phase) leaves with dhx / dcx.

#include "rnn_block.cuh"
#include "rnn_cell.cuh"
#if PRNN_PSUM
#include "rnn_psum.cuh"
#endif

static_assert(BWD, "rnn_backward.cu runs the backward-data pass");
typedef Cell<MODE> C;
// Only LSTM's tanh(c) is recomputed here; as in the forward kernel, 16-bit
// data may use the hardware tanh except in groups of 128 blocks.
constexpr bool CHEAP_ACT = NBLK < 128;
typedef CellAct<CHEAP_ACT, CHEAP_ACT && PRNN_DTYPE >= 2> Act;

// What one item loads for its step before the wait: independent of the
// recurrence, so their latency hides behind the hand-off.
struct ItemLoads {
    AccT dy;
    AccT act[C::ACTN];
    AccT h;    // h_t (C::READS_H)
    AccT prev; // h_{t-1} or c_{t-1} (C::READS_HPREV, C::READS_CPREV)
};

extern "C" __global__ void __launch_bounds__(THREADS, 1) prnn_rnn_backward(const prnn_bwd_args args)
{
    extern __shared__ __align__(16) unsigned char smem[];
    Block k;
    block_init(k, smem);
    const int dir = k.dir, tid = k.tid, u0 = k.u0, gbase = k.gbase;
    prnn_bwd_dir_args d = dir ? args.dir[1] : args.dir[0];
    block_group_args(k, smem, d);
    const int S = args.seq_length;
    const long ycol = (long)dir * H;
    RegWeights wr;
    block_load_weights(k, wr, (const T *)d.R, d.packed);
#if PRNN_PSUM
    psum_init(k);
#endif

    // What each item carries from one step to the next: the gradient of c
    // (C::CELL_STATE), or the part of dh that bypasses R (C::H_BYPASS).
    ChunkState carry;
    ChunkSeqs seqs; // the caller's sequence of each item's row (states, y and dy in place)
    chunk_seqs_load(seqs, args.order, gbase, tid);
#pragma unroll
    for (int c = 0; c < NCH; ++c)
#pragma unroll
        for (int q = 0; q < NI; ++q)
#pragma unroll
            for (int v = 0; v < VEC; ++v)
                carry[c][q][v] = AccT(0);

    // Dir 0 walks t = S-1 .. 0, dir 1 walks t = 0 .. S-1. The step tables of
    // phase s are loaded one phase ahead. "tp" is the step before t in the
    // forward pass's own order: its rows hold h_{t-1} and c_{t-1}.
    int cur_b = args.batch[dir ? 0 : S - 1];
    long row0 = args.offset[dir ? 0 : S - 1];
    int tp_b = 0;
    long tp_row0 = 0;
    {
        const int tp = dir ? 1 : S - 2;
        if (tp >= 0 && tp < S) {
            tp_b = args.batch[tp];
            tp_row0 = args.offset[tp];
        }
    }
    int prev_b = 0;
#pragma unroll 1
    for (int s = 0; s <= S; ++s) {
        const bool step = s < S;
        // tables of phase s + 1
        const int tn = dir ? s + 1 : S - 2 - s;
        const bool has_next = s + 1 < S;
        const int next_b = has_next ? args.batch[tn] : 0;
        const long next_row0 = has_next ? args.offset[tn] : 0;
        const int tnp = dir ? tn + 1 : tn - 1;
        const bool has_next_tp = has_next && tnp >= 0 && tnp < S;
        const int next_tp_b = has_next_tp ? args.batch[tnp] : 0;
        const long next_tp_row0 = has_next_tp ? args.offset[tnp] : 0;

        const int par_prev = (s - 1) & 1, par = s & 1;
        const unsigned want = args.tag_base + (unsigned)s;
        const unsigned tag = args.tag_base + (unsigned)s + 1;
        const unsigned counter_target = (args.tag_base + (unsigned)s) * NBLK;
        const int hi_b = cur_b > prev_b ? cur_b : prev_b;

        // this phase's time and the forward-order previous one (the rows of
        // hout and dy where they are the caller's: caller_row_step)
        const int t_cur = dir ? s : S - 1 - s;
        const int t_prev = dir ? t_cur + 1 : t_cur - 1;
        // their steps' parts of hout's and dy's rows (caller_row_step)
        const long ystep = caller_row_step(row0, t_cur, args.y_rows);
        const long ystep_prev = caller_row_step(tp_row0, t_prev, args.y_rows);

#pragma unroll 1
        for (int c = 0; c < NCH; ++c) {
            const int b0 = gbase + c * BC;
            if (b0 >= hi_b)
                break;
            ItemSeqs sq;
            chunk_seqs_get(seqs, sq, c);

            ItemLoads in[NI][VEC];
#pragma unroll
            for (int q = 0; q < NI; ++q) {
                int it = tid + THREADS * q;
                int ju = it % UI, b = it / UI, gb = b0 + b;
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    int u = u0 + ju * VEC + v;
                    bool ok = it < NIT && gb < cur_b && u < H && ju * VEC + v < UPB;
                    ItemLoads &l = in[q][v];
                    const long row = row0 + gb;
                    const long ybase = caller_row_base(gb, item_seq(sq, q, gb), args.y_rows);
                    const long yrow = ybase + ystep;
                    const long dyi = yrow * args.dy_cols + ycol + u;
                    l.dy = !ok ? AccT(0) : load_output_grad(d.dy, args.dy_storage, dyi);
#pragma unroll
                    for (int a = 0; a < C::ACTN; ++a)
                        l.act[a] = ok && a < C::ACT
                                       ? ((const AccT *)d.act)[(row * C::ACT + a) * H + u]
                                       : AccT(0);
                    l.h = ok && C::READS_H
                              ? ST::load((const T *)args.hout, yrow * args.y_cols + ycol + u)
                              : AccT(0);
                    l.prev = AccT(0);
                    if (ok && (C::READS_CPREV || C::READS_HPREV)) {
                        const long prow = tp_row0 + gb;
                        const AccT *act = (const AccT *)d.act;
                        if (gb < tp_b)
                            l.prev = C::READS_CPREV
                                         ? act[(prow * C::ACT + C::PREV_C_COL) * H + u]
                                         : ST::load((const T *)args.hout,
                                                    (ybase + ystep_prev) *
                                                            args.y_cols +
                                                        ycol + u);
                        else if (C::READS_CPREV ? d.cx != 0 : d.hx != 0)
                            l.prev = ST::load((const T *)(C::READS_CPREV ? d.cx : d.hx),
                                              (long)item_seq(sq, q, gb) * H + u);
                    }
                }
            }

            // dh through R of the rows the previous phase ran: R^T dg.
#if PRNN_PSUM
            const AccT *red = psum_gather(k, d.exchange, par_prev, want, d.counter,
                                          counter_target, c, b0, prev_b);
#else
            const AccT *red = block_product(k, wr, d.exchange, nullptr, nullptr, d.packed, b0, prev_b, prev_b,
                                            par_prev, want, d.counter, counter_target);
#endif

            // ---- the cell backward for this chunk's items ----
            ItemState cry;
            chunk_copy<CHUNK_GET>(carry, cry, c);
#pragma unroll
            for (int q = 0; q < NI; ++q) {
                int it = tid + THREADS * q;
                int ju = it % UI, b = it / UI, gb = b0 + b;
                if (it >= NIT || gb >= hi_b)
                    continue;
                const bool later = gb < prev_b; // its gradient arrives through R
                const bool active = gb < cur_b; // it runs a step in this phase
                const long row = row0 + gb;
                AccT dgv[VEC][C::DG];
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    int j = ju * VEC + v;
                    int u = u0 + j;
                    bool uok = u < H && j < UPB;
#if PRNN_PSUM
                    AccT dh_rec = uok ? psum_dh(red, b, j) : AccT(0);
#else
                    AccT dh_rec = AccT(0);
#pragma unroll
                    for (int k2 = 0; k2 < KSPLIT; ++k2)
                        dh_rec += red[(k2 * BC + b) * ROWSP + j];
#endif
                    AccT dh_in, dc_in;
                    if (later) {
                        dh_in = dh_rec + (C::H_BYPASS ? cry[q][v] : AccT(0));
                        dc_in = C::CELL_STATE ? cry[q][v] : AccT(0);
                    } else {
                        const long srow = item_seq(sq, q, gb);
                        dh_in = uok && d.dhy ? ST::load((const T *)d.dhy, srow * H + u) : AccT(0);
                        dc_in = uok && C::CELL_STATE && d.dcy ? ST::load((const T *)d.dcy, srow * H + u)
                                                     : AccT(0);
                    }
#pragma unroll
                    for (int g = 0; g < C::DG; ++g)
                        dgv[v][g] = AccT(0);
                    if (active) {
                        const ItemLoads &l = in[q][v];
                        AccT dc = dc_in;
                        AccT bypass = C::template backward<Act>(
                            dh_in + l.dy, l.act, l.h, l.prev, l.prev, dc, dgv[v],
                            CellClip(args.clip_lo, args.clip_hi));
                        cry[q][v] = C::CELL_STATE ? dc : bypass;
                        if (!uok) {
#pragma unroll
                            for (int g = 0; g < C::DG; ++g)
                                dgv[v][g] = AccT(0); // padding unit: zeros in the hand-off
                        } else {
#pragma unroll
                            for (int g = 0; g < C::DG; ++g)
                                ST::store((T *)d.dg, (row * C::DG + g) * H + u, dgv[v][g]);
                        }
                    } else if (uok) {
                        // Its sequence starts here in forward order: dh_in is
                        // the gradient of the initial state.
                        const long srow = item_seq(sq, q, gb);
                        if (d.dhx)
                            ST::store((T *)d.dhx, srow * H + u, dh_in);
                        if (C::CELL_STATE && d.dcx)
                            ST::store((T *)d.dcx, srow * H + u, dc_in);
                    }
                }
#if PRNN_PSUM
                psum_stage(k, ju, b, dgv); // zeros where inactive: sent for no row
#else
                if (!active)
                    continue;
                // Publish the recurrent side (the first G columns) of dg.
#if PRNN_MMA
                if (u0 + ju * 2 < KPU)
#pragma unroll
                    for (int g = 0; g < G; ++g)
                        handoff_publish_pair(d.exchange, par,
                                             ex_mma((g * KPU + u0 + ju * 2) / 2, gb), tag,
                                             pack2(ST::bits(dgv[0][g]), ST::bits(dgv[1][g])));
#else
                if (u0 + ju < H)
#pragma unroll
                    for (int g = 0; g < G; ++g)
                        handoff_publish(d.exchange, par, ex_fma(g * KPU + u0 + ju, gb), tag,
                                        dgv[0][g]);
#endif
#endif // PRNN_PSUM
            }
            chunk_copy<CHUNK_PUT>(carry, cry, c);
#if PRNN_PSUM
            if (b0 < cur_b)
                psum_send(k, wr, d.packed, d.exchange, par, tag, c, b0, cur_b);
#endif
        }
        prev_b = cur_b;
        cur_b = next_b;
        row0 = next_row0;
        tp_b = next_tp_b;
        tp_row0 = next_tp_row0;
        if (HANDOFF == 1 && step) {
            __syncthreads(); // every dg store of this block precedes the release
            if (tid == 0) {
                __threadfence();
                prnn_red_release_add_u32(d.counter, 1u);
            }
        }
    }
}
