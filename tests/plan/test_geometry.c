/*
 * The host's kernel geometry on its own (no compile): how a tile is
 * normalised for a shape (batch chunk and batch groups: whole chunks per
 * group, no empty group, stable when normalised again), the sizes the
 * workspace is carved from, and the rules a tile must meet, with the
 * messages that name them. test_plan_compile checks the same arithmetic
 * against the kernel's static_asserts; this one pins the values.
 */
#include <stdio.h>
#include <string.h>

#include "gpu/engines/persistent/kernel_geometry.h"
#include "plan_check.h"
#include "plan_test.h"

/* An H100's limits: 132 SMs, 227 KB of shared memory per block. */
static prnn_device_info h100(void)
{
    return plan_test_device(90, 132, 232448);
}

static prnn_tile_config tile(int blocks, int chunk, int groups, int mma)
{
    prnn_tile_config t;
    memset(&t, 0, sizeof(t));
    t.blocks = blocks;
    t.threads = 256;
    t.ksplit = 8;
    t.lanes_k = 1;
    t.batch_chunk = chunk;
    t.reg_slots = 32;
    t.smem_slots = 65536; /* the rest of R, as far as it goes */
    t.mma = mma;
    t.batch_groups = groups;
    return t;
}

/* Normalises (B, requested groups, chunk) and checks groups, chunk, chunks
 * per group and the group stride; then that the result is a fixed point. */
static void check_groups(int batch, int groups, int chunk, int want_groups, int want_chunk,
                         int want_chunks, int want_stride)
{
    prnn_device_info dev = h100();
    prnn_kernel_shape shape =
        plan_test_shape(PRNN_RNN_TANH, PRNN_DATA_FLOAT, 256, batch, 1, 0, PRNN_PASS_FORWARD);
    prnn_tile_config t = tile(2, chunk, groups, 0);
    prnn_kernel_geometry g, again;
    char why[256];
    if (prnn_kernel_geometry_compute(&shape, &t, &dev, &g, why, sizeof(why))) {
        fprintf(stderr, "B=%d groups=%d chunk=%d: %s\n", batch, groups, chunk, why);
        test_failures++;
        return;
    }
    if (g.tile.batch_groups != want_groups || g.tile.batch_chunk != want_chunk ||
        g.chunks != want_chunks || g.group_stride != want_stride) {
        fprintf(stderr, "B=%d groups=%d chunk=%d -> groups %d chunk %d chunks %d stride %d\n",
                batch, groups, chunk, g.tile.batch_groups, g.tile.batch_chunk, g.chunks,
                g.group_stride);
        test_failures++;
    }
    /* every row in exactly one group, no empty group */
    CHECK(g.group_stride * g.tile.batch_groups >= batch);
    CHECK(g.group_stride * (g.tile.batch_groups - 1) < batch);
    CHECK(prnn_kernel_geometry_compute(&shape, &g.tile, &dev, &again, why, sizeof(why)) == 0);
    CHECK(memcmp(&again.tile, &g.tile, sizeof(g.tile)) == 0);
}

static void check_rejects(prnn_kernel_shape shape, prnn_tile_config t, const char *message)
{
    prnn_device_info dev = h100();
    prnn_kernel_geometry g;
    char why[256] = "";
    CHECK(prnn_kernel_geometry_compute(&shape, &t, &dev, &g, why, sizeof(why)) == -1);
    if (!strstr(why, message)) {
        fprintf(stderr, "expected \"%s\", got \"%s\"\n", message, why);
        test_failures++;
    }
}

int main(void)
{
    /* B, requested groups, chunk -> groups, chunk, chunks per group, stride */
    check_groups(32, 1, 16, 1, 16, 2, 32);
    check_groups(64, 16, 8, 16, 4, 1, 4); /* chunk shrinks to the group's rows */
    check_groups(64, 64, 1, 64, 1, 1, 1);
    check_groups(7, 3, 2, 2, 2, 2, 4); /* 3 rows per group in chunks of 2: 2 groups of 4 */
    check_groups(10, 3, 3, 2, 3, 2, 6);
    check_groups(7, 2, 4, 2, 4, 1, 4); /* 4 + 3 rows */
    check_groups(1, 4, 8, 1, 1, 1, 1); /* more groups than rows */
    check_groups(5, 5, 1, 5, 1, 1, 1);

    /* Sizes: the FMA hand-off area holds both parities of every group's
     * rows (8-byte words), the streamed weights one copy per block and
     * group, shared memory fits. */
    prnn_device_info dev = h100();
    char why[256];
    prnn_kernel_geometry g;
    prnn_kernel_shape fma_shape =
        plan_test_shape(PRNN_LSTM, PRNN_DATA_FLOAT, 1024, 7, 1, 0, PRNN_PASS_FORWARD);
    prnn_tile_config t = tile(32, 2, 2, 0);
    t.reg_slots = 16; /* most of R streamed */
    t.smem_slots = 0;
    CHECK(prnn_kernel_geometry_compute(&fma_shape, &t, &dev, &g, why, sizeof(why)) == 0);
    CHECK(g.tile.batch_groups == 2 && g.group_stride == 4);
    CHECK(g.exchange_bytes_per_dir == 2ull * 1024 * 2 * 4 * 8);
    CHECK(g.kglb > 0);
    CHECK(g.packed_bytes_per_dir == (size_t)32 * 2 * g.kglb * g.wpk * 256 * 4);
    CHECK(g.smem_bytes <= (size_t)dev.smem_per_block_optin);

    /* The mma hand-off area is batch-row major (pairs of units), unchanged
     * by groups. */
    prnn_kernel_shape mma_shape =
        plan_test_shape(PRNN_GRU, PRNN_DATA_HALF, 100, 9, 1, 0, PRNN_PASS_FORWARD);
    CHECK(prnn_kernel_geometry_compute(&mma_shape, &(prnn_tile_config){0}, NULL, &g, why,
                                       sizeof(why)) == -1); /* threads = 0 */
    t = tile(4, 4, 3, 1);
    CHECK(prnn_kernel_geometry_compute(&mma_shape, &t, &dev, &g, why, sizeof(why)) == 0);
    CHECK(g.tile.batch_groups == 3 && g.group_stride == 3 && g.tile.batch_chunk == 3);
    CHECK(g.exchange_bytes_per_dir == 2ull * 9 * 50 * 8);

    /* Backward-data: rows are the block's units (R^T), the vector every
     * gate's gradient, padded per gate to pairs for the mma engine (GRU,
     * H = 101: 3 gates x 102), so the hand-off carries G times the words. */
    prnn_kernel_shape bwd_mma =
        plan_test_shape(PRNN_GRU, PRNN_DATA_HALF, 101, 9, 1, 0, PRNN_PASS_BACKWARD_DATA);
    t = tile(4, 4, 3, 1);
    CHECK(prnn_kernel_geometry_compute(&bwd_mma, &t, &dev, &g, why, sizeof(why)) == 0);
    CHECK(g.kdim == 3 * 102 && g.rows_per_unit == 1 && g.rows == g.units_per_block);
    CHECK(g.exchange_bytes_per_dir == 2ull * 9 * (3 * 102 / 2) * 8);
    prnn_kernel_shape bwd_fma = fma_shape;
    bwd_fma.pass = PRNN_PASS_BACKWARD_DATA;
    t = tile(32, 2, 2, 0);
    t.reg_slots = 16;
    t.smem_slots = 0;
    CHECK(prnn_kernel_geometry_compute(&bwd_fma, &t, &dev, &g, why, sizeof(why)) == 0);
    CHECK(g.kdim == 4 * 1024 && g.rows == g.units_per_block);
    CHECK(g.exchange_bytes_per_dir == 2ull * 4 * 1024 * 2 * 4 * 8);

    /* Partial sums (backward only): rows are every hidden unit, the vector
     * the block's own gate gradients (LSTM, 32 units: 4 x 32); the area
     * holds (row, sender, unit) words, two batch rows a word with the mma
     * engine (GRU, H = 101: 26 units a block, chunks of 3 rows: 2 words). */
    t = tile(32, 2, 2, 0);
    t.ksplit = 1;
    t.reg_slots = 16;
    t.smem_slots = 0;
    t.partial_sums = 1;
    CHECK(prnn_kernel_geometry_compute(&bwd_fma, &t, &dev, &g, why, sizeof(why)) == 0);
    CHECK(g.kdim == 4 * 32 && g.rows == 1024);
    CHECK(g.exchange_bytes_per_dir == 2ull * 2 * 2 * 2 * 32 * 1024 * 8);
    t = tile(4, 3, 1, 1);
    t.ksplit = 1;
    t.partial_sums = 1;
    CHECK(prnn_kernel_geometry_compute(&bwd_mma, &t, &dev, &g, why, sizeof(why)) == 0);
    CHECK(g.units_per_block == 26 && g.kdim == 3 * 26 && g.rows == 101);
    CHECK(g.chunks == 3 && g.exchange_bytes_per_dir == 2ull * 3 * 2 * 4 * 101 * 8);
    check_rejects(fma_shape, t, "partial_sums is a backward-data hand-off");
    t.ksplit = 8;
    check_rejects(bwd_mma, t, "partial_sums needs ksplit 1 and lanes_k 1");
    t.ksplit = 1;
    t.handoff = 2;
    check_rejects(bwd_mma, t, "partial_sums needs an L2 hand-off");

    /* Rules, each with a message that names it. */
    prnn_kernel_shape s =
        plan_test_shape(PRNN_RNN_TANH, PRNN_DATA_FLOAT, 512, 64, 2, 0, PRNN_PASS_FORWARD);
    t = tile(16, 1, 0, 0);
    check_rejects(s, t, "batch_groups must be >= 1");
    t = tile(16, 1, 8, 0); /* 16 x 8 x 2 directions = 256 blocks */
    check_rejects(s, t, "16 blocks x 8 batch groups x 2 directions exceed the 132 SMs");
    t = tile(16, 0, 1, 0);
    check_rejects(s, t, "batch_chunk must be >= 1");

    if (test_failures)
        fprintf(stderr, "plan-geometry: %d check(s) failed\n", test_failures);
    else
        printf("plan-geometry: tile normalisation, workspace sizes and the tile rules' messages: "
               "all checks passed\n");
    return test_failures ? 1 : 0;
}
