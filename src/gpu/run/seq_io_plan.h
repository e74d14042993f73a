/*
 * Which v8 calls of unpacked data (rnn_problem.h's prnn_seq_io) run in place,
 * their kernels on the caller's buffers (seq_io.h), decided from the
 * descriptors alone, so that the three places that need the answer agree:
 * the plan's key (prnn_rnn_key.caller_rows: the kernels compiled for the
 * caller's rows), the call's workspace (workspace_layout.c) and its run
 * (seq_io.c).
 */
#ifndef PRNN_SEQ_IO_PLAN_H
#define PRNN_SEQ_IO_PLAN_H

#include "gpu/engines/engine.h"
#include "prnn_kernel_abi.h"
#include "rnn_problem.h"

/* Whether calls of rnn may run in place at all: no projection, no
 * SKIP_INPUT, not SRU (whose engine moves). */
int prnn_seq_io_rnn_may_run_in_place(const struct prnnRNNStruct *rnn);

/* Whether p's calls may run in place: an unpacked layout (p->io), rnn's
 * settings, and sizes whose rows and products' leading dimensions are ints
 * (as the kernels' rows and cuBLASLt's keys hold them). */
int prnn_seq_io_may_run_in_place(const prnn_rnn_problem *p);

/* Whether p's calls run in place on engine e: they may, and e's kernels take
 * the caller's rows (prnn_engine.unpacked_in_place). */
int prnn_seq_io_runs_in_place(const prnn_engine *e, const prnn_rnn_problem *p);

/* The combinations of xin's and y's rows (prnn_kernel_abi.h, PRNN_IO_*)
 * that the persistent and tiny-h forward kernels of a plan compile their
 * steps for (PRNN_IO_LAYOUTS): a plan of packed data's, packed rows; a plan
 * of unpacked data's (caller_rows, prnn_rnn_key.caller_rows), whose calls
 * all run in place, those of its layers: of one layer, x and y both in
 * place; of several, layer 0's x, the top layer's y and (three or more)
 * the packed rows of the layers between. Each costs a compile of the
 * steps' code. */
int prnn_seq_io_kernel_layouts(int caller_rows, int layers);

/* The layer counts whose plans of unpacked data compile different forward
 * kernels: prnn_seq_io_kernel_layouts gives each count up to this one its
 * own combinations, and every count above it this one's (prnn-cache warm
 * compiles unpacked data's plans for each). */
#define PRNN_SEQ_IO_DISTINCT_LAYERS 3

/* Before a launch of such a kernel: SUCCESS where its plan's kernels were
 * compiled for x's and y's rows, else INTERNAL_ERROR naming them (a kernel
 * would not run the steps of rows it was not compiled for). */
prnnStatus_t prnn_seq_io_check_kernel_rows(int caller_rows, int layers, const prnn_rows *x,
                                           const prnn_rows *y);

/* Whether every sequence of io's problem p is maxSeqLength long. */
int prnn_seq_io_full_length(const prnn_rnn_problem *p);

/* Whether io's sequences are in packed order already (their lengths never
 * grow): the kernels then need no order. */
int prnn_seq_io_order_is_identity(const prnn_seq_io *io);

/* Whether backward-data in place still moves dx (seq_io.h): its sequences
 * are padded or reordered. */
int prnn_seq_io_dx_moves(const prnn_rnn_problem *p);

#endif
