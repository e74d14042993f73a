/*
 * libFuzzer target for the tuning-DB parser. Beyond "no crash, no leak, no
 * undefined behaviour" it checks three properties on every input:
 *  - every entry the parser accepts passes prnn_tuning_entry_check;
 *  - the search over the result terminates and returns an entry that exists,
 *    of the key's pass;
 *  - format(parse(x)) parses back to the same entries, with no complaint;
 *  - no input reads as "out of memory" (nothing here runs out): the
 *    allocation-free syntax check that tells cJSON's out-of-memory from a
 *    malformed file never passes a text cJSON rejects.
 * Built and run by run_fuzz.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "tuning/tuning_db.h"

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_tuning_db: property failed: %s\n", #cond);                       \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Rejects every other configuration, so the fall-through paths run too. */
static int fits_even_blocks(const prnn_tuning_entry *e, const void *ctx, char *why, size_t why_size)
{
    (void)ctx;
    if (e->config.tile.blocks % 2 == 0)
        return 0;
    snprintf(why, why_size, "odd");
    return -1;
}

/* Field by field: struct copies need not preserve padding bytes. */
static int same_entry(const prnn_tuning_entry *a, const prnn_tuning_entry *b)
{
    return prnn_tuning_entry_same_key(a, b) && a->max_seq_length == b->max_seq_length &&
           strcmp(a->engine, b->engine) == 0 &&
           memcmp(&a->config, &b->config, sizeof(a->config)) == 0 &&
           a->us_per_step == b->us_per_step && strcmp(a->source, b->source) == 0;
}

static int in_db(const prnn_tuning_db *db, const prnn_tuning_entry *e)
{
    for (size_t i = 0; i < db->count; i++)
        if (same_entry(&db->items[i].entry, e))
            return 1;
    return 0;
}

static void search_around(const prnn_tuning_db *db, const prnn_tuning_entry *e)
{
    static const int scale[][2] = {{1, 1}, {2, 1}, {1, 3}, {-2, 1}, {1, -5}};
    for (size_t s = 0; s < sizeof(scale) / sizeof(scale[0]); s++) {
        prnn_tuning_key k;
        memset(&k, 0, sizeof(k));
        k.gpu_name = e->gpu_name;
        k.cc_major = e->cc_major;
        k.cc_minor = e->cc_minor;
        k.sm_count = e->sm_count;
        k.rnn.mode = e->mode;
        k.rnn.dtype = e->dtype;
        k.rnn.hidden = scale[s][0] > 0 ? e->hidden * scale[s][0] : e->hidden / -scale[s][0];
        k.rnn.dirs = e->directions;
        k.rnn.mini_batch = scale[s][1] > 0 ? e->batch_min * scale[s][1]
                                           : e->batch_min / -scale[s][1];
        k.pass = e->pass;
        k.seq_bucket = prnn_seq_bucket_of(e->max_seq_length);
        prnn_tuning_result r;
        /* a match is of the key's pass and sequence-length bucket */
        if (prnn_tuning_search(db, db, &k, NULL, NULL, &r))
            REQUIRE(in_db(db, &r.entry) && r.cost <= 4.0 + 1e-9 && r.entry.pass == k.pass &&
                    prnn_seq_bucket_of(r.entry.max_seq_length) == k.seq_bucket);
        if (prnn_tuning_search(db, NULL, &k, fits_even_blocks, NULL, &r))
            REQUIRE(in_db(db, &r.entry) && r.entry.config.tile.blocks % 2 == 0 &&
                    r.entry.pass == k.pass &&
                    prnn_seq_bucket_of(r.entry.max_seq_length) == k.seq_bucket);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prnn_tuning_db db = {0};
    prnn_log_clear();
    prnn_tuning_db_parse(&db, (const char *)data, size, "fuzz");
    REQUIRE(!db.out_of_memory);

    prnn_tuning_entry *all = malloc((db.count ? db.count : 1) * sizeof(*all));
    REQUIRE(all != NULL);
    for (size_t i = 0; i < db.count; i++) {
        char err[256];
        REQUIRE(prnn_tuning_entry_check(&db.items[i].entry, err, sizeof(err)) == 0);
        all[i] = db.items[i].entry;
    }
    for (size_t i = 0; i < db.count && i < 8; i++)
        search_around(&db, &db.items[i].entry);

    char *text = prnn_tuning_db_format(all, db.count);
    REQUIRE(text != NULL);
    prnn_tuning_db again = {0};
    prnn_log_clear();
    REQUIRE(prnn_tuning_db_parse(&again, text, strlen(text), "again") == 0);
    REQUIRE(again.count == db.count && again.entries_skipped == 0);
    REQUIRE(prnn_log_get()[0] == '\0');
    for (size_t i = 0; i < db.count; i++)
        REQUIRE(same_entry(&again.items[i].entry, &all[i]));

    prnn_tuning_db_free(&again);
    free(text);
    free(all);
    prnn_tuning_db_free(&db);
    return 0;
}
