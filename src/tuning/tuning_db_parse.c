/*
 * JSON text -> tuning DB entries. Everything that can be wrong with a file is
 * expected here (hand edits, truncated writes, files from other versions), so
 * every problem becomes a log line and the entry or file is skipped; nothing
 * is trusted before it has been checked.
 */
#include "tuning_db.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "rnn_cell_traits.h"

/* After this many skipped-entry messages for one file, only a count follows:
 * a file with thousands of bad entries must not flood the log. */
#define MAX_ENTRY_MESSAGES 20

typedef struct {
    char *err;
    size_t err_size;
} errbuf;

#define FAIL(eb, ...) (snprintf((eb)->err, (eb)->err_size, __VA_ARGS__), -1)

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    return "an invalid value";
}

/* Copies untrusted text into a message: printable ASCII only, bounded. */
static const char *printable(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; s && *s && n + 4 < size; s++)
        buf[n++] = (*s >= 0x20 && *s < 0x7f && *s != '"') ? *s : '?';
    if (s && *s && n + 4 <= size) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* The member called name of obj (case-sensitive), NULL when absent, or -1
 * when it is given more than once: cJSON keeps duplicates and would silently
 * use the first, which hides a hand-editing mistake. */
static int member(const cJSON *obj, const char *name, const cJSON **out, const char *prefix,
                  errbuf *eb)
{
    *out = NULL;
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (c->string && strcmp(c->string, name) == 0) {
            if (*out)
                return FAIL(eb, "field \"%s%s\" given twice", prefix, name);
            *out = c;
        }
    }
    return 0;
}

static int required(const cJSON *obj, const char *name, const cJSON **out, const char *prefix,
                    errbuf *eb)
{
    if (member(obj, name, out, prefix, eb))
        return -1;
    if (!*out)
        return FAIL(eb, "missing field \"%s%s\"", prefix, name);
    return 0;
}

static int int_value(const cJSON *v, const char *prefix, const char *name, long lo, long hi,
                     int *out, errbuf *eb)
{
    if (!cJSON_IsNumber(v))
        return FAIL(eb, "\"%s%s\" is %s, not an integer", prefix, name, type_name(v));
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return FAIL(eb, "\"%s%s\" = %g is not an integer", prefix, name, d);
    if (d < (double)lo || d > (double)hi)
        return FAIL(eb, "\"%s%s\" = %.0f: must be in [%ld, %ld]", prefix, name, d, lo, hi);
    *out = (int)d;
    return 0;
}

static int required_int(const cJSON *obj, const char *prefix, const char *name, long lo, long hi,
                        int *out, errbuf *eb)
{
    const cJSON *v;
    if (required(obj, name, &v, prefix, eb))
        return -1;
    return int_value(v, prefix, name, lo, hi, out, eb);
}

static int required_string(const cJSON *obj, const char *prefix, const char *name, const char **out,
                           errbuf *eb)
{
    const cJSON *v;
    if (required(obj, name, &v, prefix, eb))
        return -1;
    if (!cJSON_IsString(v) || !v->valuestring)
        return FAIL(eb, "\"%s%s\" is %s, not a string", prefix, name, type_name(v));
    *out = v->valuestring;
    return 0;
}

/* "M.m" with one or two digits on each side, e.g. "9.0", "12.1". */
static int parse_cc(const char *s, int *major, int *minor)
{
    int v[2] = {0, 0};
    for (int part = 0; part < 2; part++) {
        int digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 3) {
            v[part] = v[part] * 10 + (*s++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 2)
            return -1;
        if (part == 0 && *s++ != '.')
            return -1;
    }
    if (*s)
        return -1;
    *major = v[0];
    *minor = v[1];
    return 0;
}

static int parse_gpu(const cJSON *gpu, prnn_tuning_entry *e, errbuf *eb)
{
    char tmp[64];
    if (!cJSON_IsObject(gpu))
        return FAIL(eb, "\"gpu\" is %s, not an object", type_name(gpu));
    const char *s;
    if (required_string(gpu, "gpu.", "name", &s, eb))
        return -1;
    size_t n = strlen(s);
    if (n == 0)
        return FAIL(eb, "\"gpu.name\" is empty");
    if (n >= sizeof(e->gpu_name))
        return FAIL(eb, "\"gpu.name\" is longer than %zu bytes", sizeof(e->gpu_name) - 1);
    memcpy(e->gpu_name, s, n + 1);
    if (required_string(gpu, "gpu.", "cc", &s, eb))
        return -1;
    if (parse_cc(s, &e->cc_major, &e->cc_minor) || e->cc_major < 1)
        return FAIL(eb, "\"gpu.cc\" = \"%s\": must look like \"9.0\"",
                    printable(s, tmp, sizeof(tmp)));
    return required_int(gpu, "gpu.", "sm_count", 1, PRNN_TUNING_MAX_SM_COUNT, &e->sm_count, eb);
}

static int parse_batch(const cJSON *b, prnn_tuning_entry *e, errbuf *eb)
{
    if (cJSON_IsNumber(b)) {
        if (int_value(b, "", "batch", 1, PRNN_TUNING_MAX_BATCH, &e->batch_min, eb))
            return -1;
        e->batch_max = e->batch_min;
        return 0;
    }
    if (!cJSON_IsObject(b))
        return FAIL(eb, "\"batch\" is %s, not an integer or {\"min\", \"max\"}", type_name(b));
    if (required_int(b, "batch.", "min", 1, PRNN_TUNING_MAX_BATCH, &e->batch_min, eb) ||
        required_int(b, "batch.", "max", 1, PRNN_TUNING_MAX_BATCH, &e->batch_max, eb))
        return -1;
    if (e->batch_min > e->batch_max)
        return FAIL(eb, "batch range min %d > max %d", e->batch_min, e->batch_max);
    return 0;
}

/* Optional: an entry without it (every entry written before backward-data
 * had a kernel of its own) is a forward one. */
static int parse_pass(const cJSON *v, prnn_pass *pass, errbuf *eb)
{
    char tmp[64];
    *pass = PRNN_PASS_FORWARD;
    if (!v)
        return 0;
    if (!cJSON_IsString(v) || !v->valuestring)
        return FAIL(eb, "\"pass\" is %s, not a string", type_name(v));
    if (prnn_pass_from_name(v->valuestring, pass))
        return FAIL(eb, "unknown pass \"%s\" (forward, backward-data)",
                    printable(v->valuestring, tmp, sizeof(tmp)));
    return 0;
}

/* The engine: a known name, or absent (a database written before engines
 * were recorded: the mode's default engine). */
static int parse_engine(const cJSON *v, prnn_tuning_entry *e, errbuf *eb)
{
    char tmp[64];
    const char *name = prnn_engine_schema_default(prnn_cell_traits(e->mode)->scan);
    if (v) {
        if (!cJSON_IsString(v) || !v->valuestring)
            return FAIL(eb, "\"engine\" is %s, not a string", type_name(v));
        if (!prnn_engine_schema_find(v->valuestring)) {
            char names[128];
            prnn_engine_schema_names(names, sizeof(names));
            return FAIL(eb, "unknown engine \"%s\" (%s)",
                        printable(v->valuestring, tmp, sizeof(tmp)), names);
        }
        name = v->valuestring;
    }
    snprintf(e->engine, sizeof(e->engine), "%s", name);
    return 0;
}

/* The config object must hold the fields of the engine's table (an
 * optional one may be absent and takes its default); an engine without a
 * configuration takes an empty object or none. An unknown name is refused
 * rather than ignored because it would mean the file describes a kernel
 * this library does not build. */
static int parse_config(const cJSON *cfg, prnn_tuning_entry *e, errbuf *eb)
{
    char tmp[64];
    const prnn_tile_field *fields = prnn_engine_schema_find(e->engine)->fields;
    if (!cfg) {
        if (fields)
            return FAIL(eb, "missing field \"config\"");
        return 0;
    }
    if (!cJSON_IsObject(cfg))
        return FAIL(eb, "\"config\" is %s, not an object", type_name(cfg));
    static const prnn_tile_field none[] = {{NULL, 0, 0, 0, 0, 0, NULL}};
    if (!fields)
        fields = none;
    void *c = &e->config;
    uint64_t seen = 0;
    for (const cJSON *m = cfg->child; m; m = m->next) {
        unsigned i = 0;
        const prnn_tile_field *f = fields;
        for (; f->name; f++, i++)
            if (m->string && strcmp(m->string, f->name) == 0)
                break;
        if (!f->name)
            return FAIL(eb, "unknown field \"config.%s\"", printable(m->string, tmp, sizeof(tmp)));
        if (seen & ((uint64_t)1 << i))
            return FAIL(eb, "field \"config.%s\" given twice", f->name);
        seen |= (uint64_t)1 << i;
        if (int_value(m, "config.", f->name, f->min_value, f->max_value,
                      prnn_config_field_ptr(c, f), eb))
            return -1;
    }
    const prnn_tile_field *missing = prnn_config_complete(fields, c, seen);
    if (missing)
        return FAIL(eb, "missing field \"config.%s\"", missing->name);
    return 0;
}

static int parse_entry(const cJSON *j, prnn_tuning_entry *e, errbuf *eb)
{
    char tmp[64];
    const cJSON *v;
    const char *s;
    memset(e, 0, sizeof(*e));
    if (!cJSON_IsObject(j))
        return FAIL(eb, "is %s, not an object", type_name(j));

    if (required(j, "gpu", &v, "", eb) || parse_gpu(v, e, eb))
        return -1;
    if (required_string(j, "", "mode", &s, eb))
        return -1;
    if (prnn_tuning_mode_from_name(s, &e->mode))
        return FAIL(eb, "unknown mode \"%s\" (relu, tanh, lstm, gru, sru)",
                    printable(s, tmp, sizeof(tmp)));
    if (required_string(j, "", "dtype", &s, eb))
        return -1;
    if (prnn_tuning_dtype_from_name(s, &e->dtype))
        return FAIL(eb, "unknown dtype \"%s\" (float, double, half, bfloat16)",
                    printable(s, tmp, sizeof(tmp)));
    if (required_int(j, "", "hidden", 1, PRNN_TUNING_MAX_HIDDEN, &e->hidden, eb) ||
        required_int(j, "", "directions", 1, 2, &e->directions, eb))
        return -1;
    if (required(j, "batch", &v, "", eb) || parse_batch(v, e, eb))
        return -1;
    if (member(j, "pass", &v, "", eb) || parse_pass(v, &e->pass, eb))
        return -1;
    if (member(j, "max_seq_length", &v, "", eb))
        return -1;
    if (v &&
        int_value(v, "", "max_seq_length", 1, PRNN_TUNING_MAX_SHORT_SEQ, &e->max_seq_length, eb))
        return -1;
    if (member(j, "engine", &v, "", eb) || parse_engine(v, e, eb))
        return -1;
    if (member(j, "config", &v, "", eb) || parse_config(v, e, eb))
        return -1;
    if (required(j, "us_per_step", &v, "", eb))
        return -1;
    if (!cJSON_IsNumber(v))
        return FAIL(eb, "\"us_per_step\" is %s, not a number", type_name(v));
    e->us_per_step = v->valuedouble;
    if (member(j, "source", &v, "", eb))
        return -1;
    if (v) {
        if (!cJSON_IsString(v) || !v->valuestring)
            return FAIL(eb, "\"source\" is %s, not a string", type_name(v));
        /* Free text: keep what fits, cut at a UTF-8 character boundary. */
        size_t n = strlen(v->valuestring);
        if (n >= sizeof(e->source)) {
            n = sizeof(e->source) - 1;
            while (n > 0 && ((unsigned char)v->valuestring[n] & 0xC0) == 0x80)
                n--;
        }
        memcpy(e->source, v->valuestring, n);
        e->source[n] = '\0';
    }
    /* Cross-field rules (and the ones above, once more) in one place shared
     * with the writer. */
    return prnn_tuning_entry_check(e, eb->err, eb->err_size);
}

/* 1-based line and column of byte pos, for messages about a hand edit. */
static void line_col(const char *text, size_t pos, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < pos; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static int add_origin(prnn_tuning_db *db, const char *origin, unsigned *id)
{
    size_t n = strlen(origin);
    char *copy = malloc(n + 1);
    char **grown = realloc(db->origins, (db->n_origins + 1) * sizeof(char *));
    if (!copy || !grown) {
        free(copy);
        if (grown)
            db->origins = grown;
        return -1;
    }
    memcpy(copy, origin, n + 1);
    db->origins = grown;
    *id = db->n_origins;
    db->origins[db->n_origins++] = copy;
    return 0;
}

static int add_item(prnn_tuning_db *db, const prnn_tuning_entry *e, unsigned origin, int index)
{
    if (db->count == db->capacity) {
        size_t cap = db->capacity ? db->capacity * 2 : 16;
        if (cap > SIZE_MAX / sizeof(prnn_tuning_item))
            return -1;
        prnn_tuning_item *items = realloc(db->items, cap * sizeof(*items));
        if (!items)
            return -1;
        db->items = items;
        db->capacity = cap;
    }
    prnn_tuning_item *it = &db->items[db->count++];
    it->entry = *e;
    it->origin = origin;
    it->index = index;
    return 0;
}

/* File-level checks; returns the entries array or NULL after logging. */
static const cJSON *check_file(const cJSON *root, const char *origin)
{
    const cJSON *v;
    char err[160];
    errbuf eb = {err, sizeof(err)};
    if (!cJSON_IsObject(root)) {
        prnn_log_append("%s: ignored: the top level is %s, not an object", origin, type_name(root));
        return NULL;
    }
    if (member(root, "schema_version", &v, "", &eb)) {
        prnn_log_append("%s: ignored: %s", origin, err);
        return NULL;
    }
    if (!v) {
        prnn_log_append("%s: ignored: no \"schema_version\" (this prnn reads schema_version %d)",
                        origin, PRNN_TUNING_SCHEMA_VERSION);
        return NULL;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble)) {
        prnn_log_append("%s: ignored: \"schema_version\" is %s, not an integer", origin,
                        cJSON_IsNumber(v) ? "a fraction" : type_name(v));
        return NULL;
    }
    if (v->valuedouble != PRNN_TUNING_SCHEMA_VERSION) {
        prnn_log_append(
            "%s: ignored: schema_version %g is not supported (this prnn reads schema_version %d)",
            origin, v->valuedouble, PRNN_TUNING_SCHEMA_VERSION);
        return NULL;
    }
    if (member(root, "entries", &v, "", &eb)) {
        prnn_log_append("%s: ignored: %s", origin, err);
        return NULL;
    }
    if (!v) {
        prnn_log_append("%s: ignored: no \"entries\" array", origin);
        return NULL;
    }
    if (!cJSON_IsArray(v)) {
        prnn_log_append("%s: ignored: \"entries\" is %s, not an array", origin, type_name(v));
        return NULL;
    }
    if (cJSON_GetArraySize(v) > PRNN_TUNING_MAX_ENTRIES) {
        prnn_log_append("%s: ignored: more than %d entries", origin, PRNN_TUNING_MAX_ENTRIES);
        return NULL;
    }
    return v;
}

static cJSON *parse_json(const char *text, size_t len, const char *origin, int *out_of_memory)
{
    if (len == 0) {
        prnn_log_append("%s: ignored: the file is empty", origin);
        return NULL;
    }
    char why[160];
    if (prnn_tuning_db_check_bounds(text, len, why, sizeof(why))) {
        prnn_log_append("%s: ignored: %s", origin, why);
        return NULL;
    }
    /* cJSON gets its own NUL-terminated copy: the caller's text need not be
     * terminated (the fuzzer's is not), and an embedded NUL then simply ends
     * the text early, which the trailing-data check below reports. */
    char *buf = malloc(len + 1);
    if (!buf) {
        prnn_log_append("%s: ignored: out of memory", origin);
        *out_of_memory = 1;
        return NULL;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 0);
    size_t pos = (end && end >= buf && end <= buf + len) ? (size_t)(end - buf) : len;
    size_t line, col;
    if (!root && prnn_json_syntax_ok(buf, len)) {
        /* Valid JSON: cJSON ran out of memory, the file is fine. */
        prnn_log_append("%s: ignored: out of memory", origin);
        *out_of_memory = 1;
    } else if (!root) {
        if (pos >= len) {
            prnn_log_append("%s: ignored: not valid JSON: the text ends early (truncated file?)",
                            origin);
        } else {
            line_col(buf, pos, &line, &col);
            prnn_log_append("%s: ignored: not valid JSON: syntax error at line %zu, column %zu",
                            origin, line, col);
        }
    }
    if (!root) {
        free(buf);
        return NULL;
    }
    while (pos < len &&
           (buf[pos] == ' ' || buf[pos] == '\t' || buf[pos] == '\n' || buf[pos] == '\r'))
        pos++;
    if (pos < len) {
        line_col(buf, pos, &line, &col);
        prnn_log_append("%s: ignored: unexpected data after the JSON value at line %zu, column %zu",
                        origin, line, col);
        cJSON_Delete(root);
        root = NULL;
    }
    free(buf);
    return root;
}

int prnn_tuning_db_parse(prnn_tuning_db *db, const char *text, size_t len, const char *origin)
{
    if (!origin)
        origin = "tuning DB";
    if (!text)
        len = 0;
    cJSON *root = parse_json(text, len, origin, &db->out_of_memory);
    if (!root) {
        db->files_rejected++;
        return -1;
    }
    const cJSON *entries = check_file(root, origin);
    unsigned origin_id = 0;
    if (entries && add_origin(db, origin, &origin_id)) {
        prnn_log_append("%s: ignored: out of memory", origin);
        db->out_of_memory = 1;
        entries = NULL;
    }
    if (!entries) {
        cJSON_Delete(root);
        db->files_rejected++;
        return -1;
    }

    size_t first = db->count, skipped = 0;
    int index = 0;
    char err[256];
    errbuf eb = {err, sizeof(err)};
    for (const cJSON *j = entries->child; j; j = j->next, index++) {
        prnn_tuning_entry e;
        err[0] = '\0';
        if (parse_entry(j, &e, &eb) == 0) {
            if (add_item(db, &e, origin_id, index) == 0)
                continue;
            /* Half a file would be a silent lie: drop all of it. */
            db->count = first;
            db->out_of_memory = 1;
            prnn_log_append("%s: ignored: out of memory", origin);
            cJSON_Delete(root);
            db->files_rejected++;
            return -1;
        }
        if (++skipped <= MAX_ENTRY_MESSAGES)
            prnn_log_append("%s: entries[%d] skipped: %s", origin, index, err);
    }
    if (skipped > MAX_ENTRY_MESSAGES)
        prnn_log_append("%s: %zu more entries skipped", origin, skipped - MAX_ENTRY_MESSAGES);
    db->entries_skipped += skipped;
    cJSON_Delete(root);
    return 0;
}

void prnn_tuning_db_free(prnn_tuning_db *db)
{
    if (!db)
        return;
    for (unsigned i = 0; i < db->n_origins; i++)
        free(db->origins[i]);
    free(db->origins);
    free(db->items);
    memset(db, 0, sizeof(*db));
}
