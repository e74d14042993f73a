/*
 * Dropout between layers, with the mask src/ref/philox.h defines. The
 * reference calls prnn_dropout_keep per element rather than reusing each
 * Philox block for four elements: slower, but it is the definition itself,
 * so the reference cannot drift from it.
 */
#include "ref/philox.h"
#include "ref/ref_internal.h"

void prnn_ref_dropout(const prnn_ref_dims *g, size_t layer, const double *src, double *dst)
{
    size_t n = g->rows * g->dh;
    for (size_t e = 0; e < n; e++)
        dst[e] = prnn_dropout_keep(g->seed, (int)layer, (uint64_t)e, g->drop_threshold)
                     ? src[e] * g->drop_scale
                     : 0.0;
}
