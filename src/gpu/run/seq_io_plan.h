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

/* Whether every sequence of io's problem p is maxSeqLength long. */
int prnn_seq_io_full_length(const prnn_rnn_problem *p);

/* Whether io's sequences are in packed order already (their lengths never
 * grow): the kernels then need no order. */
int prnn_seq_io_order_is_identity(const prnn_seq_io *io);

/* Whether backward-data in place still moves dx (seq_io.h): its sequences
 * are padded or reordered. */
int prnn_seq_io_dx_moves(const prnn_rnn_problem *p);

#endif
