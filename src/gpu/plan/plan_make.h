/*
 * Making plans from choices already made: the engines a pass may run on (in
 * the table's order, $PRNN_ENGINE's first), preparing one engine's pass
 * plan, a plan of explicit engines (the autotuner's candidates), and the
 * call plan of one compute call on a plan. plan_select.h chooses; the
 * autotuner builds its candidates' plans here.
 */
#ifndef PRNN_PLAN_MAKE_H
#define PRNN_PLAN_MAKE_H

#include "gpu/gpu_call.h"
#include "gpu/plan/plan.h"
#include "gpu/run/gpu_run.h"

/* The query of (rnn's key, pass) for call g. */
prnn_engine_query prnn_plan_query(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn,
                                  const prnn_rnn_key *key, prnn_pass pass);

/* The engine name that forces a pass: $PRNN_ENGINE, for the backward-data
 * pass $PRNN_ENGINE_BACKWARD when set; NULL when neither is set (a name
 * that is no engine is still returned: prnn_plan_engine_order reports it). */
const char *prnn_plan_forced_engine(prnn_pass pass);

/* The engines that support q, in the order its pass tries them: the one
 * $PRNN_ENGINE (for the backward-data pass $PRNN_ENGINE_BACKWARD, when set)
 * names first, then the table's. A name that is no engine, or an engine
 * that cannot run q, is reported in the log and left out. Returns how
 * many (at most 16). refused (NULL: not wanted) gets, within refused_size
 * bytes, every engine that cannot run q with its reason, "name: why; ...". */
int prnn_plan_engine_order(const prnn_engine_query *q, const prnn_engine **order, char *refused,
                           size_t refused_size);

/* Engine e's pass plan for q from its choices (NOT_SUPPORTED when none
 * runs); on failure pp holds nothing. The caller holds the context. */
prnnStatus_t prnn_plan_prepare_engine(const prnn_engine_query *q, const prnn_engine *e,
                                      const prnn_engine_choice *choices, int count,
                                      prnn_pass_plan *pp);

/*
 * A plan with explicit engines (the autotuner's candidates): fwd_engine
 * runs the forward pass with choice fwd (NULL: its heuristic's first);
 * with a bwd_engine, bwd_engine runs the backward-data pass with choice bwd
 * (likewise) and the training kernels are loaded; without one the plan
 * runs inference only (its backward-data pass has no engine). NOT_SUPPORTED
 * when a choice cannot run here. Free it with prnn_plan_free.
 */
prnnStatus_t prnn_plan_with(const prnn_gpu_call *g, const struct prnnRNNStruct *rnn, int mini_batch,
                            const prnn_engine *fwd_engine, const prnn_engine_choice *fwd,
                            const prnn_engine *bwd_engine, const prnn_engine_choice *bwd,
                            prnn_plan **out);

/* The call plan of a call of `kind` of p on plan: its engine, layouts and
 * the sizes the caller's buffers are checked against. INTERNAL_ERROR for a
 * training call on a plan whose training kernels are not loaded, or a
 * pass the plan has no engine for. */
prnnStatus_t prnn_plan_call(const prnn_plan *plan, struct prnn_gpu_state *gs,
                            const prnn_rnn_problem *p, prnn_call_kind kind, prnn_call_plan *c);

#endif
