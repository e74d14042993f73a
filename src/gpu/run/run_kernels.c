#include "gpu/run/run_kernels.h"

#include <stdio.h>

#include "error.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/kernel_request.h"
#include "jit/module_cache.h"

prnnStatus_t prnn_load_module(struct prnn_gpu_state *gs, const prnn_kernel_request *r,
                              prnn_load_stats *stats, CUmodule *mod)
{
    prnnCubinSource_t src;
    double ms = 0;
    prnnStatus_t s = prnn_module_get_module(gs->cu, gs->ctx, &r->req, mod, &src, &ms);
    if (s)
        return s;
    if (stats->cubin_source == PRNN_CUBIN_NONE || src > stats->cubin_source)
        stats->cubin_source = src;
    stats->compile_ms += ms;
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t get_function(struct prnn_gpu_state *gs, CUmodule mod, const char *name,
                                 CUfunction *fn)
{
    char what[96];
    snprintf(what, sizeof(what), "cuModuleGetFunction(%s)", name);
    return prnn_cu_check(gs->cu->cuModuleGetFunction(fn, mod, name), what);
}

prnnStatus_t prnn_load_functions(struct prnn_gpu_state *gs, prnnStatus_t requested,
                                 const prnn_kernel_request *r, prnn_load_stats *stats,
                                 const prnn_named_fn *fns, size_t n)
{
    CUmodule mod;
    prnnStatus_t s = requested;
    if (!s)
        s = prnn_load_module(gs, r, stats, &mod);
    for (size_t i = 0; !s && i < n; i++)
        s = get_function(gs, mod, fns[i].name, fns[i].fn);
    return s;
}

prnnStatus_t prnn_run_kernels_load(struct prnn_gpu_state *gs, prnn_run_kernels *k,
                                   prnn_load_stats *stats)
{
    prnn_kernel_request r;
    const prnn_named_fn fns[] = {{"prnn_rnn_setup", &k->setup},
                                 {"prnn_seq_order", &k->seq_order},
                                 {"prnn_seq_move", &k->seq_move}};
    return prnn_load_functions(gs, prnn_request_setup(gs->info.sm, &r), &r, stats, fns,
                               sizeof(fns) / sizeof(fns[0]));
}

prnnStatus_t prnn_run_kernels_load_training(struct prnn_gpu_state *gs, prnnDataType_t dtype,
                                            prnn_run_kernels *k, prnn_load_stats *stats)
{
    prnn_kernel_request r;
    const prnn_named_fn fns[] = {
        {"prnn_dropout_forward", &k->dropout_forward},
        {"prnn_dropout_backward", &k->dropout_backward},
        {"prnn_gather_prev", &k->gather_prev},
        {"prnn_bias_partial", &k->bias_partial},
        {"prnn_bias_finish", &k->bias_finish},
        {"prnn_bias_direct", &k->bias_direct},
        {"prnn_skip_dx", &k->skip_dx},
    };
    prnnStatus_t s = prnn_load_functions(gs, prnn_request_train(dtype, gs->info.sm, &r), &r, stats,
                                         fns, sizeof(fns) / sizeof(fns[0]));
    if (!s)
        k->training_loaded = 1;
    return s;
}
