/*
 * The tiny-h engine's batch layout (tiny_layout.h) on a described H100,
 * without a GPU: the points measured when the rule was made (bench/NOTES.md
 * v0.30), and over every mode, data type, hidden size 1-64, batch and
 * direction count the rule's promises: blocks it says run at once fit the
 * multiprocessors at the blocks a multiprocessor it compiles for, that
 * many fit the register bound, and no fewer rows would have done.
 */
#include <stdio.h>

#include "gpu/engines/tiny/tiny_layout.h"
#include "plan_check.h"
#include "plan_test.h"

static prnn_rnn_key key_of(prnnRNNMode_t mode, prnnDataType_t dtype, int hidden, int batch,
                           int dirs)
{
    prnn_kernel_shape s = plan_test_shape(mode, dtype, hidden, batch, dirs, 0, PRNN_PASS_FORWARD);
    return s.key;
}

/* A key's layout on a described H100, pinned. */
typedef struct {
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden, batch;
    int rows, per_sm;
} pinned_layout;

static const pinned_layout pinned[] = {
    /* up to a block per multiprocessor: one row, one block each */
    {PRNN_LSTM, PRNN_DATA_FLOAT, 64, 1, 1, 1},
    {PRNN_RNN_TANH, PRNN_DATA_HALF, 64, 132, 1, 1},
    /* the measured points: one gate at H 64 and every mode at H 32 share
     * multiprocessors at B 256; LSTM/GRU at H 64 (165-240 registers) take
     * two rows, one block each, as before */
    {PRNN_RNN_TANH, PRNN_DATA_FLOAT, 64, 256, 1, 2},
    {PRNN_RNN_RELU, PRNN_DATA_HALF, 64, 256, 1, 2},
    {PRNN_RNN_TANH, PRNN_DATA_FLOAT, 64, 512, 2, 2},
    {PRNN_RNN_TANH, PRNN_DATA_FLOAT, 32, 512, 1, 4},
    {PRNN_LSTM, PRNN_DATA_FLOAT, 32, 256, 1, 2},
    {PRNN_LSTM, PRNN_DATA_FLOAT, 32, 512, 2, 2},
    {PRNN_LSTM, PRNN_DATA_FLOAT, 64, 256, 2, 1},
    {PRNN_GRU, PRNN_DATA_HALF, 64, 512, 4, 1},
    /* more than the device holds even at the most rows: waves */
    {PRNN_LSTM, PRNN_DATA_FLOAT, 64, 4096, 8, 1},
    {PRNN_LSTM, PRNN_DATA_DOUBLE, 64, 1024, 2, 1},
};

static int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

/* The rule's promises for one key. */
static void check_promises(const prnn_device_info *dev, const prnn_rnn_key *k, int override)
{
    const int most = prnn_tiny_max_rows(k->dtype);
    const int threads = 4 * k->hidden, sms = dev->sm_count;
    const prnn_tiny_layout l = prnn_tiny_layout_for(k, dev, override);
    const int fit = prnn_tiny_blocks_per_sm(dev, threads, prnn_tiny_register_bound(k, l.rows));
    const int blocks = prnn_tiny_groups(k->mini_batch, l.rows) * k->dirs;
    int ok = l.rows >= 1 && l.rows <= most && l.per_sm >= 1 && l.per_sm <= fit &&
             l.per_sm <= PRNN_TINY_MAX_BLOCKS_PER_SM && l.per_sm <= dev->max_blocks_per_sm &&
             l.per_sm * ceil_div(threads, 32) * 32 <= dev->max_threads_per_sm;
    if (override >= 1 && override <= most)
        ok = ok && l.rows == override;
    /* all at once, at no more blocks a multiprocessor than that takes */
    const int at_once = blocks <= sms * l.per_sm && l.per_sm == ceil_div(blocks, sms);
    if (!at_once)
        ok = ok && l.per_sm == fit && (l.rows == most || override == l.rows);
    /* the fewest rows that run at once: no fewer rows would */
    if (at_once && override == 0)
        for (int r = 1; r < l.rows; r++) {
            const int fewer_fit =
                prnn_tiny_blocks_per_sm(dev, threads, prnn_tiny_register_bound(k, r));
            ok = ok && prnn_tiny_groups(k->mini_batch, r) * k->dirs > sms * fewer_fit;
        }
    /* an override outside 1..the most is ignored */
    if (override < 1 || override > most) {
        const prnn_tiny_layout chosen = prnn_tiny_layout_for(k, dev, 0);
        ok = ok && l.rows == chosen.rows && l.per_sm == chosen.per_sm;
    }
    EXPECT(ok, "mode %d dtype %d H %d B %d dirs %d override %d: rows %d per_sm %d (fit %d)",
           (int)k->mode, (int)k->dtype, k->hidden, k->mini_batch, k->dirs, override, l.rows,
           l.per_sm, fit);
}

int main(void)
{
    const prnn_device_info h100 = plan_test_device(90, 132, 232448);

    for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
        const pinned_layout *p = &pinned[i];
        const prnn_rnn_key k = key_of(p->mode, p->dtype, p->hidden, p->batch, 1);
        const prnn_tiny_layout l = prnn_tiny_layout_for(&k, &h100, 0);
        EXPECT(l.rows == p->rows && l.per_sm == p->per_sm,
               "mode %d dtype %d H %d B %d: rows %d per_sm %d, expected rows %d per_sm %d",
               (int)p->mode, (int)p->dtype, p->hidden, p->batch, l.rows, l.per_sm, p->rows,
               p->per_sm);
    }

    /* The register file in quarters: blocks of 40 threads (2 warps) at 96
     * registers a thread run 10 at once (5 warps a quarter; ptxas allows
     * 96 for 9 or 10), at 97 (104 allocated) 8. */
    CHECK(prnn_tiny_blocks_per_sm(&h100, 40, 96) == 10);
    CHECK(prnn_tiny_blocks_per_sm(&h100, 40, 97) == 8);
    CHECK(prnn_tiny_blocks_per_sm(&h100, 256, 128) == 2);
    CHECK(prnn_tiny_blocks_per_sm(&h100, 256, 129) == 1);
    CHECK(prnn_tiny_blocks_per_sm(&h100, 256, 255) == 1);
    CHECK(prnn_tiny_blocks_per_sm(&h100, 4, 24) == PRNN_TINY_MAX_BLOCKS_PER_SM);

    const prnnRNNMode_t modes[] = {PRNN_RNN_RELU, PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
    const prnnDataType_t dtypes[] = {PRNN_DATA_FLOAT, PRNN_DATA_DOUBLE, PRNN_DATA_HALF,
                                     PRNN_DATA_BFLOAT16};
    /* an H100, an H100 PCIe's SM count, small parts, and an sm_75 (1024
     * threads and 16 blocks a multiprocessor) */
    const int devices_sms[] = {132, 114, 8, 1, 40};
    int keys = 0;
    for (int d = 0; d < 5; d++) {
        prnn_device_info dev = plan_test_device(d == 4 ? 75 : 90, devices_sms[d], 232448);
        if (d == 4) {
            dev.max_threads_per_sm = 1024;
            dev.max_blocks_per_sm = 16;
        }
        for (int m = 0; m < 4; m++)
            for (int t = 0; t < 4; t++)
                for (int h = 1; h <= 64; h++)
                    for (int b = 1; b <= 4200; b += b < 600 ? 1 : 97)
                        for (int dirs = 1; dirs <= 2; dirs++) {
                            const prnn_rnn_key k = key_of(modes[m], dtypes[t], h, b, dirs);
                            check_promises(&dev, &k, 0);
                            if (b % 61 == 0)
                                for (int o = 1; o <= 9; o++)
                                    check_promises(&dev, &k, o);
                            keys++;
                        }
    }
    printf("tiny-layout: %d keys, %d failure(s)\n", keys, test_failures);
    return test_failures ? 1 : 0;
}
