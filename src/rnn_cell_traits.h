/* The cells (prnnRNNMode_t): one row of traits per mode, the one place that
 * says what a mode is to the descriptors, the layouts, the planner, the
 * engines, the runners, the tuning DB, the tools and the tests. A new cell
 * is a row here, its CPU reference cell (src/ref/ref_cells.c: two functions
 * and a row of ref_cells, kept beside the math rather than in this table so
 * that this floor does not point into the reference) and its kernel Cell<>
 * (kernel_src/rnn_cell.cuh). */
#ifndef PRNN_RNN_CELL_TRAITS_H
#define PRNN_RNN_CELL_TRAITS_H

#include "prnn.h"

/* kernel_mode of a cell that no kernel Cell<> runs (SRU's scan). */
#define PRNN_KMODE_NONE (-1)
/* The most input-side runs a cell's backward needs (GRU's two). */
#define PRNN_MAX_INPUT_RUNS 2

/* One block of input-side gates in a row of gate gradients, in units of
 * hidden: dg columns dg_col .. dg_col + count - 1 multiply W rows w_row ..
 * w_row + count - 1 (the backward's dx and dW GEMMs, one per run). */
typedef struct {
    int dg_col, w_row, count;
} prnn_gate_run;

typedef struct {
    prnnRNNMode_t mode;
    /* its one name: tuning DB, tools, messages */
    const char *name;
    /* gate blocks of W and R (SRU: f, r and the candidate); 0 for no mode */
    int gates;
    /* cx, cy, dcx and dcy are used */
    int has_cell;
    /* PRNN_MODE of its kernels (PRNN_KMODE_* of prnn_kernel_abi.h), or
     * PRNN_KMODE_NONE */
    int kernel_mode;
    /* what the reserve keeps per row and unit: activations (math type) and
     * gate gradients (storage type); the kernels' PRNN_ACT_COLS and
     * PRNN_DG_COLS, which the kernels cannot take from here (NVRTC compiles
     * them without the library's headers; tests/plan/test_cell_traits.c
     * checks that both agree). 0 for SRU, whose reserve is its own. */
    int act_cols, dg_cols;
    /* the input-side GEMMs of the backward (dx and dW): input_run[0 ..
     * input_runs - 1]; none for SRU, whose scan engine runs its own */
    int input_runs;
    prnn_gate_run input_run[PRNN_MAX_INPUT_RUNS];
    /* matrices per pseudo-layer: LinLayer ids 0 .. w_matrices - 1 are the
     * input-side W, the next r_matrices the recurrent R (SRU: u0..u3 and
     * none); a projection, where allowed, is the id after them */
    int w_matrices, r_matrices;
    /* 1: SRU's elementwise scan (the sru-scan engine, its own weights and
     * reserve layouts); 0: a recurrent matrix (the persistent, standard
     * and step engines, the layered runner) */
    int scan;
    /* projSize < hiddenSize and cell clipping are allowed (LSTM only) */
    int projection, clip;
} prnn_cell_traits_row;

/* The row of mode; outside the enum, a row of no mode: name "invalid",
 * gates 0, kernel_mode PRNN_KMODE_NONE, every other trait 0. */
const prnn_cell_traits_row *prnn_cell_traits(prnnRNNMode_t mode);
/* The row of index i (0 ..), NULL past the last: for walking every mode. */
const prnn_cell_traits_row *prnn_cell_traits_at(int i);
/* prnn_cell_traits(mode)->name: "relu", "tanh", "lstm", "gru", "sru";
 * "invalid" outside the enum. */
const char *prnn_mode_name(prnnRNNMode_t mode);
/* The mode of one of those names (exactly): 0, or -1 for another text. */
int prnn_mode_from_name(const char *name, prnnRNNMode_t *mode);

#endif
