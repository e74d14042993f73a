/*
 * Filling the kernel cache without a GPU (prnn-cache warm): for each shape
 * of the tuning databases on GPUs of one architecture, the kernels its
 * plans (of packed and/or unpacked data) would load (prnn_plan_kernel_set,
 * on the entry's GPU described from a table of the architecture's limits),
 * compiled on several threads into the cache directory. A container image
 * built this way ships a cache whose plans on those GPUs compile nothing.
 */
#include "gpu/plan/plan_warm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/plan/plan_select.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/seq_io_plan.h"
#include "jit/cubin_batch.h"
#include "tuning/tuning_db.h"

/* The limits the planner reads of a GPU, per architecture: those of the
 * architecture's data-center part (sm_86, sm_89, sm_120: the largest
 * workstation part), as cuDeviceGetAttribute reports them. A GPU whose
 * limits differ may choose other kernels for shapes without a tuning DB
 * entry: those it compiles itself. */
typedef struct {
    int sm;
    int smem_per_sm, smem_optin, smem_reserved;
    int max_threads_per_sm, max_blocks_per_sm;
    int clock_khz;
    int l2_bytes;
} arch_limits;

static const arch_limits archs[] = {
    {70, 98304, 98304, 0, 2048, 32, 1530000, 6291456},
    {75, 65536, 65536, 0, 1024, 16, 1590000, 4194304},
    {80, 167936, 166912, 1024, 2048, 32, 1410000, 41943040},
    {86, 102400, 101376, 1024, 1536, 16, 1740000, 6291456},
    {87, 167936, 166912, 1024, 2048, 32, 1300000, 4194304},
    {89, 102400, 101376, 1024, 1536, 24, 2520000, 100663296},
    {90, 233472, 232448, 1024, 2048, 32, 1980000, 52428800},
    {100, 233472, 232448, 1024, 2048, 32, 1965000, 132120576},
    {120, 102400, 101376, 1024, 1536, 32, 2407000, 100663296},
};
#define NUM_ARCHS (int)(sizeof(archs) / sizeof(archs[0]))

static const arch_limits *find_arch(int sm)
{
    for (int i = 0; i < NUM_ARCHS; i++)
        if (archs[i].sm == sm)
            return &archs[i];
    return NULL;
}

int prnn_warm_arch_known(int sm)
{
    return find_arch(sm) != NULL;
}

void prnn_warm_key(const prnn_tuning_entry *e, int batch, prnn_rnn_key *key)
{
    memset(key, 0, sizeof(*key));
    key->mode = e->mode;
    key->dtype = e->dtype;
    key->math = PRNN_DEFAULT_MATH;
    key->algo = PRNN_RNN_ALGO_AUTO;
    key->input_mode = PRNN_LINEAR_INPUT;
    key->hidden = e->hidden;
    key->layers = 1;
    key->dirs = e->directions;
    key->mini_batch = batch;
}

int prnn_warm_describe(int sm, const prnn_tuning_entry *e, struct prnn_gpu_state *gs)
{
    const arch_limits *a = find_arch(sm);
    if (!a)
        return -1;
    memset(gs, 0, sizeof(*gs));
    prnn_device_info *d = &gs->info;
    snprintf(d->name, sizeof(d->name), "%s", e->gpu_name);
    d->cc_major = a->sm / 10;
    d->cc_minor = a->sm % 10;
    d->sm = a->sm;
    d->sm_count = e->sm_count;
    d->regs_per_sm = 65536;
    d->regs_per_block = 65536;
    d->smem_per_sm = a->smem_per_sm;
    d->smem_per_block = 49152;
    d->smem_per_block_optin = a->smem_optin;
    d->smem_reserved_per_block = a->smem_reserved;
    d->max_threads_per_sm = a->max_threads_per_sm;
    d->max_threads_per_block = 1024;
    d->max_blocks_per_sm = a->max_blocks_per_sm;
    d->warp_size = 32;
    d->l2_bytes = a->l2_bytes;
    d->cooperative_launch = 1;
    d->clock_khz = a->clock_khz;
    snprintf(gs->description, sizeof(gs->description), "%.80s (sm_%d, %d SMs, described)",
             e->gpu_name, a->sm, e->sm_count);
    return 0;
}

/* One GPU and shape to warm: the entry that names them (its GPU), the
 * shape's key. */
typedef struct {
    prnn_tuning_entry entry;
    prnn_rnn_key key;
} warm_shape;

typedef struct {
    int sm;
    const prnn_warm_what *what;
    warm_shape *shapes;
    int count, cap;
    int oom;
} shape_list;

static void add_key(shape_list *l, const prnn_tuning_entry *e, const prnn_rnn_key *key)
{
    warm_shape w;
    w.entry = *e;
    w.key = *key;
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->shapes[i].entry.gpu_name, e->gpu_name) == 0 &&
            l->shapes[i].entry.sm_count == e->sm_count &&
            prnn_rnn_key_equal(&l->shapes[i].key, &w.key))
            return;
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        warm_shape *s = realloc(l->shapes, sizeof(*s) * (size_t)cap);
        if (!s) {
            l->oom = 1;
            return;
        }
        l->shapes = s;
        l->cap = cap;
    }
    l->shapes[l->count++] = w;
}

/* e's shape at batch: its packed data's plan and/or its unpacked data's,
 * one per layer count whose forward kernels differ. */
static void add_shape(shape_list *l, const prnn_tuning_entry *e, int batch)
{
    prnn_rnn_key key;
    prnn_warm_key(e, batch, &key);
    if (l->what->packed)
        add_key(l, e, &key);
    if (!l->what->unpacked)
        return;
    key.caller_rows = 1;
    for (int layers = 1; layers <= PRNN_SEQ_IO_DISTINCT_LAYERS; layers++) {
        key.layers = layers;
        add_key(l, e, &key);
    }
}

/* An entry of the architecture: its shape, at both ends of its batch
 * range (the plans a range serves have the kernels of their own batch;
 * the ends are the ones the DB names). */
static void visit_entry(const prnn_tuning_entry *e, void *ctx)
{
    shape_list *l = ctx;
    if (e->cc_major * 10 + e->cc_minor != l->sm)
        return;
    add_shape(l, e, e->batch_min);
    if (e->batch_max != e->batch_min)
        add_shape(l, e, e->batch_max);
}

prnnStatus_t prnn_plan_warm(const char *dir, int sm, const prnn_warm_what *what,
                            prnnCacheWarmResult_t *out)
{
    size_t size = out->structSize;
    memset(out, 0, sizeof(*out));
    out->structSize = size;
    if (!find_arch(sm))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "sm: %d is not an architecture prnn-cache warm knows (70, 75, 80, 86, "
                         "87, 89, 90, 100, 120)",
                         sm);
    shape_list l;
    memset(&l, 0, sizeof(l));
    l.sm = sm;
    l.what = what;
    if (what->shipped_db)
        prnn_tuning_each_entry(0, visit_entry, &l);
    if (what->user_db)
        prnn_tuning_each_entry(1, visit_entry, &l);
    struct prnn_gpu_state *gs = malloc(sizeof(*gs));
    prnn_plan_kernels *ks = malloc(sizeof(*ks) * (size_t)(l.count ? l.count : 1));
    prnn_compile_request *reqs =
        malloc(sizeof(*reqs) * (size_t)(l.count ? l.count : 1) * PRNN_PLAN_MAX_KERNELS);
    if (l.oom || !gs || !ks || !reqs) {
        free(l.shapes);
        free(gs);
        free(ks);
        free(reqs);
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    int n = 0;
    for (int i = 0; i < l.count; i++) {
        prnn_warm_describe(sm, &l.shapes[i].entry, gs);
        const prnn_gpu_call g = {gs, NULL, PRNN_AUTOTUNE_OFF};
        prnn_plan_kernel_set(&g, &l.shapes[i].key, 1, &ks[i]);
        for (int k = 0; k < ks[i].count; k++)
            reqs[n++] = ks[i].req[k].req;
    }
    prnn_cubin_batch_counts c;
    prnn_cubin_batch_get(dir, reqs, n, 0, &c);
    free(l.shapes);
    free(gs);
    free(ks);
    free(reqs);
    out->shapes = l.count;
    out->kernels = c.requests;
    out->compiled = c.compiled;
    out->cached = c.cached;
    out->failed = c.failed;
    out->compileMs = c.compile_ms;
    if (c.failed) {
        prnn_fail(c.first_status, "%d of %d kernels could not be compiled; the first:", c.failed,
                  c.requests);
        prnn_log_append("%s", c.first_failure);
        return c.first_status;
    }
    return PRNN_STATUS_SUCCESS;
}
