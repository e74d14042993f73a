/*
 * One training step of a small LSTM through prnn's public API, with every
 * gradient checked against finite differences.
 *
 * Shows: the training calls in their required order (prnnRNNForwardTraining
 * fills the reserve, prnnRNNBackwardData reads it and leaves the gate
 * gradients in it, prnnRNNBackwardWeights reads those and ADDS to dw), the
 * reserve size query, and sequences of different lengths packed time-major
 * (batch_t, the number of sequences still running at step t, never grows).
 *
 * Checks: for the loss L = sum(dy * y) + sum(dhy * hy) + sum(dcy * cy) with
 * fixed random dy, dhy, dcy, the backward calls' dx, dhx, dcx and dw are
 * exactly dL/dx, dL/dhx, dL/dcx and dL/dw. Each element of each is compared
 * with the central difference (L(v + eps) - L(v - eps)) / (2 eps), L
 * computed by prnnRNNForwardInference. That includes the padding of the
 * flat weight buffer, whose gradient must be 0 both ways. The problem is
 * tiny, and in double precision so that the differences agree to 1e-7 or
 * better (in float, eps and the tolerance would have to be far larger).
 *
 * Backend: the CPU reference with host memory, by design; on a GPU the same
 * calls take device pointers (example_util.h says what changes), and every
 * data type works there, double included.
 *
 * Build against an installed prnn:
 *   cc -std=c99 training_step.c example_util.c \
 *      $(pkg-config --cflags --libs prnn) -lm -o training_step
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prnn.h>

#include "example_util.h"

enum { HIDDEN = 3, LAYERS = 2, INPUT = 2, SEQ = 4 };
#define EPS 1e-6
#define TOL 1e-6
#define FLOOR 1e-2 /* gradients below this are compared in absolute terms */

/* The problem, its inputs and the incoming gradients that define L. */
typedef struct {
    prnnHandle_t handle;
    ex_problem p;
    size_t n_x, n_y, n_s, n_w;
    double *x, *hx, *cx, *w; /* inputs, perturbed by the finite differences */
    double *dy, *dhy, *dcy;  /* fixed: L's weights on y, hy, cy */
    double *y, *hy, *cy;     /* scratch outputs of loss() */
    void *ws;
    size_t ws_bytes;
} problem;

static double *random_doubles(size_t n, unsigned *seed, double scale)
{
    double *p = ex_alloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        p[i] = ex_uniform(seed, scale);
    return p;
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* L at the current inputs, through a forward pass (no dropout, so
 * inference computes what training does). */
static double loss(problem *q)
{
    const ex_problem *p = &q->p;
    CHECK(prnnRNNForwardInference(q->handle, p->rnn, p->seq, p->xd, q->x, p->hd, q->hx, p->hd,
                                  q->cx, p->wd, q->w, p->yd, q->y, p->hd, q->hy, p->hd, q->cy,
                                  q->ws, q->ws_bytes));
    return dot(q->dy, q->y, q->n_y) + dot(q->dhy, q->hy, q->n_s) + dot(q->dcy, q->cy, q->n_s);
}

/* Largest error of grad against central differences of L in buf's n
 * elements; prints the first few that miss. */
static double check_gradient(problem *q, double *buf, const double *grad, size_t n,
                             const char *name)
{
    double *fd = ex_alloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double v = buf[i];
        buf[i] = v + EPS;
        double plus = loss(q);
        buf[i] = v - EPS;
        double minus = loss(q);
        buf[i] = v;
        fd[i] = (plus - minus) / (2 * EPS);
    }
    double worst = ex_max_rel_err(grad, fd, n, FLOOR);
    int shown = 0;
    for (size_t i = 0; i < n && shown < 3; i++)
        if (ex_max_rel_err(&grad[i], &fd[i], 1, FLOOR) > TOL) {
            printf("  %s[%zu]: backward %.10g, finite difference %.10g\n", name, i, grad[i], fd[i]);
            shown++;
        }
    printf("%-4s %4zu elements, max relative error %.1e\n", name, n, worst);
    free(fd);
    return worst;
}

int main(void)
{
    problem q;
    q.handle = ex_cpu_handle();
    /* Three sequences of lengths 4, 3 and 1, longest first. */
    static const int batch[SEQ] = {3, 2, 2, 1};
    ex_problem *p = &q.p;
    ex_problem_init(p, q.handle, PRNN_LSTM, HIDDEN, LAYERS, PRNN_BIDIRECTIONAL, INPUT, SEQ, batch,
                    PRNN_DATA_DOUBLE);
    printf("LSTM: %d layers, bidirectional, input %d, hidden %d, 3 sequences of lengths 4, 3, 1, "
           "double\n",
           LAYERS, INPUT, HIDDEN);
    q.n_x = p->rows * INPUT;
    q.n_y = p->rows * HIDDEN * 2;
    q.n_s = ex_state_elems(p);
    q.n_w = p->w_bytes / sizeof(double);

    unsigned seed = 7;
    q.x = random_doubles(q.n_x, &seed, 1.0);
    q.hx = random_doubles(q.n_s, &seed, 0.8);
    q.cx = random_doubles(q.n_s, &seed, 0.8);
    q.w = random_doubles(q.n_w, &seed, 0.6);
    q.dy = random_doubles(q.n_y, &seed, 1.0);
    q.dhy = random_doubles(q.n_s, &seed, 1.0);
    q.dcy = random_doubles(q.n_s, &seed, 1.0);
    q.y = ex_alloc(q.n_y * sizeof(double));
    q.hy = ex_alloc(q.n_s * sizeof(double));
    q.cy = ex_alloc(q.n_s * sizeof(double));

    /* One workspace size serves all four compute calls. On the GPU the
     * reserve query also compiles the training kernels. */
    size_t rs_bytes;
    CHECK(prnnGetRNNWorkspaceSize(q.handle, p->rnn, SEQ, p->xd, &q.ws_bytes));
    CHECK(prnnGetRNNTrainingReserveSize(q.handle, p->rnn, SEQ, p->xd, &rs_bytes));
    q.ws = ex_alloc(q.ws_bytes);
    void *reserve = ex_alloc(rs_bytes);
    double *dx = ex_alloc(q.n_x * sizeof(double));
    double *dhx = ex_alloc(q.n_s * sizeof(double));
    double *dcx = ex_alloc(q.n_s * sizeof(double));
    double *dw = ex_alloc(q.n_w * sizeof(double));

    /* The training step. dxDesc is the forward call's xDesc. */
    CHECK(prnnRNNForwardTraining(q.handle, p->rnn, SEQ, p->xd, q.x, p->hd, q.hx, p->hd, q.cx, p->wd,
                                 q.w, p->yd, q.y, p->hd, q.hy, p->hd, q.cy, q.ws, q.ws_bytes,
                                 reserve, rs_bytes));
    CHECK(prnnRNNBackwardData(q.handle, p->rnn, SEQ, p->yd, q.y, p->yd, q.dy, p->hd, q.dhy, p->hd,
                              q.dcy, p->wd, q.w, p->hd, q.hx, p->hd, q.cx, p->xd, dx, p->hd, dhx,
                              p->hd, dcx, q.ws, q.ws_bytes, reserve, rs_bytes));
    memset(dw, 0, q.n_w * sizeof(double)); /* BackwardWeights adds to dw */
    CHECK(prnnRNNBackwardWeights(q.handle, p->rnn, SEQ, p->xd, q.x, p->hd, q.hx, p->yd, q.y, q.ws,
                                 q.ws_bytes, p->wd, dw, reserve, rs_bytes));
    printf("ForwardTraining, BackwardData, BackwardWeights: done (workspace %zu bytes, reserve %zu "
           "bytes)\n",
           q.ws_bytes, rs_bytes);
    printf("loss L = %.12f; gradients against central differences (eps %.0e, tolerance %.0e):\n",
           loss(&q), EPS, TOL);

    double worst = check_gradient(&q, q.x, dx, q.n_x, "dx");
    double e = check_gradient(&q, q.hx, dhx, q.n_s, "dhx");
    worst = e > worst ? e : worst;
    e = check_gradient(&q, q.cx, dcx, q.n_s, "dcx");
    worst = e > worst ? e : worst;
    e = check_gradient(&q, q.w, dw, q.n_w, "dw");
    worst = e > worst ? e : worst;

    free(dx);
    free(dhx);
    free(dcx);
    free(dw);
    free(reserve);
    free(q.ws);
    double *bufs[] = {q.x, q.hx, q.cx, q.w, q.dy, q.dhy, q.dcy, q.y, q.hy, q.cy};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    ex_problem_free(p);
    CHECK(prnnDestroy(q.handle));
    return ex_verdict(worst <= TOL);
}
