/* What the examples share (example_util.h). */
#include "example_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void ex_check(prnnStatus_t status, const char *call, const char *file, int line)
{
    if (status == PRNN_STATUS_SUCCESS)
        return;
    fprintf(stderr, "%s:%d: %s failed: %s\n%s\n", file, line, call, prnnGetErrorString(status),
            prnnGetLastErrorLog());
    printf("verdict: not ok (%s failed)\n", call);
    exit(1);
}

prnnHandle_t ex_cpu_handle(void)
{
    /* A real GPU program would keep this handle; see example_util.h for
     * why the examples cannot, and what would change. */
    prnnHandle_t gpu = NULL, cpu = NULL;
    prnnStatus_t s = prnnCreate(&gpu);
    if (s == PRNN_STATUS_SUCCESS) {
        printf("A GPU is present, but this example keeps its data in host memory (it includes no "
               "CUDA header to allocate device memory): running on the CPU reference backend.\n");
        CHECK(prnnDestroy(gpu));
    } else if (s == PRNN_STATUS_NO_DEVICE) {
        printf("No GPU (prnnCreate returned PRNN_STATUS_NO_DEVICE): running on the CPU reference "
               "backend.\n");
    } else {
        printf("No usable GPU (prnnCreate returned %s): running on the CPU reference backend.\n",
               prnnGetErrorString(s));
    }
    CHECK(prnnCreateWithBackend(&cpu, PRNN_BACKEND_CPU_REFERENCE));
    return cpu;
}

void *ex_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* A fully packed 3-d tensor descriptor: the only kind the RNN calls take. */
static prnnTensorDescriptor_t packed3(prnnDataType_t dtype, int a, int b, int c)
{
    prnnTensorDescriptor_t d;
    int dims[3] = {a, b, c};
    int strides[3] = {b * c, c, 1};
    CHECK(prnnCreateTensorDescriptor(&d));
    CHECK(prnnSetTensorNdDescriptor(d, dtype, 3, dims, strides));
    return d;
}

void ex_problem_init(ex_problem *p, prnnHandle_t handle, prnnRNNMode_t mode, int hidden, int layers,
                     prnnDirectionMode_t direction, int input, int seq, const int *batch,
                     prnnDataType_t dtype)
{
    p->dtype = dtype;
    p->elem = dtype == PRNN_DATA_DOUBLE ? 8 : dtype == PRNN_DATA_FLOAT ? 4 : 2;
    p->hidden = hidden;
    p->layers = layers;
    p->dirs = direction == PRNN_BIDIRECTIONAL ? 2 : 1;
    p->input = input;
    p->seq = seq;
    p->batch = batch;
    CHECK(prnnCreateRNNDescriptor(&p->rnn));
    CHECK(prnnSetRNNDescriptor(p->rnn, hidden, layers, NULL, PRNN_LINEAR_INPUT, direction, mode,
                               dtype));
    p->xd = ex_alloc((size_t)seq * sizeof(*p->xd));
    p->yd = ex_alloc((size_t)seq * sizeof(*p->yd));
    p->rows = 0;
    for (int t = 0; t < seq; t++) {
        p->xd[t] = packed3(dtype, batch[t], input, 1);
        p->yd[t] = packed3(dtype, batch[t], hidden * p->dirs, 1);
        p->rows += (size_t)batch[t];
    }
    p->hd = packed3(dtype, layers * p->dirs, batch[0], hidden);
    /* The weights are one flat buffer whose size prnn decides (its layout
     * is prnn's own: address it through the LinLayer calls). */
    CHECK(prnnGetRNNParamsSize(handle, p->rnn, p->xd[0], &p->w_bytes, dtype));
    int w_elems = (int)(p->w_bytes / p->elem);
    int wdims[3] = {w_elems, 1, 1};
    CHECK(prnnCreateFilterDescriptor(&p->wd));
    CHECK(prnnSetFilterNdDescriptor(p->wd, dtype, PRNN_TENSOR_NCHW, 3, wdims));
}

void ex_problem_free(ex_problem *p)
{
    for (int t = 0; t < p->seq; t++) {
        CHECK(prnnDestroyTensorDescriptor(p->xd[t]));
        CHECK(prnnDestroyTensorDescriptor(p->yd[t]));
    }
    free(p->xd);
    free(p->yd);
    CHECK(prnnDestroyTensorDescriptor(p->hd));
    CHECK(prnnDestroyFilterDescriptor(p->wd));
    CHECK(prnnDestroyRNNDescriptor(p->rnn));
}

size_t ex_state_elems(const ex_problem *p)
{
    return (size_t)p->layers * p->dirs * p->batch[0] * p->hidden;
}

double ex_uniform(unsigned *state, double scale)
{
    *state = *state * 1664525u + 1013904223u; /* LCG: reproducible anywhere */
    return scale * ((double)(*state >> 8) / 8388608.0 - 1.0);
}

/* ex_max_rel_err over arrays of doubles or (floats) of floats. */
static double max_rel_err(const void *got, const void *want, size_t n, double floor, int floats)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double g = floats ? ((const float *)got)[i] : ((const double *)got)[i];
        double w = floats ? ((const float *)want)[i] : ((const double *)want)[i];
        double scale = fabs(w) > floor ? fabs(w) : floor;
        double e = fabs(g - w) / scale;
        if (e != e) /* NaN: as bad as it gets */
            return HUGE_VAL;
        if (e > worst)
            worst = e;
    }
    return worst;
}

double ex_max_rel_err(const double *got, const double *want, size_t n, double floor)
{
    return max_rel_err(got, want, n, floor, 0);
}

double ex_max_rel_err_f(const float *got, const float *want, size_t n, double floor)
{
    return max_rel_err(got, want, n, floor, 1);
}

int ex_verdict(int ok)
{
    printf("verdict: %s\n", ok ? "ok" : "not ok");
    return ok ? 0 : 1;
}
