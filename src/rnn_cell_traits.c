/* The cells' traits: one table, one row per mode. */
#include "rnn_cell_traits.h"

#include <string.h>

#include "prnn_kernel_abi.h"

/* Every field named in every row, so that a new row reads like the others. */
static const prnn_cell_traits_row cells[] = {
    {.mode = PRNN_RNN_RELU,
     .name = "relu",
     .gates = 1,
     .has_cell = 0,
     .kernel_mode = PRNN_KMODE_RELU,
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
     .kernel_mode = PRNN_KMODE_TANH,
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
     .kernel_mode = PRNN_KMODE_LSTM,
     .act_cols = 5,
     .dg_cols = 4,
     .input_runs = 1,
     .input_run = {{0, 0, 4}},
     .w_matrices = 4,
     .r_matrices = 4,
     .scan = 0,
     .projection = 1,
     .clip = 1},
    /* GRU's dg has n twice: column 2 as R sees it (r * dn), column 3 as W
     * sees it (dn), hence two input-side runs */
    {.mode = PRNN_GRU,
     .name = "gru",
     .gates = 3,
     .has_cell = 0,
     .kernel_mode = PRNN_KMODE_GRU,
     .act_cols = 4,
     .dg_cols = 4,
     .input_runs = 2,
     .input_run = {{0, 0, 2}, {3, 2, 1}},
     .w_matrices = 3,
     .r_matrices = 3,
     .scan = 0,
     .projection = 0,
     .clip = 0},
    /* SRU's W holds u0..u3 (u3 only where x' is projected), V its vectors */
    {.mode = PRNN_SRU,
     .name = "sru",
     .gates = 3,
     .has_cell = 1,
     .kernel_mode = PRNN_KMODE_NONE,
     .act_cols = 0,
     .dg_cols = 0,
     .input_runs = 0,
     .input_run = {{0, 0, 0}},
     .w_matrices = 4,
     .r_matrices = 0,
     .scan = 1,
     .projection = 0,
     .clip = 0},
};
#define N_CELLS (sizeof(cells) / sizeof(cells[0]))

static const prnn_cell_traits_row no_cell = {
    .mode = (prnnRNNMode_t)-1, .name = "invalid", .kernel_mode = PRNN_KMODE_NONE};

const prnn_cell_traits_row *prnn_cell_traits(prnnRNNMode_t mode)
{
    for (size_t i = 0; i < N_CELLS; i++)
        if (cells[i].mode == mode)
            return &cells[i];
    return &no_cell;
}

const prnn_cell_traits_row *prnn_cell_traits_at(int i)
{
    return i >= 0 && (size_t)i < N_CELLS ? &cells[i] : NULL;
}

const char *prnn_mode_name(prnnRNNMode_t mode)
{
    return prnn_cell_traits(mode)->name;
}

int prnn_mode_from_name(const char *name, prnnRNNMode_t *mode)
{
    for (size_t i = 0; name && i < N_CELLS; i++)
        if (strcmp(name, cells[i].name) == 0) {
            *mode = cells[i].mode;
            return 0;
        }
    return -1;
}
