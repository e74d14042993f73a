/*
 * The kernels a plan is predicted to load (prnn_plan_kernel_set: what
 * planning compiles ahead in parallel and prnn-cache warm compiles), on a
 * described H100, without a GPU or NVRTC:
 *  - a training LSTM: the setup and training kernels, the forward kernel in
 *    its inference and training forms, each once, for sm_90, and two
 *    backward-data kernels (the pass's tile and its short slot's, a tuning
 *    DB entry's); inference alone: no training or backward kernel;
 *  - SKIP_INPUT adds the layer-0 variants; SRU is its scan (listed by each
 *    pass: a batch fetches it once);
 *    PRNN_ENGINE=standard gives the standard engine's step kernels;
 *  - under PRNN_TF32_RECURRENCE_MATH, FP32 data at B 64 takes the standard
 *    engine over the DB's resident tiles, at B 8 not (there only the
 *    backward-data pass's short slot, in training plans);
 *  - the same answer every time (the heuristic's results are remembered);
 *  - the caller's log is kept (appended to, never replaced).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/plan/plan_select.h"
#include "gpu/plan/plan_warm.h"
#include "gpu/run/gpu_state.h"
static int test_failures;
#include "../test_check.h"

static int count_kernel(const prnn_plan_kernels *ks, const char *name)
{
    int n = 0;
    for (int i = 0; i < ks->count; i++)
        n += strcmp(ks->req[i].req.kernel_name, name) == 0;
    return n;
}

static int has_define(const prnn_kernel_request *r, const char *define)
{
    for (int i = 0; i < r->req.num_defines; i++)
        if (strcmp(r->req.defines[i], define) == 0)
            return 1;
    return 0;
}

/* The kernels of a plan for mode at hidden size hidden with data type
 * dtype, batch and math type math on the described H100 (the shipped
 * tuning DB's). */
static void kernel_set_at(prnnRNNMode_t mode, prnnDataType_t dtype, int hidden, int batch,
                          prnnMathType_t math, prnnRNNInputMode_t input, int training,
                          prnn_plan_kernels *ks)
{
    prnn_tuning_entry e;
    memset(&e, 0, sizeof(e));
    snprintf(e.gpu_name, sizeof(e.gpu_name), "NVIDIA H100 80GB HBM3");
    e.cc_major = 9;
    e.sm_count = 132;
    e.mode = mode;
    e.dtype = dtype;
    e.hidden = hidden;
    e.directions = 1;
    struct prnn_gpu_state *gs = calloc(1, sizeof(*gs));
    CHECK(gs && prnn_warm_describe(90, &e, gs) == 0);
    prnn_rnn_key key;
    prnn_warm_key(&e, batch, &key);
    key.input_mode = input;
    key.math = math;
    const prnn_gpu_call g = {gs, NULL, PRNN_AUTOTUNE_OFF};
    prnn_plan_kernel_set(&g, &key, training, ks);
    for (int i = 0; i < ks->count; i++)
        CHECK(ks->req[i].req.sm == 90);
    free(gs);
}

static void kernel_set_of(prnnRNNMode_t mode, prnnDataType_t dtype, int batch, prnnMathType_t math,
                          prnnRNNInputMode_t input, int training, prnn_plan_kernels *ks)
{
    kernel_set_at(mode, dtype, 1024, batch, math, input, training, ks);
}

static void kernel_set(prnnRNNMode_t mode, prnnRNNInputMode_t input, int training,
                       prnn_plan_kernels *ks)
{
    kernel_set_of(mode, PRNN_DATA_HALF, 16, PRNN_DEFAULT_MATH, input, training, ks);
}

int main(void)
{
    prnn_plan_kernels ks, again;
    prnn_log_clear();
    prnn_log_append("the caller's note");

    kernel_set(PRNN_LSTM, PRNN_LINEAR_INPUT, 1, &ks);
    CHECK(count_kernel(&ks, "prnn_rnn_setup") == 1);
    CHECK(count_kernel(&ks, "prnn_train_kernels") == 1);
    /* LSTM f16 H 1024 B 16: the pass's tile (32 blocks, the B 16 entry)
     * and, for calls of up to 64 steps, the shipped short entry's of B 8
     * (nearest, cost 1: 64 blocks) */
    CHECK(count_kernel(&ks, "prnn_rnn_backward") == 2);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 2);
    int train_forms = 0;
    for (int i = 0; i < ks.count; i++)
        train_forms += has_define(&ks.req[i], "PRNN_TRAIN=1");
    CHECK(train_forms == 1);
    CHECK(strstr(prnn_log_get(), "the caller's note") != NULL);

    kernel_set(PRNN_LSTM, PRNN_LINEAR_INPUT, 1, &again);
    CHECK(again.count == ks.count);
    for (int i = 0; i < ks.count && i < again.count; i++) {
        CHECK(again.req[i].req.num_defines == ks.req[i].req.num_defines);
        for (int d = 0; d < ks.req[i].req.num_defines && d < again.req[i].req.num_defines; d++)
            CHECK(strcmp(again.req[i].req.defines[d], ks.req[i].req.defines[d]) == 0);
    }

    kernel_set(PRNN_LSTM, PRNN_LINEAR_INPUT, 0, &ks);
    CHECK(count_kernel(&ks, "prnn_train_kernels") == 0);
    CHECK(count_kernel(&ks, "prnn_rnn_backward") == 0);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 1);

    kernel_set(PRNN_LSTM, PRNN_SKIP_INPUT, 1, &ks);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 4);

    /* the short slots' kernels: tanh f32 H 512 B 1 in the shipped DB runs
     * one-step calls on the step engine, calls up to 64 steps on a
     * persistent tile other than the forward pass's (lanes_k 8 against 2),
     * and the models' slot between on the step engine again: its kernel
     * once */
    kernel_set_at(PRNN_RNN_TANH, PRNN_DATA_FLOAT, 512, 1, PRNN_DEFAULT_MATH, PRNN_LINEAR_INPUT, 0,
                  &ks);
    CHECK(count_kernel(&ks, "prnn_fused_step") == 1);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 2);

    kernel_set(PRNN_SRU, PRNN_LINEAR_INPUT, 1, &ks);
    CHECK(count_kernel(&ks, "prnn_sru_kernels") >= 1); /* one module, both passes */
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 0);

    setenv("PRNN_ENGINE", "standard", 1);
    kernel_set(PRNN_GRU, PRNN_LINEAR_INPUT, 1, &ks);
    unsetenv("PRNN_ENGINE");
    CHECK(count_kernel(&ks, "prnn_step_cell") >= 1);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 0);
    CHECK(strstr(prnn_log_get(), "the caller's note") != NULL);

    /* PRNN_TF32_RECURRENCE_MATH: the standard engine's TF32 estimate
     * (about 13 us a step) beats the DB's resident LSTM f32 B 64 entries
     * (36 us forward, measured with the recurrence in FP32), not its B 8
     * ones (5 us); the other math types and 16-bit data keep the DB's. */
    kernel_set_of(PRNN_LSTM, PRNN_DATA_FLOAT, 64, PRNN_TF32_RECURRENCE_MATH, PRNN_LINEAR_INPUT, 1,
                  &ks);
    CHECK(count_kernel(&ks, "prnn_step_cell") >= 1);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 0);
    CHECK(count_kernel(&ks, "prnn_rnn_backward") == 0);
    kernel_set_of(PRNN_LSTM, PRNN_DATA_FLOAT, 64, PRNN_TENSOR_OP_MATH, PRNN_LINEAR_INPUT, 1, &ks);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 2);
    kernel_set_of(PRNN_LSTM, PRNN_DATA_FLOAT, 8, PRNN_TF32_RECURRENCE_MATH, PRNN_LINEAR_INPUT, 1,
                  &ks);
    CHECK(count_kernel(&ks, "prnn_rnn_persistent") == 2);
    CHECK(count_kernel(&ks, "prnn_rnn_backward") == 1);
    /* the standard engine's step kernels there come from the backward-data
     * pass's short slot alone (loading 16 MB of R per call costs more than
     * a few standard steps): inference plans have none */
    CHECK(count_kernel(&ks, "prnn_step_cell") >= 1);
    kernel_set_of(PRNN_LSTM, PRNN_DATA_FLOAT, 8, PRNN_TF32_RECURRENCE_MATH, PRNN_LINEAR_INPUT, 0,
                  &ks);
    CHECK(count_kernel(&ks, "prnn_step_cell") == 0);
    kernel_set_of(PRNN_LSTM, PRNN_DATA_HALF, 64, PRNN_TF32_RECURRENCE_MATH, PRNN_LINEAR_INPUT, 1,
                  &ks);
    kernel_set_of(PRNN_LSTM, PRNN_DATA_HALF, 64, PRNN_DEFAULT_MATH, PRNN_LINEAR_INPUT, 1, &again);
    CHECK(ks.count == again.count);
    for (int i = 0; i < ks.count && i < again.count; i++)
        CHECK(strcmp(ks.req[i].req.kernel_name, again.req[i].req.kernel_name) == 0);

    if (test_failures) {
        printf("plan-kernels: %d failure(s)\n", test_failures);
        return 1;
    }
    printf(
        "plan-kernels: a training plan's predicted kernels (setup, training, forward in both "
        "forms, backward-data; SKIP_INPUT's variants; SRU's scan; the standard engine's; "
        "the standard engine's under PRNN_TF32_RECURRENCE_MATH; the short slots', once each) on a "
        "described H100, the same "
        "each time, the caller's log kept: all checks passed\n");
    return 0;
}
