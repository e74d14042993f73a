#include "gpu/run/seq_io_plan.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "descriptors.h"
#include "error.h"
#include "rnn_cell_traits.h"

int prnn_seq_io_rnn_may_run_in_place(const struct prnnRNNStruct *rnn)
{
    return !rnn->proj && rnn->input_mode != PRNN_SKIP_INPUT && !prnn_cell_traits(rnn->mode)->scan;
}

int prnn_seq_io_may_run_in_place(const prnn_rnn_problem *p)
{
    const prnn_seq_io *io = p->io;
    if (!io || !prnn_seq_io_rnn_may_run_in_place(p->rnn))
        return 0;
    /* the caller's rows, and a step's rows of xproj and dg (at most 4 *
     * hidden wide) as the strided GEMMs' leading dimensions */
    return (long long)io->batch * io->max_seq <= INT_MAX &&
           (long long)io->batch * 4 * p->rnn->hidden <= INT_MAX;
}

int prnn_seq_io_runs_in_place(const prnn_engine *e, const prnn_rnn_problem *p)
{
    return e->unpacked_in_place && prnn_seq_io_may_run_in_place(p);
}

int prnn_seq_io_kernel_layouts(int caller_rows, int layers)
{
    if (!caller_rows)
        return PRNN_IO_PACKED;
    /* Every call of such a plan runs in place on these engines (the key's
     * caller_rows and runs_in_place ask the same of the problem). */
    if (layers == 1)
        return PRNN_IO_XY;
    return PRNN_IO_X | PRNN_IO_Y | (layers > 2 ? PRNN_IO_PACKED : 0);
}

static const char *rows_name(const prnn_rows *r)
{
    return r->seq_stride ? "the caller's" : "packed";
}

prnnStatus_t prnn_seq_io_check_kernel_rows(int caller_rows, int layers, const prnn_rows *x,
                                           const prnn_rows *y)
{
    const int compiled = prnn_seq_io_kernel_layouts(caller_rows, layers);
    const int bit = PRNN_IO_BIT(x->seq_stride != 0, y->seq_stride != 0);
    if (compiled & bit)
        return PRNN_STATUS_SUCCESS;
    static const char *const names[] = {"x and y packed", "x in place", "y in place",
                                        "x and y in place"};
    char have[96] = "";
    for (int k = 0; k < 4; k++)
        if (compiled & (1 << k))
            snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s", *have ? ", " : "",
                     names[k]);
    return prnn_fail(PRNN_STATUS_INTERNAL_ERROR,
                     "a forward kernel compiled for %s (a %d-layer network's plan) was to run "
                     "with x's rows %s and y's %s",
                     have, layers, rows_name(x), rows_name(y));
}

int prnn_seq_io_full_length(const prnn_rnn_problem *p)
{
    /* no length is above maxSeqLength, so the rows sum to batch *
     * maxSeqLength exactly then */
    return p->total_rows == (size_t)p->io->batch * (size_t)p->io->max_seq;
}

int prnn_seq_io_order_is_identity(const prnn_seq_io *io)
{
    for (int b = 0; b < io->batch; b++)
        if (io->order[b] != b)
            return 0;
    return 1;
}

int prnn_seq_io_dx_moves(const prnn_rnn_problem *p)
{
    return !prnn_seq_io_full_length(p) || !prnn_seq_io_order_is_identity(p->io);
}
