#include "gpu/engines/persistent/kernel_geometry.h"

#include <stdio.h>

#include "descriptors.h"
#include "dtype.h"
#include "prnn_kernel_abi.h"

#define CEIL_DIV(a, b) (((a) + (b)-1) / (b))
#define ROUND_UP(a, b) (CEIL_DIV(a, b) * (b))
/* Hand-off words one lane requests at once: POLL_MAX in rnn_persistent.cu
 * (each costs two registers while in flight). */
#define POLL_MAX 16

static int fail(char *why, size_t n, const char *msg)
{
    snprintf(why, n, "%s", msg);
    return -1;
}

/* The k-steps whose weights the tile's register slots hold, then those its
 * shared-memory slots hold; the rest are read from global memory. */
static void split_slots(prnn_kernel_geometry *g, const prnn_tile_config *t)
{
    g->kreg = t->reg_slots / g->wpk;
    if (g->kreg > g->ksteps)
        g->kreg = g->ksteps;
    g->ksmem = t->smem_slots / g->wpk;
    if (g->ksmem > g->ksteps - g->kreg)
        g->ksmem = g->ksteps - g->kreg;
}

int prnn_kernel_geometry_compute(const prnn_kernel_shape *shape, const prnn_tile_config *tile,
                                 const prnn_device_info *dev, prnn_kernel_geometry *g, char *why,
                                 size_t why_size)
{
    char msg[256];
    const int H = shape->key.hidden, BMAX = shape->key.mini_batch;
    const int G = prnn_cell_traits(shape->key.mode)->gates;
    const int is16 = shape->key.dtype == PRNN_DATA_HALF || shape->key.dtype == PRNN_DATA_BFLOAT16;
    prnn_tile_config t = *tile;
    *g = (prnn_kernel_geometry){0};
    g->shape = *shape;
    g->gates = G;
    g->acc_bytes = (int)prnn_dtype_math_size(shape->key.dtype);
    const int bwd = shape->pass == PRNN_PASS_BACKWARD_DATA;
    const int psum = t.partial_sums;
    /* rnn_config.cuh: KPU, KD and GOUT (backward gates are padded to an even
     * length for the mma engine's pairs; with partial sums KD is the block's
     * own gradients, G * units per block, set below) */
    const int kpu = tile->mma ? ROUND_UP(H, 2) : H;
    int KD = bwd ? G * kpu : H;
    g->rows_per_unit = bwd ? 1 : G;
    if (psum) {
        if (!bwd)
            return fail(why, why_size, "partial_sums is a backward-data hand-off");
        if (t.handoff == 2)
            return fail(why, why_size, "partial_sums needs an L2 hand-off (handoff 0 or 1)");
        if (t.ksplit != 1 || (!t.mma && t.lanes_k != 1))
            return fail(why, why_size, "partial_sums needs ksplit 1 and lanes_k 1");
    }

    if (t.threads % 32 || t.threads < 32 || t.threads > 1024)
        return fail(why, why_size, "threads must be a multiple of 32 in [32, 1024]");
    g->warps = t.threads / 32;
    if (t.ksplit < 1 || g->warps % t.ksplit)
        return fail(why, why_size, "ksplit must divide the number of warps");
    g->rsplit = g->warps / t.ksplit;
    if (t.handoff < 0 || t.handoff > 2)
        return fail(why, why_size, "handoff must be 0, 1 or 2");
    if (t.mma) {
        if (!is16)
            return fail(why, why_size, "the mma engine needs half or bfloat16 data");
        t.lanes_k = 1;
    } else if (t.lanes_k < 1 || 32 % t.lanes_k) {
        return fail(why, why_size, "lanes_k must divide 32");
    }
    if (g->acc_bytes == 8 && t.handoff == 0)
        return fail(why, why_size, "double data needs handoff 1 (a value fills a whole word)");
    if (t.batch_chunk < 1)
        return fail(why, why_size, "batch_chunk must be >= 1");
    if (t.batch_groups < 1)
        return fail(why, why_size, "batch_groups must be >= 1");
    /* Batch rows per group: whole chunks. The group count is then whatever
     * covers the batch with that many rows (never an empty group). */
    int per_group = CEIL_DIV(BMAX, t.batch_groups);
    if (t.batch_chunk > per_group)
        t.batch_chunk = per_group;
    g->chunks = CEIL_DIV(per_group, t.batch_chunk);
    g->group_stride = g->chunks * t.batch_chunk;
    t.batch_groups = CEIL_DIV(BMAX, g->group_stride);
    if (t.blocks < 1)
        return fail(why, why_size, "blocks must be >= 1");

    /* Units per block from the requested blocks; the block count is then
     * whatever covers H with that many units (never an empty block). */
    int upb = CEIL_DIV(H, t.blocks);
    if (t.mma)
        upb = ROUND_UP(upb, 2);
    t.blocks = CEIL_DIV(H, upb);
    if (t.handoff == 2 && t.blocks != 1)
        return fail(
            why, why_size,
            "handoff 2 (through shared memory) needs the whole layer in one block: blocks=1");
    g->units_per_block = upb;
    g->rows = g->rows_per_unit * upb;
    if (psum) {
        KD = G * upb;
        g->rows = H;
    }
    g->kdim = KD;
    /* rnn_config.cuh PS_*: the partial sums' word rows per chunk (two
     * batch rows a word with the mma engine), (unit, word row) items and
     * the slices of senders that share an item */
    const int ps_rows = t.mma ? CEIL_DIV(t.batch_chunk, 2) : t.batch_chunk;
    const int ps_items = upb * ps_rows;
    int ps_slices = ps_items >= t.threads ? 1 : t.threads / ps_items;
    if (ps_slices > t.blocks)
        ps_slices = t.blocks;
    const int ps_span = CEIL_DIV(t.blocks, ps_slices);
    /* rnn_psum.cuh psum_gather: each thread walks ceil(items x slices /
     * threads) items, requesting PS_PW senders at a time */
    const int ps_pw = ps_span < POLL_MAX ? ps_span : POLL_MAX;
    g->ps_rounds = psum ? CEIL_DIV(ps_items * ps_slices, t.threads) * CEIL_DIV(ps_span, ps_pw) : 0;

    const int BC = t.batch_chunk;
    const int aw = g->acc_bytes / 4;
    int kpw;
    if (t.mma) {
        int kd2 = ROUND_UP(KD, 2);
        int kt = CEIL_DIV(kd2, 16);
        int ktw = CEIL_DIV(kt, t.ksplit);
        kpw = 16 * ktw;
        g->rpg = ROUND_UP(CEIL_DIV(g->rows, g->rsplit), 16);
        int rt = g->rpg / 16;
        int ntn = CEIL_DIV(BC, 8);
        int hbs = kpw / 2 + 4;
        g->ksteps = ktw;
        g->wpk = 4 * rt;
        g->rowsp = g->rsplit * g->rpg;
        size_t hb = (size_t)ROUND_UP(ntn * 8 * hbs * 4, 16);
        split_slots(g, &t);
        g->red_bytes = ROUND_UP(t.ksplit * BC * g->rowsp * 4, 16);
        g->smem_bytes = (size_t)g->ksmem * g->wpk * t.threads * 4 + (psum ? 1 : g->warps) * hb;
        int poll = psum ? ps_span : CEIL_DIV(ntn * 8 * kpw / 2, 32);
        g->accumulators = rt * ntn * 4;
        g->est_regs = g->kreg * g->wpk + g->accumulators + 56 +
                      2 * (poll < POLL_MAX ? poll : POLL_MAX);
        g->exchange_bytes_per_dir = 2 * (size_t)BMAX * (size_t)(kd2 / 2) * 8;
    } else {
        const int lk = t.lanes_k, lr = 32 / lk;
        g->rpg = CEIL_DIV(g->rows, g->rsplit);
        int rpl = CEIL_DIV(g->rpg, lr);
        kpw = CEIL_DIV(KD, t.ksplit);
        int kpl = CEIL_DIV(kpw, lk);
        int vw = aw == 1 ? (BC >= 4 ? 4 : 1) : (BC >= 2 ? 2 : 1);
        int bcp = ROUND_UP(BC, vw);
        g->ksteps = kpl;
        g->wpk = rpl * aw;
        g->rowsp = g->rsplit * g->rpg;
        size_t hb = (size_t)ROUND_UP(kpl * lk * bcp * g->acc_bytes, 16);
        split_slots(g, &t);
        g->red_bytes = ROUND_UP(t.ksplit * BC * g->rowsp * g->acc_bytes, 16);
        g->smem_bytes = (size_t)g->ksmem * g->wpk * t.threads * 4 + (psum ? 1 : g->warps) * hb;
        int poll = psum ? ps_span : CEIL_DIV(kpl * lk * bcp, 32);
        g->accumulators = rpl * bcp * aw;
        g->est_regs = g->kreg * g->wpk + g->accumulators + 48 +
                      2 * (poll < POLL_MAX ? poll : POLL_MAX);
        g->exchange_bytes_per_dir = 2 * (size_t)KD * (size_t)t.batch_groups *
                                    (size_t)g->group_stride * 8;
    }
    (void)kpw;
    if (psum) {
        /* the senders' slice sums replace the product's partial sums; the
         * words: (word row, sender, unit), both parities */
        g->red_bytes = ROUND_UP((size_t)ps_slices * BC * upb * g->acc_bytes, 16);
        g->exchange_bytes_per_dir = 2 * (size_t)t.batch_groups * (size_t)g->chunks *
                                    (size_t)ps_rows * (size_t)t.blocks * (size_t)H * 8;
    }
    /* The local hand-off (handoff 2): the group's words, plain values, both
     * parities, in shared memory instead of the global exchange area. */
    size_t local_ex = 0;
    if (t.handoff == 2) {
        const size_t words = t.mma ? (size_t)g->group_stride * (size_t)(ROUND_UP(KD, 2) / 2)
                                   : (size_t)g->group_stride * (size_t)KD;
        local_ex = ROUND_UP(2 * words * (t.mma ? 4 : (size_t)g->acc_bytes), 16);
        g->exchange_bytes_per_dir = 0;
    }
    /* Two partial-sum buffers (one barrier per chunk) when they fit. */
    long smem_limit = dev ? dev->smem_per_block_optin : 232448;
    g->red_bufs = (long)(g->smem_bytes + 2 * g->red_bytes + local_ex) <= smem_limit ? 2 : 1;
    g->smem_bytes += (size_t)g->red_bufs * g->red_bytes + local_ex;
    g->kglb = g->ksteps - g->kreg - g->ksmem;
    int vec = t.mma ? 2 : 1;
    int nit = (upb / vec) * BC;
    g->items = CEIL_DIV(nit, t.threads);
    if (bwd) {
        /* what each item carries between steps (one value per chunk), its
         * prefetched loads (dy, act, h, the previous state) and its gate
         * gradients */
        const prnn_cell_traits_row *cell = prnn_cell_traits(shape->key.mode);
        const int act_cols = cell->act_cols + (shape->key.clip != PRNN_KCLIP_NONE ? 1 : 0);
        g->est_regs += g->chunks * g->items * vec * aw +
                       g->items * vec * (act_cols + 3 + cell->dg_cols) * aw;
    } else {
        /* cell state (c and h) for every chunk, projected inputs and biases */
        g->est_regs += g->chunks * g->items * vec * 2 * aw + g->items * vec * G * 2 * aw;
    }
    g->weight_regs = g->kreg * g->wpk;
    /* every block of every group streams its own copy (written at the start
     * of the call, read back by the same thread every step) */
    g->packed_bytes_per_dir = (size_t)t.blocks * t.batch_groups * g->kglb * g->wpk * t.threads * 4;
    g->resident_fraction = g->ksteps ? (double)(g->kreg + g->ksmem) / g->ksteps : 1.0;
    /* Store the normalised reg/smem slot counts so that the text form of the
     * configuration says exactly what runs. */
    t.reg_slots = g->kreg * g->wpk;
    t.smem_slots = g->ksmem * g->wpk;
    g->tile = t;

    if (g->est_regs > 255) {
        snprintf(msg, sizeof(msg),
                 "needs about %d registers per thread (the limit is 255): move weights from "
                 "registers to shared memory",
                 g->est_regs);
        return fail(why, why_size, msg);
    }
    if (dev) {
        /* smem_limit is the device's here */
        if ((long)g->smem_bytes > smem_limit) {
            snprintf(msg, sizeof(msg),
                     "needs %zu bytes of shared memory per block, the device allows %ld",
                     g->smem_bytes, smem_limit);
            return fail(why, why_size, msg);
        }
        if ((long)t.threads * (g->est_regs < 64 ? 64 : g->est_regs) > dev->regs_per_sm) {
            snprintf(msg, sizeof(msg),
                     "%d threads x ~%d registers exceed the %d registers of an SM", t.threads,
                     g->est_regs, dev->regs_per_sm);
            return fail(why, why_size, msg);
        }
        /* Blocks that hand off through L2 must all be resident; the local
         * hand-off's blocks are independent (an ordinary launch). */
        if (t.handoff != 2 && t.blocks * t.batch_groups * shape->key.dirs > dev->sm_count) {
            snprintf(msg, sizeof(msg),
                     "%d blocks x %d batch groups x %d directions exceed the %d SMs (one block per "
                     "SM must be resident)",
                     t.blocks, t.batch_groups, shape->key.dirs, dev->sm_count);
            return fail(why, why_size, msg);
        }
        if (t.mma && dev->sm < 80)
            return fail(why, why_size, "the mma engine needs sm_80 or newer");
        if (t.handoff != 2 && !dev->cooperative_launch)
            return fail(why, why_size, "the device does not support cooperative launch");
    }
    return 0;
}
