/*
 * Using a handle or descriptor after its Destroy (issue #15): detected as
 * BAD_PARAM ("already destroyed") where prnn.h promises it, and safely: the
 * check must not read freed memory. Under the sanitizer build
 * (tools/run-sanitizers.sh) the old code failed here with AddressSanitizer's
 * heap-use-after-free; src/object_pool.c keeps destroyed objects' memory.
 */
#include "test_util.h"

static void expect_dead(prnnStatus_t s, const char *what)
{
    const char *log = prnnGetLastErrorLog();
    EXPECT(s == PRNN_STATUS_BAD_PARAM && strstr(log, "destroyed"), "%s after Destroy: %s; log: %s",
           what, prnnGetErrorString(s), log);
}

int main(void)
{
    int dims[3] = {2, 3, 1}, strides[3] = {3, 1, 1};
    prnnTensorDescriptor_t t;
    EXPECT_OK(prnnCreateTensorDescriptor(&t));
    EXPECT_OK(prnnSetTensorNdDescriptor(t, PRNN_DATA_FLOAT, 3, dims, strides));
    EXPECT_OK(prnnDestroyTensorDescriptor(t));
    expect_dead(prnnSetTensorNdDescriptor(t, PRNN_DATA_FLOAT, 3, dims, strides),
                "prnnSetTensorNdDescriptor");
    expect_dead(prnnDestroyTensorDescriptor(t), "a second prnnDestroyTensorDescriptor");

    prnnFilterDescriptor_t f;
    EXPECT_OK(prnnCreateFilterDescriptor(&f));
    EXPECT_OK(prnnSetFilterNdDescriptor(f, PRNN_DATA_FLOAT, PRNN_TENSOR_NCHW, 3, dims));
    EXPECT_OK(prnnDestroyFilterDescriptor(f));
    int nb;
    expect_dead(prnnGetFilterNdDescriptor(f, 0, NULL, NULL, &nb, NULL),
                "prnnGetFilterNdDescriptor");

    prnnDropoutDescriptor_t d;
    EXPECT_OK(prnnCreateDropoutDescriptor(&d));
    EXPECT_OK(prnnDestroyDropoutDescriptor(d));
    expect_dead(prnnSetDropoutDescriptor(d, NULL, 0.5f, 1), "prnnSetDropoutDescriptor");

    prnnRNNDescriptor_t r;
    EXPECT_OK(prnnCreateRNNDescriptor(&r));
    EXPECT_OK(prnnDestroyRNNDescriptor(r));
    expect_dead(prnnSetRNNDescriptor(r, 4, 1, NULL, PRNN_LINEAR_INPUT, PRNN_UNIDIRECTIONAL,
                                     PRNN_LSTM, PRNN_DATA_FLOAT),
                "prnnSetRNNDescriptor");

    /* its lengths are freed with it; a second Destroy must not free them again */
    prnnRNNDataDescriptor_t rd;
    int lengths[2] = {3, 1};
    EXPECT_OK(prnnCreateRNNDataDescriptor(&rd));
    EXPECT_OK(prnnSetRNNDataDescriptor(rd, PRNN_DATA_FLOAT, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
                                       3, 2, 4, lengths, NULL));
    EXPECT_OK(prnnDestroyRNNDataDescriptor(rd));
    expect_dead(prnnGetRNNDataDescriptor(rd, NULL, NULL, NULL, NULL, NULL, 2, lengths, NULL),
                "prnnGetRNNDataDescriptor");
    expect_dead(prnnDestroyRNNDataDescriptor(rd), "a second prnnDestroyRNNDataDescriptor");

    prnnHandle_t h;
    EXPECT_OK(prnnCreateWithBackend(&h, PRNN_BACKEND_CPU_REFERENCE));
    EXPECT_OK(prnnDestroy(h));
    prnnBackend_t b;
    expect_dead(prnnGetBackend(h, &b), "prnnGetBackend");
    expect_dead(prnnDestroy(h), "a second prnnDestroy");

    /* Many objects created and destroyed: memory is reused, not grown. */
    prnnTensorDescriptor_t first;
    EXPECT_OK(prnnCreateTensorDescriptor(&first));
    EXPECT_OK(prnnDestroyTensorDescriptor(first));
    int reused = 0;
    for (int i = 0; i < 1000; i++) {
        prnnTensorDescriptor_t x;
        EXPECT_OK(prnnCreateTensorDescriptor(&x));
        reused += x == first;
        EXPECT_OK(prnnDestroyTensorDescriptor(x));
    }
    EXPECT(reused == 1000, "a destroyed descriptor's memory was reused %d of 1000 times", reused);
    printf("use after Destroy detected for every kind; %d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
