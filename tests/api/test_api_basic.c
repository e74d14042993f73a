/*
 * The API's plumbing on the CPU backend: version and status strings, the
 * thread-local error log, descriptor round trips, weight addressing through
 * the LinLayer calls, plan info, and that creating a GPU handle on a machine
 * without one fails cleanly.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>

#include "test_util.h"

static void test_version_and_strings(void)
{
    EXPECT(prnnGetVersion() == PRNN_VERSION, "version %zu", prnnGetVersion());
    for (int s = 0; s <= PRNN_STATUS_TUNING_DB_ERROR; s++) {
        const char *str = prnnGetErrorString((prnnStatus_t)s);
        EXPECT(str && strncmp(str, "PRNN_STATUS_", 12) == 0 &&
                   strcmp(str, "PRNN_STATUS_UNKNOWN") != 0,
               "status %d -> %s", s, str ? str : "(null)");
    }
    EXPECT(strcmp(prnnGetErrorString((prnnStatus_t)1234), "PRNN_STATUS_UNKNOWN") == 0,
           "unknown status");
    /* cuDNN v5's numbering is kept. */
    EXPECT(PRNN_STATUS_BAD_PARAM == 3 && PRNN_STATUS_NOT_SUPPORTED == 9 &&
               PRNN_STATUS_NO_DEVICE == 10,
           "status values changed");
}

static void *fail_in_thread(void *arg)
{
    (void)arg;
    prnnSetRNNDescriptor(NULL, 1, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_LSTM,
                         PRNN_DATA_FLOAT);
    return strstr(prnnGetLastErrorLog(), "rnnDesc") ? (void *)1 : NULL;
}

static void test_log_is_thread_local(void)
{
    prnnTensorDescriptor_t d;
    prnnCreateTensorDescriptor(&d);
    int dims[3] = {1, 0, 1}, strides[3] = {1, 1, 1};
    prnnSetTensorNdDescriptor(d, PRNN_DATA_FLOAT, 3, dims, strides);
    char before[256];
    snprintf(before, sizeof(before), "%s", prnnGetLastErrorLog());
    pthread_t th;
    void *ret = NULL;
    pthread_create(&th, NULL, fail_in_thread, NULL);
    pthread_join(th, &ret);
    EXPECT(ret != NULL, "the other thread did not see its own message");
    EXPECT(strcmp(before, prnnGetLastErrorLog()) == 0,
           "another thread's failure replaced this thread's log: %s", prnnGetLastErrorLog());
    EXPECT(strstr(before, "dimA[1]"), "log: %s", before);
    /* A successful call leaves the last failure readable. */
    int ok_dims[3] = {1, 2, 1}, ok_strides[3] = {2, 1, 1};
    EXPECT_OK(prnnSetTensorNdDescriptor(d, PRNN_DATA_FLOAT, 3, ok_dims, ok_strides));
    EXPECT(strcmp(before, prnnGetLastErrorLog()) == 0, "log cleared by success");
    prnnDestroyTensorDescriptor(d);
    EXPECT_OK(prnnDestroyTensorDescriptor(NULL));
    EXPECT_OK(prnnDestroyFilterDescriptor(NULL));
    EXPECT_OK(prnnDestroyDropoutDescriptor(NULL));
    EXPECT_OK(prnnDestroyRNNDescriptor(NULL));
    EXPECT_OK(prnnDestroy(NULL));
}

static void test_descriptor_round_trips(void)
{
    prnnTensorDescriptor_t t;
    prnnCreateTensorDescriptor(&t);
    int dims[4] = {2, 3, 4, 5}, strides[4] = {60, 20, 5, 1};
    EXPECT_OK(prnnSetTensorNdDescriptor(t, PRNN_DATA_BFLOAT16, 4, dims, strides));
    prnnDataType_t dt;
    int nb, gd[4] = {0}, gs[4] = {0};
    EXPECT_OK(prnnGetTensorNdDescriptor(t, 4, &dt, &nb, gd, gs));
    EXPECT(dt == PRNN_DATA_BFLOAT16 && nb == 4 && gd[3] == 5 && gs[0] == 60, "tensor round trip");
    int two[2] = {0};
    int two_s[2] = {0};
    EXPECT_OK(prnnGetTensorNdDescriptor(t, 2, NULL, &nb, two, two_s));
    EXPECT(nb == 4 && two[1] == 3 && two_s[1] == 20, "partial tensor get");
    prnnDestroyTensorDescriptor(t);

    prnnFilterDescriptor_t f;
    prnnCreateFilterDescriptor(&f);
    int fd[3] = {7, 1, 1};
    EXPECT_OK(prnnSetFilterNdDescriptor(f, PRNN_DATA_HALF, PRNN_TENSOR_NCHW, 3, fd));
    prnnTensorFormat_t fmt;
    int gfd[3];
    EXPECT_OK(prnnGetFilterNdDescriptor(f, 3, &dt, &fmt, &nb, gfd));
    EXPECT(dt == PRNN_DATA_HALF && fmt == PRNN_TENSOR_NCHW && nb == 3 && gfd[0] == 7,
           "filter round trip");
    prnnDestroyFilterDescriptor(f);

    prnnDropoutDescriptor_t d;
    prnnCreateDropoutDescriptor(&d);
    EXPECT_OK(prnnSetDropoutDescriptor(d, NULL, 0.25f, 0x123456789abcULL));
    prnnRNNDescriptor_t r;
    prnnCreateRNNDescriptor(&r);
    EXPECT_OK(prnnSetRNNDescriptor(r, 17, 3, d, PRNN_SKIP_INPUT, PRNN_BIDIRECTIONAL, PRNN_GRU,
                                   PRNN_DATA_DOUBLE));
    /* The RNN descriptor copied the dropout settings. */
    EXPECT_OK(prnnSetDropoutDescriptor(d, NULL, 0.5f, 1));
    int h, l;
    float p;
    unsigned long long seed;
    prnnRNNInputMode_t im;
    prnnDirectionMode_t dir;
    prnnRNNMode_t mode;
    EXPECT_OK(prnnGetRNNDescriptor(r, &h, &l, &p, &seed, &im, &dir, &mode, &dt));
    EXPECT(h == 17 && l == 3 && p == 0.25f && seed == 0x123456789abcULL && im == PRNN_SKIP_INPUT &&
               dir == PRNN_BIDIRECTIONAL && mode == PRNN_GRU && dt == PRNN_DATA_DOUBLE,
           "rnn round trip");
    prnnMathType_t m;
    EXPECT_OK(prnnGetRNNMatrixMathType(r, &m));
    EXPECT(m == PRNN_DEFAULT_MATH, "default math");
    EXPECT_OK(prnnSetRNNMatrixMathType(r, PRNN_TENSOR_OP_MATH));
    EXPECT_OK(prnnGetRNNMatrixMathType(r, &m));
    EXPECT(m == PRNN_TENSOR_OP_MATH, "math round trip");
    EXPECT_OK(prnnSetRNNMatrixMathType(r, PRNN_TF32_RECURRENCE_MATH));
    EXPECT_OK(prnnGetRNNMatrixMathType(r, &m));
    EXPECT(m == PRNN_TF32_RECURRENCE_MATH, "math round trip (TF32 recurrence)");
    EXPECT(prnnSetRNNMatrixMathType(r, (prnnMathType_t)4) == PRNN_STATUS_BAD_PARAM,
           "mathType 4 refused");
    prnnDestroyRNNDescriptor(r);
    prnnDestroyDropoutDescriptor(d);
}

/* Every matrix and bias of every pseudo-layer lies inside w, has the
 * documented shape, and no two overlap. */
static void check_layout(prnnHandle_t handle, prnnRNNMode_t mode, int layers,
                         prnnDirectionMode_t dirmode, prnnRNNInputMode_t im, int hidden, int input,
                         prnnDataType_t dt)
{
    size_t es = dt == PRNN_DATA_DOUBLE ? 8 : dt == PRNN_DATA_FLOAT ? 4 : 2;
    int gates = mode == PRNN_LSTM ? 4 : mode == PRNN_GRU ? 3 : 1;
    /* SRU: matrices 0..3 (u0, f, r, x'), vectors 0..3 (b_f, b_r, v_f, v_r) */
    int sru = mode == PRNN_SRU, ids = sru ? 4 : 2 * gates;
    int dirs = dirmode == PRNN_BIDIRECTIONAL ? 2 : 1;
    prnnRNNDescriptor_t r;
    prnnCreateRNNDescriptor(&r);
    EXPECT_OK(prnnSetRNNDescriptor(r, hidden, layers, NULL, im, dirmode, mode, dt));
    prnnTensorDescriptor_t x;
    prnnCreateTensorDescriptor(&x);
    set_tensor3(x, dt, 2, input, 1);
    size_t bytes = 0;
    EXPECT_OK(prnnGetRNNParamsSize(handle, r, x, &bytes, dt));
    prnnFilterDescriptor_t wd, md;
    prnnCreateFilterDescriptor(&wd);
    prnnCreateFilterDescriptor(&md);
    int wdims[3] = {(int)(bytes / es), 1, 1};
    prnnSetFilterNdDescriptor(wd, dt, PRNN_TENSOR_NCHW, 3, wdims);
    /* Use a fake base address: the calls must not dereference w. */
    char *w = (char *)(uintptr_t)0x100000;
    unsigned char *used = calloc(bytes, 1);
    size_t expected_params = 0;
    for (int pl = 0; pl < layers * dirs; pl++) {
        int layer = pl / dirs;
        for (int id = 0; id < ids; id++) {
            for (int bias = 0; bias < 2; bias++) {
                void *ptr = (void *)1;
                prnnStatus_t s =
                    bias ? prnnGetRNNLinLayerBiasParams(handle, r, pl, x, wd, w, id, md, &ptr)
                         : prnnGetRNNLinLayerMatrixParams(handle, r, pl, x, wd, w, id, md, &ptr);
                EXPECT(s == PRNN_STATUS_SUCCESS, "linlayer %d/%d: %s", pl, id,
                       prnnGetLastErrorLog());
                int nb, d[3];
                prnnDataType_t gdt;
                prnnGetFilterNdDescriptor(md, 3, &gdt, NULL, &nb, d);
                int cols_expected = !sru && id >= gates ? hidden
                                    : layer == 0        ? input
                                                        : dirs * hidden;
                int absent = !bias && (sru || id < gates) && layer == 0 && im == PRNN_SKIP_INPUT;
                /* SRU's x' projection exists only where the widths differ */
                absent |= sru && !bias && id == 3 && cols_expected == hidden;
                if (absent) {
                    EXPECT(ptr == NULL && d[0] == 0 && d[1] == 0 && d[2] == 0,
                           "SKIP layer-0 W (or SRU's u3 where x' = x) must be absent");
                    continue;
                }
                size_t n = bias ? (size_t)hidden : (size_t)hidden * (size_t)cols_expected;
                EXPECT(gdt == dt && nb == 3 && d[0] == 1 && d[1] == hidden &&
                           d[2] == (bias ? 1 : cols_expected),
                       "shape of %s %d/%d: {%d,%d,%d}", bias ? "bias" : "matrix", pl, id, d[0],
                       d[1], d[2]);
                size_t off = (size_t)((char *)ptr - w);
                EXPECT(off % es == 0 && off + n * es <= bytes, "out of w: %zu", off);
                if (off + n * es > bytes)
                    continue;
                for (size_t i = off; i < off + n * es; i++) {
                    EXPECT(!used[i], "overlap at byte %zu (pl %d id %d)", i, pl, id);
                    if (used[i])
                        break;
                    used[i] = 1;
                }
                expected_params += n;
            }
        }
    }
    EXPECT(expected_params * es <= bytes, "params exceed size");
    free(used);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyFilterDescriptor(md);
    prnnDestroyTensorDescriptor(x);
    prnnDestroyRNNDescriptor(r);
}

static void test_layouts(prnnHandle_t handle)
{
    check_layout(handle, PRNN_LSTM, 2, PRNN_BIDIRECTIONAL, PRNN_LINEAR_INPUT, 5, 3,
                 PRNN_DATA_FLOAT);
    check_layout(handle, PRNN_GRU, 3, PRNN_UNIDIRECTIONAL, PRNN_SKIP_INPUT, 4, 4, PRNN_DATA_HALF);
    check_layout(handle, PRNN_RNN_TANH, 1, PRNN_BIDIRECTIONAL, PRNN_SKIP_INPUT, 3, 3,
                 PRNN_DATA_DOUBLE);
    check_layout(handle, PRNN_RNN_RELU, 2, PRNN_UNIDIRECTIONAL, PRNN_LINEAR_INPUT, 7, 1,
                 PRNN_DATA_BFLOAT16);
    check_layout(handle, PRNN_SRU, 2, PRNN_BIDIRECTIONAL, PRNN_LINEAR_INPUT, 5, 3, PRNN_DATA_FLOAT);
    check_layout(handle, PRNN_SRU, 3, PRNN_UNIDIRECTIONAL, PRNN_LINEAR_INPUT, 4, 4, PRNN_DATA_HALF);
    check_layout(handle, PRNN_SRU, 2, PRNN_BIDIRECTIONAL, PRNN_SKIP_INPUT, 3, 3, PRNN_DATA_DOUBLE);
}

/* One TANH unit, weights placed through the LinLayer calls, two steps:
 * h1 = tanh(w x1 + r h0 + bw + br), h2 = tanh(w x2 + r h1 + bw + br). Pins
 * that the addressing and the CPU backend agree with the formula. */
static void test_cpu_backend_tiny(prnnHandle_t handle)
{
    prnnRNNDescriptor_t r;
    prnnCreateRNNDescriptor(&r);
    EXPECT_OK(prnnSetRNNDescriptor(r, 1, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL,
                                   PRNN_RNN_TANH, PRNN_DATA_DOUBLE));
    prnnTensorDescriptor_t xd[2], yd[2], hd;
    for (int t = 0; t < 2; t++) {
        prnnCreateTensorDescriptor(&xd[t]);
        prnnCreateTensorDescriptor(&yd[t]);
        set_tensor3(xd[t], PRNN_DATA_DOUBLE, 1, 1, 1);
        set_tensor3(yd[t], PRNN_DATA_DOUBLE, 1, 1, 1);
    }
    prnnCreateTensorDescriptor(&hd);
    set_tensor3(hd, PRNN_DATA_DOUBLE, 1, 1, 1);
    size_t bytes;
    EXPECT_OK(prnnGetRNNParamsSize(handle, r, xd[0], &bytes, PRNN_DATA_DOUBLE));
    double *w = calloc(bytes / 8, sizeof(double));
    prnnFilterDescriptor_t wd, md;
    prnnCreateFilterDescriptor(&wd);
    prnnCreateFilterDescriptor(&md);
    int wdims[3] = {(int)(bytes / 8), 1, 1};
    prnnSetFilterNdDescriptor(wd, PRNN_DATA_DOUBLE, PRNN_TENSOR_NCHW, 3, wdims);
    const double wv = 0.5, rv = -0.75, bwv = 0.1, brv = 0.2;
    double *p;
    EXPECT_OK(prnnGetRNNLinLayerMatrixParams(handle, r, 0, xd[0], wd, w, 0, md, (void **)&p));
    *p = wv;
    EXPECT_OK(prnnGetRNNLinLayerMatrixParams(handle, r, 0, xd[0], wd, w, 1, md, (void **)&p));
    *p = rv;
    EXPECT_OK(prnnGetRNNLinLayerBiasParams(handle, r, 0, xd[0], wd, w, 0, md, (void **)&p));
    *p = bwv;
    EXPECT_OK(prnnGetRNNLinLayerBiasParams(handle, r, 0, xd[0], wd, w, 1, md, (void **)&p));
    *p = brv;
    double x[2] = {0.3, -0.9}, y[2] = {NAN, NAN}, hx = 0.4, hy = NAN;
    size_t ws_bytes;
    EXPECT_OK(prnnGetRNNWorkspaceSize(handle, r, 2, xd, &ws_bytes));
    void *ws = malloc(ws_bytes ? ws_bytes : 1);
    EXPECT_OK(prnnRNNForwardInference(handle, r, 2, xd, x, hd, &hx, hd, NULL, wd, w, yd, y, hd, &hy,
                                      hd, NULL, ws, ws_bytes));
    double h1 = tanh(wv * x[0] + rv * hx + bwv + brv);
    double h2 = tanh(wv * x[1] + rv * h1 + bwv + brv);
    EXPECT(fabs(y[0] - h1) < 1e-14 && fabs(y[1] - h2) < 1e-14 && fabs(hy - h2) < 1e-14,
           "tanh: got %.17g %.17g %.17g want %.17g %.17g", y[0], y[1], hy, h1, h2);
    /* NULL hx means zeros; NULL hy means not wanted. */
    EXPECT_OK(prnnRNNForwardInference(handle, r, 2, xd, x, hd, NULL, hd, NULL, wd, w, yd, y, hd,
                                      NULL, hd, NULL, ws, ws_bytes));
    h1 = tanh(wv * x[0] + bwv + brv);
    EXPECT(fabs(y[0] - h1) < 1e-14, "NULL hx: %.17g vs %.17g", y[0], h1);

    prnnRNNPlanInfo_t info;
    memset(&info, 0xff, sizeof(info));
    info.structSize = sizeof(info);
    EXPECT_OK(prnnGetRNNPlanInfo(handle, r, 1, PRNN_DATA_DOUBLE, &info));
    EXPECT(info.path == PRNN_PATH_CPU_REFERENCE && info.configSource == PRNN_CONFIG_NONE,
           "cpu plan info");
    EXPECT_OK(prnnPrepareRNN(handle, r, 4, PRNN_DATA_DOUBLE));
    free(ws);
    free(w);
    for (int t = 0; t < 2; t++) {
        prnnDestroyTensorDescriptor(xd[t]);
        prnnDestroyTensorDescriptor(yd[t]);
    }
    prnnDestroyTensorDescriptor(hd);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyFilterDescriptor(md);
    prnnDestroyRNNDescriptor(r);
}

/* SRU through the public API: one unit, two steps, x' = x. The formula
 * written out here; hx must not matter, hy is h_T, cx / cy are c_0 / c_T,
 * BackwardData writes zeros to dhx and d(loss)/d(c_0) to dcx (checked by a
 * central difference of the formula). */
static const double sru_wv[3] = {0.7, -0.4, 0.9}, sru_vec[4] = {0.15, -0.25, 0.8, -0.6};
static double sru_forward(const double *x, double c, double *y, double *c_out)
{
    double h = 0;
    for (int t = 0; t < 2; t++) {
        double f = 1 / (1 + exp(-(sru_wv[1] * x[t] + sru_vec[2] * c + sru_vec[0])));
        double r = 1 / (1 + exp(-(sru_wv[2] * x[t] + sru_vec[3] * c + sru_vec[1])));
        c = f * c + (1 - f) * sru_wv[0] * x[t];
        h = r * tanh(c) + (1 - r) * x[t];
        if (y)
            y[t] = h;
    }
    *c_out = c;
    return h;
}

static void test_cpu_backend_sru(prnnHandle_t handle)
{
    const prnnDataType_t dt = PRNN_DATA_DOUBLE;
    prnnRNNDescriptor_t r;
    prnnCreateRNNDescriptor(&r);
    EXPECT_OK(
        prnnSetRNNDescriptor(r, 1, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL, PRNN_SRU, dt));
    prnnTensorDescriptor_t xd[2], hd;
    for (int t = 0; t < 2; t++) {
        prnnCreateTensorDescriptor(&xd[t]);
        set_tensor3(xd[t], dt, 1, 1, 1);
    }
    prnnCreateTensorDescriptor(&hd);
    set_tensor3(hd, dt, 1, 1, 1);
    size_t bytes, ws_bytes, rs_bytes;
    EXPECT_OK(prnnGetRNNParamsSize(handle, r, xd[0], &bytes, dt));
    double *w = calloc(bytes / 8, sizeof(double));
    prnnFilterDescriptor_t wd, md;
    prnnCreateFilterDescriptor(&wd);
    prnnCreateFilterDescriptor(&md);
    int wdims[3] = {(int)(bytes / 8), 1, 1};
    prnnSetFilterNdDescriptor(wd, dt, PRNN_TENSOR_NCHW, 3, wdims);
    double *p;
    for (int id = 0; id < 3; id++) {
        EXPECT_OK(prnnGetRNNLinLayerMatrixParams(handle, r, 0, xd[0], wd, w, id, md, (void **)&p));
        *p = sru_wv[id];
    }
    EXPECT_OK(prnnGetRNNLinLayerMatrixParams(handle, r, 0, xd[0], wd, w, 3, md, (void **)&p));
    EXPECT(p == NULL, "SRU u3 must be absent when inputSize == hiddenSize");
    for (int id = 0; id < 4; id++) {
        EXPECT_OK(prnnGetRNNLinLayerBiasParams(handle, r, 0, xd[0], wd, w, id, md, (void **)&p));
        *p = sru_vec[id];
    }
    EXPECT_OK(prnnGetRNNWorkspaceSize(handle, r, 2, xd, &ws_bytes));
    EXPECT_OK(prnnGetRNNTrainingReserveSize(handle, r, 2, xd, &rs_bytes));
    void *ws = malloc(ws_bytes), *rs = malloc(rs_bytes);
    double x[2] = {0.3, -0.9}, y[2], hx = 5.0, cx = 0.4, hy = NAN, cy = NAN;
    EXPECT_OK(prnnRNNForwardTraining(handle, r, 2, xd, x, hd, &hx, hd, &cx, wd, w, xd, y, hd, &hy,
                                     hd, &cy, ws, ws_bytes, rs, rs_bytes));
    double want_y[2], want_c;
    double want_h = sru_forward(x, cx, want_y, &want_c);
    EXPECT(fabs(y[0] - want_y[0]) < 1e-14 && fabs(y[1] - want_y[1]) < 1e-14 &&
               fabs(hy - want_h) < 1e-14 && fabs(cy - want_c) < 1e-14,
           "sru: got y %.17g %.17g hy %.17g cy %.17g, want %.17g %.17g %.17g %.17g", y[0], y[1], hy,
           cy, want_y[0], want_y[1], want_h, want_c);
    /* loss = dy . y + dcy cy */
    double dy[2] = {0.5, -1.25}, dcy = 0.75, dx[2], dhx = NAN, dcx = NAN;
    EXPECT_OK(prnnRNNBackwardData(handle, r, 2, xd, y, xd, dy, hd, NULL, hd, &dcy, wd, w, hd, &hx,
                                  hd, &cx, xd, dx, hd, &dhx, hd, &dcx, ws, ws_bytes, rs, rs_bytes));
    double yp[2], ym[2], cp, cm, e = 1e-6;
    sru_forward(x, cx + e, yp, &cp);
    sru_forward(x, cx - e, ym, &cm);
    double fd = (dy[0] * (yp[0] - ym[0]) + dy[1] * (yp[1] - ym[1]) + dcy * (cp - cm)) / (2 * e);
    EXPECT(dhx == 0.0, "sru: dhx = %g, must be 0 (hx plays no part)", dhx);
    EXPECT(fabs(dcx - fd) < 1e-8, "sru: dcx %.12g, central difference %.12g", dcx, fd);
    free(ws);
    free(rs);
    free(w);
    for (int t = 0; t < 2; t++)
        prnnDestroyTensorDescriptor(xd[t]);
    prnnDestroyTensorDescriptor(hd);
    prnnDestroyFilterDescriptor(wd);
    prnnDestroyFilterDescriptor(md);
    prnnDestroyRNNDescriptor(r);
}

static void test_gpu_handle_without_gpu(void)
{
    prnnHandle_t h = (prnnHandle_t)1;
    prnnStatus_t s = prnnCreate(&h);
    if (s == PRNN_STATUS_SUCCESS) {
        printf("a GPU is present: prnnCreate succeeded\n");
        prnnBackend_t b;
        EXPECT_OK(prnnGetBackend(h, &b));
        EXPECT(b == PRNN_BACKEND_GPU, "backend");
        prnnDestroy(h);
        return;
    }
    printf("prnnCreate without a GPU: %s: %s\n", prnnGetErrorString(s), prnnGetLastErrorLog());
    EXPECT(s == PRNN_STATUS_NO_DEVICE, "got %s", prnnGetErrorString(s));
    EXPECT(h == NULL, "handle not NULLed on failure");
    EXPECT(strstr(prnnGetLastErrorLog(), "libcuda"), "log should name libcuda: %s",
           prnnGetLastErrorLog());
}

int main(void)
{
    test_version_and_strings();
    test_log_is_thread_local();
    test_descriptor_round_trips();
    prnnHandle_t cpu;
    EXPECT_OK(prnnCreateWithBackend(&cpu, PRNN_BACKEND_CPU_REFERENCE));
    prnnBackend_t b;
    EXPECT_OK(prnnGetBackend(cpu, &b));
    EXPECT(b == PRNN_BACKEND_CPU_REFERENCE, "backend");
    struct CUstream_st *st = (struct CUstream_st *)0x1;
    EXPECT_OK(prnnSetStream(cpu, (struct CUstream_st *)0x1234));
    EXPECT_OK(prnnGetStream(cpu, &st));
    EXPECT(st == (struct CUstream_st *)0x1234, "stream round trip");
    prnnAutotuneMode_t am;
    EXPECT_OK(prnnGetAutotuneMode(cpu, &am));
    EXPECT(am == PRNN_AUTOTUNE_OFF, "autotune default");
    test_layouts(cpu);
    test_cpu_backend_tiny(cpu);
    test_cpu_backend_sru(cpu);
    prnnDestroy(cpu);
    test_gpu_handle_without_gpu();
    printf("api-basic: version and status strings, the error log, descriptor round trips, LinLayer "
           "weight addressing, plan info, SRU by hand, a GPU handle without a GPU: %d failures\n",
           test_failures);
    return test_failures ? 1 : 0;
}
