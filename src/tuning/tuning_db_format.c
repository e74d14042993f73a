/*
 * Entries -> JSON text. Written by hand rather than with cJSON_Print so that
 * each entry is four or five short lines (key, config, measurement), which
 * keeps diffs of the shipped files readable; strings and fractions still go
 * through cJSON, for escaping and for locale-independent number printing.
 */
#include "tuning_db.h"

#include <cjson/cJSON.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "rnn_cell_traits.h"

typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} strbuf;

static void put(strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *t = realloc(b->s, cap);
        if (!t) {
            b->failed = 1;
            return;
        }
        b->s = t;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(strbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
putf(strbuf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(tmp))
        b->failed = 1;
    else
        put(b, tmp, (size_t)n);
}

/* A cJSON scalar printed unformatted (quoted and escaped, or a number). */
static void put_json(strbuf *b, cJSON *v)
{
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    if (s)
        puts_(b, s);
    else
        b->failed = 1;
    free(s); /* cJSON's default hooks are malloc/free */
    cJSON_Delete(v);
}

/* The shortest text that reads back as exactly d (cJSON's own printer only
 * promises "close"), with '.' whatever the locale says. */
static void put_double(strbuf *b, double d)
{
    char tmp[64];
    if (!isfinite(d)) {
        b->failed = 1; /* never valid in an entry; checked before */
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    const char *dp = localeconv()->decimal_point;
    char out[64];
    size_t n = 0, dpl = (dp && dp[0]) ? strlen(dp) : 0;
    for (const char *p = tmp; *p && n + 1 < sizeof(out);) {
        if (dpl && strncmp(p, dp, dpl) == 0) {
            out[n++] = '.';
            p += dpl;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    puts_(b, out);
}

static void put_entry(strbuf *b, const prnn_tuning_entry *e)
{
    puts_(b, "    {\n      \"gpu\": {\"name\": ");
    put_json(b, cJSON_CreateString(e->gpu_name));
    putf(b, ", \"cc\": \"%d.%d\", \"sm_count\": %d},\n", e->cc_major, e->cc_minor, e->sm_count);
    const char *mode = prnn_tuning_mode_name(e->mode);
    putf(b, "      \"mode\": \"%s\", \"dtype\": \"%s\", \"hidden\": %d, \"directions\": %d, ",
         mode ? mode : "?", prnn_dtype_name(e->dtype), e->hidden, e->directions);
    if (e->batch_min == e->batch_max)
        putf(b, "\"batch\": %d", e->batch_min);
    else
        putf(b, "\"batch\": {\"min\": %d, \"max\": %d}", e->batch_min, e->batch_max);
    /* Absent means forward: files without backward-data entries come out
     * byte for byte as they did before passes existed. */
    if (e->pass != PRNN_PASS_FORWARD) {
        const char *pass = prnn_pass_name(e->pass);
        putf(b, ", \"pass\": \"%s\"", pass ? pass : "?");
    }
    /* Absent means every length, as before buckets. */
    if (e->max_seq_length)
        putf(b, ", \"max_seq_length\": %d", e->max_seq_length);
    /* Likewise the mode's default engine: files of the engines they had
     * before engines were recorded come out as they did. */
    if (strcmp(e->engine, prnn_engine_schema_default(prnn_cell_traits(e->mode)->scan)) != 0)
        putf(b, ", \"engine\": \"%s\"", e->engine);
    puts_(b, ",\n      \"config\": {");
    const prnn_engine_schema *schema = prnn_engine_schema_find(e->engine);
    const prnn_tile_field *fields = schema ? schema->fields : NULL;
    for (const prnn_tile_field *f = fields; f && f->name; f++)
        if (prnn_config_field_written(&e->config, f))
            putf(b, "%s\"%s\": %d", f == fields ? "" : ", ", f->name,
                 prnn_config_field_get(&e->config, f));
    puts_(b, "},\n      \"us_per_step\": ");
    put_double(b, e->us_per_step);
    if (e->source[0]) {
        puts_(b, ",\n      \"source\": ");
        put_json(b, cJSON_CreateString(e->source));
    }
    puts_(b, "\n    }");
}

char *prnn_tuning_db_format(const prnn_tuning_entry *entries, size_t count)
{
    strbuf b = {0};
    putf(&b, "{\n  \"schema_version\": %d,\n  \"entries\": [", PRNN_TUNING_SCHEMA_VERSION);
    for (size_t i = 0; i < count; i++) {
        puts_(&b, i ? ",\n" : "\n");
        put_entry(&b, &entries[i]);
    }
    puts_(&b, count ? "\n  ]\n}\n" : "]\n}\n");
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
