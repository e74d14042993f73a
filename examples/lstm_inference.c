/*
 * Forward inference of a 2-layer LSTM through prnn's public API.
 *
 * Shows: describing a problem (an RNN descriptor, one xDesc and yDesc per
 * timestep, the state descriptors, the flat weight buffer), planning and
 * what the plan says, the workspace query, and prnnRNNForwardInference with
 * initial states hx, cx and final states hy, cy.
 *
 * Checks: the same sequence run one timestep per call, each call starting
 * from the hy and cy of the one before, gives the outputs of one call over
 * the whole sequence, since hx/cx and hy/cy carry the whole recurrent state
 * of every layer (this is how a streaming application feeds prnn a sequence
 * whose end it does not know yet).
 *
 * Backend: the CPU reference with host memory, by design; on a GPU the same
 * calls take device pointers (example_util.h says what changes).
 *
 * Build against an installed prnn:
 *   cc -std=c99 lstm_inference.c example_util.c \
 *      $(pkg-config --cflags --libs prnn) -lm -o lstm_inference
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prnn.h>

#include "example_util.h"

enum { HIDDEN = 16, LAYERS = 2, INPUT = 8, SEQ = 6, BATCH = 3 };

static const char *path_name(prnnRNNPath_t path)
{
    switch (path) {
    case PRNN_PATH_CPU_REFERENCE: return "CPU reference";
    case PRNN_PATH_PERSISTENT_RESIDENT: return "persistent, weights on-chip";
    case PRNN_PATH_PERSISTENT_STREAMED: return "persistent, weights streamed";
    case PRNN_PATH_STANDARD: return "standard (one GEMM per step)";
    case PRNN_PATH_SRU_SCAN: return "SRU scan"; /* PRNN_SRU only */
    default: return prnnGetRNNPathString(path); /* small-h, step, ... */
    }
}

static float *random_floats(size_t n, unsigned *seed, double scale)
{
    float *p = ex_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)ex_uniform(seed, scale);
    return p;
}

int main(void)
{
    prnnHandle_t handle = ex_cpu_handle();
    /* Every sequence has SEQ steps here; see training_step.c for sequences
     * of different lengths. */
    static const int batch[SEQ] = {BATCH, BATCH, BATCH, BATCH, BATCH, BATCH};
    ex_problem p;
    ex_problem_init(&p, handle, PRNN_LSTM, HIDDEN, LAYERS, PRNN_UNIDIRECTIONAL, INPUT, SEQ, batch,
                    PRNN_DATA_FLOAT);
    printf("LSTM: %d layers, input %d, hidden %d, batch %d, %d steps, float; weights %zu bytes\n",
           LAYERS, INPUT, HIDDEN, BATCH, SEQ, p.w_bytes);

    size_t n_x = p.rows * INPUT, n_y = p.rows * HIDDEN, n_s = ex_state_elems(&p);
    unsigned seed = 2026;
    float *x = random_floats(n_x, &seed, 1.0);
    /* Every element of the flat buffer, padding included (no result depends
     * on it), at PyTorch's default scale 1/sqrt(hidden). */
    float *w = random_floats(p.w_bytes / sizeof(float), &seed, 1.0 / sqrt(HIDDEN));
    float *hx = random_floats(n_s, &seed, 0.5), *cx = random_floats(n_s, &seed, 0.5);
    float *y = ex_alloc(n_y * sizeof(float));
    float *hy = ex_alloc(n_s * sizeof(float)), *cy = ex_alloc(n_s * sizeof(float));

    /* Plan now. On the GPU this picks the tiles and compiles the kernel, the
     * one slow step; without it the first compute call would do it. */
    CHECK(prnnPrepareRNN(handle, p.rnn, BATCH, PRNN_DATA_FLOAT));
    prnnRNNPlanInfo_t info;
    memset(&info, 0, sizeof info);
    info.structSize = sizeof info;
    CHECK(prnnGetRNNPlanInfo(handle, p.rnn, BATCH, PRNN_DATA_FLOAT, &info));
    printf("plan: %s, configuration \"%s\", device \"%s\"\n", path_name(info.path), info.config,
           info.device);

    size_t ws_bytes;
    CHECK(prnnGetRNNWorkspaceSize(handle, p.rnn, SEQ, p.xd, &ws_bytes));
    void *ws = ex_alloc(ws_bytes);
    CHECK(prnnRNNForwardInference(handle, p.rnn, SEQ, p.xd, x, p.hd, hx, p.hd, cx, p.wd, w, p.yd, y,
                                  p.hd, hy, p.hd, cy, ws, ws_bytes));
    printf("one call over %d steps: y[last step][row 0][0..3] = %.6f %.6f %.6f %.6f\n", SEQ,
           y[n_y - BATCH * HIDDEN], y[n_y - BATCH * HIDDEN + 1], y[n_y - BATCH * HIDDEN + 2],
           y[n_y - BATCH * HIDDEN + 3]);

    /* The same sequence, one step per call. Outputs may not overlap inputs,
     * so the state ping-pongs between two pairs of buffers. */
    size_t ws1_bytes;
    CHECK(prnnGetRNNWorkspaceSize(handle, p.rnn, 1, p.xd, &ws1_bytes));
    void *ws1 = ex_alloc(ws1_bytes);
    float *y_steps = ex_alloc(n_y * sizeof(float));
    float *h_in = ex_alloc(n_s * sizeof(float)), *c_in = ex_alloc(n_s * sizeof(float));
    float *h_out = ex_alloc(n_s * sizeof(float)), *c_out = ex_alloc(n_s * sizeof(float));
    memcpy(h_in, hx, n_s * sizeof(float));
    memcpy(c_in, cx, n_s * sizeof(float));
    for (int t = 0; t < SEQ; t++) {
        size_t row = (size_t)t * BATCH;
        CHECK(prnnRNNForwardInference(handle, p.rnn, 1, &p.xd[t], x + row * INPUT, p.hd, h_in, p.hd,
                                      c_in, p.wd, w, &p.yd[t], y_steps + row * HIDDEN, p.hd, h_out,
                                      p.hd, c_out, ws1, ws1_bytes));
        float *swap = h_in;
        h_in = h_out;
        h_out = swap;
        swap = c_in;
        c_in = c_out;
        c_out = swap;
    }

    /* Between calls the state is stored as float, while one call of the CPU
     * reference keeps it in double: agreement to float rounding. */
    double e_y = ex_max_rel_err_f(y_steps, y, n_y, 1e-3);
    double e_h = ex_max_rel_err_f(h_in, hy, n_s, 1e-3);
    double e_c = ex_max_rel_err_f(c_in, cy, n_s, 1e-3);
    const double tol = 1e-5;
    printf("%d calls of one step against one call: max relative error y %.1e, hy %.1e, cy %.1e "
           "(tolerance %.0e)\n",
           SEQ, e_y, e_h, e_c, tol);
    int ok = e_y <= tol && e_h <= tol && e_c <= tol;

    free(ws1);
    free(y_steps);
    free(h_in);
    free(c_in);
    free(h_out);
    free(c_out);
    free(ws);
    free(x);
    free(w);
    free(hx);
    free(cx);
    free(y);
    free(hy);
    free(cy);
    ex_problem_free(&p);
    CHECK(prnnDestroy(handle));
    return ex_verdict(ok);
}
