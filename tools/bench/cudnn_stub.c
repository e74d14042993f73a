/* cuDNN support for a build whose toolkit has no cudnn.h: the benchmark
 * still times prnn and says why cuDNN is missing. */
#include <stdio.h>
#include <string.h>

#include "cudnn_rnn.h"

int bench_cudnn_open(bench_cudnn **out, const bench_device *d, char *version,
                     size_t version_size, char *err, size_t n)
{
    (void)d;
    *out = NULL;
    snprintf(version, version_size, "not built");
    snprintf(err, n, "prnn-bench was built without cudnn.h (install the "
                     "cuDNN headers under the CUDA toolkit and rebuild)");
    return -1;
}

void bench_cudnn_close(bench_cudnn *c)
{
    (void)c;
}

void bench_cudnn_run(bench_cudnn *c, const bench_run_ctx *ctx, int algo,
                     bench_impl_result *r, bench_sig *sig)
{
    (void)c;
    (void)ctx;
    (void)algo;
    memset(sig, 0, sizeof(*sig));
    r->state = BENCH_NOT_RUN;
}
