/*
 * The cells' traits table (src/rnn_cell_traits.c), pinned: every field of
 * every row against the values the code had before the table held them, so
 * that a wrong entry fails here and not on a GPU; and the kernels' own
 * copies (prnn_kernel_abi.h's PRNN_KMODE_*, PRNN_KMODE_GATES, PRNN_ACT_COLS,
 * PRNN_DG_COLS, which NVRTC compiles without the library's headers) equal to
 * the rows. A new cell adds its row to `expected` below.
 */
#include <string.h>

#include "descriptors.h"
#include "plan_check.h"
#include "prnn_kernel_abi.h"
#include "ref/ref_internal.h"
#include "rnn_cell_traits.h"
#include "weights_layout.h"

static const prnn_cell_traits_row expected[] = {
    {.mode = PRNN_RNN_RELU,
     .name = "relu",
     .gates = 1,
     .has_cell = 0,
     .kernel_mode = 0,
     .act_cols = 0,
     .dg_cols = 1,
     .input_runs = 1,
     .input_run = {{0, 0, 1}},
     .w_matrices = 1,
     .r_matrices = 1,
     .scan = 0,
     .projection = 0,
     .clip = 0},
    {.mode = PRNN_RNN_TANH,
     .name = "tanh",
     .gates = 1,
     .has_cell = 0,
     .kernel_mode = 1,
     .act_cols = 0,
     .dg_cols = 1,
     .input_runs = 1,
     .input_run = {{0, 0, 1}},
     .w_matrices = 1,
     .r_matrices = 1,
     .scan = 0,
     .projection = 0,
     .clip = 0},
    {.mode = PRNN_LSTM,
     .name = "lstm",
     .gates = 4,
     .has_cell = 1,
     .kernel_mode = 2,
     .act_cols = 5,
     .dg_cols = 4,
     .input_runs = 1,
     .input_run = {{0, 0, 4}},
     .w_matrices = 4,
     .r_matrices = 4,
     .scan = 0,
     .projection = 1,
     .clip = 1},
    {.mode = PRNN_GRU,
     .name = "gru",
     .gates = 3,
     .has_cell = 0,
     .kernel_mode = 3,
     .act_cols = 4,
     .dg_cols = 4,
     .input_runs = 2,
     .input_run = {{0, 0, 2}, {3, 2, 1}},
     .w_matrices = 3,
     .r_matrices = 3,
     .scan = 0,
     .projection = 0,
     .clip = 0},
    {.mode = PRNN_SRU,
     .name = "sru",
     .gates = 3,
     .has_cell = 1,
     .kernel_mode = -1,
     .act_cols = 0,
     .dg_cols = 0,
     .input_runs = 0,
     .w_matrices = 4,
     .r_matrices = 0,
     .scan = 1,
     .projection = 0,
     .clip = 0},
};
#define N_EXPECTED ((int)(sizeof(expected) / sizeof(expected[0])))

static int same_row(const prnn_cell_traits_row *a, const prnn_cell_traits_row *b)
{
    int same = a->mode == b->mode && strcmp(a->name, b->name) == 0 && a->gates == b->gates &&
               a->has_cell == b->has_cell && a->kernel_mode == b->kernel_mode &&
               a->act_cols == b->act_cols && a->dg_cols == b->dg_cols &&
               a->input_runs == b->input_runs && a->w_matrices == b->w_matrices &&
               a->r_matrices == b->r_matrices && a->scan == b->scan &&
               a->projection == b->projection && a->clip == b->clip;
    for (int i = 0; same && i < a->input_runs; i++)
        same = a->input_run[i].dg_col == b->input_run[i].dg_col &&
               a->input_run[i].w_row == b->input_run[i].w_row &&
               a->input_run[i].count == b->input_run[i].count;
    return same;
}

/* The table's rows: exactly the expected ones, in the enum's order, each
 * found by its mode and by its name. */
static void check_rows(void)
{
    int n = 0;
    for (const prnn_cell_traits_row *row; (row = prnn_cell_traits_at(n)) != NULL; n++) {
        EXPECT(n < N_EXPECTED, "row %d (%s) has no expected row", n, row->name);
        if (n >= N_EXPECTED)
            continue;
        EXPECT(same_row(row, &expected[n]), "row %d (%s) differs from the pinned %s", n, row->name,
               expected[n].name);
        CHECK(prnn_cell_traits(row->mode) == row);
        CHECK(strcmp(prnn_mode_name(row->mode), row->name) == 0);
        prnnRNNMode_t mode = (prnnRNNMode_t)-1;
        CHECK(prnn_mode_from_name(row->name, &mode) == 0 && mode == row->mode);
    }
    EXPECT(n == N_EXPECTED, "%d rows, %d expected", n, N_EXPECTED);
}

/* Outside the enum: the row of no mode, which the validations rely on
 * (gates 0 is "not a prnnRNNMode_t"). */
static void check_no_mode(void)
{
    const prnn_cell_traits_row none = {
        .mode = (prnnRNNMode_t)-1, .name = "invalid", .kernel_mode = PRNN_KMODE_NONE};
    const prnnRNNMode_t outside[] = {(prnnRNNMode_t)-1, (prnnRNNMode_t)5, (prnnRNNMode_t)1000};
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
        EXPECT(same_row(prnn_cell_traits(outside[i]), &none), "mode %d", (int)outside[i]);
    prnnRNNMode_t mode = PRNN_GRU;
    CHECK(prnn_mode_from_name("LSTM", &mode) == -1 && mode == PRNN_GRU);
    CHECK(prnn_mode_from_name("invalid", &mode) == -1);
    CHECK(prnn_mode_from_name(NULL, &mode) == -1);
}

/* The kernels' copies: the same mode numbers (prnnRNNMode_t's), gates and
 * reserve columns; and the input-side runs cover the gates once, inside a
 * dg row. */
static void check_kernel_abi(void)
{
    CHECK(prnn_cell_traits(PRNN_RNN_RELU)->kernel_mode == PRNN_KMODE_RELU);
    CHECK(prnn_cell_traits(PRNN_RNN_TANH)->kernel_mode == PRNN_KMODE_TANH);
    CHECK(prnn_cell_traits(PRNN_LSTM)->kernel_mode == PRNN_KMODE_LSTM);
    CHECK(prnn_cell_traits(PRNN_GRU)->kernel_mode == PRNN_KMODE_GRU);
    for (int i = 0; prnn_cell_traits_at(i); i++) {
        const prnn_cell_traits_row *c = prnn_cell_traits_at(i);
        if (c->kernel_mode == PRNN_KMODE_NONE) {
            CHECK(c->scan);
            continue;
        }
        const int k = c->kernel_mode;
        CHECK(!c->scan);
        EXPECT(k == (int)c->mode, "%s: kernel mode %d", c->name, k);
        EXPECT(PRNN_KMODE_GATES(k) == c->gates, "%s: PRNN_KMODE_GATES %d, row %d", c->name,
               PRNN_KMODE_GATES(k), c->gates);
        EXPECT(PRNN_ACT_COLS(k) == c->act_cols, "%s: PRNN_ACT_COLS %d, row %d", c->name,
               PRNN_ACT_COLS(k), c->act_cols);
        EXPECT(PRNN_DG_COLS(k) == c->dg_cols, "%s: PRNN_DG_COLS %d, row %d", c->name,
               PRNN_DG_COLS(k), c->dg_cols);
        CHECK(c->input_runs >= 1 && c->input_runs <= PRNN_MAX_INPUT_RUNS);
        int w_rows = 0;
        for (int r = 0; r < c->input_runs; r++) {
            const prnn_gate_run *run = &c->input_run[r];
            EXPECT(run->w_row == w_rows && run->dg_col + run->count <= c->dg_cols,
                   "%s: input run %d", c->name, r);
            w_rows += run->count;
        }
        EXPECT(w_rows == c->gates, "%s: input runs cover %d W rows of %d", c->name, w_rows,
               c->gates);
    }
}

/* The CPU reference's math: one row of ref_cells for every mode that
 * multiplies a recurrent matrix, none for SRU's scan (its own functions);
 * the state its backward reads of the step before as the kernel Cell<>
 * reads it (c_{t-1} with a cell state, h_{t-1} for GRU's z h_{t-1}). */
static void check_ref_cells(void)
{
    for (int i = 0; prnn_cell_traits_at(i); i++) {
        const prnn_cell_traits_row *c = prnn_cell_traits_at(i);
        const prnn_ref_cell *r = prnn_ref_cell_of(c->mode);
        if (c->scan) {
            EXPECT(r == NULL, "%s: a scan has no ref_cells row", c->name);
            continue;
        }
        EXPECT(r && r->mode == c->mode && r->forward_row && r->backward_row, "%s: no ref_cells row",
               c->name);
        if (!r)
            continue;
        EXPECT((r->cprev_col >= 0) == c->has_cell,
               "%s: reads c_{t-1} from act column %d, has a "
               "cell state %d",
               c->name, r->cprev_col, c->has_cell);
        EXPECT(r->cprev_col < c->act_cols, "%s: c_{t-1}'s act column %d of %d", c->name,
               r->cprev_col, c->act_cols);
        EXPECT(r->reads_hprev == (c->mode == PRNN_GRU), "%s: reads h_{t-1} %d", c->name,
               r->reads_hprev);
    }
    CHECK(prnn_ref_cell_of((prnnRNNMode_t)-1) == NULL);
}

/* The LinLayer ids the calls accept, as they were before the table: SRU 4,
 * else 2 * gates and one more with a projection. */
static void check_lin_layer_ids(void)
{
    for (int i = 0; i < N_EXPECTED; i++)
        for (int proj = 0; proj < 2; proj++) {
            struct prnnRNNStruct rnn;
            memset(&rnn, 0, sizeof(rnn));
            rnn.mode = expected[i].mode;
            rnn.proj = proj && expected[i].projection ? 8 : 0;
            int was = expected[i].mode == PRNN_SRU ? 4 : 2 * expected[i].gates + (rnn.proj ? 1 : 0);
            EXPECT(prnn_weights_lin_layer_ids(&rnn) == was, "%s proj %d: %d ids, was %d",
                   expected[i].name, rnn.proj, prnn_weights_lin_layer_ids(&rnn), was);
        }
}

int main(void)
{
    check_rows();
    check_no_mode();
    check_kernel_abi();
    check_ref_cells();
    check_lin_layer_ids();
    if (test_failures)
        fprintf(stderr, "plan-cell-traits: %d check(s) failed\n", test_failures);
    else
        printf("plan-cell-traits: %d rows pinned, the kernel ABI's macros and the reference's "
               "cells agree: all checks passed\n",
               N_EXPECTED);
    return test_failures ? 1 : 0;
}
