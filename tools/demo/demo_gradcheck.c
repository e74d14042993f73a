/*
 * The demo's verdict without a GPU: the CPU reference's gradients checked
 * against central finite differences of the loss L = sum(dy . y), which is
 * what BackwardData and BackwardWeights differentiate when dhy = dcy = 0.
 *
 * Each check perturbs one input buffer (x, hx, cx or the weights) along a
 * direction v and compares L(+) - L(-), two extra forward passes, with the
 * gradient's dot product with the perturbation actually applied (the float
 * sums, not the intended steps, so rounding of the inputs is no error). A
 * direction over a whole buffer checks every gradient in it at once; a
 * single element checks one gradient alone, taken where it is largest among
 * a random sample so that it is far above the noise.
 */
#include <math.h>
#include <string.h>

#include "demo.h"

typedef struct {
    const char *what;
    int input, grad; /* buffer indices */
    int single;      /* one element, else every element of the buffer */
    /* The step, relative to the buffer's rms: large enough that fp32
     * rounding of the outputs stays far below the difference, small enough
     * that the loss is near quadratic over it (a whole buffer moves the
     * outputs more than one element does). Worst errors seen over 100 random
     * shapes, hidden 1-512: 4e-4, a fifth of the tolerance. */
    double step;
} check_spec;

#define CHECK_TOLERANCE 2e-3 /* relative */

/* The loss is summed in double: the two forward passes differ by little, and
 * fp32 sums of 10^5 products would bury that in rounding. */
static double loss(const demo_problem *p, prnnHandle_t cpu, float *const *in, float *y, void *work,
                   size_t ws)
{
    const prnnTensorDescriptor_t hd = p->hd;
    DEMO_CHECK(prnnRNNForwardInference(cpu, p->rnn, p->seq, p->xd, in[B_X], hd, in[B_HX], hd,
                                       in[B_CX], p->wd, in[B_W], p->yd, y, hd, NULL, hd, NULL, work,
                                       ws));
    double l = 0;
    for (size_t i = 0; i < p->sizes[B_Y]; i++)
        l += (double)p->inputs[B_DY][i] * y[i];
    return l;
}

static unsigned next_random(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* The direction: a unit vector at the element with the largest |gradient|
 * among 256 drawn at random; or, over the whole buffer, the gradient's sign
 * times a random magnitude in [0.5, 1): every term of grad . v then adds (no
 * cancellation that would make the relative error meaningless), and a
 * gradient of the wrong sign, size or place anywhere shows. */
static void direction(const check_spec *c, const float *grad, size_t n, unsigned *state, float *v)
{
    if (!c->single) {
        for (size_t i = 0; i < n; i++) {
            float mag = 0.5f + (float)next_random(state) / 33554432.0f;
            v[i] = grad[i] < 0 ? -mag : mag;
        }
        return;
    }
    size_t best = 0;
    for (int k = 0; k < 256; k++) {
        size_t i = next_random(state) % n;
        if (fabsf(grad[i]) > fabsf(grad[best]))
            best = i;
    }
    memset(v, 0, n * sizeof(float));
    v[best] = 1.0f;
}

static double rms(const float *p, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)p[i] * p[i];
    return sqrt(s / (double)n);
}

/* One check: 0 when the finite difference agrees with the gradient. */
static int check_one(const demo_problem *p, prnnHandle_t cpu, const check_spec *c,
                     const float *grad, unsigned *state, float *const *in, float *y, void *work,
                     size_t ws)
{
    size_t n = p->sizes[c->input];
    const float *orig = p->inputs[c->input];
    float *v = malloc(n * sizeof(float));
    direction(c, grad, n, state, v);
    /* A step of 1e-2 of the buffer's size: far above fp32 rounding of the
     * outputs, small enough for the loss to be near quadratic in it. */
    double step = c->step * rms(orig, n);
    double sides[2], expect = 0;
    for (int side = 0; side < 2; side++) {
        float *buf = in[c->input];
        for (size_t i = 0; i < n; i++)
            buf[i] = orig[i] + (float)((side ? -step : step) * v[i]);
        sides[side] = loss(p, cpu, in, y, work, ws);
        /* dL = grad . (x+ - x-), with the perturbations as stored. */
        for (size_t i = 0; i < n; i++)
            expect += (side ? -1.0 : 1.0) * grad[i] * ((double)buf[i] - orig[i]);
    }
    memcpy(in[c->input], orig, n * sizeof(float));
    free(v);
    double got = sides[0] - sides[1];
    double err = fabs(got - expect) / fmax(fabs(expect), 1e-30);
    int ok = err <= CHECK_TOLERANCE && expect != 0;
    printf("  %-18s finite difference %+.6e, gradient %+.6e: relative error %.1e (%s)\n", c->what,
           got, expect, err, ok ? "ok" : "TOO LARGE");
    return !ok;
}

int demo_gradcheck(const demo_problem *p, prnnHandle_t cpu, float *const *grad)
{
    static const check_spec checks[] = {
        {"dw, all weights", B_W, B_DW, 0, 3e-3},  {"dx, all inputs", B_X, B_DX, 0, 3e-3},
        {"dhx, all of hx", B_HX, B_DHX, 0, 3e-3}, {"dcx, all of cx", B_CX, B_DCX, 0, 3e-3},
        {"dw, one weight", B_W, B_DW, 1, 3e-2},   {"dx, one input", B_X, B_DX, 1, 3e-2},
    };
    size_t ws;
    DEMO_CHECK(prnnGetRNNWorkspaceSize(cpu, p->rnn, p->seq, p->xd, &ws));
    void *work = malloc(ws ? ws : 1);
    float *y = malloc(p->sizes[B_Y] * sizeof(float));
    /* Working copies of the four inputs the loss depends on. */
    float *in[N_BUF] = {0};
    const int inputs[] = {B_X, B_W, B_HX, B_CX};
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        int b = inputs[i];
        in[b] = malloc(p->sizes[b] * sizeof(float));
        memcpy(in[b], p->inputs[b], p->sizes[b] * sizeof(float));
    }
    unsigned state = 2024;
    int failed = 0;
    printf("Gradients against finite differences of sum(dy . y), CPU reference:\n");
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
        failed += check_one(p, cpu, &checks[i], grad[checks[i].grad], &state, in, y, work, ws);
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
        free(in[inputs[i]]);
    free(y);
    free(work);
    return failed;
}
