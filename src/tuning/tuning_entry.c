/* Entries of the tuning database: names, validation, key order. */
#include "tuning_db.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "rnn_cell_traits.h"

const char *prnn_tuning_mode_name(prnnRNNMode_t mode)
{
    return prnn_cell_traits(mode)->gates ? prnn_mode_name(mode) : NULL;
}

int prnn_tuning_mode_from_name(const char *name, prnnRNNMode_t *mode)
{
    return prnn_mode_from_name(name, mode);
}

int prnn_tuning_dtype_from_name(const char *name, prnnDataType_t *dtype)
{
    static const prnnDataType_t all[] = {PRNN_DATA_FLOAT, PRNN_DATA_DOUBLE, PRNN_DATA_HALF,
                                         PRNN_DATA_BFLOAT16};
    for (unsigned i = 0; name && i < sizeof(all) / sizeof(all[0]); i++) {
        if (strcmp(name, prnn_dtype_name(all[i])) == 0) {
            *dtype = all[i];
            return 0;
        }
    }
    return -1;
}

prnn_seq_bucket prnn_seq_bucket_of(int max_seq_length)
{
    return max_seq_length <= 0   ? PRNN_SEQ_BUCKET_ANY
           : max_seq_length == 1 ? PRNN_SEQ_BUCKET_ONE
                                 : PRNN_SEQ_BUCKET_SHORT;
}

static const char *const bucket_names[] = {"any", "one", "short"};

const char *prnn_seq_bucket_name(prnn_seq_bucket b)
{
    return (unsigned)b < sizeof(bucket_names) / sizeof(bucket_names[0]) ? bucket_names[b] : NULL;
}

int prnn_seq_bucket_from_name(const char *name, prnn_seq_bucket *b)
{
    for (unsigned i = 0; name && i < sizeof(bucket_names) / sizeof(bucket_names[0]); i++)
        if (strcmp(name, bucket_names[i]) == 0) {
            *b = (prnn_seq_bucket)i;
            return 0;
        }
    return -1;
}

void prnn_tuning_entry_from_key(prnn_tuning_entry *e, const prnn_tuning_key *key)
{
    memset(e, 0, sizeof(*e));
    if (key->gpu_name)
        snprintf(e->gpu_name, sizeof(e->gpu_name), "%s", key->gpu_name);
    e->cc_major = key->cc_major;
    e->cc_minor = key->cc_minor;
    e->sm_count = key->sm_count;
    e->mode = key->rnn.mode;
    e->dtype = key->rnn.dtype;
    e->hidden = key->rnn.hidden;
    e->directions = key->rnn.dirs;
    e->batch_min = key->rnn.mini_batch;
    e->batch_max = key->rnn.mini_batch;
    e->pass = key->pass;
    e->max_seq_length = key->seq_bucket == PRNN_SEQ_BUCKET_ONE     ? 1
                        : key->seq_bucket == PRNN_SEQ_BUCKET_SHORT ? PRNN_TUNING_MAX_SHORT_SEQ
                                                                   : 0;
    snprintf(e->engine, sizeof(e->engine), "%s",
             prnn_engine_schema_default(prnn_cell_traits(key->rnn.mode)->scan));
}

/* The structural rules of tile_config.h's comments. Kept here, not in the
 * planner, so a database entry that no kernel could be built from is refused
 * when it is read (and when it is written), not when it is compiled. */
static int check_config(const prnn_tile_config *c, prnnDataType_t dtype, char *err, size_t err_size)
{
    if (prnn_config_check_ranges(prnn_tile_fields, c, "config.", err, err_size))
        return -1;
    if (c->threads % 32) {
        snprintf(err, err_size, "config.threads = %d: must be a multiple of 32", c->threads);
        return -1;
    }
    if ((c->threads / 32) % c->ksplit) {
        snprintf(err, err_size, "config.ksplit = %d: must divide the %d warps of a block",
                 c->ksplit, c->threads / 32);
        return -1;
    }
    if (c->lanes_k & (c->lanes_k - 1)) {
        snprintf(err, err_size, "config.lanes_k = %d: must be a power of two", c->lanes_k);
        return -1;
    }
    if (c->mma && c->lanes_k != 1) {
        snprintf(err, err_size, "config.lanes_k = %d: must be 1 with the mma engine", c->lanes_k);
        return -1;
    }
    if (c->mma && dtype != PRNN_DATA_HALF && dtype != PRNN_DATA_BFLOAT16) {
        snprintf(err, err_size,
                 "config.mma = 1: tensor cores are used for half and bfloat16 only, not %s",
                 prnn_dtype_name(dtype));
        return -1;
    }
    return 0;
}

int prnn_tuning_entry_check(const prnn_tuning_entry *e, char *err, size_t err_size)
{
    if (memchr(e->gpu_name, '\0', sizeof(e->gpu_name)) == NULL || e->gpu_name[0] == '\0') {
        snprintf(err, err_size, "gpu.name must be a non-empty string");
        return -1;
    }
    if (e->cc_major < 1 || e->cc_major > 99 || e->cc_minor < 0 || e->cc_minor > 99) {
        snprintf(err, err_size, "gpu.cc %d.%d: must be in 1.0 .. 99.99", e->cc_major, e->cc_minor);
        return -1;
    }
    if (e->sm_count < 1 || e->sm_count > PRNN_TUNING_MAX_SM_COUNT) {
        snprintf(err, err_size, "gpu.sm_count = %d: must be in [1, %d]", e->sm_count,
                 PRNN_TUNING_MAX_SM_COUNT);
        return -1;
    }
    if (!prnn_tuning_mode_name(e->mode)) {
        snprintf(err, err_size, "mode %d is not a prnnRNNMode_t", (int)e->mode);
        return -1;
    }
    if (!prnn_dtype_valid(e->dtype)) {
        snprintf(err, err_size, "dtype %d is not a prnnDataType_t", (int)e->dtype);
        return -1;
    }
    if (e->hidden < 1 || e->hidden > PRNN_TUNING_MAX_HIDDEN) {
        snprintf(err, err_size, "hidden = %d: must be in [1, %d]", e->hidden,
                 PRNN_TUNING_MAX_HIDDEN);
        return -1;
    }
    if (e->directions != 1 && e->directions != 2) {
        snprintf(err, err_size, "directions = %d: must be 1 or 2", e->directions);
        return -1;
    }
    if (e->batch_min < 1 || e->batch_max > PRNN_TUNING_MAX_BATCH || e->batch_min > e->batch_max) {
        snprintf(err, err_size, "batch %d..%d: must satisfy 1 <= min <= max <= %d", e->batch_min,
                 e->batch_max, PRNN_TUNING_MAX_BATCH);
        return -1;
    }
    if (!prnn_pass_name(e->pass)) {
        snprintf(err, err_size, "pass %d is not a prnn_pass", (int)e->pass);
        return -1;
    }
    if (e->max_seq_length < 0 || e->max_seq_length > PRNN_TUNING_MAX_SHORT_SEQ ||
        (e->max_seq_length > 1 && e->max_seq_length < PRNN_TUNING_SHORT_SEQ)) {
        snprintf(err, err_size,
                 "max_seq_length = %d: must be 1 (calls of one step) or in [%d, %d] (short calls, "
                 "timed at %d steps; absent: every length)",
                 e->max_seq_length, PRNN_TUNING_SHORT_SEQ, PRNN_TUNING_MAX_SHORT_SEQ,
                 PRNN_TUNING_SHORT_SEQ);
        return -1;
    }
    if (e->max_seq_length && prnn_cell_traits(e->mode)->scan) {
        snprintf(err, err_size,
                 "max_seq_length = %d: an sru entry has none (SRU's scan runs every length)",
                 e->max_seq_length);
        return -1;
    }
    if (!(e->us_per_step > 0) || !isfinite(e->us_per_step)) {
        snprintf(err, err_size, "us_per_step = %g: must be a finite number > 0", e->us_per_step);
        return -1;
    }
    if (memchr(e->source, '\0', sizeof(e->source)) == NULL) {
        snprintf(err, err_size, "source is not terminated");
        return -1;
    }
    const prnn_engine_schema *schema =
        memchr(e->engine, '\0', sizeof(e->engine)) ? prnn_engine_schema_find(e->engine) : NULL;
    if (!schema) {
        char names[128];
        prnn_engine_schema_names(names, sizeof(names));
        snprintf(err, err_size, "engine \"%.*s\" is not an engine this library has (%s)",
                 (int)strnlen(e->engine, sizeof(e->engine)), e->engine, names);
        return -1;
    }
    if (schema->scan != prnn_cell_traits(e->mode)->scan) {
        snprintf(err, err_size, "engine %s does not run mode %s", e->engine,
                 prnn_tuning_mode_name(e->mode));
        return -1;
    }
    if (schema->fields == prnn_sru_fields) {
        if (e->pass != PRNN_PASS_FORWARD) {
            snprintf(err, err_size,
                     "pass %s: an SRU entry has pass forward (one scan configuration serves both "
                     "passes)",
                     prnn_pass_name(e->pass));
            return -1;
        }
        char why[160];
        if (prnn_sru_config_check(&e->config.sru, why, sizeof(why))) {
            snprintf(err, err_size, "config.%s", why);
            return -1;
        }
        return 0;
    }
    if (schema->fields == prnn_tile_fields)
        return check_config(&e->config.tile, e->dtype, err, err_size);
    return 0;
}

static int cmp_int(int a, int b)
{
    return (a > b) - (a < b);
}

int prnn_tuning_entry_compare(const prnn_tuning_entry *a, const prnn_tuning_entry *b)
{
    int c = strcmp(a->gpu_name, b->gpu_name);
    if (c)
        return c < 0 ? -1 : 1;
    const int pairs[][2] = {
        {a->cc_major, b->cc_major},
        {a->cc_minor, b->cc_minor},
        {a->sm_count, b->sm_count},
        {(int)a->mode, (int)b->mode},
        {(int)a->dtype, (int)b->dtype},
        {a->directions, b->directions},
        {(int)a->pass, (int)b->pass},
        {(int)prnn_seq_bucket_of(a->max_seq_length), (int)prnn_seq_bucket_of(b->max_seq_length)},
        {a->hidden, b->hidden},
        {a->batch_min, b->batch_min},
        {a->batch_max, b->batch_max},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if ((c = cmp_int(pairs[i][0], pairs[i][1])) != 0)
            return c;
    return 0;
}

int prnn_tuning_entry_same_key(const prnn_tuning_entry *a, const prnn_tuning_entry *b)
{
    return prnn_tuning_entry_compare(a, b) == 0;
}

void prnn_tuning_entry_describe(const prnn_tuning_entry *e, char *buf, size_t size)
{
    const char *mode = prnn_tuning_mode_name(e->mode);
    char batch[32], pass[32] = "", seq[24] = "";
    if (e->batch_min == e->batch_max)
        snprintf(batch, sizeof(batch), "%d", e->batch_min);
    else
        snprintf(batch, sizeof(batch), "%d..%d", e->batch_min, e->batch_max);
    /* Forward is left unsaid, so messages read as they did before passes. */
    if (e->pass != PRNN_PASS_FORWARD) {
        const char *name = prnn_pass_name(e->pass);
        snprintf(pass, sizeof(pass), " %s", name ? name : "?");
    }
    if (e->max_seq_length)
        snprintf(seq, sizeof(seq), " T<=%d", e->max_seq_length);
    snprintf(buf, size, "%s %s hidden %d dirs %d batch %s%s%s on %.*s (%d.%d, %d SMs)",
             mode ? mode : "?", prnn_dtype_name(e->dtype), e->hidden, e->directions, batch, pass,
             seq, (int)sizeof(e->gpu_name), e->gpu_name, e->cc_major, e->cc_minor, e->sm_count);
}

void prnn_tuning_entry_config_text(const prnn_tuning_entry *e, char *buf, size_t size)
{
    const prnn_engine_schema *schema = prnn_engine_schema_find(e->engine);
    char cfg[256] = "";
    if (schema && schema->fields)
        prnn_config_format(schema->fields, &e->config, cfg, sizeof(cfg));
    snprintf(buf, size, "%s%s%s", e->engine, cfg[0] ? ": " : "", cfg);
}
