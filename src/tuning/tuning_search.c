/*
 * The layered search: user exact, shipped exact (the key's GPU, then a
 * sibling's), nearest entry of either, each within the key's pass and
 * sequence-length bucket. Pure functions of the parsed
 * databases, so tests and the fuzzer can drive every rule without files or environment.
 */
#include "tuning_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "rnn_cell_traits.h"

/* Costs closer than this are ties (they come from sums of log2s). */
#define COST_EPS 1e-9

typedef struct {
    const prnn_tuning_item *item;
    const prnn_tuning_db *db;
    prnnConfigSource_t source;
    double cost;
    size_t order; /* position over both databases, user first */
    int sibling;  /* an entry of a sibling GPU (same_gpu_and_kind) */
} candidate;

static int key_valid(const prnn_tuning_key *k)
{
    return k && k->gpu_name && k->rnn.hidden >= 1 && k->rnn.mini_batch >= 1 && k->rnn.dirs >= 1;
}

/* The pass is part of the kind: a tile tuned for one kernel says nothing
 * about the other, whose geometry differs. sibling: another GPU of the same
 * architecture and SM count (an H200's key and an H100's entry), else the
 * key's own. */
static int same_gpu_and_kind(const prnn_tuning_entry *e, const prnn_tuning_key *k, int sibling)
{
    return e->cc_major == k->cc_major && e->cc_minor == k->cc_minor && e->sm_count == k->sm_count &&
           e->mode == k->rnn.mode && e->dtype == k->rnn.dtype && e->directions == k->rnn.dirs &&
           e->pass == k->pass && prnn_seq_bucket_of(e->max_seq_length) == k->seq_bucket &&
           (strcmp(e->gpu_name, k->gpu_name) == 0) == !sibling;
}

static int is_exact(const prnn_tuning_entry *e, const prnn_tuning_key *k, int sibling)
{
    return same_gpu_and_kind(e, k, sibling) && e->hidden == k->rnn.hidden &&
           k->rnn.mini_batch >= e->batch_min && k->rnn.mini_batch <= e->batch_max;
}

double prnn_tuning_distance(const prnn_tuning_entry *e, const prnn_tuning_key *key)
{
    const int hidden = key->rnn.hidden, batch = key->rnn.mini_batch;
    if (e->hidden < 1 || hidden < 1 || batch < 1 || e->batch_min < 1 || e->pass != key->pass ||
        prnn_seq_bucket_of(e->max_seq_length) != key->seq_bucket)
        return HUGE_VAL;
    if (e->hidden < hidden)
        return HUGE_VAL;
    double cost = log2((double)e->hidden / hidden);
    if (batch < e->batch_min)
        cost += log2((double)e->batch_min / batch);
    else if (batch > e->batch_max)
        cost += log2((double)batch / e->batch_max);
    return cost;
}

/* Offers one candidate to fits; reports a rejection. */
static int accept(const candidate *c, prnn_tuning_fits_fn fits, const void *ctx)
{
    if (!fits)
        return 1;
    char why[256] = "";
    if (fits(&c->item->entry, ctx, why, sizeof(why)) == 0)
        return 1;
    char desc[400], cfg[300];
    prnn_tuning_entry_describe(&c->item->entry, desc, sizeof(desc));
    prnn_tuning_entry_config_text(&c->item->entry, cfg, sizeof(cfg));
    const char *origin = c->item->origin < c->db->n_origins ? c->db->origins[c->item->origin]
                                                            : "tuning DB";
    prnn_log_append("%s: entries[%d] (%s) skipped: config %s does not fit this device or layer%s%s",
                    origin, c->item->index, desc, cfg, why[0] ? ": " : "", why);
    return 0;
}

static void fill(prnn_tuning_result *r, const candidate *c, int exact)
{
    r->entry = c->item->entry;
    r->source = c->source;
    r->exact = exact;
    r->sibling = c->sibling;
    r->cost = exact ? 0.0 : c->cost;
}

/* Exact matches of one database, narrowest batch range first, then file
 * order (an exact batch beats a range that also covers it). */
static int search_exact(const prnn_tuning_db *db, prnnConfigSource_t source,
                        const prnn_tuning_key *key, int sibling, prnn_tuning_fits_fn fits,
                        const void *ctx, prnn_tuning_result *result)
{
    if (!db)
        return 0;
    /* Each pass takes the narrowest candidate not tried yet; rejected ones are
     * few, so this stays linear in practice and needs no allocation. */
    long long last_width = -1;
    size_t last_i = 0;
    for (;;) {
        const prnn_tuning_item *best = NULL;
        size_t best_i = 0;
        long long best_w = 0;
        for (size_t i = 0; i < db->count; i++) {
            const prnn_tuning_entry *e = &db->items[i].entry;
            if (!is_exact(e, key, sibling))
                continue;
            long long w = (long long)e->batch_max - e->batch_min;
            /* Only candidates after the last one tried, in (width, index). */
            if (w < last_width || (w == last_width && i <= last_i))
                continue;
            if (!best || w < best_w) {
                best = &db->items[i];
                best_w = w;
                best_i = i;
            }
        }
        if (!best)
            return 0;
        candidate c = {best, db, source, 0.0, best_i, sibling};
        if (accept(&c, fits, ctx)) {
            fill(result, &c, 1);
            return 1;
        }
        last_width = best_w;
        last_i = best_i;
    }
}

static int cmp_candidate(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    if (fabs(a->cost - b->cost) > COST_EPS)
        return a->cost < b->cost ? -1 : 1;
    if (a->sibling != b->sibling)
        return a->sibling ? 1 : -1;
    if (a->source != b->source)
        return a->source == PRNN_CONFIG_USER_DB ? -1 : 1;
    const prnn_tuning_entry *ea = &a->item->entry, *eb = &b->item->entry;
    if (ea->hidden != eb->hidden)
        return ea->hidden > eb->hidden ? -1 : 1;
    if (ea->batch_max != eb->batch_max)
        return ea->batch_max > eb->batch_max ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

static size_t collect_near(const prnn_tuning_db *db, prnnConfigSource_t source,
                           const prnn_tuning_key *key, int sibling, candidate *out, size_t n,
                           size_t *order)
{
    for (size_t i = 0; db && i < db->count; i++, (*order)++) {
        const prnn_tuning_entry *e = &db->items[i].entry;
        /* Exact matches were all offered already. */
        if (!same_gpu_and_kind(e, key, sibling) || is_exact(e, key, sibling))
            continue;
        double cost = prnn_tuning_distance(e, key);
        const double max_cost = prnn_cell_traits(key->rnn.mode)->scan
                                    ? PRNN_TUNING_NEAREST_MAX_COST_SRU
                                    : PRNN_TUNING_NEAREST_MAX_COST;
        if (!(cost <= max_cost + COST_EPS))
            continue;
        candidate c = {&db->items[i], db, source, cost, *order, sibling};
        out[n++] = c;
    }
    return n;
}

static int search_nearest(const prnn_tuning_db *user, const prnn_tuning_db *shipped,
                          const prnn_tuning_key *key, prnn_tuning_fits_fn fits, const void *ctx,
                          prnn_tuning_result *result)
{
    size_t total = (user ? user->count : 0) + (shipped ? shipped->count : 0);
    if (total == 0)
        return 0;
    candidate *cands = malloc(total * sizeof(*cands));
    if (!cands) {
        prnn_log_append(
            "tuning DB: out of memory in the nearest-entry search; using the heuristic");
        return 0;
    }
    size_t n = 0;
    for (int sibling = 0; sibling < 2; sibling++) {
        size_t order = 0;
        n = collect_near(user, PRNN_CONFIG_USER_DB, key, sibling, cands, n, &order);
        n = collect_near(shipped, PRNN_CONFIG_SHIPPED_DB, key, sibling, cands, n, &order);
    }
    qsort(cands, n, sizeof(*cands), cmp_candidate);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) {
        if (accept(&cands[i], fits, ctx)) {
            fill(result, &cands[i], 0);
            found = 1;
        }
    }
    free(cands);
    return found;
}

int prnn_tuning_search(const prnn_tuning_db *user, const prnn_tuning_db *shipped,
                       const prnn_tuning_key *key, prnn_tuning_fits_fn fits, const void *ctx,
                       prnn_tuning_result *result)
{
    if (!key_valid(key) || !result)
        return 0;
    /* exact: the key's own GPU, then a sibling (same architecture and SM
     * count); then the nearest entry of either */
    for (int sibling = 0; sibling < 2; sibling++)
        if (search_exact(user, PRNN_CONFIG_USER_DB, key, sibling, fits, ctx, result) ||
            search_exact(shipped, PRNN_CONFIG_SHIPPED_DB, key, sibling, fits, ctx, result))
            return 1;
    return search_nearest(user, shipped, key, fits, ctx, result);
}
