/*
 * The v8 calls' unpacked layouts (SEQ_MAJOR_UNPACKED, BATCH_MAJOR_UNPACKED)
 * on the GPU. The engines run on packed rows (rnn_problem.h: the sequences
 * sorted by decreasing length, step t holding a row per sequence longer
 * than t), so a call whose problem has an io gathers its x, dy, y and
 * states into packed order in its workspace, runs the engine there, and
 * scatters y, dx and the states back, writing y's and dx's padding with
 * the data descriptor's fill (rnn_seq_io.cuh does the moving). A copy of
 * each such tensor each way, all of a direction's tensors in one launch
 * (the sequences' order in its parameters up to PRNN_SEQ_INLINE_ORDER
 * sequences).
 *
 * Except the forward and backward-data calls of batch-major data whose
 * every sequence is maxSeqLength long (a batch_first tensor), on an engine
 * that reads and writes that layout (prnn_engine.batch_major_in_place),
 * without a projection or SKIP_INPUT: those run in place
 * (prnn_call_plan.x_seq_stride, y_seq_stride): layer 0's input GEMM reads
 * x a sequence at a time and its dx GEMM writes dx so, the top layer's
 * kernels write y and read y and dy at row b * T + t; their states are in
 * packed order already (every sequence as long, the order is theirs).
 * BackwardWeights of such a call reads y in place too (only
 * prnn_gather_prev reads it) but still moves x: its GEMM sums over every
 * row, pairing dg's packed rows with x's, and a strided batch of GEMMs
 * does not sum its products.
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
