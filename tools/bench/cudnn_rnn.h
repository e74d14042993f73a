/*
 * Sets up and times cuDNN's RNN (v8 API) for one point and one algorithm.
 */
#ifndef PRNN_BENCH_CUDNN_RNN_H
#define PRNN_BENCH_CUDNN_RNN_H

#include "bench_run.h"

typedef struct bench_cudnn bench_cudnn;

/*
 * Loads cuDNN and makes a handle on d's stream, with a dropout descriptor of
 * probability 0 (required by the RNN descriptor). 0, or -1 with the reason
 * in err (cuDNN not found, or it does not work). version gets
 * "9.14.0 (/usr/local/cuda/lib64/libcudnn.so.9)".
 */
int bench_cudnn_open(bench_cudnn **out, const bench_device *d, char *version, size_t version_size,
                     char *err, size_t n);
void bench_cudnn_close(bench_cudnn *c);

/*
 * Times algo (cudnnRNNAlgo_t: 0 STANDARD, 1 PERSIST_STATIC, 2 PERSIST_DYNAMIC
 * with cudnnBuildRNNDynamic, 3 PERSIST_STATIC_SMALL_H) on ctx's point
 * (projSize = its projection where it has one, with hDesc projSize wide and
 * cDesc hiddenSize wide). r->state ends OK, REFUSED (cuDNN said
 * NOT_SUPPORTED somewhere: in setup or the first call; or a persistent
 * algorithm at a projected point, which cuDNN does not run) or FAILED
 * (message in r->note). Math per ctx->math: see
 * the usage; a refused first choice falls back to the next one and says so
 * in r->note. On OK, *sig holds the outputs of the checked first call (the
 * caller frees it); otherwise *sig is empty.
 */
void bench_cudnn_run(bench_cudnn *c, const bench_run_ctx *ctx, int algo, bench_impl_result *r,
                     bench_sig *sig);

#endif
