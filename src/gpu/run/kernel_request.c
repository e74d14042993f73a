#include "gpu/run/kernel_request.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "prnn_kernel_abi.h"
#include "rnn_cell_traits.h"

int prnn_kernel_dtype_code(prnnDataType_t t)
{
    switch (t) {
    case PRNN_DATA_FLOAT: return 0;
    case PRNN_DATA_DOUBLE: return 1;
    case PRNN_DATA_HALF: return 2;
    case PRNN_DATA_BFLOAT16: return 3;
    }
    return -1;
}

void prnn_request_start(prnn_kernel_request *r, const char *source, const char *kernel, int sm)
{
    r->n = 0;
    r->overflow = 0;
    memset(&r->req, 0, sizeof(r->req));
    r->req.source_name = source;
    r->req.kernel_name = kernel;
    r->req.sm = sm;
}

void prnn_request_define(prnn_kernel_request *r, const char *name, long value)
{
    if (r->n == PRNN_REQUEST_MAX_DEFINES) {
        r->overflow = 1;
        return;
    }
    int len = snprintf(r->text[r->n], sizeof(r->text[0]), "%s=%ld", name, value);
    if (len < 0 || len >= (int)sizeof(r->text[0]))
        r->overflow = 1;
    r->ptr[r->n] = r->text[r->n];
    r->n++;
}

void prnn_request_cell(prnn_kernel_request *r, const prnn_rnn_key *key)
{
    prnn_request_define(r, "PRNN_MODE", prnn_cell_traits(key->mode)->kernel_mode);
    if (key->clip != PRNN_KCLIP_NONE)
        prnn_request_define(r, "PRNN_CLIP", key->clip);
}

prnnStatus_t prnn_request_finish(prnn_kernel_request *r)
{
    if (r->overflow)
        return prnn_fail(
            PRNN_STATUS_INTERNAL_ERROR,
            "the request for %s (%s) needs more than %d defines of at most %d characters",
            r->req.kernel_name, r->req.source_name, PRNN_REQUEST_MAX_DEFINES,
            PRNN_REQUEST_DEFINE_CHARS - 1);
    r->req.defines = r->ptr;
    r->req.num_defines = r->n;
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_request_setup(int sm, prnn_kernel_request *r)
{
    prnn_request_start(r, "rnn_setup.cu", "prnn_rnn_setup", sm);
    return prnn_request_finish(r);
}

prnnStatus_t prnn_request_train(prnnDataType_t dtype, int sm, prnn_kernel_request *r)
{
    prnn_request_start(r, "rnn_train.cu", "prnn_train_kernels", sm);
    prnn_request_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(dtype));
    return prnn_request_finish(r);
}
