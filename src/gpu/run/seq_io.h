/*
 * The v8 calls' unpacked layouts (SEQ_MAJOR_UNPACKED, BATCH_MAJOR_UNPACKED)
 * on the GPU. The engines run on packed rows (rnn_problem.h: the sequences
 * sorted by decreasing length, step t holding a row per sequence longer
 * than t).
 *
 * An engine whose kernels take the caller's rows (prnn_engine.
 * unpacked_in_place: every one but SRU's), without a projection or
 * SKIP_INPUT, in a plan for unpacked data (prnn_rnn_key.caller_rows, which
 * such calls' plans have: their persistent and tiny-h kernels are compiled
 * for the caller's rows, a packed call's are not), runs in place: its
 * kernels read and write the caller's
 * buffers at the rows prnn_rows gives (prnn_call_plan.x_rows, y_rows,
 * order: packed row b of step t is the caller's sequence order[b], its
 * state the caller's row order[b]; the kernels load their rows' order
 * once, before the steps). Layer 0's input GEMM reads x where
 * it is and writes the projection step-major in the caller's order of
 * sequences, padding rows included (prnn_run_xproj_rows); the top layer's
 * kernels write y and read y and dy at the caller's rows; the setup kernel
 * writes y's padding with the data descriptor's fill, and the order where
 * the sequences are not already sorted (prnn_setup_io_args). Nothing moves,
 * but:
 *  - backward-data's dx where the sequences are padded or reordered: its
 *    GEMM writes rows in packed order, a GEMM cannot scatter them, so dx
 *    is moved out with its padding (one launch);
 *  - BackwardWeights' x, always: its GEMMs sum over rows, pairing x's with
 *    dg's packed ones, and the caller's padding may hold anything, NaN
 *    included (y and hx are read in place, by prnn_gather_prev).
 *
 * Any other call gathers its x, dy, y and states into packed order in its
 * workspace, runs the engine there, and scatters y, dx and the states back,
 * writing y's and dx's padding with the fill (rnn_seq_io.cuh does the
 * moving): a copy of each such tensor each way, all of a direction's
 * tensors in one launch (the sequences' order in its parameters up to
 * PRNN_SEQ_INLINE_ORDER sequences).
 */
#ifndef PRNN_SEQ_IO_H
#define PRNN_SEQ_IO_H

#include "gpu/run/gpu_run.h"
#include "gpu/run/workspace_layout.h"

/* run(c, buffers) with c's unpacked buffers moved into packed order before
 * and out of it after (c->p->io set; buffers as prnn_call_run's). */
prnnStatus_t prnn_seq_io_run(prnn_call_plan *c, const void *buffers,
                             prnnStatus_t (*run)(prnn_call_plan *c, const void *buffers));

#endif
