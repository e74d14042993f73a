/*
 * Which calls of unpacked data run in place (gpu/run/seq_io_plan.h), and
 * the workspace each call kind takes then (workspace_layout.c): only the
 * order and lengths of its sequences, backward-data's dx copy where the
 * sequences are padded or reordered, BackwardWeights' x copy, and an input
 * projection of every padded row; a call that moves its data (SRU, a
 * projection, SKIP_INPUT) keeps the copies and a projection of the packed
 * rows. No GPU: the standard engine's and the SRU scan's layouts need no
 * kernels.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gpu/plan/plan.h"
#include "gpu/run/gpu_run.h"
#include "gpu/run/seq_io_plan.h"
#include "gpu/run/workspace_layout.h"
#include "plan_check.h"

#define B 4
#define T 6

static const size_t none = (size_t)-1;

/* An LSTM problem of four sequences of the given lengths (their packed
 * order `order`, batch sizes `steps`) in layout `layout`, maxSeqLength T. */
static prnn_rnn_problem problem(struct prnnRNNStruct *rnn, prnn_seq_io *io, const int *lengths,
                                const int *order, int *steps, prnnRNNDataLayout_t layout)
{
    memset(rnn, 0, sizeof(*rnn));
    rnn->magic = PRNN_MAGIC_RNN;
    rnn->is_set = 1;
    rnn->hidden = 32;
    rnn->layers = 1;
    rnn->direction = PRNN_UNIDIRECTIONAL;
    rnn->mode = PRNN_LSTM;
    rnn->dtype = PRNN_DATA_FLOAT;
    rnn->input_mode = PRNN_LINEAR_INPUT;
    int longest = 0;
    size_t rows = 0;
    for (int b = 0; b < B; b++)
        longest = lengths[b] > longest ? lengths[b] : longest;
    for (int t = 0; t < longest; t++) {
        steps[t] = 0;
        for (int b = 0; b < B; b++)
            steps[t] += lengths[b] > t;
        rows += (size_t)steps[t];
    }
    memset(io, 0, sizeof(*io));
    io->layout = layout;
    io->max_seq = T;
    io->batch = B;
    io->lengths = lengths;
    io->order = order;
    prnn_rnn_problem p = {rnn, 16, longest, steps, B, rows, io};
    return p;
}

int main(void)
{
    prnn_plan standard, sru;
    memset(&standard, 0, sizeof(standard));
    memset(&sru, 0, sizeof(sru));
    for (int i = 0; i < PRNN_PASS_COUNT; i++) {
        standard.pass[i].engine = prnn_engine_find("standard");
        sru.pass[i].engine = prnn_engine_find("sru-scan");
    }
    CHECK(standard.pass[0].engine && sru.pass[0].engine);
    const prnn_pass_plan *std_fwd = &standard.pass[PRNN_PASS_FORWARD];
    const prnn_engine *e = std_fwd->engine;

    struct prnnRNNStruct rnn;
    prnn_seq_io io;
    int steps[T];
    const int varied[B] = {3, 6, 1, 5}, varied_order[B] = {1, 3, 0, 2};
    const int sorted[B] = {6, 5, 5, 2}, sorted_order[B] = {0, 1, 2, 3};
    const int full[B] = {T, T, T, T};
    prnn_ws_layout l;

    /* padded, reordered sequences, batch-major: in place */
    prnn_rnn_problem p =
        problem(&rnn, &io, varied, varied_order, steps, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED);
    CHECK(p.total_rows == 15);
    CHECK(prnn_seq_io_rnn_may_run_in_place(&rnn));
    CHECK(prnn_seq_io_may_run_in_place(&p));
    CHECK(prnn_seq_io_runs_in_place(e, &p));
    CHECK(!prnn_seq_io_runs_in_place(sru.pass[0].engine, &p));
    CHECK(!prnn_seq_io_full_length(&p) && !prnn_seq_io_order_is_identity(&io));
    CHECK(prnn_seq_io_dx_moves(&p));
    /* the input projection of every padded row, step-major */
    CHECK(prnn_ws_xproj_rows(e, &p) == (size_t)B * T);
    prnn_ws_layout_compute(std_fwd, &p, PRNN_CALL_INFERENCE, &l);
    CHECK(l.io_order != none && l.xproj != none);
    CHECK(l.io_x == none && l.io_y == none && l.io_dy == none && l.io_dx == none);
    for (int i = 0; i < PRNN_SEQ_IO_STATES; i++)
        CHECK(l.io_state[i] == none);
    prnn_ws_layout_compute(&standard.pass[PRNN_PASS_BACKWARD_DATA], &p, PRNN_CALL_BACKWARD_DATA,
                           &l);
    CHECK(l.io_dx != none && l.io_y == none && l.io_dy == none && l.io_x == none);
    prnn_ws_layout_compute(&standard.pass[PRNN_PASS_BACKWARD_DATA], &p, PRNN_CALL_BACKWARD_WEIGHTS,
                           &l);
    CHECK(l.io_x != none && l.io_y == none && l.io_dx == none);
    CHECK(l.io_state[PRNN_SEQ_IO_HX] == none);

    /* sorted but padded: no order for the kernels, dx still moves */
    p = problem(&rnn, &io, sorted, sorted_order, steps, PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED);
    CHECK(prnn_seq_io_order_is_identity(&io) && !prnn_seq_io_full_length(&p));
    CHECK(prnn_seq_io_dx_moves(&p));

    /* every sequence maxSeqLength long, in its own order: dx in place too */
    p = problem(&rnn, &io, full, sorted_order, steps, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED);
    CHECK(prnn_seq_io_full_length(&p) && !prnn_seq_io_dx_moves(&p));
    CHECK(prnn_ws_xproj_rows(e, &p) == (size_t)B * T);
    prnn_ws_layout_compute(&standard.pass[PRNN_PASS_BACKWARD_DATA], &p, PRNN_CALL_BACKWARD_DATA,
                           &l);
    CHECK(l.io_order != none && l.io_dx == none && l.io_y == none);

    /* what moves its data: a projection, SKIP_INPUT, SRU, sizes past an
     * int, a packed call */
    p = problem(&rnn, &io, varied, varied_order, steps, PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED);
    rnn.proj = 16;
    CHECK(!prnn_seq_io_rnn_may_run_in_place(&rnn) && !prnn_seq_io_may_run_in_place(&p));
    CHECK(prnn_ws_xproj_rows(e, &p) == p.total_rows);
    prnn_ws_layout_compute(std_fwd, &p, PRNN_CALL_INFERENCE, &l);
    CHECK(l.io_order != none && l.io_x != none && l.io_y != none);
    CHECK(l.io_state[PRNN_SEQ_IO_HX] != none);
    rnn.proj = 0;
    rnn.input_mode = PRNN_SKIP_INPUT;
    CHECK(!prnn_seq_io_may_run_in_place(&p));
    rnn.input_mode = PRNN_LINEAR_INPUT;
    rnn.mode = PRNN_SRU;
    CHECK(!prnn_seq_io_may_run_in_place(&p));
    rnn.mode = PRNN_LSTM;
    CHECK(prnn_seq_io_may_run_in_place(&p));
    io.max_seq = INT_MAX / 2; /* batch * maxSeqLength past an int */
    CHECK(!prnn_seq_io_may_run_in_place(&p));
    io.max_seq = T;
    rnn.hidden = INT_MAX / 8; /* a step's rows of the 4 H wide xproj past an int */
    CHECK(!prnn_seq_io_may_run_in_place(&p));
    rnn.hidden = 32;
    p.io = NULL;
    CHECK(!prnn_seq_io_may_run_in_place(&p) && prnn_ws_xproj_rows(e, &p) == p.total_rows);

    /* The rows the forward kernels compile their steps for, and the check
     * before a launch: a packed plan's kernels take packed rows alone; an
     * unpacked data plan's of one layer x and y in place together, of
     * several layer 0's x and the top layer's y apart, and packed rows for
     * the layers between. */
    const prnn_rows packed = {0, 0}, seq_major = {1, B}, batch_major = {T, 1};
    CHECK(prnn_seq_io_kernel_layouts(0, 1) == PRNN_IO_PACKED);
    CHECK(prnn_seq_io_kernel_layouts(1, 1) == PRNN_IO_XY);
    CHECK(prnn_seq_io_kernel_layouts(1, 2) == (PRNN_IO_X | PRNN_IO_Y));
    CHECK(prnn_seq_io_kernel_layouts(1, 3) == (PRNN_IO_PACKED | PRNN_IO_X | PRNN_IO_Y));
    /* Every layer count up to PRNN_SEQ_IO_DISTINCT_LAYERS has its own
     * combinations and every deeper network the last one's (prnn-cache warm
     * compiles unpacked data's plans for those counts alone). */
    for (int layers = PRNN_SEQ_IO_DISTINCT_LAYERS; layers <= 16; layers++)
        CHECK(prnn_seq_io_kernel_layouts(1, layers) ==
              prnn_seq_io_kernel_layouts(1, PRNN_SEQ_IO_DISTINCT_LAYERS));
    for (int a = 1; a <= PRNN_SEQ_IO_DISTINCT_LAYERS; a++)
        for (int b = a + 1; b <= PRNN_SEQ_IO_DISTINCT_LAYERS; b++)
            CHECK(prnn_seq_io_kernel_layouts(1, a) != prnn_seq_io_kernel_layouts(1, b));
    CHECK(PRNN_IO_BIT(0, 0) == PRNN_IO_PACKED && PRNN_IO_BIT(1, 0) == PRNN_IO_X);
    CHECK(PRNN_IO_BIT(0, 1) == PRNN_IO_Y && PRNN_IO_BIT(1, 1) == PRNN_IO_XY);
    CHECK(!prnn_seq_io_check_kernel_rows(0, 2, &packed, &packed));
    CHECK(prnn_seq_io_check_kernel_rows(0, 1, &seq_major, &packed) == PRNN_STATUS_INTERNAL_ERROR);
    CHECK(strstr(prnnGetLastErrorLog(), "x's rows the caller's") != NULL);
    CHECK(!prnn_seq_io_check_kernel_rows(1, 1, &seq_major, &batch_major));
    CHECK(prnn_seq_io_check_kernel_rows(1, 1, &packed, &packed) == PRNN_STATUS_INTERNAL_ERROR);
    CHECK(strstr(prnnGetLastErrorLog(), "compiled for x and y in place (a 1-layer") != NULL);
    CHECK(prnn_seq_io_check_kernel_rows(1, 2, &packed, &packed) == PRNN_STATUS_INTERNAL_ERROR);
    CHECK(strstr(prnnGetLastErrorLog(), "compiled for x in place, y in place (a 2-layer") != NULL);
    CHECK(!prnn_seq_io_check_kernel_rows(1, 3, &packed, &packed));
    CHECK(prnn_seq_io_check_kernel_rows(1, 1, &seq_major, &packed) == PRNN_STATUS_INTERNAL_ERROR);
    CHECK(!prnn_seq_io_check_kernel_rows(1, 2, &seq_major, &packed));
    CHECK(!prnn_seq_io_check_kernel_rows(1, 2, &packed, &batch_major));
    CHECK(prnn_seq_io_check_kernel_rows(1, 2, &seq_major, &seq_major) ==
          PRNN_STATUS_INTERNAL_ERROR);

    /* The rows the runner gives each layer of a call in place (x's and y's
     * both the caller's: seq_io.c's forward_in_place) are among its plan's
     * compiled ones, 1 to 4 layers, either layout; a packed plan's calls
     * give packed rows. */
    p.io = &io;
    prnn_call_plan c;
    memset(&c, 0, sizeof(c));
    c.p = &p;
    c.rnn = &rnn;
    const int layers_before = rnn.layers;
    for (int caller = 0; caller < 3; caller++) {
        c.x_rows = c.y_rows = caller == 0 ? packed : caller == 1 ? seq_major : batch_major;
        for (int L = 1; L <= 4; L++) {
            rnn.layers = L;
            for (int layer = 0; layer < L; layer++) {
                const prnn_rows xr = prnn_run_xproj_rows(&c, layer);
                const prnn_rows yr = prnn_run_output_rows(&c, layer);
                CHECK(!prnn_seq_io_check_kernel_rows(caller != 0, L, &xr, &yr));
            }
        }
    }
    rnn.layers = layers_before;
    printf("%d test_failures\n", test_failures);
    return test_failures ? 1 : 0;
}
