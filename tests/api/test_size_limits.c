/*
 * Sizes that do not fit in size_t (issue #15): every size query and every
 * check that computes a byte count must answer BAD_PARAM with a message
 * naming the shape, never SUCCESS with a wrapped small number. The shapes
 * are the audit's: each returned SUCCESS and a few bytes before the sizes
 * were computed in checked arithmetic (src/checked_size.h). CPU backend
 * only: the queries never touch the shape's memory, so a 2^20-step
 * sequence costs one array of 2^20 descriptor pointers.
 */
#include <stdint.h>

#include "rnn_fixture.h"

/* An RNN descriptor on the CPU backend. */
static prnnRNNDescriptor_t make_rnn(int hidden, int layers, prnnDirectionMode_t dir,
                                    prnnRNNMode_t mode)
{
    prnnRNNDescriptor_t rnn;
    EXPECT_OK(prnnCreateRNNDescriptor(&rnn));
    EXPECT_OK(prnnSetRNNDescriptor(rnn, hidden, layers, NULL, PRNN_LINEAR_INPUT, dir, mode,
                                   PRNN_DATA_FLOAT));
    return rnn;
}

typedef prnnStatus_t (*size_query)(prnnHandle_t, const prnnRNNDescriptor_t, int,
                                   const prnnTensorDescriptor_t *, size_t *);

/* query on seq steps of one {batch, input, 1} descriptor must fail naming
 * what and the arguments, and leave *bytes alone. */
static void expect_too_large(const char *name, size_query query, prnnRNNDescriptor_t rnn, int seq,
                             int batch, int input, const char *what)
{
    prnnHandle_t h;
    prnnTensorDescriptor_t x;
    EXPECT_OK(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE));
    EXPECT_OK(prnnCreateTensorDescriptor(&x));
    EXPECT_OK(set_tensor3(x, PRNN_DATA_FLOAT, batch, input, 1));
    prnnTensorDescriptor_t *xs = malloc((size_t)seq * sizeof(*xs));
    for (int t = 0; t < seq; t++)
        xs[t] = x;
    size_t bytes = 12345;
    prnnStatus_t s = query(h, rnn, seq, xs, &bytes);
    const char *log = prnnGetLastErrorLog();
    EXPECT(s == PRNN_STATUS_BAD_PARAM, "%s: %s, %zu bytes (expected BAD_PARAM)", name,
           prnnGetErrorString(s), bytes);
    EXPECT(strstr(log, what) && strstr(log, "does not fit in size_t") && strstr(log, "seqLength"),
           "%s: the log does not name the %s and the arguments: %s", name, what, log);
    EXPECT(bytes == 12345, "%s: *sizeInBytes written on failure: %zu", name, bytes);
    printf("%-28s %s\n", name, log);
    free(xs);
    prnnDestroyTensorDescriptor(x);
    prnnDestroy(h);
}

static void reserve_wraps(void)
{
    prnnRNNDescriptor_t rnn = make_rnn(65536, 256, PRNN_BIDIRECTIONAL, PRNN_LSTM);
    /* was SUCCESS, 64 bytes */
    expect_too_large("reserve 2^20 x 2^20", prnnGetRNNTrainingReserveSize, rnn, 1 << 20, 1 << 20, 1,
                     "reserve space");
    prnnDestroyRNNDescriptor(rnn);
}

/* SRU's reserve and workspace have their own layouts (ref_layout.c). */
static void sru_sizes_wrap(void)
{
    prnnRNNDescriptor_t rnn = make_rnn(65536, 256, PRNN_BIDIRECTIONAL, PRNN_SRU);
    expect_too_large("SRU reserve 2^20 x 2^20", prnnGetRNNTrainingReserveSize, rnn, 1 << 20,
                     1 << 20, 1, "reserve space");
    prnnDestroyRNNDescriptor(rnn);
    rnn = make_rnn(65536, 1, PRNN_BIDIRECTIONAL, PRNN_SRU);
    expect_too_large("SRU workspace 2^21 x (2^31-1)", prnnGetRNNWorkspaceSize, rnn, 1 << 21,
                     INT32_MAX, 1, "workspace");
    prnnDestroyRNNDescriptor(rnn);
}

static void workspace_wraps(void)
{
    prnnRNNDescriptor_t rnn = make_rnn(65536, 1, PRNN_BIDIRECTIONAL, PRNN_LSTM);
    expect_too_large("workspace 2^21 x (2^31-1)", prnnGetRNNWorkspaceSize, rnn, 1 << 21, INT32_MAX,
                     1, "workspace");
    prnnDestroyRNNDescriptor(rnn);
}

/* A large shape that does fit still gets its true size: at least its
 * transposed recurrent matrix in doubles. */
static void large_shape_fits(void)
{
    prnnHandle_t h;
    prnnTensorDescriptor_t x;
    prnnRNNDescriptor_t rnn = make_rnn(65536, 1, PRNN_UNIDIRECTIONAL, PRNN_LSTM);
    EXPECT_OK(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE));
    EXPECT_OK(prnnCreateTensorDescriptor(&x));
    EXPECT_OK(set_tensor3(x, PRNN_DATA_FLOAT, 1, 1, 1));
    size_t bytes = 0;
    EXPECT_OK(prnnGetRNNWorkspaceSize(h, rnn, 1, &x, &bytes));
    EXPECT(bytes >= (size_t)4 * 65536 * 65536 * sizeof(double),
           "workspace of hidden 65536: %zu bytes", bytes);
    prnnDestroyTensorDescriptor(x);
    prnnDestroyRNNDescriptor(rnn);
    prnnDestroy(h);
}

/* A filter whose element count times the element size wraps to exactly the
 * params size (4864 bytes for this LSTM) was accepted. */
static void filter_wraps(void)
{
    static const rnn_shape shape = {
        .mode = PRNN_LSTM,
        .hidden = 16,
        .layers = 1,
        .direction = PRNN_UNIDIRECTIONAL,
        .input = 1,
        .seq = 2,
        .batch = {1, 1},
    };
    fixture f;
    fixture_setup(&f, &shape);
    EXPECT(f.w_size == 4864, "the shape's params size is %zu, not 4864", f.w_size);
    int wraps[3] = {19520, 5188783, 45531757};
    EXPECT_OK(prnnSetFilterNdDescriptor(f.wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, wraps));
    EXPECT_FAIL(fwd_inference(&f), PRNN_STATUS_BAD_PARAM,
                "wDesc dims {19520, 5188783, 45531757} describe more bytes than size_t holds");
    printf("%-28s %s\n", "filter wraps to 4864", prnnGetLastErrorLog());
    /* 2^80 elements: was "describes 0 bytes" */
    int huge[8] = {1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024};
    EXPECT_OK(prnnSetFilterNdDescriptor(f.wd, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 8, huge));
    EXPECT_FAIL(fwd_inference(&f), PRNN_STATUS_BAD_PARAM, "describe more bytes than size_t holds");
    printf("%-28s %s\n", "filter of 2^80 elements", prnnGetLastErrorLog());
    fixture_teardown(&f);
}

/* dims[1] * dims[2] overflowed int in the packed-stride check (UBSan), and
 * the message printed the wrapped value. */
static void stride_product_wraps(void)
{
    prnnHandle_t h;
    prnnTensorDescriptor_t x;
    prnnRNNDescriptor_t rnn = make_rnn(4, 1, PRNN_UNIDIRECTIONAL, PRNN_LSTM);
    EXPECT_OK(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE));
    EXPECT_OK(prnnCreateTensorDescriptor(&x));
    int dims[3] = {1, 65536, 65536}, strides[3] = {1, 65536, 1};
    EXPECT_OK(prnnSetTensorNdDescriptor(x, PRNN_DATA_FLOAT, 3, dims, strides));
    size_t bytes;
    EXPECT_FAIL(prnnGetRNNParamsSize(h, rnn, x, &bytes, PRNN_DATA_FLOAT), PRNN_STATUS_BAD_PARAM,
                "expected {4294967296, 65536, 1}");
    printf("%-28s %s\n", "stride product", prnnGetLastErrorLog());
    prnnDestroyTensorDescriptor(x);
    prnnDestroyRNNDescriptor(rnn);
    prnnDestroy(h);
}

int main(void)
{
    reserve_wraps();
    workspace_wraps();
    sru_sizes_wrap();
    large_shape_fits();
    filter_wraps();
    stride_product_wraps();
    printf("%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
