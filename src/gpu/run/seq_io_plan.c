#include "gpu/run/seq_io_plan.h"

#include <limits.h>

#include "descriptors.h"
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
