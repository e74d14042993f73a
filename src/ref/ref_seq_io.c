/*
 * The reference's one door to the caller's sequences and states: the v5
 * calls' packed time-major buffers, and the unpacked layouts of the v8 calls
 * (rnn_problem.h's prnn_seq_io), read and written where they lie. Inside,
 * every layer works on packed rows (sequences sorted by decreasing length),
 * so only these four functions know the caller's layout.
 */
#include <string.h>

#include "dtype.h"
#include "ref/ref_internal.h"

void prnn_ref_load_seq(const prnn_ref_dims *g, const void *src, size_t cols, double *dst)
{
    const prnn_seq_io *io = g->io;
    if (!io) {
        prnn_ref_load(src, g->dtype, 0, g->rows * cols, dst);
        return;
    }
    size_t r = 0;
    for (size_t t = 0; t < g->steps; t++)
        for (int b = 0; b < g->batch[t]; b++, r++)
            prnn_ref_load(src, g->dtype, prnn_seq_io_vector(io, (int)t, io->order[b]) * cols, cols,
                          dst + r * cols);
}

void prnn_ref_store_seq(const prnn_ref_dims *g, void *dst, size_t cols, const double *src,
                        const void *fill)
{
    const prnn_seq_io *io = g->io;
    if (!io) {
        prnn_ref_store(dst, g->dtype, 0, g->rows * cols, src);
        return;
    }
    size_t r = 0;
    for (size_t t = 0; t < g->steps; t++)
        for (int b = 0; b < g->batch[t]; b++, r++)
            prnn_ref_store(dst, g->dtype, prnn_seq_io_vector(io, (int)t, io->order[b]) * cols, cols,
                           src + r * cols);
    if (!fill)
        return;
    size_t es = prnn_dtype_size(g->dtype);
    for (int s = 0; s < io->batch; s++)
        for (int t = io->lengths[s]; t < io->max_seq; t++) {
            char *v = (char *)dst + prnn_seq_io_vector(io, t, s) * cols * es;
            for (size_t c = 0; c < cols; c++)
                memcpy(v + c * es, fill, es);
        }
}

void prnn_ref_load_state(const prnn_ref_dims *g, const void *src, size_t pl, size_t width,
                         double *dst)
{
    size_t rows = g->batch0, base = pl * rows * width;
    if (!src || !g->io) {
        prnn_ref_load_or_zero(src, g->dtype, base, rows * width, dst);
        return;
    }
    for (size_t b = 0; b < rows; b++)
        prnn_ref_load(src, g->dtype, base + (size_t)g->io->order[b] * width, width,
                      dst + b * width);
}

void prnn_ref_store_state(const prnn_ref_dims *g, void *dst, size_t pl, size_t width,
                          const double *src)
{
    size_t rows = g->batch0, base = pl * rows * width;
    if (!g->io) {
        prnn_ref_store(dst, g->dtype, base, rows * width, src);
        return;
    }
    for (size_t b = 0; b < rows; b++)
        prnn_ref_store(dst, g->dtype, base + (size_t)g->io->order[b] * width, width,
                       src + b * width);
}
