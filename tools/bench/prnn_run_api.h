/*
 * What prnn's runner (prnn_run.c: plan, weights, checked call, timing,
 * graph capture) shares with the API families it drives: the v5 calls on
 * the packed layout (prnn_run.c) and the v8 calls on the padded layouts and
 * on points with a projection, packed ones too (prnn_run_v8.c). A family describes the point to
 * prnn and makes its calls; everything around them is the runner's, the same for both.
 */
#ifndef PRNN_BENCH_PRNN_RUN_API_H
#define PRNN_BENCH_PRNN_RUN_API_H

#include "prnn_run.h"

struct bench_prnn {
    const bench_device *d;
    prnnHandle_t handle;
};

typedef struct prun prun;

typedef struct {
    /* Creates and sets the RNN descriptor (rnn: algorithm and math type
     * included) and the family's other descriptors. */
    int (*describe)(prun *r, prnnRNNAlgo_t algo, char *err, size_t n);
    /* After the plan: w_size, work_size and (training) reserve_size. */
    int (*sizes)(prun *r, char *err, size_t n);
    /* Where a parameter lives in a weight buffer (bench_locate_fn). */
    bench_locate_fn locate;
    bench_call_fn forward_inference;
    bench_call_fn phases[BENCH_NUM_PHASES]; /* the training step */
} prun_api;

/* Everything one run owns; each family uses its own descriptors. */
struct prun {
    bench_prnn *p;
    const bench_run_ctx *ctx;
    const prun_api *api;
    prnnRNNDescriptor_t rnn;
    prnnTensorDescriptor_t h1; /* the states (v5: and cDesc) */
    /* v5: one step's x/y, seq copies of them, the weights' filters */
    prnnTensorDescriptor_t x1, y1;
    prnnTensorDescriptor_t *xs, *ys;
    prnnFilterDescriptor_t wd, md;
    /* v8: x/dx and y/dy, the cell states (cDesc: hidden wide, where h1 is
     * projSize wide), a matrix's and a bias's place */
    prnnRNNDataDescriptor_t xd, yd;
    prnnTensorDescriptor_t c1, mt, bt;
    size_t w_size, work_size, reserve_size;
    CUdeviceptr w, dw, work, reserve;
    /* work holds ctx->workspaces of work_size, work_stride apart; calls
     * take them in turn (prun_workspace) */
    size_t work_stride;
    unsigned long long work_turn;
    CUgraph graph;
    CUgraphExec exec;
    int use_graph;     /* call_step launches exec instead */
    prnnStatus_t last; /* the last prnn failure, or SUCCESS */
};

/* The workspace of the next call (bench_args.workspaces). */
void *prun_workspace(prun *r);

/* 0 on success; else records s in r->last, writes "<what>: <status>:
 * <prnn's log>" (one line) into err and returns -1. */
int prun_check(prun *r, prnnStatus_t s, const char *what, char *err, size_t n);

/* {a, b, c} with packed strides. */
prnnStatus_t prun_set3(prnnTensorDescriptor_t t, prnnDataType_t dt, int a, int b, int c);

/* The math type of ctx->math. */
prnnMathType_t prun_math_type(const prun *r);

extern const prun_api prun_v8_api;

#endif
