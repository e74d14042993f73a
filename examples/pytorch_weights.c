/*
 * Weights in the conventional per-gate layout, as PyTorch's nn.LSTM and
 * nn.GRU store them (and cuDNN orders them), loaded into prnn's flat weight
 * buffer through prnnGetRNNLinLayerMatrixParams / BiasParams; then prnn's
 * forward pass checked against a plain-C computation of PyTorch's
 * documented equations on the PyTorch-layout arrays themselves.
 *
 * PyTorch's parameters of layer k (with the suffix _reverse for the second
 * direction of a bidirectional layer), G gates of hidden rows each:
 *   weight_ih_l{k}  [G * hidden][K]       K = input size (layer 0), else
 *                                         hidden * directions
 *   weight_hh_l{k}  [G * hidden][hidden]
 *   bias_ih_l{k}, bias_hh_l{k}  [G * hidden]
 * with the gates stacked in the order LSTM i, f, g, o (G = 4) and GRU r, z,
 * n (G = 3). prnn's linLayerIDs (cuDNN's) use the same order: 0..G-1 are
 * the input matrices W of gates 0..G-1, G..2G-1 the recurrent matrices R,
 * each with its own bias. So gate g's block of weight_ih is linLayerID g's
 * matrix, its block of weight_hh linLayerID G + g's, and bias_ih / bias_hh
 * split the same way; each block is row-major [hidden][K] on both sides and
 * copies in one piece. The pseudo-layer of (layer k, direction d) is
 * k * directions + d.
 *
 * The states map directly too: PyTorch's h0, c0, h_n, c_n are
 * [layers * directions][batch][hidden], prnn's hx, cx, hy, cy. Its input
 * [seq][batch][input] (batch_first=False) is prnn's packed x when every
 * sequence has the same length; for a PackedSequence, its data tensor is
 * prnn's x and its batch_sizes are prnn's batch_t.
 *
 * Backend: the CPU reference with host memory, by design. On a GPU, w is a
 * device buffer and the LinLayer calls return device addresses inside it:
 * copy each block with cudaMemcpy(..., cudaMemcpyHostToDevice) instead of
 * memcpy (example_util.h says what else changes).
 *
 * Build against an installed prnn:
 *   cc -std=c99 pytorch_weights.c example_util.c \
 *      $(pkg-config --cflags --libs prnn) -lm -o pytorch_weights
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prnn.h>

#include "example_util.h"

enum { HIDDEN = 4, INPUT = 5, SEQ = 5, BATCH = 2 };

/* One unidirectional layer's parameters, named and laid out as PyTorch's. */
typedef struct {
    int gates;
    float *weight_ih, *weight_hh, *bias_ih, *bias_hh;
} torch_layer;

static float *random_floats(size_t n, unsigned *seed, double scale)
{
    float *p = ex_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        p[i] = (float)ex_uniform(seed, scale);
    return p;
}

/* Copies one PyTorch block of hidden rows (a matrix of cols columns, or a
 * bias when cols is 0) to where prnn keeps linLayerID's matrix or bias in
 * pseudo-layer pseudo, after checking the shape prnn reports for it. */
static void copy_block(const ex_problem *p, prnnHandle_t handle, void *w, int pseudo, int id,
                       const float *src, int cols, prnnFilterDescriptor_t desc)
{
    void *dst;
    if (cols)
        CHECK(prnnGetRNNLinLayerMatrixParams(handle, p->rnn, pseudo, p->xd[0], p->wd, w, id, desc,
                                             &dst));
    else
        CHECK(prnnGetRNNLinLayerBiasParams(handle, p->rnn, pseudo, p->xd[0], p->wd, w, id, desc,
                                           &dst));
    int nb, dims[3];
    prnnDataType_t dtype;
    CHECK(prnnGetFilterNdDescriptor(desc, 3, &dtype, NULL, &nb, dims));
    int want_cols = cols ? cols : 1;
    if (nb != 3 || dims[1] != p->hidden || dims[2] != want_cols || dtype != p->dtype) {
        printf("linLayerID %d: prnn reports {%d, %d, %d}, expected {1, %d, %d}\n", id, dims[0],
               dims[1], dims[2], p->hidden, want_cols);
        exit(ex_verdict(0));
    }
    memcpy(dst, src, (size_t)p->hidden * want_cols * sizeof(float));
}

/* PyTorch's layer into prnn's pseudo-layer `pseudo` of w; K: the columns of
 * weight_ih. */
static void load_torch_layer(const ex_problem *p, prnnHandle_t handle, void *w, int pseudo,
                             const torch_layer *t, int K)
{
    prnnFilterDescriptor_t desc;
    CHECK(prnnCreateFilterDescriptor(&desc));
    size_t H = (size_t)p->hidden;
    for (int g = 0; g < t->gates; g++) {
        copy_block(p, handle, w, pseudo, g, t->weight_ih + g * H * K, K, desc);
        copy_block(p, handle, w, pseudo, t->gates + g, t->weight_hh + g * H * H, (int)H, desc);
        copy_block(p, handle, w, pseudo, g, t->bias_ih + g * H, 0, desc);
        copy_block(p, handle, w, pseudo, t->gates + g, t->bias_hh + g * H, 0, desc);
    }
    CHECK(prnnDestroyFilterDescriptor(desc));
}

static double sigmoid(double v)
{
    return 1.0 / (1.0 + exp(-v));
}

/* Row `row` of a [rows][n] matrix times v, plus bias[row]. */
static double affine(const float *m, const float *bias, int row, const float *v, int n)
{
    double s = bias[row];
    for (int j = 0; j < n; j++)
        s += (double)m[(size_t)row * n + j] * v[j];
    return s;
}

/* PyTorch's equations (torch.nn.LSTM / torch.nn.GRU documentation), one
 * layer, one direction, every sequence SEQ long, in double; results rounded
 * to float as PyTorch's float tensors would hold them. h, c: the initial
 * state in, the final state out. */
static void torch_forward(prnnRNNMode_t mode, const torch_layer *t, const float *x, float *h,
                          float *c, float *y)
{
    enum { H = HIDDEN };
    for (int s = 0; s < SEQ; s++)
        for (int b = 0; b < BATCH; b++) {
            const float *xt = x + ((size_t)s * BATCH + b) * INPUT;
            float *hb = h + (size_t)b * H, *cb = c + (size_t)b * H;
            float h_new[H];
            for (int u = 0; u < H; u++) {
                double gi[4], gh[4]; /* W x + b_i and R h + b_h per gate */
                for (int g = 0; g < t->gates; g++) {
                    gi[g] = affine(t->weight_ih, t->bias_ih, g * H + u, xt, INPUT);
                    gh[g] = affine(t->weight_hh, t->bias_hh, g * H + u, hb, H);
                }
                if (mode == PRNN_LSTM) {
                    double i = sigmoid(gi[0] + gh[0]), f = sigmoid(gi[1] + gh[1]);
                    double gg = tanh(gi[2] + gh[2]), o = sigmoid(gi[3] + gh[3]);
                    double c_new = f * cb[u] + i * gg;
                    h_new[u] = (float)(o * tanh(c_new));
                    cb[u] = (float)c_new; /* unit u's c is read by unit u only */
                } else {
                    double r = sigmoid(gi[0] + gh[0]), z = sigmoid(gi[1] + gh[1]);
                    double n = tanh(gi[2] + r * gh[2]);
                    h_new[u] = (float)((1 - z) * n + z * hb[u]);
                }
            }
            memcpy(hb, h_new, sizeof h_new); /* every unit read the old h */
            memcpy(y + ((size_t)s * BATCH + b) * H, h_new, sizeof h_new);
        }
}

/* Builds random PyTorch parameters for mode, loads them into prnn, runs
 * both forward passes and compares y, hy (and cy). Returns 1 when they
 * agree. */
static int check_mode(prnnHandle_t handle, prnnRNNMode_t mode, const char *name, unsigned seed)
{
    static const int batch[SEQ] = {BATCH, BATCH, BATCH, BATCH, BATCH};
    ex_problem p;
    ex_problem_init(&p, handle, mode, HIDDEN, 1, PRNN_UNIDIRECTIONAL, INPUT, SEQ, batch,
                    PRNN_DATA_FLOAT);
    torch_layer t;
    t.gates = mode == PRNN_LSTM ? 4 : 3;
    size_t gh = (size_t)t.gates * HIDDEN, n_s = ex_state_elems(&p);
    double scale = 1.0 / sqrt(HIDDEN); /* PyTorch's default init range */
    t.weight_ih = random_floats(gh * INPUT, &seed, scale);
    t.weight_hh = random_floats(gh * HIDDEN, &seed, scale);
    t.bias_ih = random_floats(gh, &seed, scale);
    t.bias_hh = random_floats(gh, &seed, scale);
    float *x = random_floats(p.rows * INPUT, &seed, 1.0);
    float *h0 = random_floats(n_s, &seed, 0.5), *c0 = random_floats(n_s, &seed, 0.5);

    /* prnn's buffer starts as NaN, so that a block the loader missed shows
     * up in the outputs instead of passing unnoticed as zeros. */
    size_t n_w = p.w_bytes / sizeof(float);
    float *w = ex_alloc(p.w_bytes);
    for (size_t i = 0; i < n_w; i++)
        w[i] = NAN;
    load_torch_layer(&p, handle, w, 0, &t, INPUT);

    size_t n_y = p.rows * HIDDEN, ws_bytes;
    float *y = ex_alloc(n_y * sizeof(float));
    float *hy = ex_alloc(n_s * sizeof(float)), *cy = ex_alloc(n_s * sizeof(float));
    CHECK(prnnGetRNNWorkspaceSize(handle, p.rnn, SEQ, p.xd, &ws_bytes));
    void *ws = ex_alloc(ws_bytes);
    CHECK(prnnRNNForwardInference(handle, p.rnn, SEQ, p.xd, x, p.hd, h0, p.hd, c0, p.wd, w, p.yd, y,
                                  p.hd, hy, p.hd, cy, ws, ws_bytes));

    float *y_ref = ex_alloc(n_y * sizeof(float));
    float *h_ref = ex_alloc(n_s * sizeof(float)), *c_ref = ex_alloc(n_s * sizeof(float));
    memcpy(h_ref, h0, n_s * sizeof(float));
    memcpy(c_ref, c0, n_s * sizeof(float));
    torch_forward(mode, &t, x, h_ref, c_ref, y_ref);

    const double tol = 1e-5;
    double e_y = ex_max_rel_err_f(y, y_ref, n_y, 1e-3);
    double e_h = ex_max_rel_err_f(hy, h_ref, n_s, 1e-3);
    double e_c = mode == PRNN_LSTM ? ex_max_rel_err_f(cy, c_ref, n_s, 1e-3) : 0;
    int ok = e_y <= tol && e_h <= tol && e_c <= tol;
    printf("%s: weight_ih_l0 [%zu][%d], weight_hh_l0 [%zu][%d], bias_ih_l0 and bias_hh_l0 [%zu] "
           "loaded through %d LinLayer IDs; %d steps, batch %d: max relative error against "
           "PyTorch's equations y %.1e, hy %.1e",
           name, gh, INPUT, gh, HIDDEN, gh, 2 * t.gates, SEQ, BATCH, e_y, e_h);
    if (mode == PRNN_LSTM)
        printf(", cy %.1e", e_c);
    printf(" (tolerance %.0e): %s\n", tol, ok ? "ok" : "not ok");

    float *bufs[] = {t.weight_ih, t.weight_hh, t.bias_ih, t.bias_hh, x,     h0,    c0,
                     w,           y,           hy,        cy,        y_ref, h_ref, c_ref};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(ws);
    ex_problem_free(&p);
    return ok;
}

int main(void)
{
    prnnHandle_t handle = ex_cpu_handle();
    int ok = check_mode(handle, PRNN_LSTM, "LSTM (gates i, f, g, o)", 11);
    ok &= check_mode(handle, PRNN_GRU, "GRU (gates r, z, n)", 12);
    CHECK(prnnDestroy(handle));
    return ex_verdict(ok);
}
