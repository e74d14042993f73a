#include "tile_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(n, lo, hi, define)                                                                   \
    {                                                                                              \
#n, offsetof(prnn_tile_config, n), lo, hi, 0, 0, define                                    \
    }
#define OPTIONAL_FIELD(n, lo, hi, def, define)                                                     \
    {                                                                                              \
#n, offsetof(prnn_tile_config, n), lo, hi, 1, def, define                                  \
    }
/* The defines are those kernel_src/rnn_config.cuh reads (the kernels'
 * names, kept short); reg_slots and smem_slots reach the kernel as whole
 * k-steps (PRNN_KREG, PRNN_KSMEM), which the engine derives. */
const prnn_tile_field prnn_tile_fields[] = {
    FIELD(blocks, 1, 4096, "PRNN_NBLK"),
    FIELD(threads, 32, 1024, "PRNN_THREADS"),
    FIELD(ksplit, 1, 32, "PRNN_KSPLIT"),
    FIELD(lanes_k, 1, 32, "PRNN_LANES_K"),
    FIELD(batch_chunk, 1, 256, "PRNN_BC"),
    FIELD(reg_slots, 0, 255, NULL),
    FIELD(smem_slots, 0, 65536, NULL),
    FIELD(mma, 0, 1, "PRNN_MMA"),
    FIELD(handoff, 0, 2, "PRNN_HANDOFF"),
    OPTIONAL_FIELD(batch_groups, 1, 1024, 1, "PRNN_BGRP"),
    {"partial_sums", offsetof(prnn_tile_config, partial_sums), 0, 1, 2, 0, "PRNN_PSUM"},
    {NULL, 0, 0, 0, 0, 0, NULL},
};
#undef FIELD
#undef OPTIONAL_FIELD

#define SRU_FIELD(n, lo, hi, define)                                                               \
    {                                                                                              \
#n, offsetof(prnn_sru_config, n), lo, hi, 0, 0, define                                     \
    }
const prnn_tile_field prnn_sru_fields[] = {
    SRU_FIELD(threads, 32, 1024, "PRNN_SRU_THREADS"),
    SRU_FIELD(units_per_thread, 1, 8, "PRNN_SRU_UPT"),
    SRU_FIELD(steps_in_flight, 1, 32, "PRNN_SRU_DEPTH"),
    {NULL, 0, 0, 0, 0, 0, NULL},
};
#undef SRU_FIELD

static const prnn_engine_schema schemas[] = {
    {"persistent", prnn_tile_fields, 0},
    {"small-h", prnn_tile_fields, 0},
    {"step", NULL, 0},
    {"standard", NULL, 0},
    {"sru-scan", prnn_sru_fields, 1},
    {"tiny-h", NULL, 0},
};

void prnn_engine_schema_names(char *buf, size_t size)
{
    size_t at = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof(schemas) / sizeof(schemas[0]) && at < size; i++) {
        int n = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", schemas[i].engine);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

const prnn_engine_schema *prnn_engine_schema_find(const char *engine)
{
    for (size_t i = 0; engine && i < sizeof(schemas) / sizeof(schemas[0]); i++)
        if (strcmp(schemas[i].engine, engine) == 0)
            return &schemas[i];
    return NULL;
}

const char *prnn_engine_schema_default(int scan)
{
    return scan ? "sru-scan" : "persistent";
}

int prnn_config_check_ranges(const prnn_tile_field *fields, const void *c, const char *prefix,
                             char *err, size_t err_size)
{
    for (const prnn_tile_field *f = fields; f->name; f++) {
        if (!prnn_config_field_written(c, f))
            continue;
        int v = prnn_config_field_get(c, f);
        if (v < f->min_value || v > f->max_value) {
            snprintf(err, err_size, "%s%s = %d: must be in [%d, %d]", prefix, f->name, v,
                     f->min_value, f->max_value);
            return -1;
        }
    }
    return 0;
}

int prnn_sru_config_check(const prnn_sru_config *c, char *err, size_t err_size)
{
    if (prnn_config_check_ranges(prnn_sru_fields, c, "", err, err_size))
        return -1;
    if (c->threads % 32) {
        snprintf(err, err_size, "threads = %d: must be a multiple of 32", c->threads);
        return -1;
    }
    return 0;
}

int *prnn_config_field_ptr(void *c, const prnn_tile_field *f)
{
    return (int *)((char *)c + f->offset);
}

int prnn_config_field_get(const void *c, const prnn_tile_field *f)
{
    return *(const int *)((const char *)c + f->offset);
}

int prnn_config_field_written(const void *c, const prnn_tile_field *f)
{
    return f->optional != 2 || prnn_config_field_get(c, f) != f->default_value;
}

const prnn_tile_field *prnn_config_complete(const prnn_tile_field *fields, void *c,
                                            unsigned long long seen)
{
    unsigned long long bit = 1;
    for (const prnn_tile_field *f = fields; f->name; f++, bit <<= 1) {
        if (seen & bit)
            continue;
        if (!f->optional)
            return f;
        *prnn_config_field_ptr(c, f) = f->default_value;
    }
    return NULL;
}

void prnn_tile_config_format(const prnn_tile_config *c, char *buf, size_t size)
{
    prnn_config_format(prnn_tile_fields, c, buf, size);
}

int prnn_tile_config_parse(const char *text, prnn_tile_config *c, char *err, size_t err_size)
{
    return prnn_config_parse(prnn_tile_fields, text, c, sizeof(*c), err, err_size);
}

void prnn_config_format(const prnn_tile_field *fields, const void *c, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (const prnn_tile_field *f = fields; f->name; f++) {
        if (!prnn_config_field_written(c, f))
            continue;
        int v = prnn_config_field_get(c, f);
        int n = snprintf(buf + used, size > used ? size - used : 0, "%s%s=%d", used ? " " : "",
                         f->name, v);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
}

int prnn_config_parse(const prnn_tile_field *fields, const char *text, void *c, size_t c_size,
                      char *err, size_t err_size)
{
    unsigned seen = 0;
    const char *p = text;
    memset(c, 0, c_size);
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *eq = strchr(p, '=');
        if (!eq) {
            snprintf(err, err_size, "expected name=value at \"%.32s\"", p);
            return -1;
        }
        size_t len = (size_t)(eq - p);
        const prnn_tile_field *f = fields;
        unsigned bit = 1;
        for (; f->name; f++, bit <<= 1)
            if (strlen(f->name) == len && strncmp(f->name, p, len) == 0)
                break;
        if (!f->name) {
            snprintf(err, err_size, "unknown field \"%.*s\"", (int)len, p);
            return -1;
        }
        if (seen & bit) {
            snprintf(err, err_size, "field \"%s\" given twice", f->name);
            return -1;
        }
        char *end;
        long v = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && *end != ' ')) {
            snprintf(err, err_size, "field \"%s\": not an integer", f->name);
            return -1;
        }
        if (v < f->min_value || v > f->max_value) {
            snprintf(err, err_size, "field \"%s\" = %ld: must be in [%d, %d]", f->name, v,
                     f->min_value, f->max_value);
            return -1;
        }
        *prnn_config_field_ptr(c, f) = (int)v;
        seen |= bit;
        p = end;
    }
    const prnn_tile_field *missing = prnn_config_complete(fields, c, seen);
    if (missing) {
        snprintf(err, err_size, "field \"%s\" missing", missing->name);
        return -1;
    }
    return 0;
}
