#include "gpu/engines/tiny/tiny_layout.h"

#include "rnn_cell_traits.h"

/* 80 with several gates, 64 with one, two per input a lane covers (a row
 * of R forwards, a column backwards: H with several gates, H / 4 with
 * one), 30 per further batch row, all but the first term twice for
 * double; at most 255 (a thread's most). ptxas (CUDA 13) on its own gave
 * 56-248 over every mode and data type, H 4-64 and 1/2/4 rows, both
 * kernels, training's forward included (sm_90; a review's sweep over
 * sm_75/80/86 besides); the tightest against this bound are the
 * backward's at one row: LSTM fp32 H 12 (104 of 104), H 16 (108 of
 * 112), H 32 (139 of 144), one gate at H 4-15 (72 of 72); bench/NOTES.md
 * v0.30. */
int prnn_tiny_register_bound(const prnn_rnn_key *key, int rows)
{
    const int G = prnn_cell_traits(key->mode)->gates;
    const int inputs = G == 1 ? 4 * ((key->hidden + 15) / 16) : key->hidden; /* rnn_tiny.cuh */
    const int words = key->dtype == PRNN_DATA_DOUBLE ? 2 : 1;
    const int bound = (G == 1 ? 64 : 80) + (2 * inputs + 30 * (rows - 1)) * words;
    return bound < 255 ? bound : 255;
}

/* A warp's registers come 256 at a time from one of the multiprocessor's
 * four quarters of the register file, the warps dealt round the quarters:
 * ptxas, given __launch_bounds__(threads, n), allows what the fullest
 * quarter leaves (40 threads 9 times over, 5 warps a quarter, get 96
 * registers, not 112). */
int prnn_tiny_blocks_per_sm(const prnn_device_info *dev, int threads, int regs)
{
    const int per_warp = (regs * 32 + 255) / 256 * 256;
    const int warps = (threads + 31) / 32;
    const int quarter = (dev->regs_per_sm > 0 ? dev->regs_per_sm : 65536) / 4;
    const int max_threads = dev->max_threads_per_sm > 0 ? dev->max_threads_per_sm : 2048;
    const int max_blocks = dev->max_blocks_per_sm > 0 ? dev->max_blocks_per_sm : 32;
    int n = 1;
    /* whole warps against the thread limit, as ptxas counts them */
    while (n < PRNN_TINY_MAX_BLOCKS_PER_SM && n < max_blocks &&
           (n + 1) * warps * 32 <= max_threads && ((n + 1) * warps + 3) / 4 * per_warp <= quarter)
        n++;
    return n;
}

int prnn_tiny_max_rows(prnnDataType_t dtype)
{
    return dtype == PRNN_DATA_DOUBLE ? 2 : PRNN_TINY_MAX_ROWS;
}

/* Fewer rows first: a further row costs a block about a row's whole step,
 * where a second block on a multiprocessor costs each 13-51 % (bench/NOTES.md
 * v0.30: one row two blocks a multiprocessor against two rows one block,
 * 0.72-0.86x a step at H 32/64, B 256). */
prnn_tiny_layout prnn_tiny_layout_for(const prnn_rnn_key *key, const prnn_device_info *dev,
                                      int rows_override)
{
    const int most = prnn_tiny_max_rows(key->dtype);
    const int threads = 4 * key->hidden;
    const int sms = dev->sm_count > 0 ? dev->sm_count : 1;
    int first = 1, last = most;
    if (rows_override >= 1 && rows_override <= most)
        first = last = rows_override;
    prnn_tiny_layout l = {last, 1};
    for (int rows = first; rows <= last; rows++) {
        const int blocks = prnn_tiny_groups(key->mini_batch, rows) * key->dirs; /* the launch's */
        const int fit = prnn_tiny_blocks_per_sm(dev, threads, prnn_tiny_register_bound(key, rows));
        const int needed = (blocks + sms - 1) / sms;
        l.rows = rows;
        l.per_sm = needed < 1 ? 1 : needed < fit ? needed : fit;
        if (needed <= fit)
            break;
    }
    return l;
}
