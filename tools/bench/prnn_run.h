/*
 * Sets up and times prnn for one point: the plain API call on a stream, the
 * same call captured into a CUDA graph and replayed, and the "cublasLt-graph"
 * baseline (PRNN_RNN_ALGO_STANDARD: one cuBLASLt GEMM and one fused
 * pointwise kernel per step, captured and replayed). The calls are the v5
 * ones on a packed point, the v8 ones (prnnRNNForward, ..._v8) on a padded
 * one and on one with a projection: see prnn_run_api.h.
 */
#ifndef PRNN_BENCH_PRNN_RUN_H
#define PRNN_BENCH_PRNN_RUN_H

#include "bench_run.h"

typedef struct bench_prnn bench_prnn;

/* prnnCreate on d's current context, stream set to d's stream. 0;
 * TOOL_EXIT_NO_GPU when prnnCreate says NO_DEVICE; TOOL_EXIT_FAILURE for
 * other failures (message in err). */
int bench_prnn_open(bench_prnn **out, const bench_device *d, char *err, size_t n);
void bench_prnn_close(bench_prnn *p);

/*
 * Runs algo (a prnnRNNAlgo_t) on ctx's point.
 *  plan: when not NULL, filled from prnnGetRNNPlanInfo.
 *  plain: when not NULL, the plain call is timed into it and *sig_plain
 *    gets the outputs of its checked first call; on a training point each
 *    phase is also timed alone into plain->phase (bench_run_phases).
 *  graph: when not NULL, the call is captured (cuStreamBeginCapture ...
 *    EndCapture), instantiated and the graph's launches timed into it;
 *    *sig_graph gets the outputs of its first launch. Whole call only.
 *  fwd_inference: when not NULL and the point is a training one,
 *    prnnRNNForwardInference of the same shape is timed into it, whether
 *    or not the training step ran.
 * A NOT_SUPPORTED answer from prnn (e.g. a training pass before the GPU
 * training path exists) is state NA with prnn's message; other failures are
 * FAILED. Signatures are empty unless their result is OK.
 */
void bench_prnn_run(bench_prnn *p, const bench_run_ctx *ctx, prnnRNNAlgo_t algo, bench_plan *plan,
                    bench_impl_result *plain, bench_sig *sig_plain, bench_impl_result *graph,
                    bench_sig *sig_graph, bench_impl_result *fwd_inference);

/* "resident", "streamed", "standard", "cpu". */
const char *bench_path_name(prnnRNNPath_t p);

#endif
