/*
 * What the examples share: failing loudly, choosing the backend, and the
 * descriptors of one RNN problem. Like the examples, it uses the installed
 * header <prnn.h> only.
 *
 * Every example runs on the CPU reference backend, by design: its buffers
 * are host memory from malloc, and the examples include no CUDA header to
 * allocate device memory with. The same calls run on the GPU unchanged
 * except for where the memory lives:
 *  - create the handle with prnnCreate (it returns PRNN_STATUS_NO_DEVICE on
 *    a machine without a GPU, which is what ex_cpu_handle reports), and
 *    optionally prnnSetStream(handle, stream);
 *  - allocate x, y, hx, cx, hy, cy, w, the workspace, the reserve and the
 *    gradients with cudaMalloc (runtime API) or cuMemAlloc (driver API),
 *    copy the inputs in with cudaMemcpy, and pass those device pointers;
 *  - the compute calls then only enqueue work on the handle's stream:
 *    synchronize it (cudaStreamSynchronize) before reading results back;
 *  - call prnnPrepareRNN (and, for training, prnnGetRNNTrainingReserveSize)
 *    before the first compute call, so that planning (tile choice, kernel
 *    compilation) happens there and not inside a timed or captured call.
 * The sizes, the weight layout, the descriptors and the results are the
 * same on both backends.
 */
#ifndef EXAMPLE_UTIL_H
#define EXAMPLE_UTIL_H

#include <stddef.h>

#include <prnn.h>

/* Runs a prnn call; on failure prints the call, the status and prnn's log
 * (which names the argument and the rule) and exits with status 1. */
#define CHECK(call) ex_check((call), #call, __FILE__, __LINE__)
void ex_check(prnnStatus_t status, const char *call, const char *file, int line);

/* Asks for a GPU handle to say what this machine has, then returns a
 * CPU-reference handle, saying why: see the top of this file. */
prnnHandle_t ex_cpu_handle(void);

/* The descriptors of one problem: an RNN descriptor, xDesc[t] and yDesc[t]
 * for every step, one descriptor for every hidden and cell state
 * ({layers * dirs, batch[0], hidden}), and the weights' filter. */
typedef struct {
    prnnRNNDescriptor_t rnn;
    prnnDataType_t dtype;
    size_t elem; /* bytes per element of dtype */
    int hidden, layers, dirs, input, seq;
    const int *batch;           /* batch[t]: rows of step t, never growing */
    size_t rows;                /* sum of batch[t]: rows of x and y */
    prnnTensorDescriptor_t *xd; /* seq descriptors {batch[t], input, 1} */
    prnnTensorDescriptor_t *yd; /* seq descriptors {batch[t], hidden * dirs, 1} */
    prnnTensorDescriptor_t hd;  /* {layers * dirs, batch[0], hidden} */
    prnnFilterDescriptor_t wd;  /* {weight elements, 1, 1} */
    size_t w_bytes;             /* prnnGetRNNParamsSize */
} ex_problem;

/* Creates and sets every descriptor of the problem; no dropout, linear
 * input. batch must outlive the problem. */
void ex_problem_init(ex_problem *p, prnnHandle_t handle, prnnRNNMode_t mode, int hidden, int layers,
                     prnnDirectionMode_t direction, int input, int seq, const int *batch,
                     prnnDataType_t dtype);
void ex_problem_free(ex_problem *p);

/* Elements of a state tensor: layers * dirs * batch[0] * hidden. */
size_t ex_state_elems(const ex_problem *p);

/* malloc that exits on failure; never returns NULL, even for 0 bytes. */
void *ex_alloc(size_t bytes);

/* Deterministic uniform numbers in [-scale, scale], so every run of an
 * example prints the same figures. */
double ex_uniform(unsigned *state, double scale);

/* Largest |got - want| / max(|want|, floor) over n values: relative error,
 * absolute below floor where a relative one would magnify rounding. The
 * second form compares float arrays. */
double ex_max_rel_err(const double *got, const double *want, size_t n, double floor);
double ex_max_rel_err_f(const float *got, const float *want, size_t n, double floor);

/* Prints "verdict: ok" or "verdict: not ok" (the install test reads it)
 * and returns the example's exit status. */
int ex_verdict(int ok);

#endif
