#include "gpu/engines/persistent/heuristic.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptors.h"

void prnn_heuristic_cost_parts(const prnn_kernel_geometry *g, const prnn_device_info *dev,
                               prnn_heuristic_parts *out)
{
    const prnn_tile_config *t = &g->tile;
    const double clk = (dev && dev->clock_khz > 0 ? dev->clock_khz : 1700000) * 1e3;
    const double l2_bw = 5.0e12, hbm_bw = 2.5e12;
    const int dirs = g->shape.key.dirs;
    const int blocks = t->blocks * dirs;             /* that hand off h_t */
    const int all_blocks = blocks * t->batch_groups; /* that load L2 */
    const int bc = t->batch_chunk;

    const int local = t->handoff == 2; /* the small-h engine */
    /* the round trip a release/acquire counter (handoff 1) adds */
    const double counter_round_trip = t->handoff == 1 ? 0.45e-6 : 0.0;

    /* Every term in seconds. Hand-off: measured 0.26 us with a few blocks to 0.98 with 132 (Lamport
     * words); a release/acquire counter adds a round trip; through shared
     * memory (one block per group), a store and a barrier. */
    /* (the local figure fitted to the small-h engine's first H100/H200
     * timings, bench/NOTES.md v0.10: its step at batch 1 costs about what
     * the L2 hand-off's does at H = 64, more above) */
    double handoff = local ? 0.2e-6 : (0.25 + 0.0055 * blocks) * 1e-6 + counter_round_trip;

    /* Every block reads all of its group's vector (h_{t-1} forward, the
     * gate gradients backward): 8-byte words carrying one value (FMA) or two
     * (MMA), read once per row group; locally, plain values from shared
     * memory. */
    const int kd = g->kdim;
    double words = t->mma ? kd * (double)g->group_stride / 2 : kd * (double)g->group_stride;
    double bytes_blk = words * (local ? (t->mma ? 4.0 : g->acc_bytes) : 8.0) * g->rsplit;
    double poll = bytes_blk / (local ? 128.0 : 64.0) / clk;
    double poll_all = local ? 0.0 : bytes_blk * all_blocks / l2_bw;
    /* The partial sums' counter wait comes after every sender's writes,
     * where Lamport words are read as they land: a second round trip. And
     * each thread of the gather requests its words in rounds (its items,
     * POLL_MAX senders at a time), every round an L2 round trip (about
     * 0.3 us loaded) after the last: the tiles whose threads take two to
     * six rounds a chunk ran 1.07-1.26x what the model gave them relative
     * to the one-round tiles of their key (bench/NOTES.md, twelfth
     * session; GRU f32 H 1024 B 8: 47 blocks of 4 rows, 2 rounds, 6.20 us,
     * against 32 blocks of 2 rows, 1 round, 4.52). */
    const double gather_round_trip = 0.3e-6;
    double psum_wait = 0.0;
    if (t->partial_sums) {
        /* Partial sums: a block reads H words per row (two rows a word with
         * the mma engine), once for all its warps, and writes as many; an
         * exchange area beyond half the L2 goes to memory. The FMA engine's
         * counter words carry the plain value (4 bytes, fp64's 8), half a
         * Lamport word; the mma engine's counter tiles ran slower than its
         * Lamport ones at every timed key (bench/NOTES.md), so their words
         * stay at 8 bytes here. */
        const double h = g->shape.key.hidden;
        const double word = t->handoff == 1 && !t->mma ? g->acc_bytes : 8.0;
        bytes_blk = (t->mma ? h * g->group_stride / 2 : h * g->group_stride) * word;
        psum_wait = counter_round_trip + (g->ps_rounds - 1) * g->chunks * gather_round_trip;
        poll = bytes_blk / 64.0 / clk;
        const double area = (double)g->exchange_bytes_per_dir * dirs;
        poll_all = 2.0 * bytes_blk * all_blocks /
                   (area > 0.5 * (dev ? dev->l2_bytes : 50e6) ? hbm_bw : l2_bw);
    }
    if (poll_all > poll)
        poll = poll_all;

    /* The products of one block. */
    double compute;
    int chunks = g->chunks;
    if (t->mma) {
        int rt = g->wpk / 4;
        int ntn = (bc + 7) / 8;
        double mmas = (double)g->warps * g->ksteps * rt * ntn * chunks;
        /* one m16n8k16 (2048 multiply-adds) a clock per SM: the H100's
         * dense 16-bit tensor rate (989 TFLOPS at 1.83 GHz over 132 SMs).
         * The model had two a clock, twice what the tensor cores do, and
         * under-rated the mma tiles against the FMA ones (LSTM f16 H 512
         * B 4: the model's mma choice ran 1.37x the FMA tile it now
         * takes; bench/NOTES.md, twelfth session) */
        compute = mmas / clk;
        /* each accumulator tile takes one mma per k-step, one after the
         * other (~28 cycles of latency each on sm_80/sm_90) */
        double chain = (double)g->ksteps * chunks * 28.0 / clk;
        if (chain > compute)
            compute = chain;
    } else {
        int aw = g->acc_bytes / 4;
        int rpl = g->wpk / aw;
        int vw = aw == 1 ? (bc >= 4 ? 4 : 1) : (bc >= 2 ? 2 : 1);
        int bcp = (bc + vw - 1) / vw * vw;
        double fmas = (double)t->threads * g->ksteps * rpl * bcp * chunks;
        double rate = aw == 1 ? 128.0 : 64.0;
        compute = fmas / rate / clk;
        /* broadcast loads of h from shared memory: one load instruction a
         * clock per SM, broadcast or not */
        compute += (double)g->warps * g->ksteps * (bcp / vw) * chunks / clk;
        /* summing the lanes_k lanes: log2(lanes_k) shuffles per row and
         * batch column, one warp-wide shuffle per clock per SM */
        int rounds = 0;
        for (int l = t->lanes_k; l > 1; l >>= 1)
            rounds++;
        compute += (double)g->warps * rounds * rpl * bc * chunks / clk;
        /* each accumulator takes one FMA per k-step, dependent on the last
         * (4 cycles): few threads with long K-ranges are latency-bound */
        double chain = (double)g->ksteps * chunks * 4.0 / clk;
        if (chain > compute)
            compute = chain;
    }
    double smem = (double)g->ksmem * g->wpk * t->threads * 4.0 * chunks / 128.0 / clk;
    double streamed = 0.0;
    if (g->kglb) {
        double b = (double)g->kglb * g->wpk * t->threads * 4.0 * chunks;
        double total = b * all_blocks;
        double bw = total * 0.5 > (dev ? dev->l2_bytes : 50e6) ? hbm_bw : l2_bw;
        streamed = b / 64.0 / clk;
        if (total / bw > streamed)
            streamed = total / bw;
    }
    /* The weights re-read from shared memory and the products share the
     * warps' issue slots: they overlap only in part (half of the shorter
     * adds to the longer). */
    double work = compute > smem ? compute + 0.5 * smem : smem + 0.5 * compute;
    /* Two barriers and a cell update per chunk. */
    double sync =
        ((g->red_bufs == 2 && !t->partial_sums ? 0.05 : 0.10) * chunks + 0.02 * g->items * chunks) *
        1e-6;
    /* Calibration against measurement: the terms above under-rate the mma
     * engine (its chain of dependent mma.sync and the reduction across
     * warps) and 128-thread blocks (too few warps to hide latency): the
     * factors that make the model's pick closest to the best of the
     * autotuner's timed candidates (bench/NOTES.md v0.3-b). */
    double fit = (t->mma ? 2.0 : 1.0) * (t->threads == 128 ? 1.1 : 1.0);
    /* Those factors are the block's own work's; the partial sums' L2
     * traffic stays outside them (the model then ranks the partial-sum
     * tiles the autotuner timed closer to their times: bench/NOTES.md
     * v0.13), and so do the weights streamed from L2 or memory, bytes over
     * a bandwidth as that traffic is (the mma tiles that stream them at
     * H 2048 ran at about half their modelled time: GRU f16 H 2048 B 16
     * backward, 16.4 us modelled, 24.6 on the measured scale, 12.3-15.3
     * measured, v0.13). */
    const double poll_fit = t->partial_sums ? 1.0 : fit;
    /* Blocks of the local hand-off need not all be resident: the ones that
     * are not run the whole sequence after the first wave. */
    double waves = 1.0;
    int per_sm_used = 1;
    if (local && dev) {
        int per_sm = dev->max_threads_per_sm / t->threads;
        int by_regs = dev->regs_per_sm / (t->threads * (g->est_regs < 32 ? 32 : g->est_regs));
        int by_smem = g->smem_bytes ? (int)(dev->smem_per_sm / (long)g->smem_bytes) : per_sm;
        if (by_regs < per_sm)
            per_sm = by_regs;
        if (by_smem < per_sm)
            per_sm = by_smem;
        if (per_sm < 1)
            per_sm = 1;
        long resident = (long)per_sm * dev->sm_count;
        waves = (double)((all_blocks + resident - 1) / resident);
        const long fullest = (all_blocks + dev->sm_count - 1) / dev->sm_count;
        per_sm_used = fullest < per_sm ? (int)fullest : per_sm;
    }
    out->us = ((handoff + work + sync) * fit + poll * poll_fit + streamed + psum_wait) * waves *
              1e6;
    out->work = work * fit * 1e6;
    out->per_sm = per_sm_used;
    out->waves = waves;
}

double prnn_heuristic_cost(const prnn_kernel_geometry *g, const prnn_device_info *dev)
{
    prnn_heuristic_parts parts;
    prnn_heuristic_cost_parts(g, dev, &parts);
    return parts.us;
}

int prnn_heuristic_partial_sums(void)
{
    const char *v = getenv("PRNN_PARTIAL_SUMS");
    return !(v && strcmp(v, "0") == 0);
}

static int cmp_cost(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double cost;
    int index;
} ranked;

/* The FMA engine unrolls its k-steps times the batch chunk: NVRTC's time
 * grows much faster than that product (seconds beyond 1024: bench/NOTES.md
 * v0.1-c). A plan compiles on first use, so the heuristic and the
 * autotuner's candidates stay at or below 1024; a tuning-DB entry beyond it
 * is still honoured (it compiles once, then comes from the disk cache). The
 * mma engine's loops are short. */
static int compiles_quickly(const prnn_kernel_geometry *g)
{
    return g->tile.mma || (long)g->ksteps * g->tile.batch_chunk <= 1024;
}

/* Largest register and shared-memory shares for a tile, then the geometry. */
static int fit_tile(const prnn_kernel_shape *shape, const prnn_device_info *dev, prnn_tile_config t,
                    prnn_kernel_geometry *g)
{
    char why[256];
    /* First pass with no weights on-chip gives the fixed costs. */
    t.reg_slots = 0;
    t.smem_slots = 0;
    if (prnn_kernel_geometry_compute(shape, &t, dev, g, why, sizeof(why)))
        return -1;
    int budget = 255 - 16 - g->est_regs;
    int max_by_file = dev ? dev->regs_per_sm / t.threads - 16 - g->est_regs : budget;
    if (max_by_file < budget)
        budget = max_by_file;
    if (budget < 0)
        return -1;
    t.reg_slots = budget / g->wpk * g->wpk;
    long smem_free = (long)(dev ? dev->smem_per_block_optin : 48 * 1024) - (long)g->smem_bytes;
    long per_kstep = (long)g->wpk * t.threads * 4;
    t.smem_slots = smem_free > 0 ? (int)(smem_free / per_kstep) * g->wpk : 0;
    if (t.smem_slots > 65536)
        t.smem_slots = 65536 / g->wpk * g->wpk;
    return prnn_kernel_geometry_compute(shape, &t, dev, g, why, sizeof(why));
}

/* One candidate tile: kept when it fits and stays within what compiles and
 * runs well (see below). */
static int try_tile(const prnn_kernel_shape *shape, const prnn_device_info *dev,
                    const prnn_tile_config *t, prnn_kernel_geometry *g)
{
    /* Many rows per lane unroll into very long code (compile seconds,
     * instruction-cache misses): spread rows over more blocks or warps
     * instead. Past ~64 accumulators a thread, the compiler spills the
     * unrolled products to local memory. */
    /* The local hand-off's block must hold every weight (it reads none
     * back from memory: that is the small-h engine's point). */
    return fit_tile(shape, dev, *t, g) == 0 && (t->handoff != 2 || g->kglb == 0) &&
           g->wpk / (g->acc_bytes / 4) <= (t->mma ? 64 : 8) && g->accumulators <= 64 &&
           compiles_quickly(g);
}

/* The search itself (prnn_heuristic_candidates remembers its results). */
static int rank_candidates(const prnn_kernel_shape *shape, const prnn_device_info *dev, int use_mma,
                           int local, int partial_sums, prnn_kernel_geometry *out, int max)
{
    static const int threads_opts[] = {128, 256, 512};
    static const int lanes_opts[] = {1, 2, 4, 8};
    static const int chunk_opts[] = {1, 2, 4, 8, 16, 32, 64};
    static const int group_opts[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    static const int cand_blocks[] = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
    int block_opts[16], nb = 0;
    int sms = dev ? dev->sm_count / shape->key.dirs : 132;
    /* The local hand-off: one block per group, as many groups as the batch
     * has rows (they need not all be resident); else groups of blocks that
     * must all be. */
    const int ngroup_opts = local ? 10 : 7;
    /* The backward's partial-sum hand-off: its own tiles (ksplit 1, lanes_k
     * 1), on an L2 hand-off only, when searched (prnn_heuristic_partial_sums,
     * read once per search by the caller). */
    const int psum_opts = shape->pass == PRNN_PASS_BACKWARD_DATA && !local && partial_sums ? 2 : 1;
    if (local) {
        block_opts[nb++] = 1;
        sms = 1 << 30;
    } else {
        for (size_t i = 0; i < sizeof(cand_blocks) / sizeof(int); i++)
            if (cand_blocks[i] < sms)
                block_opts[nb++] = cand_blocks[i];
        block_opts[nb++] = sms > 0 ? sms : 1;
    }

    int capacity = 0, n = 0;
    prnn_kernel_geometry *all = NULL;
    const int B = shape->key.mini_batch;
    /* Both engines where tensor cores are allowed: at small batch the FMA
     * engine's shorter dependency chain can win. */
    /* clang-format off */
    for (int psum = 0; psum < psum_opts; psum++)
    for (int mma = 0; mma <= (use_mma ? 1 : 0); mma++)
    for (int gi = 0; gi < ngroup_opts && group_opts[gi] <= B; gi++) {
        const int groups = group_opts[gi];
        const int per_group = (B + groups - 1) / groups;
        for (int ti = 0; ti < 3; ti++)
        for (int bi = 0; bi < nb && block_opts[bi] * groups <= sms; bi++)
        for (int ci = 0; ci < 7; ci++) {
            int bc = chunk_opts[ci];
            if (bc > per_group && !(ci > 0 && chunk_opts[ci - 1] < per_group))
                continue; /* one chunk size >= the group's rows is enough */
            for (int ks = 0; ks < (psum ? 1 : 2); ks++)
            for (int li = 0; li < (mma || psum ? 1 : 4); li++) {
                if (n == capacity) {
                    int grown = capacity ? 2 * capacity : 4096;
                    prnn_kernel_geometry *p = realloc(all, sizeof(*all) * (size_t)grown);
                    if (!p)
                        goto ranked_out;
                    all = p;
                    capacity = grown;
                }
                prnn_tile_config t;
                memset(&t, 0, sizeof(t));
                t.threads = threads_opts[ti];
                t.blocks = block_opts[bi];
                t.batch_chunk = bc < per_group ? bc : per_group;
                t.batch_groups = groups;
                t.ksplit = psum ? 1 : ks ? t.threads / 64 : t.threads / 32;
                t.lanes_k = mma ? 1 : lanes_opts[li];
                t.mma = mma;
                t.partial_sums = psum;
                /* Lamport words, except for fp64 (a value fills the word)
                 * and backward mma tiles that gather the gate gradients:
                 * their G-times-longer vector made spinning on every word
                 * cost more than one counter wait and plain loads
                 * (bench/NOTES.md v0.6) */
                t.handoff = local ? 2
                            : shape->key.dtype == PRNN_DATA_DOUBLE ||
                                    (mma && !psum && shape->pass == PRNN_PASS_BACKWARD_DATA)
                                ? 1
                                : 0;
                if (t.ksplit < 1)
                    continue;
                if (try_tile(shape, dev, &t, &all[n]))
                    n++;
            }
        }
    }
    /* clang-format on */
ranked_out:;
    ranked *r = malloc(sizeof(*r) * (size_t)(n ? n : 1));
    if (!r) {
        free(all);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        r[i].cost = prnn_heuristic_cost(&all[i], dev);
        r[i].index = i;
    }
    qsort(r, (size_t)n, sizeof(*r), cmp_cost);
    /* Different requests can normalise to the same tile (e.g. 128 and 132
     * blocks both give 16 units per block): keep the first of each. */
    int m = 0;
    for (int i = 0; i < n && m < max; i++) {
        const prnn_kernel_geometry *g = &all[r[i].index];
        int dup = 0;
        for (int j = 0; j < m && !dup; j++)
            dup = memcmp(&out[j].tile, &g->tile, sizeof(g->tile)) == 0;
        if (!dup)
            out[m++] = *g;
    }
    free(r);
    free(all);
    return m;
}

/*
 * The ranked candidates of recent searches. One plan asks for the same
 * ones several times (each pass's engine order, its configurations, the
 * short-sequence slots' choices, the kernels compiled ahead), and a search
 * normalises and ranks thousands of tiles: 2.6 ms for the prediction of a
 * plan's kernels alone (bench/NOTES.md, issue 26). The search is a pure
 * function of its arguments, so a remembered answer is the answer; the
 * first MEMO_KEEP of a ranking answer every request for at most that many
 * (the autotuner's larger pool is searched afresh).
 */
#define MEMO_SLOTS 16
#define MEMO_KEEP 16

typedef struct {
    int used;
    prnn_kernel_shape shape;
    prnn_device_info dev;
    int use_mma, local;
    int partial_sums; /* prnn_heuristic_partial_sums() when searched */
    int n;            /* candidates found, at most MEMO_KEEP */
    prnn_kernel_geometry found[MEMO_KEEP];
} memo_slot;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static memo_slot memo[MEMO_SLOTS];
static int memo_next;

static int memo_match(const memo_slot *m, const prnn_kernel_shape *shape,
                      const prnn_device_info *dev, int use_mma, int local, int partial_sums)
{
    return m->used && m->use_mma == use_mma && m->local == local &&
           m->partial_sums == partial_sums && m->shape.skip_input == shape->skip_input &&
           m->shape.pass == shape->pass && prnn_rnn_key_equal(&m->shape.key, &shape->key) &&
           memcmp(&m->dev, dev, sizeof(*dev)) == 0;
}

int prnn_heuristic_candidates(const prnn_kernel_shape *shape, const prnn_device_info *dev,
                              int use_mma, int local, prnn_kernel_geometry *out, int max)
{
    const int partial_sums = prnn_heuristic_partial_sums();
    if (!dev || max > MEMO_KEEP)
        return rank_candidates(shape, dev, use_mma, local, partial_sums, out, max);
    pthread_mutex_lock(&memo_lock);
    for (int i = 0; i < MEMO_SLOTS; i++) {
        const memo_slot *m = &memo[i];
        if (memo_match(m, shape, dev, use_mma, local, partial_sums)) {
            int n = m->n < max ? m->n : max;
            memcpy(out, m->found, sizeof(*out) * (size_t)n);
            pthread_mutex_unlock(&memo_lock);
            return n;
        }
    }
    pthread_mutex_unlock(&memo_lock);
    prnn_kernel_geometry found[MEMO_KEEP];
    int n = rank_candidates(shape, dev, use_mma, local, partial_sums, found, MEMO_KEEP);
    pthread_mutex_lock(&memo_lock);
    memo_slot *m = &memo[memo_next];
    memo_next = (memo_next + 1) % MEMO_SLOTS;
    m->used = 1;
    m->shape = *shape;
    m->dev = *dev;
    m->use_mma = use_mma;
    m->local = local;
    m->partial_sums = partial_sums;
    m->n = n;
    memcpy(m->found, found, sizeof(found[0]) * (size_t)n);
    pthread_mutex_unlock(&memo_lock);
    if (n > max)
        n = max;
    memcpy(out, found, sizeof(*out) * (size_t)n);
    return n;
}

int prnn_heuristic_choose(const prnn_kernel_shape *shape, const prnn_device_info *dev, int use_mma,
                          int local, prnn_kernel_geometry *out, char *why, size_t why_size)
{
    if (prnn_heuristic_candidates(shape, dev, use_mma, local, out, 1) == 1)
        return 0;
    snprintf(why, why_size,
             "no persistent configuration fits %s with hidden %d, batch %d on this device",
             prnn_mode_name(shape->key.mode), shape->key.hidden, shape->key.mini_batch);
    return -1;
}
