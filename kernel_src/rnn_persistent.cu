// The persistent forward kernel: one launch runs every timestep of one layer
// (both directions when bidirectional), with R held on-chip for the whole
// sequence (rnn_config.cuh has the decomposition, rnn_handoff.cuh the
// hand-off between blocks, rnn_fma.cuh / rnn_mma.cuh the engines and
// rnn_cell.cuh the cell). With PRNN_TRAIN it also keeps what the backward
// pass needs (the gate activations and LSTM's cell state) in `act`.

#include "rnn_block.cuh"
#include "rnn_cell.cuh"

static_assert(!BWD, "rnn_persistent.cu runs the forward pass");
constexpr bool SKIP = PRNN_SKIP != 0;
constexpr bool TRAIN = PRNN_TRAIN != 0;
typedef Cell<MODE> C;

// Activations: the cheap forms (rnn_cell.cuh), and for 16-bit data the
// hardware tanh; fp32 and fp64 keep the accurate tanh (the fp32 check is
// 1e-5). Groups of 128 blocks keep the exact forms: with the cheap ones they
// ran slower, though the cell itself took half the time, for a reason not
// understood (bench/NOTES.md v0.4).
constexpr bool CHEAP_ACT = NBLK < 128;
typedef CellAct<CHEAP_ACT, CHEAP_ACT && PRNN_DTYPE >= 2> Act;


// One layer's forward pass; XIN, YIN: whether xin's and y's rows are the
// caller's (prnn_rnn_args.x_rows, y_rows), known here at compile time. A
// kernel of packed rows alone (PRNN_CALLER_ROWS 0) is this function itself,
// not a call of it: its code then stays what the packed calls measured
// (passing args to an inlined function moved its instructions, bench/NOTES.md,
// twenty-fourth session).
#if PRNN_CALLER_ROWS
template <bool XIN, bool YIN>
__device__ __forceinline__ void forward_layer(const prnn_rnn_args &args)
#else
constexpr bool XIN = false, YIN = false;
extern "C" __global__ void __launch_bounds__(THREADS, 1) prnn_rnn_persistent(const prnn_rnn_args args)
#endif
{
    extern __shared__ __align__(16) unsigned char smem[];
    Block k;
    block_init(k, smem);
    const int dir = k.dir, tid = k.tid, u0 = k.u0, gbase = k.gbase;
    prnn_dir_args d = dir ? args.dir[1] : args.dir[0];
    block_group_args(k, smem, d);
    const int S = args.seq_length;
    RegWeights wr;
    block_load_weights(k, wr, (const T *)d.R, d.packed);

    // ---- per-item constants and state ----
    ChunkSeqs seqs; // the caller's sequence of each item's row (states, xin and y in place)
    chunk_seqs_load(seqs, args.order, gbase, tid);
    AccT bias[NI][VEC][G];
    AccT bias_rn[NI][VEC]; // the recurrent bias of C::APART_BIAS_GATE (GRU's bR_n)
    ChunkState st_c, st_h;   // the cell state (C::CELL_STATE); the previous output (rounded)
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
                if (g == C::APART_BIAS_GATE) {
                    bias[q][v][g] = bw;
                    bias_rn[q][v] = br;
                } else {
                    bias[q][v][g] = bw + br;
                }
            }
            if (C::APART_BIAS_GATE < 0)
                bias_rn[q][v] = AccT(0);
#pragma unroll
            for (int c = 0; c < NCH; ++c) {
                int gb = gbase + c * BC + b;
                bool ok = uvalid && b < BC && gb < BMAX;
                const long srow = chunk_item_seq(seqs, c, q, gb);
                st_h[c][q][v] = (ok && d.hx) ? ST::load((const T *)d.hx, srow * H + u) : AccT(0);
                st_c[c][q][v] = (ok && d.cx) ? ST::load((const T *)d.cx, srow * H + u) : AccT(0);
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
        // the step's part of its xin and y rows (io_row_step)
        const long xstep = io_row_step<XIN>(row0, t, args.x_rows);
        const long ystep = io_row_step<YIN>(row0, t, args.y_rows);

#pragma unroll 1
        for (int c = 0; c < NCH; ++c) {
            const int b0 = gbase + c * BC;
            if (b0 >= cur_b)
                break;
            ItemSeqs sq;
            chunk_seqs_get(seqs, sq, c);

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
                            const long xrow =
                                io_row_base<XIN>(gb, item_seq(sq, q, gb), args.x_rows) + xstep;
                            if (SKIP)
                                x = ST::load((const T *)d.xin, xrow * H + u);
                            else
                                x = ((const AccT *)d.xin)[xrow * (G * H) + (long)g * H + u];
                        }
                        xp[q][v][g] = x + bias[q][v][g];
                    }
                }
            }

            const AccT *red = block_product(k, wr, d.exchange, (const T *)d.hx, args.order,
                                            d.packed, b0, prev_b, cur_b, par_prev, want, d.counter,
                                            counter_target);

            // ---- cell update for this chunk's items ----
            ItemState cst, hst;
            chunk_copy<CHUNK_GET>(st_c, cst, c);
            chunk_copy<CHUNK_GET>(st_h, hst, c);
#pragma unroll
            for (int q = 0; q < NI; ++q) {
                int it = tid + THREADS * q;
                int ju = it % UI, b = it / UI, gb = b0 + b;
                if (it >= NIT || gb >= cur_b)
                    continue;
                AccT hv[VEC];
                bool uok[VEC];
                AccT act[VEC][C::ACTN];
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    int j = ju * VEC + v;
                    int u = u0 + j;
                    uok[v] = u < H && j < UPB;
                    AccT rec[G];
#pragma unroll
                    for (int g = 0; g < G; ++g) {
                        AccT sum = AccT(0);
#pragma unroll
                        for (int k2 = 0; k2 < KSPLIT; ++k2)
                            sum += red[(k2 * BC + b) * ROWSP + g * UPB + j];
                        rec[g] = sum;
                    }
                    AccT h = C::template forward<Act>(rec, xp[q][v], bias_rn[q][v], cst[q][v],
                                                      hst[q][v], act[v],
                                                      CellClip(args.clip_lo, args.clip_hi));
                    if (!uok[v])
                        h = AccT(0); // padding unit of an odd H: finite, never used
                    h = ST::round(h);
                    hst[q][v] = h;
                    hv[v] = h;
                }
                // Publish h_t for the other blocks before this step's
                // global stores: their address arithmetic (longest for the
                // caller's rows) and the stores themselves sat between h_t
                // and its publication, on the path every other block waits
                // on (bench/NOTES.md, twenty-fifth session: batch-major y
                // in place 1.16x the packed call at LSTM f32 H 256 B 8
                // before, 1.02x after).
#if PRNN_MMA
                if (u0 + ju * 2 < KD2)
                    handoff_publish_pair(d.exchange, par, ex_mma((u0 + ju * 2) / 2, gb), tag,
                                         pack2(ST::bits(hv[0]), ST::bits(hv[1])));
#else
                if (uok[0])
                    handoff_publish(d.exchange, par, ex_fma(u0 + ju, gb), tag, hv[0]);
#endif
#pragma unroll
                for (int v = 0; v < VEC; ++v) {
                    if (!uok[v])
                        continue;
                    const int u = u0 + ju * VEC + v;
                    const long row = row0 + gb; // packed: act's
                    ST::store((T *)args.y,
                              (io_row_base<YIN>(gb, item_seq(sq, q, gb), args.y_rows) + ystep) * args.y_cols +
                                  (long)dir * H + u,
                              hv[v]);
                    bool last = dir ? (t == 0) : (gb >= next_b);
                    if (last && d.hy)
                        ST::store((T *)d.hy, (long)item_seq(sq, q, gb) * H + u, hv[v]);
                    if (last && d.cy && C::CELL_STATE)
                        ST::store((T *)d.cy, (long)item_seq(sq, q, gb) * H + u, cst[q][v]);
                    if (TRAIN)
#pragma unroll
                        for (int a = 0; a < C::ACT; ++a)
                            ((AccT *)d.act)[(row * C::ACT + a) * H + u] = act[v][a];
                }
            }
            chunk_copy<CHUNK_PUT>(st_c, cst, c);
            chunk_copy<CHUNK_PUT>(st_h, hst, c);
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

// The caller's rows cost the steps a select and a multiply per row and
// tensor where the kernel reads them at run time (12-20 % a step at some
// shapes, bench/NOTES.md, twenty-fourth session), so each case a call can
// present runs its own steps' code: layer 0 reads x in place, the top layer
// writes y in place, a one-layer network both, the layers between neither.
#if PRNN_CALLER_ROWS
extern "C" __global__ void __launch_bounds__(THREADS, 1) prnn_rnn_persistent(const prnn_rnn_args args)
{
    io_dispatch(args, [&](auto x, auto y) {
        forward_layer<decltype(x)::value, decltype(y)::value>(args);
    });
}
#endif
