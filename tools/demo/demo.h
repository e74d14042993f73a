/*
 * What prnn-demo's parts share: the training step's buffers, the problem's
 * descriptors, and the one way they stop on a failed call.
 */
#ifndef PRNN_DEMO_H
#define PRNN_DEMO_H

#include <stdio.h>
#include <stdlib.h>

#include "prnn.h"
#include "tool_cli.h" /* exit statuses: TOOL_EXIT_NO_GPU only from --probe */

#define DEMO_CHECK(call)                                                                           \
    do {                                                                                           \
        prnnStatus_t s_ = (call);                                                                  \
        if (s_ != PRNN_STATUS_SUCCESS) {                                                           \
            fprintf(stderr, "prnn-demo: %s failed: %s\n%s\n", #call, prnnGetErrorString(s_),       \
                    prnnGetLastErrorLog());                                                        \
            exit(TOOL_EXIT_FAILURE);                                                               \
        }                                                                                          \
    } while (0)

/* The buffers of one training step, host copies: inputs first. */
enum { B_X, B_W, B_HX, B_CX, B_Y, B_DY, B_HY, B_CY, B_DX, B_DHX, B_DCX, B_DW, N_BUF };

typedef struct {
    prnnRNNDescriptor_t rnn;
    int seq;
    prnnTensorDescriptor_t *xd, *yd, hd;
    prnnFilterDescriptor_t wd;
    const size_t *sizes;        /* floats per buffer */
    const float *const *inputs; /* host data of the inputs, NULL for outputs */
} demo_problem;

/*
 * Checks the CPU reference's gradients (grad[B_DX], grad[B_DHX], grad[B_DCX],
 * grad[B_DW], from BackwardData and BackwardWeights with dhy = dcy = 0)
 * against central finite differences of L = sum(dy . y) through
 * ForwardInference on cpu. Prints one line per check; returns how many
 * failed.
 */
int demo_gradcheck(const demo_problem *p, prnnHandle_t cpu, float *const *grad);

/*
 * Prints what this machine offers prnn, a line each: GPU (name, driver),
 * NVRTC, cuBLASLt, cuDNN. Returns TOOL_EXIT_OK when prnn can run on the GPU
 * (a device, NVRTC and cuBLASLt), TOOL_EXIT_NO_GPU otherwise.
 */
int demo_probe(FILE *out);

/* The first line of the calling thread's log, without the loaders' list of
 * every path tried after "; tried:": the reason in one line. */
void demo_short_reason(char *buf, size_t n);

#endif
