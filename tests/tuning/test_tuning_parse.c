/*
 * Parsing the tuning DB: a valid file, then every malformed case the schema
 * knows, each either ignoring the whole file or skipping one entry with a
 * log line that names the problem; the writer's text reading back the same.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "tuning_test.h"

static const char *const entry_template =
    "{\"gpu\": {\"name\": \"Test GPU\", \"cc\": \"8.6\", \"sm_count\": 84}, \"mode\": \"lstm\", "
    "\"dtype\": \"half\", \"hidden\": 1024, \"directions\": 1, \"batch\": 8, \"config\": "
    "{\"blocks\": 64, \"threads\": 256, \"ksplit\": 8, \"lanes_k\": 1, \"batch_chunk\": 8, "
    "\"reg_slots\": 128, \"smem_slots\": 0, \"mma\": 1, \"handoff\": 0}, \"us_per_step\": 1.23, "
    "\"source\": \"unit test\"}";

static const char *const valid_file =
    "{\n"
    "  \"schema_version\": 1,\n"
    "  \"note\": \"unknown top-level keys are ignored\",\n"
    "  \"entries\": [\n"
    "    {\"gpu\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"cc\": \"9.0\", \"sm_count\": 132},\n"
    "     \"mode\": \"lstm\", \"dtype\": \"half\", \"hidden\": 1024, \"directions\": 1, \"batch\": "
    "8,\n"
    "     \"config\": {\"blocks\": 64, \"threads\": 256, \"ksplit\": 8, \"lanes_k\": 1, "
    "\"batch_chunk\": 8, \"reg_slots\": 128, \"smem_slots\": 0, \"mma\": 1, \"handoff\": 0},\n"
    "     \"us_per_step\": 1.23, \"source\": \"prnn-autotune 0.1.0\"},\n"
    "    {\"gpu\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"cc\": \"9.0\", \"sm_count\": 132},\n"
    "     \"mode\": \"gru\", \"dtype\": \"float\", \"hidden\": 512, \"directions\": 2, \"batch\": "
    "{\"min\": 9, \"max\": 16},\n"
    "     \"config\": {\"handoff\": 1, \"mma\": 0, \"smem_slots\": 64, \"reg_slots\": 32, "
    "\"batch_chunk\": 4, \"lanes_k\": 4, \"ksplit\": 2, \"threads\": 128, \"blocks\": 16},\n"
    "     \"us_per_step\": 2.5e-1, \"note\": \"no source, an extra key\"},\n"
    "    {\"gpu\": {\"name\": \"NVIDIA GeForce RTX 4090\", \"cc\": \"8.9\", \"sm_count\": 128},\n"
    "     \"mode\": \"relu\", \"dtype\": \"bfloat16\", \"hidden\": 1, \"directions\": 1, "
    "\"batch\": 1048576, \"pass\": \"backward-data\",\n"
    "     \"config\": {\"blocks\": 1, \"threads\": 32, \"ksplit\": 1, \"lanes_k\": 1, "
    "\"batch_chunk\": 1, \"reg_slots\": 0, \"smem_slots\": 0, \"mma\": 1, \"handoff\": 0},\n"
    "     \"us_per_step\": 7, \"source\": \"\"}\n"
    "  ]\n"
    "}\n";

static void test_valid_file(void)
{
    prnn_tuning_db db;
    prnn_log_clear();
    CHECK(test_parse(&db, valid_file) == 0);
    CHECK(db.count == 3);
    CHECK(db.entries_skipped == 0 && db.files_rejected == 0);
    CHECK(prnn_log_get()[0] == '\0');
    if (db.count == 3) {
        const prnn_tuning_entry *a = &db.items[0].entry;
        CHECK(strcmp(a->gpu_name, "NVIDIA H100 80GB HBM3") == 0);
        CHECK(a->cc_major == 9 && a->cc_minor == 0 && a->sm_count == 132);
        CHECK(a->mode == PRNN_LSTM && a->dtype == PRNN_DATA_HALF);
        CHECK(a->hidden == 1024 && a->directions == 1);
        CHECK(a->batch_min == 8 && a->batch_max == 8);
        CHECK(a->pass == PRNN_PASS_FORWARD); /* absent: forward */
        CHECK(a->config.tile.blocks == 64 && a->config.tile.threads == 256);
        CHECK(a->config.tile.ksplit == 8 && a->config.tile.lanes_k == 1);
        CHECK(a->config.tile.batch_chunk == 8 && a->config.tile.reg_slots == 128);
        CHECK(a->config.tile.smem_slots == 0 && a->config.tile.mma == 1);
        CHECK(a->config.tile.handoff == 0);
        CHECK(a->config.tile.batch_groups == 1); /* absent: an optional field's default */
        CHECK(a->us_per_step == 1.23);
        CHECK(strcmp(a->source, "prnn-autotune 0.1.0") == 0);
        const prnn_tuning_entry *b = &db.items[1].entry;
        CHECK(b->mode == PRNN_GRU && b->dtype == PRNN_DATA_FLOAT);
        CHECK(b->directions == 2 && b->batch_min == 9 && b->batch_max == 16);
        CHECK(b->config.tile.blocks == 16 && b->config.tile.lanes_k == 4);
        CHECK(b->config.tile.smem_slots == 64 && b->config.tile.handoff == 1);
        CHECK(b->us_per_step == 0.25 && b->source[0] == '\0');
        CHECK(db.items[1].index == 1);
        const prnn_tuning_entry *c = &db.items[2].entry;
        CHECK(c->mode == PRNN_RNN_RELU && c->dtype == PRNN_DATA_BFLOAT16);
        CHECK(c->cc_major == 8 && c->cc_minor == 9);
        CHECK(c->hidden == 1 && c->batch_min == 1048576);
        CHECK(c->pass == PRNN_PASS_BACKWARD_DATA);
        CHECK(b->pass == PRNN_PASS_FORWARD);
        CHECK(strcmp(db.origins[db.items[2].origin], "test DB") == 0);
    }
    prnn_tuning_db_free(&db);
    CHECK(db.items == NULL && db.count == 0);

    /* Two files merge into one database, each entry keeping its origin. */
    memset(&db, 0, sizeof(db));
    CHECK(prnn_tuning_db_parse(&db, valid_file, strlen(valid_file), "a") == 0);
    CHECK(prnn_tuning_db_parse(&db, valid_file, strlen(valid_file), "b") == 0);
    CHECK(db.count == 6 && db.n_origins == 2);
    if (db.count == 6)
        CHECK(strcmp(db.origins[db.items[5].origin], "b") == 0);
    prnn_tuning_db_free(&db);

    /* An empty entries array is a valid, empty database. */
    prnn_log_clear();
    CHECK(test_parse(&db, "{\"schema_version\": 1, \"entries\": []}") == 0);
    CHECK(db.count == 0 && prnn_log_get()[0] == '\0');
    prnn_tuning_db_free(&db);
}

typedef struct {
    const char *text;
    const char *message;
} file_case;

static void test_file_level(void)
{
    static const file_case cases[] = {
        {"", "the file is empty"},
        {"not json at all", "not valid JSON: syntax error at line 1"},
        {"{\"schema_version\": 1,\n\"entries\": [ }", "syntax error at line 2"},
        {"{\"schema_version\": 1, \"entries\": [", "ends early"},
        {"[]", "the top level is an array, not an object"},
        {"42", "the top level is a number"},
        {"\"text\"", "the top level is a string"},
        {"null", "the top level is null"},
        {"true", "the top level is a boolean"},
        {"{}", "no \"schema_version\""},
        {"{\"entries\": []}", "no \"schema_version\""},
        {"{\"schema_version\": \"1\", \"entries\": []}",
         "\"schema_version\" is a string, not an integer"},
        {"{\"schema_version\": 1.5, \"entries\": []}", "not an integer"},
        {"{\"schema_version\": null, \"entries\": []}", "is null"},
        {"{\"schema_version\": 2, \"entries\": []}",
         "schema_version 2 is not supported (this prnn reads schema_version 1)"},
        {"{\"schema_version\": 0, \"entries\": []}", "schema_version 0 is not"},
        {"{\"schema_version\": -1, \"entries\": []}", "schema_version -1 is not"},
        {"{\"schema_version\": 1e999, \"entries\": []}", "is not supported"},
        {"{\"schema_version\": 1, \"schema_version\": 1, \"entries\": []}",
         "\"schema_version\" given twice"},
        {"{\"schema_version\": 1}", "no \"entries\" array"},
        {"{\"schema_version\": 1, \"entries\": {}}", "\"entries\" is an object, not an array"},
        {"{\"schema_version\": 1, \"entries\": \"x\"}", "is a string"},
        {"{\"schema_version\": 1, \"entries\": null}", "is null"},
        {"{\"schema_version\": 1, \"entries\": [], \"entries\": []}", "\"entries\" given twice"},
        {"{\"schema_version\": 1, \"entries\": []} trailing",
         "unexpected data after the JSON value at line 1, column 38"},
        {"{\"schema_version\": 1, \"entries\": []}{}", "unexpected data"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        prnn_tuning_db db;
        prnn_log_clear();
        int rc = test_parse(&db, cases[i].text);
        if (rc != -1 || db.count != 0 || db.files_rejected != 1)
            fprintf(stderr, "file case %zu (%s) was not rejected\n", i, cases[i].text);
        CHECK(rc == -1 && db.count == 0 && db.files_rejected == 1);
        CHECK_LOG("test DB: ignored: ");
        CHECK_LOG(cases[i].message);
        prnn_tuning_db_free(&db);
    }

    /* An embedded NUL ends the text: what follows is trailing data. */
    static const char nul[] = "{\"schema_version\": 1, \"entries\": []}\0{}";
    prnn_tuning_db db = {0};
    prnn_log_clear();
    CHECK(prnn_tuning_db_parse(&db, nul, sizeof(nul) - 1, "nul") == -1);
    CHECK_LOG("unexpected data");
    prnn_tuning_db_free(&db);

    /* NULL text is an empty file, not a crash. */
    CHECK(prnn_tuning_db_parse(&db, NULL, 5, NULL) == -1);
    prnn_tuning_db_free(&db);
}

/* Every prefix of a valid file: a truncated write must never crash, and
 * nothing but the complete file (give or take its final newline) parses. */
static void test_truncated(void)
{
    size_t len = strlen(valid_file);
    size_t accepted = 0;
    for (size_t n = 0; n < len; n++) {
        prnn_tuning_db db = {0};
        prnn_log_clear();
        if (prnn_tuning_db_parse(&db, valid_file, n, "truncated") == 0)
            accepted++;
        else
            CHECK(db.count == 0);
        prnn_tuning_db_free(&db);
    }
    CHECK(accepted == 1); /* only the prefix missing just the last '\n' */
}

typedef struct {
    const char *path;  /* dotted path of the member to change */
    const char *value; /* JSON text of the new value; NULL deletes it */
} mutation;

typedef struct {
    mutation m[2];
    const char *message;
} entry_case;

static cJSON *find_parent(cJSON *root, const char *path, const char **last)
{
    const char *dot;
    cJSON *obj = root;
    char part[64];
    while ((dot = strchr(path, '.')) != NULL) {
        snprintf(part, sizeof(part), "%.*s", (int)(dot - path), path);
        obj = cJSON_GetObjectItemCaseSensitive(obj, part);
        path = dot + 1;
    }
    *last = path;
    return obj;
}

/* A file holding [valid, mutated, valid with another hidden size]. */
static char *file_with_mutated_entry(const mutation *m, size_t n)
{
    cJSON *entry = cJSON_Parse(entry_template);
    for (size_t i = 0; i < n && m[i].path; i++) {
        const char *last;
        cJSON *parent = find_parent(entry, m[i].path, &last);
        if (!parent) {
            fprintf(stderr, "bad mutation path %s\n", m[i].path);
            exit(1);
        }
        cJSON_DeleteItemFromObjectCaseSensitive(parent, last);
        if (m[i].value) {
            /* Raw: the text goes in verbatim (1e999 must stay 1e999). */
            cJSON_AddItemToObject(parent, last, cJSON_CreateRaw(m[i].value));
        }
    }
    char *mutated = cJSON_PrintUnformatted(entry);
    cJSON_Delete(entry);
    size_t size = strlen(mutated) + 3 * strlen(entry_template) + 100;
    char *text = malloc(size);
    char second[1024];
    snprintf(second, sizeof(second), "%s", entry_template);
    char *h = strstr(second, "1024");
    memcpy(h, "2048", 4);
    snprintf(text, size, "{\"schema_version\": 1, \"entries\": [%s,\n%s,\n%s]}", entry_template,
             mutated, second);
    free(mutated);
    return text;
}

static void run_entry_case(const entry_case *c)
{
    char *text = file_with_mutated_entry(c->m, 2);
    prnn_tuning_db db;
    prnn_log_clear();
    int rc = test_parse(&db, text);
    int ok = rc == 0 && db.count == 2 && db.entries_skipped == 1;
    if (!ok)
        fprintf(stderr, "entry case %s=%s: rc %d, %zu entries, %zu skipped\n", c->m[0].path,
                c->m[0].value ? c->m[0].value : "(deleted)", rc, db.count, db.entries_skipped);
    CHECK(ok);
    if (db.count == 2) {
        CHECK(db.items[0].entry.hidden == 1024 && db.items[0].index == 0);
        CHECK(db.items[1].entry.hidden == 2048 && db.items[1].index == 2);
    }
    CHECK_LOG("test DB: entries[1] skipped: ");
    CHECK_LOG(c->message);
    prnn_tuning_db_free(&db);
    free(text);
}

static void test_missing_fields(void)
{
    static const char *const fields[] = {
        "gpu",    "gpu.name",   "gpu.cc", "gpu.sm_count", "mode",        "dtype",
        "hidden", "directions", "batch",  "config",       "us_per_step",
    };
    char message[128];
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        entry_case c = {{{fields[i], NULL}, {NULL, NULL}}, message};
        snprintf(message, sizeof(message), "missing field \"%s\"", fields[i]);
        run_entry_case(&c);
    }
    for (const prnn_tile_field *f = prnn_tile_fields; f->name; f++) {
        if (f->optional)
            continue; /* test_optional_fields */
        char path[64];
        snprintf(path, sizeof(path), "config.%s", f->name);
        entry_case c = {{{path, NULL}, {NULL, NULL}}, message};
        snprintf(message, sizeof(message), "missing field \"%s\"", path);
        run_entry_case(&c);
    }
    entry_case c = {{{"batch", "{\"max\": 4}"}, {NULL, NULL}}, "missing field \"batch.min\""};
    run_entry_case(&c);
    entry_case d = {{{"batch", "{\"min\": 4}"}, {NULL, NULL}}, "missing field \"batch.max\""};
    run_entry_case(&d);
}

/* An optional config field may be absent (its default) or given; out of
 * range it is refused like any other. */
static void test_optional_fields(void)
{
    mutation m = {"config.batch_groups", "4"};
    char *text = file_with_mutated_entry(&m, 1);
    prnn_tuning_db db;
    prnn_log_clear();
    CHECK(test_parse(&db, text) == 0 && db.count == 3);
    if (db.count == 3) {
        CHECK(db.items[1].entry.config.tile.batch_groups == 4);
        CHECK(db.items[0].entry.config.tile.batch_groups == 1);
    }
    prnn_tuning_db_free(&db);
    free(text);
    static const entry_case cases[] = {
        {{{"config.batch_groups", "0"}}, "\"config.batch_groups\" = 0: must be in [1, 1024]"},
        {{{"config.batch_groups", "\"2\""}}, "\"config.batch_groups\" is a string"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_entry_case(&cases[i]);
}

/* The file of [valid, valid with m, another] parsed with no complaint: 1
 * with db holding the three (entries 0 and 1 have the same shape), else 0.
 * The caller frees db either way. */
static int parse_mutations_quietly(const mutation *m, int count, prnn_tuning_db *db)
{
    char *text = file_with_mutated_entry(m, count);
    prnn_log_clear();
    const int ok = test_parse(db, text) == 0 && db->count == 3;
    if (!ok)
        fprintf(stderr, "parse_quietly %s=%s: %s\n", m->path, m->value ? m->value : "(deleted)",
                prnn_log_get());
    CHECK(ok);
    CHECK(prnn_log_get()[0] == '\0');
    free(text);
    return ok;
}

static int parse_quietly(const mutation *m, prnn_tuning_db *db)
{
    return parse_mutations_quietly(m, 1, db);
}

/* "pass" may be absent (forward, as in every file written before passes),
 * "forward" or "backward-data"; the same shape in both passes is two keys,
 * both kept. */
static void test_pass_field(void)
{
    static const struct {
        const char *value;
        prnn_pass pass;
    } cases[] = {
        {NULL, PRNN_PASS_FORWARD},
        {"\"forward\"", PRNN_PASS_FORWARD},
        {"\"backward-data\"", PRNN_PASS_BACKWARD_DATA},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        mutation m = {"pass", cases[i].value};
        prnn_tuning_db db;
        if (parse_quietly(&m, &db)) {
            /* entries 0 and 1 have the same shape; only 1 may name a pass */
            const prnn_tuning_entry *a = &db.items[0].entry, *b = &db.items[1].entry;
            CHECK(a->pass == PRNN_PASS_FORWARD);
            CHECK(b->pass == cases[i].pass);
            CHECK(prnn_tuning_entry_same_key(a, b) == (cases[i].pass == PRNN_PASS_FORWARD));
        }
        prnn_tuning_db_free(&db);
    }
}

/* "max_seq_length" may be absent (every length, as before buckets), 1 (the
 * one-step bucket) or 16..64 (the short bucket): the bucket is part of the
 * key, the length within the short bucket is not; a forward or
 * backward-data entry has one, an sru entry none, and the writer puts it
 * after the pass, only where it is set. */
static void test_max_seq_length_field(void)
{
    static const struct {
        const char *value;
        int max_seq;
        prnn_seq_bucket bucket;
    } cases[] = {
        {NULL, 0, PRNN_SEQ_BUCKET_ANY},
        {"1", 1, PRNN_SEQ_BUCKET_ONE},
        {"16", 16, PRNN_SEQ_BUCKET_SHORT},
        {"64", 64, PRNN_SEQ_BUCKET_SHORT},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        mutation m = {"max_seq_length", cases[i].value};
        prnn_tuning_db db;
        if (parse_quietly(&m, &db)) {
            const prnn_tuning_entry *a = &db.items[0].entry, *b = &db.items[1].entry;
            CHECK(a->max_seq_length == 0 && b->max_seq_length == cases[i].max_seq);
            CHECK(prnn_seq_bucket_of(b->max_seq_length) == cases[i].bucket);
            CHECK(prnn_tuning_entry_same_key(a, b) == (cases[i].bucket == PRNN_SEQ_BUCKET_ANY));
            /* written back the same, after the batch */
            char *out = prnn_tuning_db_format(b, 1);
            char want[64];
            snprintf(want, sizeof(want), "\"batch\": 8, \"max_seq_length\": %d,", cases[i].max_seq);
            CHECK(out && (cases[i].max_seq ? strstr(out, want) != NULL
                                           : strstr(out, "max_seq_length") == NULL));
            free(out);
        }
        prnn_tuning_db_free(&db);
    }
    /* two short entries of one shape are one key, whatever lengths they say */
    prnn_tuning_entry x, y;
    test_entry(&x, 256, 8, 1);
    test_entry(&y, 256, 8, 2);
    x.max_seq_length = 16;
    y.max_seq_length = 40;
    CHECK(prnn_tuning_entry_same_key(&x, &y));
    y.max_seq_length = 1;
    CHECK(!prnn_tuning_entry_same_key(&x, &y));
    /* the bucket sorts after the pass, before the sizes */
    y.hidden = 128;
    CHECK(prnn_tuning_entry_compare(&y, &x) < 0);
    y.max_seq_length = 0;
    y.hidden = 512;
    CHECK(prnn_tuning_entry_compare(&y, &x) < 0);
    /* bad values */
    static const entry_case bad[] = {
        {{{"max_seq_length", "0"}}, "\"max_seq_length\" = 0: must be in [1, 64]"},
        {{{"max_seq_length", "2"}},
         "max_seq_length = 2: must be 1 (calls of one step) or in [16, 64] (short calls, timed at "
         "16 steps; absent: every length)"},
        {{{"max_seq_length", "15"}}, "max_seq_length = 15: must be 1"},
        {{{"max_seq_length", "65"}}, "\"max_seq_length\" = 65: must be in [1, 64]"},
        {{{"max_seq_length", "1.5"}}, "\"max_seq_length\" = 1.5 is not an integer"},
        {{{"max_seq_length", "\"1\""}}, "\"max_seq_length\" is a string, not an integer"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        run_entry_case(&bad[i]);
    /* a backward-data entry's bucket: its own key beside the forward's */
    mutation bm[] = {{"max_seq_length", "1"}, {"pass", "\"backward-data\""}};
    prnn_tuning_db bdb;
    if (parse_mutations_quietly(bm, 2, &bdb)) {
        const prnn_tuning_entry *b = &bdb.items[1].entry;
        CHECK(b->pass == PRNN_PASS_BACKWARD_DATA && b->max_seq_length == 1);
    }
    prnn_tuning_db_free(&bdb);
    /* an sru entry has none: its scan runs every length */
    prnn_tuning_entry sru;
    test_entry(&sru, 256, 8, 1);
    sru.mode = PRNN_SRU;
    snprintf(sru.engine, sizeof(sru.engine), "sru-scan");
    memset(&sru.config, 0, sizeof(sru.config));
    sru.config.sru = (prnn_sru_config){128, 1, 4};
    char why[256];
    EXPECT(prnn_tuning_entry_check(&sru, why, sizeof(why)) == 0, "sru entry: %s", why);
    sru.max_seq_length = 1;
    CHECK(prnn_tuning_entry_check(&sru, why, sizeof(why)) != 0 &&
          strcmp(why, "max_seq_length = 1: an sru entry has none (SRU's scan runs every length)") ==
              0);
    char desc[400];
    x.max_seq_length = 1;
    prnn_tuning_entry_describe(&x, desc, sizeof(desc));
    CHECK(strstr(desc, "batch 8 T<=1 on ") != NULL);
    prnn_seq_bucket bk;
    CHECK(prnn_seq_bucket_from_name("short", &bk) == 0 && bk == PRNN_SEQ_BUCKET_SHORT);
    CHECK(prnn_seq_bucket_from_name("long", &bk) == -1);
    CHECK(strcmp(prnn_seq_bucket_name(PRNN_SEQ_BUCKET_ONE), "one") == 0);
    CHECK(prnn_seq_bucket_name((prnn_seq_bucket)3) == NULL);
}

/* The text form ($PRNN_TILE, plan info): the same fields and rules. */
static void test_text_form(void)
{
    prnn_tile_config c, back;
    char err[160], text[256];
    CHECK(prnn_tile_config_parse("blocks=8 threads=256 ksplit=8 lanes_k=2 batch_chunk=4 "
                                 "reg_slots=16 smem_slots=0 mma=0 handoff=1",
                                 &c, err, sizeof(err)) == 0);
    CHECK(c.blocks == 8 && c.lanes_k == 2 && c.handoff == 1 && c.batch_groups == 1);
    c.batch_groups = 16;
    prnn_tile_config_format(&c, text, sizeof(text));
    CHECK(strstr(text, "batch_groups=16") != NULL);
    CHECK(prnn_tile_config_parse(text, &back, err, sizeof(err)) == 0);
    CHECK(memcmp(&c, &back, sizeof(c)) == 0);
    /* partial_sums: absent means 0, and 0 is not written (the forms of
     * every other tile stay as they were before the field) */
    CHECK(c.partial_sums == 0 && strstr(text, "partial_sums") == NULL);
    c.partial_sums = 1;
    prnn_tile_config_format(&c, text, sizeof(text));
    CHECK(strstr(text, "partial_sums=1") != NULL);
    CHECK(prnn_tile_config_parse(text, &back, err, sizeof(err)) == 0);
    CHECK(memcmp(&c, &back, sizeof(c)) == 0);
    static const char *const bad[][2] = {
        {"blocks=8 threads=256 ksplit=8 lanes_k=2 batch_chunk=4 reg_slots=16 smem_slots=0 mma=0",
         "field \"handoff\" missing"},
        {"blocks=8 blocks=8", "field \"blocks\" given twice"},
        {"batch_groups=0", "field \"batch_groups\" = 0: must be in [1, 1024]"},
        {"partial_sums=2", "field \"partial_sums\" = 2: must be in [0, 1]"},
        {"warps=4", "unknown field \"warps\""},
        {"blocks=x", "field \"blocks\": not an integer"},
        {"blocks", "expected name=value"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECK(prnn_tile_config_parse(bad[i][0], &c, err, sizeof(err)) == -1);
        if (!strstr(err, bad[i][1])) {
            fprintf(stderr, "text form \"%s\": got \"%s\", wanted \"%s\"\n", bad[i][0], err,
                    bad[i][1]);
            CHECK(0);
        }
    }
}

/* SRU entries: their config holds the scan's fields, not a tile's. */
static const char *const sru_entry =
    "{\"gpu\": {\"name\": \"Test GPU\", \"cc\": \"9.0\", \"sm_count\": 132}, \"mode\": \"sru\", "
    "\"dtype\": \"float\", \"hidden\": 1024, \"directions\": 2, \"batch\": 32, \"config\": "
    "{\"threads\": 256, \"units_per_thread\": 4, \"steps_in_flight\": 2}, \"us_per_step\": 31.5, "
    "\"source\": \"unit test\"}";

static void test_sru_entries(void)
{
    char text[2048];
    prnn_tuning_db db;
    snprintf(text, sizeof(text), "{\"schema_version\": 1, \"entries\": [%s, %s]}", sru_entry,
             entry_template);
    prnn_log_clear();
    CHECK(test_parse(&db, text) == 0 && db.count == 2 && db.entries_skipped == 0);
    if (db.count == 2) {
        const prnn_tuning_entry *e = &db.items[0].entry;
        CHECK(e->mode == PRNN_SRU && e->pass == PRNN_PASS_FORWARD);
        CHECK(e->config.sru.threads == 256 && e->config.sru.units_per_thread == 4 &&
              e->config.sru.steps_in_flight == 2);
        /* the writer's text reads back the same, with the scan's fields */
        char *out = prnn_tuning_db_format(e, 1);
        CHECK(
            out &&
            strstr(
                out,
                "\"config\": {\"threads\": 256, \"units_per_thread\": 4, \"steps_in_flight\": 2}"));
        prnn_tuning_db back;
        CHECK(out && test_parse(&back, out) == 0 && back.count == 1);
        if (back.count == 1)
            CHECK(memcmp(&back.items[0].entry.config.sru, &e->config.sru, sizeof(e->config.sru)) ==
                  0);
        prnn_tuning_db_free(&back);
        free(out);
    }
    prnn_tuning_db_free(&db);

    static const struct {
        const char *from, *to, *message;
    } bad[] = {
        {"\"steps_in_flight\": 2", "\"steps_in_flight\": 2, \"blocks\": 4",
         "unknown field \"config.blocks\""},
        {", \"steps_in_flight\": 2", "", "missing field \"config.steps_in_flight\""},
        {"\"threads\": 256", "\"threads\": 48", "config.threads = 48: must be a multiple of 32"},
        {"\"steps_in_flight\": 2", "\"steps_in_flight\": 33",
         "\"config.steps_in_flight\" = 33: must be in [1, 32]"},
        {"\"units_per_thread\": 4", "\"units_per_thread\": 9",
         "\"config.units_per_thread\" = 9: must be in [1, 8]"},
        {"\"batch\": 32", "\"batch\": 32, \"pass\": \"backward-data\"",
         "an SRU entry has pass forward"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char entry[1024];
        const char *at = strstr(sru_entry, bad[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        snprintf(entry, sizeof(entry), "%.*s%s%s", (int)(at - sru_entry), sru_entry, bad[i].to,
                 at + strlen(bad[i].from));
        snprintf(text, sizeof(text), "{\"schema_version\": 1, \"entries\": [%s, %s]}", entry,
                 entry_template);
        prnn_log_clear();
        CHECK(test_parse(&db, text) == 0 && db.count == 1 && db.entries_skipped == 1);
        CHECK_LOG("test DB: entries[0] skipped: ");
        CHECK_LOG(bad[i].message);
        prnn_tuning_db_free(&db);
    }

    /* the text form (PRNN_SRU_TILE, plan info) */
    prnn_sru_config c, back;
    char err[160], line[128];
    CHECK(prnn_config_parse(prnn_sru_fields, "threads=128 units_per_thread=2 steps_in_flight=4", &c,
                            sizeof(c), err, sizeof(err)) == 0);
    CHECK(c.threads == 128 && c.units_per_thread == 2 && c.steps_in_flight == 4);
    CHECK(prnn_sru_config_check(&c, err, sizeof(err)) == 0);
    prnn_config_format(prnn_sru_fields, &c, line, sizeof(line));
    CHECK(strcmp(line, "threads=128 units_per_thread=2 steps_in_flight=4") == 0);
    CHECK(prnn_config_parse(prnn_sru_fields, line, &back, sizeof(back), err, sizeof(err)) == 0 &&
          memcmp(&c, &back, sizeof(c)) == 0);
    CHECK(prnn_config_parse(prnn_sru_fields, "threads=128 upt=2 depth=4", &c, sizeof(c), err,
                            sizeof(err)) == -1 &&
          strstr(err, "unknown field \"upt\""));
    /* deep rings are the device's to refuse (shared memory, or registers
     * below sm_80: prnn_sru_config_fits_device), not the format's */
    c.units_per_thread = 8;
    c.steps_in_flight = 32;
    CHECK(prnn_sru_config_check(&c, err, sizeof(err)) == 0);
    c.steps_in_flight = 33;
    CHECK(prnn_sru_config_check(&c, err, sizeof(err)) == -1 && strstr(err, "must be in [1, 32]"));
}

static void test_bad_values(void)
{
    static const entry_case cases[] = {
        /* wrong types */
        {{{"gpu", "\"H100\""}}, "\"gpu\" is a string, not an object"},
        {{{"gpu.name", "5"}}, "\"gpu.name\" is a number, not a string"},
        {{{"gpu.cc", "9.0"}}, "\"gpu.cc\" is a number, not a string"},
        {{{"gpu.sm_count", "\"132\""}}, "\"gpu.sm_count\" is a string"},
        {{{"mode", "2"}}, "\"mode\" is a number, not a string"},
        {{{"dtype", "true"}}, "\"dtype\" is a boolean, not a string"},
        {{{"hidden", "\"1024\""}}, "\"hidden\" is a string, not an integer"},
        {{{"hidden", "null"}}, "\"hidden\" is null"},
        {{{"directions", "[1]"}}, "\"directions\" is an array"},
        {{{"batch", "\"8\""}}, "\"batch\" is a string, not an integer or"},
        {{{"batch", "[1, 2]"}}, "\"batch\" is an array"},
        {{{"batch", "{\"min\": \"1\", \"max\": 2}"}}, "\"batch.min\" is a string"},
        {{{"config", "[]"}}, "\"config\" is an array, not an object"},
        {{{"config.blocks", "\"64\""}}, "\"config.blocks\" is a string"},
        {{{"config.mma", "true"}}, "\"config.mma\" is a boolean"},
        {{{"us_per_step", "\"1.2\""}}, "\"us_per_step\" is a string"},
        {{{"source", "5"}}, "\"source\" is a number, not a string"},
        {{{"pass", "1"}}, "\"pass\" is a number, not a string"},
        {{{"pass", "null"}}, "\"pass\" is null, not a string"},
        {{{"pass", "[\"forward\"]"}}, "\"pass\" is an array, not a string"},
        /* values out of range or malformed */
        {{{"gpu.name", "\"\""}}, "\"gpu.name\" is empty"},
        {{{"gpu.cc", "\"9\""}}, "\"gpu.cc\" = \"9\": must look like"},
        {{{"gpu.cc", "\"9.0.1\""}}, "must look like"},
        {{{"gpu.cc", "\"0.5\""}}, "must look like"},
        {{{"gpu.cc", "\"x.y\""}}, "must look like"},
        {{{"gpu.cc", "\"123.0\""}}, "must look like"},
        {{{"gpu.sm_count", "0"}}, "\"gpu.sm_count\" = 0: must be in [1, 65535]"},
        {{{"gpu.sm_count", "1.5"}}, "\"gpu.sm_count\" = 1.5 is not an integer"},
        {{{"mode", "\"lstmx\""}}, "unknown mode \"lstmx\""},
        {{{"mode", "\"LSTM\""}}, "unknown mode \"LSTM\""},
        {{{"dtype", "\"fp16\""}}, "unknown dtype \"fp16\""},
        {{{"pass", "\"backward\""}}, "unknown pass \"backward\" (forward, backward-data)"},
        {{{"pass", "\"Forward\""}}, "unknown pass \"Forward\""},
        {{{"pass", "\"\""}}, "unknown pass \"\""},
        {{{"hidden", "0"}}, "\"hidden\" = 0: must be in [1, 1048576]"},
        {{{"hidden", "-5"}}, "\"hidden\" = -5: must be in"},
        {{{"hidden", "1e12"}}, "must be in [1, 1048576]"},
        {{{"hidden", "1024.5"}}, "\"hidden\" = 1024.5 is not an integer"},
        {{{"hidden", "1e999"}}, "is not an integer"},
        {{{"directions", "3"}}, "\"directions\" = 3: must be in [1, 2]"},
        {{{"batch", "0"}}, "\"batch\" = 0: must be in"},
        {{{"batch", "{\"min\": 16, \"max\": 9}"}}, "batch range min 16 > max 9"},
        {{{"batch", "{\"min\": 0, \"max\": 9}"}}, "\"batch.min\" = 0"},
        {{{"config.blocks", "0"}}, "\"config.blocks\" = 0: must be in [1, 4096]"},
        {{{"config.threads", "2048"}}, "\"config.threads\" = 2048: must be in"},
        {{{"config.reg_slots", "256"}}, "\"config.reg_slots\" = 256"},
        {{{"config.mma", "2"}}, "\"config.mma\" = 2: must be in [0, 1]"},
        {{{"config.handoff", "-1"}}, "\"config.handoff\" = -1"},
        {{{"config.unroll", "4"}}, "unknown field \"config.unroll\""},
        {{{"config.threads", "48"}}, "config.threads = 48: must be a multiple"},
        {{{"config.ksplit", "3"}}, "config.ksplit = 3: must divide the 8 warps"},
        {{{"config.lanes_k", "3"}, {"config.mma", "0"}},
         "config.lanes_k = 3: must be a power of two"},
        {{{"config.lanes_k", "2"}}, "must be 1 with the mma engine"},
        {{{"dtype", "\"float\""}}, "tensor cores are used for half and bfloat16"},
        {{{"us_per_step", "0"}}, "us_per_step = 0: must be a finite number > 0"},
        {{{"us_per_step", "-1.5"}}, "must be a finite number > 0"},
        {{{"us_per_step", "1e999"}}, "must be a finite number > 0"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_entry_case(&cases[i]);

    /* Not an object at all. */
    static const char *const not_objects[] = {"5", "null", "[]", "\"x\""};
    for (size_t i = 0; i < 4; i++) {
        char text[1024];
        snprintf(text, sizeof(text), "{\"schema_version\": 1, \"entries\": [%s, %s]}",
                 not_objects[i], entry_template);
        prnn_tuning_db db;
        prnn_log_clear();
        CHECK(test_parse(&db, text) == 0 && db.count == 1);
        CHECK_LOG("entries[0] skipped: is ");
        CHECK_LOG("not an object");
        prnn_tuning_db_free(&db);
    }

    /* Duplicated members (cJSON would silently take the first). */
    static const char *const dups[][2] = {
        {"\"hidden\": 1024,", "field \"hidden\" given twice"},
        {"\"config\": {\"blocks\": 1},", "field \"config\" given twice"},
        {"\"pass\": \"forward\", \"pass\": \"forward\",", "field \"pass\" given twice"},
    };
    for (size_t i = 0; i < sizeof(dups) / sizeof(dups[0]); i++) {
        char text[2048];
        snprintf(text, sizeof(text), "{\"schema_version\": 1, \"entries\": [{%s%s]}", dups[i][0],
                 entry_template + 1);
        prnn_tuning_db db;
        prnn_log_clear();
        CHECK(test_parse(&db, text) == 0 && db.count == 0);
        CHECK_LOG(dups[i][1]);
        prnn_tuning_db_free(&db);
    }
    char text[2048];
    const char *k = strstr(entry_template, "\"ksplit\": 8");
    snprintf(text, sizeof(text), "{\"schema_version\": 1, \"entries\": [%.*s\"ksplit\": 8, %s]}",
             (int)(k - entry_template), entry_template, k);
    prnn_tuning_db db;
    prnn_log_clear();
    CHECK(test_parse(&db, text) == 0 && db.count == 0);
    CHECK_LOG("field \"config.ksplit\" given twice");
    prnn_tuning_db_free(&db);
}

static void test_misc(void)
{
    /* A long source is cut (at a character boundary), not refused. */
    char src[400];
    memset(src, 'a', sizeof(src));
    memcpy(src + 254, "\xc3\xa9", 2); /* straddles the 255-byte limit */
    src[sizeof(src) - 1] = '\0';
    char value[512];
    snprintf(value, sizeof(value), "\"%s\"", src);
    mutation m = {"source", value};
    char *text = file_with_mutated_entry(&m, 1);
    prnn_tuning_db db;
    CHECK(test_parse(&db, text) == 0 && db.count == 3);
    if (db.count == 3)
        CHECK(strlen(db.items[1].entry.source) == 254);
    prnn_tuning_db_free(&db);
    free(text);

    /* A long GPU name is refused (it would never match a device). */
    char name[300];
    memset(name, 'n', sizeof(name));
    name[sizeof(name) - 1] = '\0';
    snprintf(value, sizeof(value), "\"%s\"", name);
    entry_case c = {{{"gpu.name", value}}, "\"gpu.name\" is longer than 255"};
    run_entry_case(&c);

    /* Untrusted text in messages is sanitized. */
    entry_case d = {{{"mode", "\"\\u0001\\n\\\"x\""}}, "unknown mode \"???x\""};
    run_entry_case(&d);

    /* Many bad entries: 20 messages, then a count. */
    size_t size = 40 * strlen(entry_template) + 100;
    char *many = malloc(size);
    strcpy(many, "{\"schema_version\": 1, \"entries\": [");
    for (int i = 0; i < 30; i++)
        strcat(many, i ? ", {}" : "{}");
    strcat(many, "]}");
    prnn_log_clear();
    CHECK(test_parse(&db, many) == 0 && db.entries_skipped == 30);
    CHECK_LOG("entries[19] skipped");
    CHECK(strstr(prnn_log_get(), "entries[20] skipped") == NULL);
    CHECK_LOG("test DB: 10 more entries skipped");
    prnn_tuning_db_free(&db);
    free(many);
}

static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* format(parse(x)) reads back as the same entries. */
static void test_format_round_trip(void)
{
    prnn_tuning_db a, b;
    CHECK(test_parse(&a, valid_file) == 0);
    prnn_tuning_entry e[3];
    for (size_t i = 0; i < 3 && i < a.count; i++)
        e[i] = a.items[i].entry;
    char *text = prnn_tuning_db_format(e, a.count);
    CHECK(text != NULL);
    prnn_log_clear();
    CHECK(text && test_parse(&b, text) == 0);
    CHECK(b.count == a.count && b.entries_skipped == 0);
    for (size_t i = 0; i < a.count && i < b.count; i++) {
        const prnn_tuning_entry *x = &a.items[i].entry, *y = &b.items[i].entry;
        CHECK(prnn_tuning_entry_same_key(x, y));
        CHECK(x->pass == y->pass);
        CHECK(memcmp(&x->config, &y->config, sizeof(x->config)) == 0);
        CHECK(x->us_per_step == y->us_per_step);
        CHECK(strcmp(x->source, y->source) == 0);
    }
    /* Pretty: one line per part of an entry. */
    CHECK(text && strstr(text, "\n      \"config\": {\"blocks\": 64, "));
    CHECK(text && strstr(text, "\"batch\": {\"min\": 9, \"max\": 16}"));
    CHECK(text && strstr(text, "\"us_per_step\": 1.23,"));
    /* "pass" only where it is not forward, on the shape line after "batch" */
    CHECK(text &&
          strstr(text, "\"batch\": 1048576, \"pass\": \"backward-data\",\n      \"config\": {"));
    CHECK(occurrences(text, "\"pass\"") == 1);
    /* and the text is a fixed point: parse then format gives it back */
    prnn_tuning_entry again[3];
    for (size_t i = 0; i < 3 && i < b.count; i++)
        again[i] = b.items[i].entry;
    char *text2 = prnn_tuning_db_format(again, b.count);
    CHECK(text && text2 && strcmp(text, text2) == 0);
    free(text2);
    free(text);

    /* A forward-only database is written without "pass", as it was before
     * passes existed; a backward-data range names it after the range. */
    text = prnn_tuning_db_format(e, 2);
    CHECK(text && occurrences(text, "\"pass\"") == 0);
    free(text);
    e[1].pass = PRNN_PASS_BACKWARD_DATA;
    text = prnn_tuning_db_format(&e[1], 1);
    CHECK(text &&
          strstr(text, "\"batch\": {\"min\": 9, \"max\": 16}, \"pass\": \"backward-data\",\n"));
    free(text);
    prnn_tuning_db_free(&a);
    prnn_tuning_db_free(&b);

    text = prnn_tuning_db_format(NULL, 0);
    CHECK(text && strcmp(text, "{\n  \"schema_version\": 1,\n  \"entries\": []\n}\n") == 0);
    free(text);

    /* Awkward doubles and strings survive exactly. */
    prnn_tuning_entry x;
    test_entry(&x, 64, 2, 4);
    x.us_per_step = 0.1 + 0.2;
    snprintf(x.gpu_name, sizeof(x.gpu_name), "quote \" backslash \\ tab \t");
    snprintf(x.source, sizeof(x.source), "caf\xc3\xa9 \x01");
    text = prnn_tuning_db_format(&x, 1);
    CHECK(text && test_parse(&b, text) == 0 && b.count == 1);
    if (b.count == 1) {
        CHECK(b.items[0].entry.us_per_step == x.us_per_step);
        CHECK(strcmp(b.items[0].entry.gpu_name, x.gpu_name) == 0);
        CHECK(strcmp(b.items[0].entry.source, x.source) == 0);
    }
    prnn_tuning_db_free(&b);
    free(text);
}

/* Random byte damage to a valid file: never a crash, never an entry that
 * breaks the rules (the fuzzer goes much further; this runs everywhere). */
static void test_random_damage(void)
{
    size_t len = strlen(valid_file);
    char *buf = malloc(len);
    unsigned seed = 12345;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(buf, valid_file, len);
        for (int k = 0; k < 1 + iter % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            buf[pos] = (char)(seed >> 16);
        }
        prnn_tuning_db db = {0};
        prnn_log_clear();
        prnn_tuning_db_parse(&db, buf, len, "damaged");
        for (size_t i = 0; i < db.count; i++) {
            char err[256];
            CHECK(prnn_tuning_entry_check(&db.items[i].entry, err, sizeof(err)) == 0);
        }
        prnn_tuning_db_free(&db);
    }
    free(buf);
}

/* What a file may cost (issue #15): nesting, values and entries past the
 * bounds are reported and the file ignored; the bounds count what is
 * inside strings as text. */
static void test_bounds(void)
{
    prnn_tuning_db db;
    char text[256], why[160];
    int n = 0;
    n += snprintf(text + n, sizeof(text) - (size_t)n, "{\"schema_version\": 1, \"entries\": [");
    for (int i = 0; i < PRNN_TUNING_MAX_DEPTH; i++)
        text[n++] = '[';
    text[n] = '\0';
    prnn_log_clear();
    CHECK(test_parse(&db, text) != 0);
    CHECK_LOG("ignored: nested deeper than 16 levels");
    prnn_tuning_db_free(&db);
    /* brackets and commas inside a string are not structure */
    const char *quoted = "{\"k\": \"[[[[[[[[[[[[[[[[[[[[,,,,\\\"[[[[\"}";
    CHECK(prnn_tuning_db_check_bounds(quoted, strlen(quoted), why, sizeof(why)) == 0);

    /* entries: more than the bound, each a value the bound counts */
    size_t cap = (size_t)PRNN_TUNING_MAX_ENTRIES * 3 + 64;
    char *many = malloc(cap);
    n = snprintf(many, cap, "{\"schema_version\": 1, \"entries\": [0");
    for (int i = 0; i < PRNN_TUNING_MAX_ENTRIES; i++) {
        many[n++] = ',';
        many[n++] = '0';
    }
    memcpy(many + n, "]}", 3);
    prnn_log_clear();
    CHECK(test_parse(&db, many) != 0);
    CHECK_LOG("ignored: more than 32768 entries");
    prnn_tuning_db_free(&db);
    free(many);
}

/* The engine field: absent = the mode's default (old files read as
 * before, and are written back without it); a named engine's configuration
 * follows its own fields (none for the standard and step engines); an
 * unknown engine, or one that does not run the mode, is refused. */
static void test_engine_field(void)
{
    static const char *const head =
        "{\"schema_version\": 1, \"entries\": [{\"gpu\": {\"name\": \"Test GPU\", \"cc\": \"9.0\", "
        "\"sm_count\": 132}, \"mode\": \"lstm\", \"dtype\": \"float\", \"hidden\": 64, "
        "\"directions\": 1, \"batch\": 256, ";
    static const char *const tile =
        "\"config\": {\"blocks\": 1, \"threads\": 256, \"ksplit\": 8, \"lanes_k\": 1, "
        "\"batch_chunk\": 2, \"reg_slots\": 32, \"smem_slots\": 0, \"mma\": 0, \"handoff\": 2, "
        "\"batch_groups\": 128}, ";
    char text[2048];
    prnn_tuning_db db;
    /* a small-h entry, read and written back with its engine */
    snprintf(text, sizeof(text), "%s\"engine\": \"small-h\", %s\"us_per_step\": 0.4}]}", head,
             tile);
    CHECK(test_parse(&db, text) == 0 && db.count == 1);
    if (db.count == 1) {
        const prnn_tuning_entry *e = &db.items[0].entry;
        CHECK(strcmp(e->engine, "small-h") == 0 && e->config.tile.handoff == 2 &&
              e->config.tile.batch_groups == 128);
        char *out = prnn_tuning_db_format(e, 1);
        CHECK(out && strstr(out, "\"engine\": \"small-h\""));
        prnn_tuning_db back;
        CHECK(out && test_parse(&back, out) == 0 && back.count == 1 &&
              strcmp(back.items[0].entry.engine, "small-h") == 0);
        prnn_tuning_db_free(&back);
        free(out);
    }
    prnn_tuning_db_free(&db);
    /* no engine: the persistent one, not written back */
    snprintf(text, sizeof(text), "%s%s\"us_per_step\": 0.4}]}", head, tile);
    CHECK(test_parse(&db, text) == 0 && db.count == 1);
    if (db.count == 1) {
        CHECK(strcmp(db.items[0].entry.engine, "persistent") == 0);
        char *out = prnn_tuning_db_format(&db.items[0].entry, 1);
        CHECK(out && !strstr(out, "\"engine\""));
        free(out);
    }
    prnn_tuning_db_free(&db);
    /* engines without a configuration: config empty or absent */
    snprintf(text, sizeof(text),
             "%s\"engine\": \"standard\", \"us_per_step\": 9.5}, %s\"engine\": \"step\", "
             "\"config\": {}, \"us_per_step\": 3.1}]}",
             head, strchr(head, '{') + strlen("{\"schema_version\": 1, \"entries\": ["));
    CHECK(test_parse(&db, text) == 0 && db.count == 2 && db.entries_skipped == 0);
    prnn_tuning_db_free(&db);
    static const struct {
        const char *engine_and_config, *message;
    } bad[] = {
        {"\"engine\": \"warp-drive\", \"config\": {}, ", "unknown engine \"warp-drive\""},
        {"\"engine\": 3, \"config\": {}, ", "\"engine\" is a number, not a string"},
        {"\"engine\": \"sru-scan\", \"config\": {\"threads\": 128, \"units_per_thread\": 1, "
         "\"steps_in_flight\": 4}, ",
         "engine sru-scan does not run mode lstm"},
        {"\"engine\": \"standard\", \"config\": {\"blocks\": 1}, ",
         "unknown field \"config.blocks\""},
        {"\"engine\": \"small-h\", ", "missing field \"config\""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(text, sizeof(text), "%s%s\"us_per_step\": 1.0}]}", head, bad[i].engine_and_config);
        prnn_log_clear();
        CHECK(test_parse(&db, text) == 0 && db.count == 0 && db.entries_skipped == 1);
        CHECK_LOG(bad[i].message);
        prnn_tuning_db_free(&db);
    }
}

int main(void)
{
    test_valid_file();
    test_bounds();
    test_file_level();
    test_truncated();
    test_missing_fields();
    test_optional_fields();
    test_pass_field();
    test_max_seq_length_field();
    test_text_form();
    test_sru_entries();
    test_engine_field();
    test_bad_values();
    test_misc();
    test_format_round_trip();
    test_random_damage();
    return test_finish("tuning-parse: a valid DB, every malformed case of the schema, the writer's "
                       "text read back");
}
