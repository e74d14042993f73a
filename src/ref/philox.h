/*
 * Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC'11) and the dropout mask defined on it. The GPU kernels implement
 * the same function, so the same seed gives the same mask everywhere.
 *
 * Dropout mask of layer l's output (l < numLayers - 1), element e of the
 * packed output [total_rows][dirs * hidden] in row-major order:
 *   counter = {(e / 4) low 32 bits, (e / 4) high 32 bits, l, 0}
 *   key     = {seed low 32 bits, seed high 32 bits}
 *   u       = philox(counter, key)[e % 4] >> 8          (24 random bits)
 *   keep    = u >= threshold, threshold = (uint32_t)(p * 2^24) rounded down
 *   kept values are multiplied by 1 / (1 - p).
 */
#ifndef PRNN_PHILOX_H
#define PRNN_PHILOX_H

#include <stdint.h>

void prnn_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

/* 24-bit threshold for dropout probability p (0 <= p < 1). */
uint32_t prnn_dropout_threshold(double p);

/* 1 when element e of layer l's output is kept, 0 when dropped. */
int prnn_dropout_keep(unsigned long long seed, int layer, uint64_t e, uint32_t threshold);

#endif
