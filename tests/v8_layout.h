/* The size of a v8 data buffer, in vectors, for the tests of the v8 calls
 * (tests/api and tests/gpu): maxSeqLength * batchSize for the unpacked
 * layouts, the sum of the lengths for SEQ_MAJOR_PACKED. */
#ifndef PRNN_TEST_V8_LAYOUT_H
#define PRNN_TEST_V8_LAYOUT_H

#include <stddef.h>

#include "prnn.h"

static inline size_t v8_layout_vectors(prnnRNNDataLayout_t layout, int max_seq, int batch,
                                       const int *lengths)
{
    if (layout != PRNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED)
        return (size_t)max_seq * (size_t)batch;
    size_t n = 0;
    for (int b = 0; b < batch; b++)
        n += (size_t)lengths[b];
    return n;
}

#endif
