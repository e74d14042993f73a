/*
 * prnnSetRNNSRUConvention / prnnGetRNNSRUConvention: defaults, round trip,
 * reset by prnnSetRNNDescriptor, every rule of its validation, what the
 * convention does to the weights (which layers have u3: params size and
 * LinLayer queries), and a reserve filled under one convention refused by
 * the backward calls under another. The math itself is the reference's
 * tests' (tests/ref) and, against the sru package, python/tests.
 */
#include <math.h>

#include "rnn_fixture.h"

static prnnRNNDescriptor_t make_rnn(prnnRNNMode_t mode, int layers, prnnRNNInputMode_t im,
                                    prnnDirectionMode_t dir, int hidden)
{
    prnnRNNDescriptor_t r;
    EXPECT_OK(prnnCreateRNNDescriptor(&r));
    EXPECT_OK(prnnSetRNNDescriptor(r, hidden, layers, NULL, im, dir, mode, PRNN_DATA_FLOAT));
    return r;
}

static void test_round_trip(void)
{
    prnnRNNDescriptor_t r = make_rnn(PRNN_SRU, 2, PRNN_LINEAR_INPUT, PRNN_BIDIRECTIONAL, 8);
    prnnSRUConvention_t c = (prnnSRUConvention_t)-1;
    prnnSRUActivation_t a = (prnnSRUActivation_t)-1;
    double s = -1;
    EXPECT_OK(prnnGetRNNSRUConvention(r, &c, &a, &s));
    EXPECT(c == PRNN_SRU_CONVENTION_PRNN && a == PRNN_SRU_ACTIVATION_TANH && s == 1.0,
           "defaults: %d %d %g", (int)c, (int)a, s);
    EXPECT_OK(prnnSetRNNSRUConvention(r, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                      PRNN_SRU_ACTIVATION_IDENTITY, sqrt(3.0)));
    EXPECT_OK(prnnGetRNNSRUConvention(r, &c, &a, &s));
    EXPECT(c == PRNN_SRU_CONVENTION_SRU_PACKAGE && a == PRNN_SRU_ACTIVATION_IDENTITY &&
               s == sqrt(3.0),
           "round trip: %d %d %g", (int)c, (int)a, s);
    EXPECT_OK(prnnGetRNNSRUConvention(r, NULL, NULL, NULL)); /* outputs optional */
    /* prnnSetRNNDescriptor resets them */
    EXPECT_OK(prnnSetRNNDescriptor(r, 8, 2, NULL, PRNN_LINEAR_INPUT, PRNN_BIDIRECTIONAL, PRNN_SRU,
                                   PRNN_DATA_FLOAT));
    EXPECT_OK(prnnGetRNNSRUConvention(r, &c, &a, &s));
    EXPECT(c == PRNN_SRU_CONVENTION_PRNN && a == PRNN_SRU_ACTIVATION_TANH && s == 1.0,
           "after prnnSetRNNDescriptor: %d %d %g", (int)c, (int)a, s);
    prnnDestroyRNNDescriptor(r);
}

static void test_bad_params(void)
{
    const prnnSRUConvention_t pkg = PRNN_SRU_CONVENTION_SRU_PACKAGE;
    const prnnSRUActivation_t id = PRNN_SRU_ACTIVATION_IDENTITY;
    prnnRNNDescriptor_t r = make_rnn(PRNN_SRU, 1, PRNN_LINEAR_INPUT, PRNN_BIDIRECTIONAL, 4);
    EXPECT_FAIL(prnnSetRNNSRUConvention(NULL, pkg, id, 1.0), PRNN_STATUS_BAD_PARAM, "rnnDesc");
    EXPECT_FAIL(prnnSetRNNSRUConvention(r, (prnnSRUConvention_t)2, id, 1.0), PRNN_STATUS_BAD_PARAM,
                "convention = 2: not a prnnSRUConvention_t");
    EXPECT_FAIL(prnnSetRNNSRUConvention(r, pkg, (prnnSRUActivation_t)-1, 1.0),
                PRNN_STATUS_BAD_PARAM, "activation = -1: not a prnnSRUActivation_t");
    const double bad[] = {0.0, -1.0, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        EXPECT_FAIL(prnnSetRNNSRUConvention(r, pkg, id, bad[i]), PRNN_STATUS_BAD_PARAM,
                    "highwayScale");
    /* a failed call changed nothing */
    prnnSRUConvention_t c;
    double s;
    EXPECT_OK(prnnGetRNNSRUConvention(r, &c, NULL, &s));
    EXPECT(c == PRNN_SRU_CONVENTION_PRNN && s == 1.0, "unchanged after failures");
    prnnDestroyRNNDescriptor(r);

    r = make_rnn(PRNN_LSTM, 1, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, 4);
    EXPECT_FAIL(prnnSetRNNSRUConvention(r, pkg, id, 1.0), PRNN_STATUS_BAD_PARAM,
                "mode is lstm; SRU's conventions apply to PRNN_SRU only");
    prnnDestroyRNNDescriptor(r);

    prnnRNNDescriptor_t unset;
    EXPECT_OK(prnnCreateRNNDescriptor(&unset));
    EXPECT_FAIL(prnnSetRNNSRUConvention(unset, pkg, id, 1.0), PRNN_STATUS_BAD_PARAM, "never set");
    prnnDestroyRNNDescriptor(unset);

    /* the package's x' split needs u3 at a SKIP layer 0 of a bidirectional
     * stack, which has no W; unidirectional is fine */
    r = make_rnn(PRNN_SRU, 2, PRNN_SKIP_INPUT, PRNN_BIDIRECTIONAL, 4);
    EXPECT_FAIL(prnnSetRNNSRUConvention(r, pkg, id, 1.0), PRNN_STATUS_NOT_SUPPORTED,
                "PRNN_SKIP_INPUT and PRNN_BIDIRECTIONAL");
    EXPECT_OK(prnnSetRNNSRUConvention(r, PRNN_SRU_CONVENTION_PRNN, id, 2.0));
    prnnDestroyRNNDescriptor(r);
    r = make_rnn(PRNN_SRU, 2, PRNN_SKIP_INPUT, PRNN_UNIDIRECTIONAL, 4);
    EXPECT_OK(prnnSetRNNSRUConvention(r, pkg, id, 2.0));
    prnnDestroyRNNDescriptor(r);
}

/* Whether pseudo-layer pl has u3 (LinLayer matrix 3), and its columns. */
static int has_u3(prnnHandle_t h, prnnRNNDescriptor_t r, prnnTensorDescriptor_t x,
                  prnnFilterDescriptor_t wd, int pl, int *cols)
{
    prnnFilterDescriptor_t m;
    prnnCreateFilterDescriptor(&m);
    void *ptr = (void *)1;
    static char w[1];
    EXPECT_OK(prnnGetRNNLinLayerMatrixParams(h, r, pl, x, wd, w, 3, m, &ptr));
    prnnDataType_t dt;
    prnnTensorFormat_t fmt;
    int nb, dims[3] = {-1, -1, -1};
    EXPECT_OK(prnnGetFilterNdDescriptor(m, 3, &dt, &fmt, &nb, dims));
    prnnDestroyFilterDescriptor(m);
    *cols = dims[2];
    return ptr != NULL;
}

/* 2 layers, bidirectional, hidden H, input H: prnn's convention projects
 * x' at layer 1 (input 2H != H), the package's at layer 0 (input H != 2H).
 * Weights per direction: prnn 3 H^2 + 4 H 2H, the package's 4 H^2 + 3 H 2H. */
static void test_layout(void)
{
    const int H = 8;
    prnnHandle_t h;
    EXPECT_OK(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE));
    prnnTensorDescriptor_t x;
    prnnCreateTensorDescriptor(&x);
    set_tensor3(x, PRNN_DATA_FLOAT, 3, H, 1);
    for (int pkg = 0; pkg <= 1; pkg++) {
        prnnRNNDescriptor_t r = make_rnn(PRNN_SRU, 2, PRNN_LINEAR_INPUT, PRNN_BIDIRECTIONAL, H);
        if (pkg)
            EXPECT_OK(prnnSetRNNSRUConvention(r, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                              PRNN_SRU_ACTIVATION_IDENTITY, 1.0));
        size_t bytes = 0;
        EXPECT_OK(prnnGetRNNParamsSize(h, r, x, &bytes, PRNN_DATA_FLOAT));
        size_t matrices = 2 * (size_t)(pkg ? 4 * H * H + 3 * H * 2 * H : 3 * H * H + 4 * H * 2 * H);
        /* plus both layers' V blocks and the 256-byte alignment of 4 blocks */
        size_t low = (matrices + 2 * 2 * 4 * (size_t)H) * sizeof(float);
        EXPECT(bytes >= low && bytes < low + 4 * 256,
               "%s: params size %zu, expected %zu plus alignment", pkg ? "package" : "prnn", bytes,
               low);
        prnnFilterDescriptor_t wd;
        prnnCreateFilterDescriptor(&wd);
        int wdims[3] = {(int)(bytes / sizeof(float)), 1, 1};
        prnnSetFilterNdDescriptor(wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, wdims);
        for (int pl = 0; pl < 4; pl++) {
            int layer = pl / 2, cols = -1;
            int want = pkg ? layer == 0 : layer == 1;
            int got = has_u3(h, r, x, wd, pl, &cols);
            EXPECT(got == want && cols == (want ? (layer ? 2 * H : H) : 0),
                   "%s pseudo-layer %d: u3 %s (columns %d)", pkg ? "package" : "prnn", pl,
                   got ? "present" : "absent", cols);
        }
        prnnDestroyFilterDescriptor(wd);
        prnnDestroyRNNDescriptor(r);
    }
    prnnDestroyTensorDescriptor(x);
    prnnDestroy(h);
}

/* A reserve keeps the conventions it was filled with: a backward call under
 * others is refused, naming the difference. */
static void test_reserve_mismatch(void)
{
    rnn_shape s = {
        PRNN_SRU,          4, 1, PRNN_UNIDIRECTIONAL, 4, 3, {2, 2, 1}, 0, 0, PRNN_DEFAULT_MATH,
        PRNN_RNN_ALGO_AUTO};
    fixture f;
    fixture_setup(&f, &s);
    EXPECT_OK(prnnSetRNNSRUConvention(f.rnn, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                      PRNN_SRU_ACTIVATION_IDENTITY, 1.5));
    EXPECT_OK(fwd_training(&f));
    EXPECT_OK(prnnSetRNNSRUConvention(f.rnn, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                      PRNN_SRU_ACTIVATION_TANH, 1.5));
    EXPECT_FAIL(bwd_data(&f), PRNN_STATUS_BAD_PARAM, "SRU activation");
    EXPECT_OK(prnnSetRNNSRUConvention(f.rnn, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                      PRNN_SRU_ACTIVATION_IDENTITY, 2.0));
    EXPECT_FAIL(bwd_data(&f), PRNN_STATUS_BAD_PARAM, "SRU highway scale");
    /* (unidirectional, input = hidden: the weights are the same for both
     * conventions) */
    EXPECT_OK(prnnSetRNNSRUConvention(f.rnn, PRNN_SRU_CONVENTION_PRNN, PRNN_SRU_ACTIVATION_IDENTITY,
                                      1.5));
    EXPECT_FAIL(bwd_data(&f), PRNN_STATUS_BAD_PARAM, "SRU convention");
    EXPECT_OK(prnnSetRNNSRUConvention(f.rnn, PRNN_SRU_CONVENTION_SRU_PACKAGE,
                                      PRNN_SRU_ACTIVATION_IDENTITY, 1.5));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&f);
}

int main(void)
{
    test_round_trip();
    test_bad_params();
    test_layout();
    test_reserve_mismatch();
    printf("%s (%d failures)\n", test_failures ? "FAILED" : "ok", test_failures);
    return test_failures ? 1 : 0;
}
