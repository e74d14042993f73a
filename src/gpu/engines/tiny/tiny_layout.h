/*
 * How the tiny-h engine spreads a call's batch over the device: batch rows
 * per block, and blocks per multiprocessor. The kernels are compiled for
 * that many blocks a multiprocessor (__launch_bounds__(4 H, per_sm): ptxas
 * then keeps a thread's registers to what that many blocks leave it), so
 * blocks the layout says run at once do.
 */
#ifndef PRNN_TINY_LAYOUT_H
#define PRNN_TINY_LAYOUT_H

#include "cuda/device_info.h"
#include "rnn_key.h"

/* Rows per block at most (2 for double): each row adds a sum, a cell state
 * and the gathered gates to a thread's registers. */
#define PRNN_TINY_MAX_ROWS 8
/* Blocks a multiprocessor at most (the kernels' static_assert): H 16's
 * blocks of 64 threads could run 32 at once; 16 keeps registers for their
 * weights. */
#define PRNN_TINY_MAX_BLOCKS_PER_SM 16

/* Rows per block at most for dtype: PRNN_TINY_MAX_ROWS, 2 for double. */
int prnn_tiny_max_rows(prnnDataType_t dtype);

/* Blocks a direction of a batch of `batch` rows launches at `rows` rows a
 * block: the one count the layout, the estimate and the launches share. */
static inline int prnn_tiny_groups(int batch, int rows)
{
    return (batch + rows - 1) / rows;
}

typedef struct {
    int rows;   /* batch rows a block, 1..prnn_tiny_max_rows */
    int per_sm; /* blocks a multiprocessor, 1..PRNN_TINY_MAX_BLOCKS_PER_SM */
} prnn_tiny_layout;

/* An upper bound on the registers a thread of either kernel (rnn_tiny.cu,
 * rnn_tiny_backward.cu) takes on its own, at `rows` rows a block. */
int prnn_tiny_register_bound(const prnn_rnn_key *key, int rows);

/* The most blocks of `threads` threads, each thread keeping `regs`
 * registers, a multiprocessor of dev runs at once (at least 1, at most
 * PRNN_TINY_MAX_BLOCKS_PER_SM). */
int prnn_tiny_blocks_per_sm(const prnn_device_info *dev, int threads, int regs);

/* key's layout on dev: the fewest rows a block whose blocks (ceil(batch /
 * rows) per direction) all run at once, at as many blocks a multiprocessor
 * as that takes and the register bound allows; where no row count does,
 * the most rows and as many blocks a multiprocessor as fit, in waves.
 * rows_override 1..the most fixes the rows (0 or another value: chosen). */
prnn_tiny_layout prnn_tiny_layout_for(const prnn_rnn_key *key, const prnn_device_info *dev,
                                      int rows_override);

#endif
