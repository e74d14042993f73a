#include "gpu/workspace_layout.h"

#include "dtype.h"
#include "gpu/gemm.h"

#define ALIGN 256

static size_t take(size_t *cursor, size_t bytes)
{
    size_t at = (*cursor + ALIGN - 1) / ALIGN * ALIGN;
    *cursor = at + bytes;
    return at;
}

void prnn_ws_layout_compute(const prnn_plan *plan, const prnn_rnn_problem *p,
                            prnn_ws_layout *l)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    const size_t none = (size_t)-1;
    const size_t es = prnn_dtype_size(rnn->dtype);
    const size_t acc = rnn->dtype == PRNN_DATA_DOUBLE ? 8 : 4;
    const size_t dirs = (size_t)prnn_rnn_dirs(rnn);
    const size_t gh = (size_t)prnn_mode_gates(rnn->mode) * (size_t)rnn->hidden;
    const size_t rows = p->total_rows;
    const int persistent = plan->path != PRNN_PATH_STANDARD;
    const int any_linear = rnn->input_mode == PRNN_LINEAR_INPUT || rnn->layers > 1;
    size_t c = 0;
    l->batch = take(&c, (size_t)p->seq_length * sizeof(int));
    l->offset = take(&c, (size_t)p->seq_length * sizeof(int));
    if (persistent) {
        l->exchange = take(&c, dirs * plan->geom.exchange_bytes_per_dir);
        l->counters = c; /* one per direction and batch group */
        c += dirs * (size_t)plan->geom.tile.batch_groups * sizeof(unsigned);
        l->zero_end = c;
        l->packed = plan->geom.kglb ? take(&c, dirs * plan->geom.packed_bytes_per_dir) : none;
        l->hstate = l->cstate = l->rec = none;
    } else {
        l->exchange = l->counters = l->zero_end = l->packed = none;
        l->hstate = take(&c, (size_t)p->mini_batch * rnn->hidden * es);
        l->cstate = take(&c, (size_t)p->mini_batch * rnn->hidden * acc);
        l->rec = take(&c, (size_t)p->mini_batch * gh * acc);
    }
    l->xproj = any_linear ? take(&c, dirs * rows * gh * acc) : none;
    l->layer_out = rnn->layers > 1 ? take(&c, rows * dirs * rnn->hidden * es) : none;
    l->gemm_ws = any_linear || !persistent ? take(&c, PRNN_GEMM_WORKSPACE) : none;
    l->total = (c + ALIGN - 1) / ALIGN * ALIGN;
}
