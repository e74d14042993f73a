/*
 * The training order and the reserve registry (include/prnn.h, at
 * prnnGetRNNTrainingReserveSize), on the CPU backend: a backward call needs a
 * reserve that ForwardTraining filled for the same problem, BackwardWeights
 * needs BackwardData first, the record is process-wide and bounded. Every
 * test breaks one rule and expects BAD_PARAM with the rule's message, and
 * runs the unbroken sequence beside it, so that no rule passes vacuously.
 *
 * The registry is process-wide and outlives each test's buffers: a test that
 * needs an address nobody recorded uses a static buffer (malloc may hand out
 * the address of an earlier test's freed reserve, whose record remains).
 */
#include <pthread.h>
#include <stdint.h>

#include "rnn_fixture.h"

#define BAD PRNN_STATUS_BAD_PARAM

/* Two layers, so that the dropout settings matter. */
static const rnn_shape base = {
    .mode = PRNN_LSTM,
    .hidden = 4,
    .layers = 2,
    .direction = PRNN_BIDIRECTIONAL,
    .input = 3,
    .seq = 3,
    .batch = {3, 2, 2},
    .dropout = 0.25f,
    .seed = 1,
};

/* Larger than any reserve used here; never passed to ForwardTraining
 * successfully. */
static double never_filled[1 << 14];

/* The message for an address the registry does not hold, bound included. */
static char unknown_msg[160];

static void test_unknown_reserve(void)
{
    fixture f;
    fixture_setup(&f, &base);
    EXPECT(f.rs_size <= sizeof(never_filled), "reserve of %zu bytes", f.rs_size);
    f.rs = never_filled;
    EXPECT_FAIL(bwd_data(&f), BAD, unknown_msg);
    EXPECT_FAIL(bwd_weights(&f), BAD, "was not filled by prnnRNNForwardTraining");
    f.rs = NULL;
    EXPECT_FAIL(bwd_data(&f), BAD, "reserveSpace is NULL");
    /* An address inside a recorded reserve is not that reserve. */
    f.rs = f.own_rs;
    EXPECT_OK(fwd_training(&f));
    f.rs = (char *)f.own_rs + 64;
    f.rs_size -= 64;
    EXPECT_FAIL(bwd_data(&f), BAD, "lies 64 bytes inside the reserve");
    f.rs = f.own_rs;
    f.rs_size += 64;
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&f);
}

/* ForwardTraining runs the base problem on a reserve; the backward calls of
 * the base problem changed by `change` get that reserve and must be refused
 * with the message `needle` (a format whose %s, if any, is the input
 * argument's name: dxDesc, then xDesc); the base problem's own backward
 * calls on it must pass. The changed problem may need a larger reserve: the
 * registry must refuse it before the size is looked at. */
static void expect_mismatch(const char *what, void (*change)(rnn_shape *), const char *needle)
{
    printf("reserve of another problem: %s\n", what);
    char data_msg[256], weights_msg[256];
    snprintf(data_msg, sizeof(data_msg), needle, "dxDesc");
    snprintf(weights_msg, sizeof(weights_msg), needle, "xDesc");
    rnn_shape other = base;
    change(&other);
    fixture a, b;
    fixture_setup(&a, &base);
    fixture_setup(&b, &other);
    EXPECT_OK(fwd_training(&a));
    b.rs = a.rs;
    b.rs_size = a.rs_size;
    EXPECT_FAIL(bwd_data(&b), BAD, data_msg);
    EXPECT_OK(bwd_data(&a));
    EXPECT_FAIL(bwd_weights(&b), BAD, weights_msg);
    EXPECT_OK(bwd_weights(&a));
    fixture_teardown(&a);
    fixture_teardown(&b);
}

/* clang-format off */
static void longer(rnn_shape *s) { s->seq = 4; s->batch[3] = 1; }
static void reordered_batches(rnn_shape *s) { s->batch[1] = 3; s->batch[2] = 1; }
static void smaller_mini_batch(rnn_shape *s) { s->batch[0] = 2; }
static void fewer_rows(rnn_shape *s) { s->batch[2] = 1; }
static void wider(rnn_shape *s) { s->hidden = 5; }
static void wider_input(rnn_shape *s) { s->input = 4; }
static void other_seed(rnn_shape *s) { s->seed = 2; }
static void more_dropout(rnn_shape *s) { s->dropout = 0.5f; }
static void gru(rnn_shape *s) { s->mode = PRNN_GRU; }
static void one_layer(rnn_shape *s) { s->layers = 1; }
static void unidirectional(rnn_shape *s) { s->direction = PRNN_UNIDIRECTIONAL; }
static void tensor_op_math(rnn_shape *s) { s->math = PRNN_TENSOR_OP_MATH; }
static void tf32_recurrence_math(rnn_shape *s) { s->math = PRNN_TF32_RECURRENCE_MATH; }
static void standard_algo(rnn_shape *s) { s->algo = PRNN_RNN_ALGO_STANDARD; }
/* clang-format on */

static const struct {
    const char *what;
    void (*change)(rnn_shape *);
    const char *needle;
} mismatches[] = {
    {"seqLength", longer,
     "was filled by prnnRNNForwardTraining with seqLength 3, this call has seqLength 4: a backward "
     "call must describe the problem"},
    {"batch sizes, same sum", reordered_batches,
     "with other per-step batch sizes than this call's %s (both have miniBatch 3 and 7 rows in "
     "all)"},
    {"miniBatch", smaller_mini_batch, "with miniBatch 3, this call's %s has miniBatch 2"},
    {"sum of batch sizes", fewer_rows,
     "with sum of batch sizes 7, this call's %s has sum of batch sizes 6"},
    {"hiddenSize", wider, "with hiddenSize 4, this call's rnnDesc has hiddenSize 5"},
    {"inputSize", wider_input, "with inputSize 3, this call's %s has inputSize 4"},
    {"dropout seed", other_seed, "with dropout seed 1, this call's rnnDesc has dropout seed 2"},
    {"dropout", more_dropout, "with dropout 0.25, this call's rnnDesc has dropout 0.5"},
    {"mode", gru, "with mode lstm, this call's rnnDesc has mode gru"},
    {"numLayers", one_layer, "with numLayers 2, this call's rnnDesc has numLayers 1"},
    {"direction", unidirectional,
     "with direction PRNN_BIDIRECTIONAL, this call's rnnDesc has direction PRNN_UNIDIRECTIONAL"},
    {"mathType", tensor_op_math,
     "with mathType PRNN_DEFAULT_MATH, this call's rnnDesc has mathType PRNN_TENSOR_OP_MATH"},
    {"mathType (TF32 recurrence)", tf32_recurrence_math,
     "with mathType PRNN_DEFAULT_MATH, this call's rnnDesc has mathType "
     "PRNN_TF32_RECURRENCE_MATH"},
    {"algorithm", standard_algo,
     "with algorithm PRNN_RNN_ALGO_AUTO, this call's rnnDesc has algorithm PRNN_RNN_ALGO_STANDARD"},
};

static void test_reserve_of_other_problem(void)
{
    for (size_t i = 0; i < sizeof(mismatches) / sizeof(mismatches[0]); i++)
        expect_mismatch(mismatches[i].what, mismatches[i].change, mismatches[i].needle);
}

/* Where no dropout is applied (one layer), the seed does not change the
 * reserve: a backward call with another seed is the same problem. */
static void test_seed_without_dropout_is_no_mismatch(void)
{
    rnn_shape fwd = base, bwd = base;
    fwd.layers = bwd.layers = 1;
    bwd.seed = 2;
    fixture a, b;
    fixture_setup(&a, &fwd);
    fixture_setup(&b, &bwd);
    EXPECT_OK(fwd_training(&a));
    b.rs = a.rs;
    EXPECT_OK(bwd_data(&b));
    EXPECT_OK(bwd_weights(&b));
    fixture_teardown(&a);
    fixture_teardown(&b);
}

static void test_reserve_too_small(void)
{
    fixture f;
    fixture_setup(&f, &base);
    char msg[160];
    snprintf(msg, sizeof(msg),
             "reserveSpaceSizeInBytes = %zu bytes is too small: prnnGetRNNTrainingReserveSize "
             "needs %zu for this shape",
             f.rs_size - 1, f.rs_size);
    f.rs_size -= 1;
    EXPECT_FAIL(fwd_training(&f), BAD, msg);
    f.rs_size += 1;
    EXPECT_OK(fwd_training(&f));
    f.rs_size -= 1;
    EXPECT_FAIL(bwd_data(&f), BAD, msg);
    f.rs_size += 1;
    EXPECT_OK(bwd_data(&f));
    f.rs_size -= 1;
    EXPECT_FAIL(bwd_weights(&f), BAD, msg);
    f.rs_size += 1;
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&f);
}

static const char before_data[] =
    "prnnRNNBackwardWeights before prnnRNNBackwardData on this reserveSpace: BackwardWeights reads "
    "the gate gradients BackwardData leaves in it";

static void test_weights_needs_data_first(void)
{
    fixture f;
    fixture_setup(&f, &base);
    EXPECT_OK(fwd_training(&f));
    EXPECT_FAIL(bwd_weights(&f), BAD, before_data);
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    /* Repeated backward calls are allowed, in either order once BackwardData
     * has run. */
    EXPECT_OK(bwd_weights(&f));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&f);
}

static void test_second_forward_resets(void)
{
    fixture f;
    fixture_setup(&f, &base);
    EXPECT_OK(fwd_training(&f));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(fwd_training(&f));
    EXPECT_FAIL(bwd_weights(&f), BAD, before_data);
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));

    /* A forward pass of another problem on the same reserve replaces the
     * record: the first problem's backward calls are now refused. */
    rnn_shape shorter = base;
    shorter.seq = 2;
    fixture g;
    fixture_setup(&g, &shorter);
    g.rs = f.rs;
    g.rs_size = f.rs_size;
    EXPECT_OK(fwd_training(&g));
    EXPECT_FAIL(bwd_data(&f), BAD, "with seqLength 2, this call has seqLength 3");
    EXPECT_OK(bwd_data(&g));
    EXPECT_OK(bwd_weights(&g));
    fixture_teardown(&g);
    fixture_teardown(&f);
}

static void *backward_in_thread(void *arg)
{
    fixture *f = arg;
    EXPECT_OK(bwd_data(f));
    EXPECT_OK(bwd_weights(f));
    return NULL;
}

static int same_floats(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

/* As a framework does it: forward on one thread and handle, backward on
 * another thread with another handle of the same backend. Results must be
 * those of one handle. */
static void test_two_handles(void)
{
    const size_t dx_n = (size_t)(base.batch[0] + base.batch[1] + base.batch[2]) *
                        (size_t)base.input;
    fixture f;
    fixture_setup(&f, &base);
    size_t dw_n = f.w_size / sizeof(float);
    float *dx_one = malloc(dx_n * sizeof(float)), *dw_one = malloc(f.w_size);
    float *dw_start = malloc(f.w_size);
    memcpy(dw_start, f.dw, f.w_size);
    EXPECT_OK(fwd_training(&f));
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    memcpy(dx_one, f.dx, dx_n * sizeof(float));
    memcpy(dw_one, f.dw, f.w_size);

    memcpy(f.dw, dw_start, f.w_size);
    memset(f.dx, 0, dx_n * sizeof(float));
    prnnHandle_t other;
    EXPECT_OK(prnnCreateWithBackend(&other, PRNN_BACKEND_CPU_REFERENCE));
    EXPECT_OK(fwd_training(&f));
    f.handle = other;
    pthread_t th;
    pthread_create(&th, NULL, backward_in_thread, &f);
    pthread_join(th, NULL);
    EXPECT(same_floats(f.dx, dx_one, dx_n) && same_floats(f.dw, dw_one, dw_n),
           "two handles gave other gradients than one");
    f.handle = f.own_handle;
    prnnDestroy(other);
    free(dx_one);
    free(dw_one);
    free(dw_start);
    fixture_teardown(&f);
}

/* Threads training at once, each on its own handle and reserve, all through
 * the one registry: every call must succeed (and a race in the registry
 * shows under -Db_sanitize=thread). */
#define TRAINERS 4

static void *train_loop(void *arg)
{
    fixture *f = arg;
    for (int i = 0; i < 200; i++) {
        EXPECT_OK(fwd_training(f));
        EXPECT_OK(bwd_data(f));
        EXPECT_OK(bwd_weights(f));
    }
    return NULL;
}

static void test_concurrent_training(void)
{
    fixture f[TRAINERS];
    pthread_t th[TRAINERS];
    for (int i = 0; i < TRAINERS; i++) {
        fixture_setup(&f[i], &base);
        pthread_create(&th[i], NULL, train_loop, &f[i]);
    }
    for (int i = 0; i < TRAINERS; i++) {
        pthread_join(th[i], NULL);
        fixture_teardown(&f[i]);
    }
}

/* A reserve filled on the CPU backend, passed to a GPU handle: refused before
 * the GPU backend sees it. Needs a GPU to create the handle. */
static void test_other_backend(void)
{
    prnnHandle_t gpu;
    if (prnnCreate(&gpu) != PRNN_STATUS_SUCCESS) {
        printf("other backend: no GPU, not run\n");
        return;
    }
    fixture f;
    fixture_setup(&f, &base);
    EXPECT_OK(fwd_training(&f));
    f.handle = gpu;
    EXPECT_FAIL(bwd_data(&f), BAD,
                "on the CPU reference backend, this call's handle is on the GPU backend");
    f.handle = f.own_handle;
    prnnDestroy(gpu);
    fixture_teardown(&f);
}

static void test_failing_forward_records_nothing(void)
{
    fixture f;
    fixture_setup(&f, &base);
    /* A fresh address: a refused forward pass must not make it a reserve. */
    f.rs = never_filled;
    float *y = f.y;
    f.y = NULL;
    EXPECT_FAIL(fwd_training(&f), BAD, "y is NULL");
    f.y = y;
    EXPECT_FAIL(bwd_data(&f), BAD, "was not filled by prnnRNNForwardTraining");

    /* A recorded reserve: a refused forward pass leaves its stage... */
    f.rs = f.own_rs;
    EXPECT_OK(fwd_training(&f));
    EXPECT_OK(bwd_data(&f));
    f.y = NULL;
    EXPECT_FAIL(fwd_training(&f), BAD, "y is NULL");
    f.y = y;
    EXPECT_OK(bwd_weights(&f));
    /* ...and its problem, also when the refused call was of another one. */
    rnn_shape longer = base;
    longer.seq = 4;
    longer.batch[3] = 1;
    fixture g;
    fixture_setup(&g, &longer);
    g.rs = f.rs; /* too small for the longer sequence */
    g.rs_size = f.rs_size;
    EXPECT_FAIL(fwd_training(&g), BAD, "reserveSpaceSizeInBytes");
    EXPECT_OK(bwd_data(&f));
    EXPECT_OK(bwd_weights(&f));
    fixture_teardown(&g);
    fixture_teardown(&f);
}

/* More reserves than the bound: the least recently used one is forgotten,
 * not the oldest (a reserve used by a backward call counts as used). */
static void test_eviction(void)
{
    const int n = PRNN_MAX_TRACKED_RESERVES;
    fixture f;
    fixture_setup(&f, &base);
    size_t stride = (f.rs_size + 63) / 64 * 64;
    char *block = malloc(stride * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        f.rs = block + stride * (size_t)i;
        EXPECT_OK(fwd_training(&f));
    }
    f.rs = block; /* reserve 0: the oldest, now the most recently used */
    EXPECT_OK(bwd_data(&f));
    f.rs = block + stride * (size_t)n; /* one more than the bound */
    EXPECT_OK(fwd_training(&f));
    f.rs = block + stride; /* reserve 1: the least recently used */
    EXPECT_FAIL(bwd_data(&f), BAD, unknown_msg);
    f.rs = block;
    EXPECT_OK(bwd_weights(&f));
    f.rs = block + stride * 2;
    EXPECT_OK(bwd_data(&f));
    f.rs = block + stride * (size_t)n;
    EXPECT_OK(bwd_data(&f));
    free(block);
    fixture_teardown(&f);
}

int main(void)
{
    snprintf(unknown_msg, sizeof(unknown_msg),
             "was not filled by prnnRNNForwardTraining (or was evicted: the registry remembers the "
             "last %d reserves)",
             PRNN_MAX_TRACKED_RESERVES);
    test_unknown_reserve();
    test_reserve_of_other_problem();
    test_seed_without_dropout_is_no_mismatch();
    test_reserve_too_small();
    test_weights_needs_data_first();
    test_second_forward_resets();
    test_two_handles();
    test_concurrent_training();
    test_other_backend();
    test_failing_forward_records_nothing();
    test_eviction();
    printf("api-reserve: the training order and the reserve registry's rules: %d failures\n",
           test_failures);
    return test_failures ? 1 : 0;
}
