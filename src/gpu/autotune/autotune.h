/*
 * The autotuner: for one pass of one shape, candidate configurations of one
 * engine or of every engine that supports the shape (each engine's wider
 * set, src/gpu/engines/engine.h) are compiled in parallel, each is checked
 * against the CPU reference on a short sequence -- a wrong candidate is
 * rejected, never recorded -- and the survivors are timed on the device.
 * The fastest is stored in a tuning database with its engine. Used by
 * prnn-autotune and by handles with PRNN_AUTOTUNE_ON.
 *
 * What a candidate is timed on: forward, inference calls; backward-data,
 * BackwardData calls after one ForwardTraining (on the table's last engine
 * that runs the forward pass: only the reserve matters); an engine
 * whose one configuration serves both passes (SRU's scan), the two calls
 * that run it (ForwardTraining + BackwardData), checked on y and dx.
 */
#ifndef PRNN_AUTOTUNE_H
#define PRNN_AUTOTUNE_H

#include "gpu/autotune/autotune_types.h"
#include "gpu/engines/engine.h"
#include "gpu/gpu_call.h"
#include "rnn_pass.h"

/* The default options (autotune_types.h says which). */
void prnn_autotune_defaults(prnn_autotune_options *o);

/*
 * Tunes q's pass (an engine whose one configuration serves both passes is
 * tuned under pass forward) over engine e, or over every engine that
 * supports q when e is NULL. opts and report may be NULL. On success *best
 * holds the winner, which has been stored as opts->output_db says; it is
 * never slower than the library's own choice (cand[0], timed again in
 * alternation with it). NOT_SUPPORTED when no candidate fits or survives.
 */
prnnStatus_t prnn_autotune_engine(const prnn_engine_query *q, const prnn_engine *e,
                                  const prnn_autotune_options *opts, prnn_autotune_result *best,
                                  prnn_autotune_report *report);

/* The same for rnn's pass at batch mini_batch on g's GPU (prnn-autotune's
 * entry). */
prnnStatus_t prnn_autotune_pass(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                int mini_batch, prnn_pass pass, const prnn_engine *e,
                                const prnn_autotune_options *opts, prnn_autotune_result *best,
                                prnn_autotune_report *report);

#endif
