/*
 * The GPU layouts' sizes for shapes too large for size_t (issue #15): the
 * workspace and reserve totals must come out as PRNN_SIZE_OVERFLOW (which
 * the API layer reports as BAD_PARAM), never as a wrapped small number.
 * No GPU needed: both layouts are functions of the shape (and, for the
 * workspace, of the engine of the call's pass, here the standard and the
 * SRU scan engines, whose layouts need no kernels).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checked_size.h"
#include "gpu/plan/plan.h"
#include "gpu/run/gemm.h"
#include "gpu/run/reserve_layout.h"
#include "gpu/run/workspace_layout.h"
#include "plan_check.h"

/* A plan whose passes run on the named engine, without kernels: the
 * standard and SRU engines' layouts depend on the shape alone. */
static void plan_on(prnn_plan *plan, const char *engine)
{
    memset(plan, 0, sizeof(*plan));
    for (int i = 0; i < PRNN_PASS_COUNT; i++)
        plan->pass[i].engine = prnn_engine_find(engine);
}

/* An LSTM problem of seq steps of batch rows each (the batch array is one
 * element long: the layouts read only totals). */
static prnn_rnn_problem problem(struct prnnRNNStruct *rnn, int hidden, int layers,
                                prnnDirectionMode_t dir, int seq, int batch, const int *batch0)
{
    memset(rnn, 0, sizeof(*rnn));
    rnn->magic = PRNN_MAGIC_RNN;
    rnn->is_set = 1;
    rnn->hidden = hidden;
    rnn->layers = layers;
    rnn->direction = dir;
    rnn->mode = PRNN_LSTM;
    rnn->dtype = PRNN_DATA_FLOAT;
    rnn->input_mode = PRNN_LINEAR_INPUT;
    prnn_rnn_problem p = {rnn, 1, seq, batch0, batch, (size_t)seq * (size_t)batch, NULL};
    return p;
}

int main(void)
{
    struct prnnRNNStruct rnn;
    const int b20 = 1 << 20, bmax = INT32_MAX;
    prnn_plan plan, sru;
    plan_on(&plan, "standard");
    plan_on(&sru, "sru-scan");
    CHECK(plan.pass[0].engine && sru.pass[0].engine);
    const prnn_pass_plan *fwd = &plan.pass[PRNN_PASS_FORWARD];
    const prnn_pass_plan *sru_pass = &sru.pass[PRNN_PASS_FORWARD];

    /* the audit's reserve: was 64 bytes */
    prnn_rnn_problem p = problem(&rnn, 65536, 256, PRNN_BIDIRECTIONAL, b20, b20, &b20);
    prnn_reserve_layout r;
    prnn_reserve_layout_compute(&p, &r);
    CHECK(r.total == PRNN_SIZE_OVERFLOW);

    /* the audit's workspace: seqLength 2^21, batch 2^31 - 1 */
    p = problem(&rnn, 65536, 1, PRNN_BIDIRECTIONAL, 1 << 21, bmax, &bmax);
    CHECK(prnn_plan_workspace_bytes(&plan, &p) == PRNN_SIZE_OVERFLOW);
    prnn_ws_layout l;
    prnn_ws_layout_compute(fwd, &p, PRNN_CALL_INFERENCE, &l);
    CHECK(l.total == PRNN_SIZE_OVERFLOW);
    /* SRU's layouts (reserve_layout.c, the SRU engine's workspace) */
    p = problem(&rnn, 65536, 256, PRNN_BIDIRECTIONAL, b20, b20, &b20);
    rnn.mode = PRNN_SRU;
    prnn_reserve_layout_compute(&p, &r);
    CHECK(r.total == PRNN_SIZE_OVERFLOW);
    p = problem(&rnn, 65536, 1, PRNN_BIDIRECTIONAL, 1 << 21, bmax, &bmax);
    rnn.mode = PRNN_SRU;
    /* (one layer, no dropout: forward training and backward weights need
     * only the step tables, which fit) */
    prnn_ws_layout_compute(sru_pass, &p, PRNN_CALL_INFERENCE, &l);
    CHECK(l.total == PRNN_SIZE_OVERFLOW);
    prnn_ws_layout_compute(sru_pass, &p, PRNN_CALL_BACKWARD_DATA, &l);
    CHECK(l.total == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_plan_workspace_bytes(&sru, &p) == PRNN_SIZE_OVERFLOW);

    /* a shape that fits keeps its exact size */
    const int one = 1;
    rnn.mode = PRNN_LSTM;
    p = problem(&rnn, 256, 2, PRNN_UNIDIRECTIONAL, 4, 1, &one);
    prnn_reserve_layout_compute(&p, &r);
    CHECK(r.total != PRNN_SIZE_OVERFLOW && r.total >= 4 * 256 * 4 && r.total < (1u << 20));
    CHECK(prnn_plan_workspace_bytes(&plan, &p) < (1u << 26));

    /* SRU's multi-layer backward weights: its cuBLASLt workspace inside
     * the size every call is given */
    p = problem(&rnn, 256, 2, PRNN_BIDIRECTIONAL, 4, 1, &one);
    rnn.mode = PRNN_SRU;
    prnn_ws_layout_compute(sru_pass, &p, PRNN_CALL_BACKWARD_WEIGHTS, &l);
    CHECK(l.gemm_ws != (size_t)-1 && l.gemm_ws + PRNN_GEMM_WORKSPACE <= l.total);
    CHECK(l.total <= prnn_plan_workspace_bytes(&sru, &p));

    /* the workspace a product offers cuBLASLt's heuristic: 4 MiB up to
     * 2^24 multiply-adds (a strided batch's all counted), all of it past
     * that or for A^T B, and never more than there is */
    prnn_gemm_key gk;
    memset(&gk, 0, sizeof(gk));
    gk.m = 16, gk.n = 1024, gk.k = 1024, gk.batch = 1;
    CHECK(prnn_gemm_heuristic_workspace(&gk, PRNN_GEMM_WORKSPACE) == PRNN_GEMM_SMALL_WORKSPACE);
    gk.m = 8, gk.n = 4096;
    CHECK(prnn_gemm_heuristic_workspace(&gk, PRNN_GEMM_WORKSPACE) == PRNN_GEMM_WORKSPACE);
    gk.m = 16, gk.n = 4096, gk.k = 1024;
    CHECK(prnn_gemm_heuristic_workspace(&gk, PRNN_GEMM_WORKSPACE) == PRNN_GEMM_WORKSPACE);
    gk.m = 16, gk.n = 256, gk.k = 256;
    CHECK(prnn_gemm_heuristic_workspace(&gk, PRNN_GEMM_WORKSPACE) == PRNN_GEMM_SMALL_WORKSPACE);
    gk.batch = 256;
    CHECK(prnn_gemm_heuristic_workspace(&gk, PRNN_GEMM_WORKSPACE) == PRNN_GEMM_WORKSPACE);
    gk.batch = 1;
    CHECK(prnn_gemm_heuristic_workspace(&gk, 1u << 20) == 1u << 20);
    gk.trans_a = 1;
    CHECK(prnn_gemm_heuristic_workspace(&gk, PRNN_GEMM_WORKSPACE) == PRNN_GEMM_WORKSPACE);

    /* the helpers themselves saturate and stay saturated */
    CHECK(prnn_mul_size(SIZE_MAX / 2 + 1, 2) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_mul_size(PRNN_SIZE_OVERFLOW, 0) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_add_size(SIZE_MAX - 1, 1) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_align_size(SIZE_MAX - 3, 256) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_align_size(257, 256) == 512);
    printf("%d test_failures\n", test_failures);
    return test_failures ? 1 : 0;
}
