/*
 * The argument structs of prnn's kernels, shared by the host (C) and the
 * kernels (CUDA C++ under NVRTC). Plain C types only: NVRTC compiles this
 * with no include path, and the layouts must agree bit for bit on both sides
 * (64-bit pointers, natural alignment).
 */
#ifndef PRNN_KERNEL_ABI_H
#define PRNN_KERNEL_ABI_H

/* One direction's inputs and outputs for one layer. */
typedef struct {
    const void *R;   /* [gates*hidden][hidden] storage type, gate-major rows */
    const void *bW;  /* [gates*hidden] */
    const void *bR;  /* [gates*hidden] */
    const void *xin; /* LINEAR: projected input [rows][gates*hidden] in the math
                      * type (float, or double); SKIP: x [rows][hidden] */
    const void *hx;  /* [miniBatch][hidden] of this pseudo-layer, or NULL */
    const void *cx;
    void *hy;
    void *cy;
    void *exchange;        /* hand-off words, both parities */
    unsigned int *counter; /* step counters (hand-off 1), one per batch group */
    void *packed;          /* streamed weights, this direction */
} prnn_dir_args;

typedef struct {
    prnn_dir_args dir[2];
    void *y;            /* [rows][y_cols] storage type */
    const int *batch;   /* [seq_length] rows of each step */
    const int *offset;  /* [seq_length] first row of each step */
    int seq_length;
    int y_cols;         /* hidden * directions */
    unsigned int tag_base; /* layer * seq_length: step tags stay unique over
                            * the layers of one call */
    int reserved;
} prnn_rnn_args;

/* The per-call setup kernel: expands batch runs into per-step batch sizes and
 * first rows, and zeroes the hand-off area so step tags start afresh. */
#define PRNN_SETUP_MAX_RUNS 200
typedef struct {
    int *batch;
    int *offset;
    unsigned int *zero;         /* words to zero, or NULL */
    unsigned long long zero_words;
    long long row_base;         /* first row of run 0 */
    int t_begin;                /* first step of run 0 */
    int num_runs;
    int t_end[PRNN_SETUP_MAX_RUNS]; /* run i covers [t_end[i-1], t_end[i]) */
    int run_batch[PRNN_SETUP_MAX_RUNS];
} prnn_setup_args;

/* The standard path: one pointwise kernel per step after a cuBLASLt GEMM
 * rec = h_{t-1} R^T over the step's active rows. */
typedef struct {
    const void *rec;  /* [batch][gates*hidden] math type */
    const void *xin;  /* as prnn_dir_args.xin */
    const void *bW, *bR;
    void *hstate;     /* [miniBatch][hidden] storage type: h_{t-1} in, h_t out */
    void *cstate;     /* [miniBatch][hidden] math type (LSTM) */
    void *y;
    void *hy, *cy;    /* this pseudo-layer's slice, or NULL */
    long long row0;   /* first row of the step */
    int batch;        /* rows of this step */
    int next_batch;   /* rows of the next step in processing order (0: none) */
    int y_cols;
    int y_offset;     /* direction * hidden */
    int final_step;   /* 1 for the direction's last processed step */
    int reverse;
} prnn_step_args;

/* Start of a standard-path layer: hstate = hx (or 0), cstate = cx (or 0). */
typedef struct {
    const void *hx, *cx;
    void *hstate, *cstate;
    int count; /* miniBatch * hidden */
    int reserved;
} prnn_step_init_args;

#endif
