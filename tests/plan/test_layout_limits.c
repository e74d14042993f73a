/*
 * The GPU layouts' sizes for shapes too large for size_t (issue #15): the
 * workspace and reserve totals must come out as PRNN_SIZE_OVERFLOW (which
 * the API layer reports as BAD_PARAM), never as a wrapped small number.
 * No GPU needed: both layouts are functions of the shape (and, for the
 * workspace, of a plan, here the standard path's).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checked_size.h"
#include "gpu/gemm.h"
#include "gpu/plan.h"
#include "gpu/reserve_layout.h"
#include "gpu/workspace_layout.h"
#include "plan_check.h"


/* An LSTM problem of seq steps of batch rows each (the batch array is one
 * element long: the layouts read only totals). */
static prnn_rnn_problem problem(struct prnnRNNStruct *rnn, int hidden, int layers,
                                prnnDirectionMode_t dir, int seq, int batch,
                                const int *batch0)
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
    prnn_rnn_problem p = {rnn, 1, seq, batch0, batch, (size_t)seq * (size_t)batch};
    return p;
}

int main(void)
{
    struct prnnRNNStruct rnn;
    const int b20 = 1 << 20, bmax = INT32_MAX;
    prnn_plan plan;
    memset(&plan, 0, sizeof(plan));
    plan.path = PRNN_PATH_STANDARD;

    /* the audit's reserve: was 64 bytes */
    prnn_rnn_problem p = problem(&rnn, 65536, 256, PRNN_BIDIRECTIONAL, b20, b20, &b20);
    prnn_reserve_layout r;
    prnn_reserve_layout_compute(&p, &r);
    CHECK(r.total == PRNN_SIZE_OVERFLOW);

    /* the audit's workspace: seqLength 2^21, batch 2^31 - 1 */
    p = problem(&rnn, 65536, 1, PRNN_BIDIRECTIONAL, 1 << 21, bmax, &bmax);
    CHECK(prnn_ws_bytes(&plan, &p) == PRNN_SIZE_OVERFLOW);
    prnn_ws_layout l;
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_INFERENCE, &l);
    CHECK(l.total == PRNN_SIZE_OVERFLOW);

    /* SRU's layouts (reserve_layout.c, workspace_layout.c's sru_parts) */
    p = problem(&rnn, 65536, 256, PRNN_BIDIRECTIONAL, b20, b20, &b20);
    rnn.mode = PRNN_SRU;
    prnn_reserve_layout_compute(&p, &r);
    CHECK(r.total == PRNN_SIZE_OVERFLOW);
    p = problem(&rnn, 65536, 1, PRNN_BIDIRECTIONAL, 1 << 21, bmax, &bmax);
    rnn.mode = PRNN_SRU;
    /* (one layer, no dropout: forward training and backward weights need
     * only the step tables, which fit) */
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_INFERENCE, &l);
    CHECK(l.total == PRNN_SIZE_OVERFLOW);
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_BACKWARD_DATA, &l);
    CHECK(l.total == PRNN_SIZE_OVERFLOW);

    /* a shape that fits keeps its exact size */
    const int one = 1;
    rnn.mode = PRNN_LSTM;
    p = problem(&rnn, 256, 2, PRNN_UNIDIRECTIONAL, 4, 1, &one);
    prnn_reserve_layout_compute(&p, &r);
    CHECK(r.total != PRNN_SIZE_OVERFLOW && r.total >= 4 * 256 * 4 &&
          r.total < (1u << 20));
    CHECK(prnn_ws_bytes(&plan, &p) < (1u << 26));

    /* SRU's multi-layer backward weights: a second cuBLASLt workspace for
     * the side stream (sru_run.c), apart from the first and inside the
     * size every call is given; none for one layer or another mode */
    p = problem(&rnn, 256, 2, PRNN_BIDIRECTIONAL, 4, 1, &one);
    rnn.mode = PRNN_SRU;
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_BACKWARD_WEIGHTS, &l);
    CHECK(l.gemm_ws_side != (size_t)-1 && l.gemm_ws != (size_t)-1);
    CHECK(l.gemm_ws_side >= l.gemm_ws + PRNN_GEMM_WORKSPACE ||
          l.gemm_ws >= l.gemm_ws_side + PRNN_GEMM_WORKSPACE);
    CHECK(l.gemm_ws_side + PRNN_GEMM_WORKSPACE <= l.total);
    CHECK(l.total <= prnn_ws_bytes(&plan, &p));
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_BACKWARD_DATA, &l);
    CHECK(l.gemm_ws_side == (size_t)-1);
    p = problem(&rnn, 256, 1, PRNN_BIDIRECTIONAL, 4, 1, &one);
    rnn.mode = PRNN_SRU;
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_BACKWARD_WEIGHTS, &l);
    CHECK(l.gemm_ws_side == (size_t)-1);
    p = problem(&rnn, 256, 2, PRNN_BIDIRECTIONAL, 4, 1, &one);
    prnn_ws_layout_compute(&plan, &p, PRNN_CALL_BACKWARD_WEIGHTS, &l);
    CHECK(l.gemm_ws_side == (size_t)-1);

    /* the helpers themselves saturate and stay saturated */
    CHECK(prnn_mul_size(SIZE_MAX / 2 + 1, 2) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_mul_size(PRNN_SIZE_OVERFLOW, 0) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_add_size(SIZE_MAX - 1, 1) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_align_size(SIZE_MAX - 3, 256) == PRNN_SIZE_OVERFLOW);
    CHECK(prnn_align_size(257, 256) == 512);
    printf("%d test_failures\n", test_failures);
    return test_failures ? 1 : 0;
}
