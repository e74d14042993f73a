/*
 * The layered search: user exact beats shipped exact beats nearest; the
 * nearest-entry distance and its tie-breaks; the fits callback falling
 * through to the next candidate; the passes never mixed.
 */
#include <math.h>
#include <string.h>

#include "error.h"
#include "tuning_test.h"

static int found(const prnn_tuning_db *user, const prnn_tuning_db *shipped, int hidden, int batch,
                 prnn_tuning_result *r)
{
    prnn_tuning_key k = test_key(hidden, batch);
    memset(r, 0, sizeof(*r));
    return prnn_tuning_search(user, shipped, &k, NULL, NULL, r);
}

static void test_overlay_order(void)
{
    prnn_tuning_entry u[2], s[2];
    test_entry(&u[0], 1024, 8, 1); /* user exact */
    test_entry(&u[1], 2048, 8, 2); /* user, nearest for 1024 */
    test_entry(&s[0], 1024, 8, 3); /* shipped exact */
    test_entry(&s[1], 512, 16, 4); /* shipped, nearest for 512 x 8 */
    prnn_tuning_db user, shipped;
    test_db_of(&user, u, 2);
    test_db_of(&shipped, s, 2);
    prnn_tuning_result r;

    /* user exact beats shipped exact */
    CHECK(found(&user, &shipped, 1024, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 1 && r.source == PRNN_CONFIG_USER_DB);
    CHECK(r.exact == 1 && r.cost == 0.0);
    /* shipped exact when the user DB has none */
    CHECK(found(NULL, &shipped, 1024, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 3 && r.source == PRNN_CONFIG_SHIPPED_DB);
    /* shipped exact beats a user nearest entry */
    CHECK(found(&user, &shipped, 512, 16, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 4 && r.exact == 1);
    /* nothing exact: nearest, wherever it is */
    CHECK(found(&user, &shipped, 1536, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 2 && r.exact == 0);
    CHECK(r.source == PRNN_CONFIG_USER_DB);
    CHECK(fabs(r.cost - log2(2048.0 / 1536)) < 1e-12);
    CHECK(found(&user, &shipped, 512, 12, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 4 && r.source == PRNN_CONFIG_SHIPPED_DB);
    /* r carries the matched entry's own shape and time */
    CHECK(r.entry.hidden == 512 && r.entry.batch_min == 16);
    CHECK(r.entry.us_per_step == 1.25);

    prnn_tuning_db_free(&user);
    prnn_tuning_db_free(&shipped);
}

static void test_exact_rules(void)
{
    prnn_tuning_entry e[3];
    test_entry(&e[0], 1024, 1, 1);
    e[0].batch_max = 64; /* a wide range covering 8 */
    test_entry(&e[1], 1024, 4, 2);
    e[1].batch_max = 16;           /* a narrower one */
    test_entry(&e[2], 1024, 8, 3); /* exactly 8 */
    prnn_tuning_db db;
    test_db_of(&db, e, 3);
    prnn_tuning_result r;
    CHECK(found(&db, NULL, 1024, 8, &r) && r.entry.config.tile.blocks == 3);
    CHECK(found(&db, NULL, 1024, 9, &r) && r.entry.config.tile.blocks == 2);
    CHECK(r.exact == 1);
    CHECK(found(&db, NULL, 1024, 64, &r) && r.entry.config.tile.blocks == 1);
    CHECK(r.exact == 1);
    CHECK(found(&db, NULL, 1024, 65, &r) && r.exact == 0);
    prnn_tuning_db_free(&db);
}

static void test_same_gpu_only(void)
{
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 1);
    prnn_tuning_db db;
    test_db_of(&db, &e, 1);
    prnn_tuning_result r;
    prnn_tuning_key k = test_key(1024, 8);
    CHECK(prnn_tuning_search(&db, NULL, &k, NULL, NULL, &r) == 1);
    /* each part of the GPU and kind must match, even for "nearest" */
    prnn_tuning_key v[8];
    for (int i = 0; i < 8; i++)
        v[i] = k;
    v[0].gpu_name = "Test GPU 2";
    v[1].cc_major = 9;
    v[2].cc_minor = 0;
    v[3].sm_count = 42; /* a MIG slice of the same GPU */
    v[4].rnn.mode = PRNN_GRU;
    v[5].rnn.dtype = PRNN_DATA_BFLOAT16;
    v[6].rnn.dirs = 2;
    v[7].pass = PRNN_PASS_BACKWARD_DATA;
    /* another GPU of the same architecture and SM count (an H200 for an
     * H100's file): found, and said to be a sibling's */
    CHECK(prnn_tuning_search(&db, &db, &v[0], NULL, NULL, &r) == 1 && r.sibling == 1 &&
          strcmp(r.entry.gpu_name, "Test GPU") == 0);
    CHECK(prnn_tuning_search(&db, &db, &k, NULL, NULL, &r) == 1 && r.sibling == 0);
    for (int i = 1; i < 8; i++)
        CHECK(prnn_tuning_search(&db, &db, &v[i], NULL, NULL, &r) == 0);
    /* invalid keys find nothing and do not crash */
    prnn_tuning_key bad = k;
    bad.gpu_name = NULL;
    CHECK(prnn_tuning_search(&db, &db, &bad, NULL, NULL, &r) == 0);
    bad = k;
    bad.rnn.hidden = 0;
    CHECK(prnn_tuning_search(&db, &db, &bad, NULL, NULL, &r) == 0);
    bad = k;
    bad.rnn.mini_batch = -3;
    CHECK(prnn_tuning_search(&db, &db, &bad, NULL, NULL, &r) == 0);
    CHECK(prnn_tuning_search(&db, &db, NULL, NULL, NULL, &r) == 0);
    CHECK(prnn_tuning_search(&db, &db, &k, NULL, NULL, NULL) == 0);
    CHECK(prnn_tuning_search(NULL, NULL, &k, NULL, NULL, &r) == 0);
    prnn_tuning_db_free(&db);
}

/* Exact entries: the key's own GPU's, then a sibling's (same architecture
 * and SM count), before any nearest entry; among nearest ones the cost
 * decides, the own GPU's winning ties. */
static void test_sibling_exact_before_own_nearest(void)
{
    prnn_tuning_entry e[3];
    test_entry(&e[0], 2048, 8, 1); /* own GPU, nearest for 1024 */
    test_entry(&e[1], 1024, 8, 2); /* a sibling's exact entry */
    snprintf(e[1].gpu_name, sizeof(e[1].gpu_name), "Test GPU Max");
    test_entry(&e[2], 4096, 8, 3); /* a sibling's, as far from 1024 as e[0] from 512 */
    snprintf(e[2].gpu_name, sizeof(e[2].gpu_name), "Test GPU Max");
    prnn_tuning_db db;
    test_db_of(&db, e, 3);
    prnn_tuning_result r;
    prnn_tuning_key k = test_key(1024, 8);
    CHECK(prnn_tuning_search(&db, NULL, &k, NULL, NULL, &r) == 1 && r.sibling == 1 &&
          r.entry.config.tile.blocks == 2 && r.exact);
    k = test_key(1536, 8); /* nearest: own 2048 (cost 0.42) before the sibling's 4096 */
    CHECK(prnn_tuning_search(&db, NULL, &k, NULL, NULL, &r) == 1 && r.sibling == 0 &&
          r.entry.config.tile.blocks == 1 && !r.exact);
    k = test_key(512, 8); /* sibling 1024 (cost 1) before own 2048 (cost 2) */
    CHECK(prnn_tuning_search(&db, NULL, &k, NULL, NULL, &r) == 1 && r.sibling == 1 &&
          r.entry.config.tile.blocks == 2 && !r.exact);
    k = test_key(64, 8); /* own: cost 5, too far; the sibling's: cost 4 */
    CHECK(prnn_tuning_search(&db, NULL, &k, NULL, NULL, &r) == 1 && r.sibling == 1 &&
          r.entry.config.tile.blocks == 2);
    k = test_key(2048, 8); /* a third GPU of the family: nothing of its own */
    k.gpu_name = "Test GPU Ultra";
    CHECK(prnn_tuning_search(&db, NULL, &k, NULL, NULL, &r) == 1 && r.sibling == 1 && r.exact &&
          r.entry.config.tile.blocks == 1);
    prnn_tuning_db_free(&db);
}

static void test_distance(void)
{
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 1);
    prnn_tuning_key k = test_key(1024, 8);
    CHECK(prnn_tuning_distance(&e, &k) == 0.0);
    k.rnn.hidden = 512; /* entry 2x larger: weight 1 */
    CHECK(fabs(prnn_tuning_distance(&e, &k) - 1.0) < 1e-12);
    k.rnn.hidden = 2048; /* entry smaller: never */
    CHECK(prnn_tuning_distance(&e, &k) == HUGE_VAL);
    k.rnn.hidden = 1025;
    CHECK(prnn_tuning_distance(&e, &k) == HUGE_VAL);
    k.rnn.hidden = 1024;
    k.rnn.mini_batch = 32; /* batch: symmetric */
    CHECK(fabs(prnn_tuning_distance(&e, &k) - 2.0) < 1e-12);
    k.rnn.mini_batch = 2;
    CHECK(fabs(prnn_tuning_distance(&e, &k) - 2.0) < 1e-12);
    e.batch_min = 9; /* range: distance to its nearest end */
    e.batch_max = 16;
    k.rnn.mini_batch = 12;
    CHECK(prnn_tuning_distance(&e, &k) == 0.0);
    k.rnn.mini_batch = 20;
    CHECK(fabs(prnn_tuning_distance(&e, &k) - log2(20.0 / 16)) < 1e-12);
    k.rnn.mini_batch = 3;
    CHECK(fabs(prnn_tuning_distance(&e, &k) - log2(3.0)) < 1e-12);
    k.rnn.hidden = 256; /* both: log2(4) + log2(3) */
    CHECK(fabs(prnn_tuning_distance(&e, &k) - 2 - log2(3.0)) < 1e-12);
    /* another pass is no guess at any size, not even the entry's own */
    k.rnn.hidden = 1024;
    k.rnn.mini_batch = 12;
    k.pass = PRNN_PASS_BACKWARD_DATA;
    CHECK(isinf(prnn_tuning_distance(&e, &k)));
    e.pass = PRNN_PASS_BACKWARD_DATA;
    CHECK(prnn_tuning_distance(&e, &k) == 0.0);
}

static void test_nearest_rules(void)
{
    prnn_tuning_result r;
    prnn_tuning_db a, b;
    {
        /* a larger hidden size only: 2048 (cost 1), never 512 */
        prnn_tuning_entry e[2];
        test_entry(&e[0], 512, 8, 1);
        test_entry(&e[1], 2048, 8, 2);
        test_db_of(&a, e, 2);
        CHECK(found(&a, NULL, 1024, 8, &r) && r.entry.config.tile.blocks == 2);
        /* even a much larger one beats a slightly smaller one (700's tile
         * would spread 1000 units over its blocks), and the smaller one
         * alone is no match */
        prnn_tuning_db_free(&a);
        test_entry(&e[0], 700, 8, 1);
        test_entry(&e[1], 4000, 8, 2);
        test_db_of(&a, e, 2);
        CHECK(found(&a, NULL, 1000, 8, &r) && r.entry.config.tile.blocks == 2);
        CHECK(fabs(r.cost - log2(4000.0 / 1000)) < 1e-12);
        prnn_tuning_db_free(&a);
        test_db_of(&a, e, 1);
        CHECK(found(&a, NULL, 1000, 8, &r) == 0);
        prnn_tuning_db_free(&a);
    }
    {
        /* hidden and batch weigh alike (entry larger): 1024x32 (cost 2) vs
         * 4096x8 (cost 2): tie -> larger hidden */
        prnn_tuning_entry e[2];
        test_entry(&e[0], 1024, 32, 1);
        test_entry(&e[1], 4096, 8, 2);
        test_db_of(&a, e, 2);
        CHECK(found(&a, NULL, 1024, 8, &r) && r.entry.config.tile.blocks == 2);
        /* hidden equal, batch tie (4 vs 16 around 8) -> larger batch */
        prnn_tuning_db_free(&a);
        test_entry(&e[0], 1024, 4, 1);
        test_entry(&e[1], 1024, 16, 2);
        test_db_of(&a, e, 2);
        CHECK(found(&a, NULL, 1024, 8, &r) && r.entry.config.tile.blocks == 2);
        prnn_tuning_db_free(&a);
        /* complete tie -> file order */
        test_entry(&e[0], 2048, 8, 1);
        test_entry(&e[1], 2048, 8, 2);
        e[1].batch_max = 8;
        e[1].batch_min = 8;
        e[1].us_per_step = 9; /* same key twice: a hand-merged file */
        test_db_of(&a, e, 2);
        CHECK(found(&a, NULL, 1024, 8, &r) && r.entry.config.tile.blocks == 1);
        prnn_tuning_db_free(&a);
    }
    {
        /* equal cost: the user DB wins; lower cost wins over the user DB */
        prnn_tuning_entry u, s;
        test_entry(&u, 2048, 8, 1);
        test_entry(&s, 2048, 8, 2);
        test_db_of(&a, &u, 1);
        test_db_of(&b, &s, 1);
        CHECK(found(&a, &b, 1024, 8, &r) && r.entry.config.tile.blocks == 1);
        CHECK(r.source == PRNN_CONFIG_USER_DB);
        prnn_tuning_db_free(&b);
        test_entry(&s, 1536, 8, 2);
        test_db_of(&b, &s, 1);
        CHECK(found(&a, &b, 1024, 8, &r) && r.entry.config.tile.blocks == 2);
        CHECK(r.source == PRNN_CONFIG_SHIPPED_DB && r.exact == 0);
        prnn_tuning_db_free(&a);
        prnn_tuning_db_free(&b);
    }
    {
        /* the cut-off: cost 4 is used, beyond it is not */
        prnn_tuning_entry e;
        test_entry(&e, 16384, 8, 1); /* 16x larger: cost 4 */
        test_db_of(&a, &e, 1);
        CHECK(found(&a, NULL, 1024, 8, &r) == 1 && r.cost == 4.0);
        CHECK(found(&a, NULL, 1000, 8, &r) == 0); /* cost 4.03 */
        CHECK(found(&a, NULL, 1024, 9, &r) == 0); /* 4 + log2(9/8) */
        prnn_tuning_db_free(&a);
        test_entry(&e, 512, 8, 1); /* smaller than the key: not used */
        test_db_of(&a, &e, 1);
        CHECK(found(&a, NULL, 512, 8, &r) == 1 && r.exact);
        CHECK(found(&a, NULL, 513, 8, &r) == 0);
        CHECK(found(&a, NULL, 256, 8, &r) == 1 && r.cost == 1.0);
        prnn_tuning_db_free(&a);
    }
}

/* SRU's scan: a nearest entry only within cost 1 (2x in batch or hidden). */
static void test_nearest_sru(void)
{
    prnn_tuning_entry e;
    test_entry(&e, 1024, 32, 1);
    e.mode = PRNN_SRU;
    snprintf(e.engine, sizeof(e.engine), "sru-scan");
    memset(&e.config, 0, sizeof(e.config));
    e.config.sru.threads = 128;
    e.config.sru.units_per_thread = 2;
    e.config.sru.steps_in_flight = 8;
    prnn_tuning_db a;
    test_db_of(&a, &e, 1);
    CHECK(a.count == 1);
    prnn_tuning_result r;
    prnn_tuning_key k = test_key(1024, 64); /* cost 1: used */
    k.rnn.mode = PRNN_SRU;
    CHECK(prnn_tuning_search(&a, NULL, &k, NULL, NULL, &r) == 1 && r.cost == 1.0 &&
          r.entry.config.sru.units_per_thread == 2);
    k.rnn.mini_batch = 16; /* cost 1 the other way */
    CHECK(prnn_tuning_search(&a, NULL, &k, NULL, NULL, &r) == 1);
    k.rnn.mini_batch = 128; /* cost 2: a tile's entry would be used, an SRU one is not */
    CHECK(prnn_tuning_search(&a, NULL, &k, NULL, NULL, &r) == 0);
    k.rnn.mini_batch = 32;
    k.rnn.hidden = 2048; /* the entry smaller: never */
    CHECK(prnn_tuning_search(&a, NULL, &k, NULL, NULL, &r) == 0);
    prnn_tuning_db_free(&a);
}

static int found_pass(const prnn_tuning_db *user, const prnn_tuning_db *shipped, prnn_pass pass,
                      int hidden, int batch, prnn_tuning_result *r)
{
    prnn_tuning_key k = test_key(hidden, batch);
    k.pass = pass;
    memset(r, 0, sizeof(*r));
    return prnn_tuning_search(user, shipped, &k, NULL, NULL, r);
}

/* A key finds entries of its own pass only, exact and nearest alike, in
 * either database, even where the other pass has a closer entry. */
static void test_passes_apart(void)
{
    const prnn_pass fwd = PRNN_PASS_FORWARD, bwd = PRNN_PASS_BACKWARD_DATA;
    prnn_tuning_entry u[2], s[2];
    test_entry(&u[0], 1024, 8, 1); /* forward */
    test_entry(&u[1], 1024, 8, 2); /* the same shape, backward-data */
    u[1].pass = bwd;
    test_entry(&s[0], 4096, 8, 3); /* forward */
    test_entry(&s[1], 2048, 8, 4); /* backward-data */
    s[1].pass = bwd;
    /* messages about a candidate name its pass, unless it is forward */
    char desc[400];
    prnn_tuning_entry_describe(&u[1], desc, sizeof(desc));
    CHECK(strcmp(desc,
                 "lstm half hidden 1024 dirs 1 batch 8 backward-data on Test GPU (8.6, 84 SMs)") ==
          0);
    prnn_tuning_entry_describe(&u[0], desc, sizeof(desc));
    CHECK(strcmp(desc, "lstm half hidden 1024 dirs 1 batch 8 on Test GPU (8.6, 84 SMs)") == 0);
    prnn_tuning_db user, shipped;
    test_db_of(&user, u, 2);
    test_db_of(&shipped, s, 2);
    prnn_tuning_result r;

    /* exact: the same shape in both passes, each found by its own key */
    CHECK(found_pass(&user, &shipped, fwd, 1024, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 1 && r.exact == 1 && r.entry.pass == fwd);
    CHECK(found_pass(&user, &shipped, bwd, 1024, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 2 && r.exact == 1 && r.entry.pass == bwd);
    /* an exact entry of the other pass is not even a nearest one */
    CHECK(found_pass(NULL, &shipped, fwd, 2048, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 3 && r.exact == 0);
    /* nearest: the other pass holds the closest entry (2048 costs 0.42,
     * the forward 4096 1.42) */
    CHECK(found_pass(&user, &shipped, fwd, 1536, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 3 && r.exact == 0 && r.entry.pass == fwd);
    /* the forward 4096 is the only entry at least as large: no match */
    CHECK(found_pass(&user, &shipped, bwd, 3072, 8, &r) == 0);
    /* equal cost across passes: file order would pick the forward u[0] */
    CHECK(found_pass(&user, NULL, bwd, 512, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 2 && r.exact == 0);
    prnn_tuning_db_free(&user);
    prnn_tuning_db_free(&shipped);

    /* nothing of its pass at all: no match, whatever the other pass holds */
    test_db_of(&user, u, 1);
    CHECK(found_pass(&user, &user, bwd, 1024, 8, &r) == 0);
    CHECK(found_pass(&user, &user, bwd, 1536, 8, &r) == 0);
    prnn_tuning_db_free(&user);
    test_db_of(&shipped, &s[1], 1);
    CHECK(found_pass(&shipped, &shipped, fwd, 2048, 8, &r) == 0);
    CHECK(found_pass(&shipped, &shipped, fwd, 1536, 8, &r) == 0);
    prnn_tuning_db_free(&shipped);
}

static int found_bucket(const prnn_tuning_db *db, prnn_seq_bucket bucket, int hidden, int batch,
                        prnn_tuning_result *r)
{
    prnn_tuning_key k = test_key(hidden, batch);
    k.seq_bucket = bucket;
    memset(r, 0, sizeof(*r));
    return prnn_tuning_search(db, NULL, &k, NULL, NULL, r);
}

/* A key finds entries of its own sequence-length bucket only, exact and
 * nearest alike: an entry timed on one-step calls says nothing of long
 * ones, nor the other way round. */
static void test_buckets_apart(void)
{
    prnn_tuning_entry e[4];
    test_entry(&e[0], 1024, 8, 1); /* every length */
    test_entry(&e[1], 1024, 8, 2);
    e[1].max_seq_length = 1;
    test_entry(&e[2], 2048, 8, 3);
    e[2].max_seq_length = 24;
    test_entry(&e[3], 4096, 8, 4);
    prnn_tuning_db db;
    test_db_of(&db, e, 4);
    prnn_tuning_result r;
    CHECK(found_bucket(&db, PRNN_SEQ_BUCKET_ANY, 1024, 8, &r) == 1);
    CHECK(r.exact && r.entry.config.tile.blocks == 1 && r.entry.max_seq_length == 0);
    CHECK(found_bucket(&db, PRNN_SEQ_BUCKET_ONE, 1024, 8, &r) == 1);
    CHECK(r.exact && r.entry.config.tile.blocks == 2 && r.entry.max_seq_length == 1);
    /* nearest within the bucket: the short entry at 2048, not the closer
     * every-length one */
    CHECK(found_bucket(&db, PRNN_SEQ_BUCKET_SHORT, 1024, 8, &r) == 1);
    CHECK(!r.exact && r.entry.config.tile.blocks == 3 && r.entry.max_seq_length == 24);
    /* every length's nearest skips the buckets' entries (2048 is short) */
    CHECK(found_bucket(&db, PRNN_SEQ_BUCKET_ANY, 1536, 8, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 4);
    /* nothing of the bucket that may stand for the shape */
    CHECK(found_bucket(&db, PRNN_SEQ_BUCKET_ONE, 1536, 8, &r) == 0);
    CHECK(found_bucket(&db, PRNN_SEQ_BUCKET_SHORT, 4096, 8, &r) == 0);
    /* the distance says so too */
    prnn_tuning_key k = test_key(1024, 8);
    CHECK(prnn_tuning_distance(&e[1], &k) == HUGE_VAL);
    k.seq_bucket = PRNN_SEQ_BUCKET_ONE;
    CHECK(prnn_tuning_distance(&e[1], &k) == 0.0);
    CHECK(prnn_tuning_distance(&e[0], &k) == HUGE_VAL);
    prnn_tuning_db_free(&db);
}

/* Accepts (returns 0 for) only configurations whose blocks are in ctx's
 * list, as the planner's check does: 0 fits, -1 does not. */
static int fits_blocks(const prnn_tuning_entry *e, const void *ctx, char *why, size_t why_size)
{
    for (const int *ok = ctx; *ok; ok++)
        if (e->config.tile.blocks == *ok)
            return 0;
    snprintf(why, why_size, "%d blocks cannot be co-resident", e->config.tile.blocks);
    return -1;
}

/* Rejects everything without saying why: the log still names the entry. */
static int fits_nothing(const prnn_tuning_entry *e, const void *ctx, char *why, size_t why_size)
{
    (void)e;
    (void)ctx;
    (void)why;
    (void)why_size;
    return 1;
}

static void test_fits(void)
{
    prnn_tuning_entry u[2], s[2];
    test_entry(&u[0], 1024, 8, 1); /* user exact */
    test_entry(&u[1], 1024, 8, 2); /* user exact, wider range */
    u[1].batch_min = 1;
    u[1].batch_max = 32;
    test_entry(&s[0], 1024, 8, 3); /* shipped exact */
    test_entry(&s[1], 2048, 8, 4); /* nearest */
    prnn_tuning_db user, shipped;
    test_db_of(&user, u, 2);
    test_db_of(&shipped, s, 2);
    prnn_tuning_key k = test_key(1024, 8);
    prnn_tuning_result r;

    static const int only2[] = {2, 0}, only3[] = {3, 0}, only4[] = {4, 0}, none[] = {0};
    prnn_log_clear();
    CHECK(prnn_tuning_search(&user, &shipped, &k, fits_blocks, only2, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 2 && r.source == PRNN_CONFIG_USER_DB);
    CHECK_LOG("test DB: entries[0] (lstm half hidden 1024 dirs 1 batch 8 on Test GPU (8.6, 84 "
              "SMs)) skipped: config persistent: blocks=1 threads=256");
    CHECK_LOG("does not fit this device or layer: 1 blocks cannot be co-resident");

    prnn_log_clear();
    CHECK(prnn_tuning_search(&user, &shipped, &k, fits_blocks, only3, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 3 && r.source == PRNN_CONFIG_SHIPPED_DB);
    CHECK(r.exact == 1);
    CHECK_LOG("config persistent: blocks=2 ");

    prnn_log_clear();
    CHECK(prnn_tuning_search(&user, &shipped, &k, fits_blocks, only4, &r) == 1);
    CHECK(r.entry.config.tile.blocks == 4 && r.exact == 0);

    prnn_log_clear();
    memset(&r, 0x5a, sizeof(r));
    prnn_tuning_result before = r;
    CHECK(prnn_tuning_search(&user, &shipped, &k, fits_blocks, none, &r) == 0);
    CHECK(memcmp(&r, &before, sizeof(r)) == 0); /* untouched on a miss */
    CHECK_LOG("config persistent: blocks=4 ");
    /* every candidate offered once: 4 rejections */
    const char *log = prnn_log_get();
    int lines = 0;
    for (const char *p = log; (p = strstr(p, "does not fit")); p++)
        lines++;
    CHECK(lines == 4);

    prnn_log_clear();
    CHECK(prnn_tuning_search(&user, &shipped, &k, fits_nothing, NULL, &r) == 0);
    CHECK_LOG("does not fit this device or layer\n");

    prnn_tuning_db_free(&user);
    prnn_tuning_db_free(&shipped);
}

int main(void)
{
    test_overlay_order();
    test_exact_rules();
    test_same_gpu_only();
    test_sibling_exact_before_own_nearest();
    test_distance();
    test_nearest_rules();
    test_nearest_sru();
    test_passes_apart();
    test_buckets_apart();
    test_fits();
    return test_finish("tuning-search: user before shipped, exact before nearest, tie-breaks, the "
                       "fits callback, passes kept apart");
}
