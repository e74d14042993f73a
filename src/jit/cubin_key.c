/* The cubin cache key: a text of everything that can change the binary. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/nvrtc_lib.h"
#include "embedded.h"
#include "error.h"
#include "jit/cubin_cache.h"
#include "jit/sha256.h"

/* The embedded files never change while the process runs: hash them once. */
#define MAX_EMBEDDED 64
static char embedded_digest[MAX_EMBEDDED][65];
static size_t embedded_count;
static pthread_once_t digest_once = PTHREAD_ONCE_INIT;

static void digest_text(const char *text, size_t size, char hex[65])
{
    unsigned char d[32];
    prnn_sha256(text, size, d);
    prnn_hex(d, 32, hex);
}

static void hash_embedded(void)
{
    size_t i = 0;
    for (const prnn_embedded_file *f = prnn_kernel_files; f->name && i < MAX_EMBEDDED; f++, i++)
        digest_text(f->data, f->size, embedded_digest[i]);
    embedded_count = i;
}

/* The digest of an embedded file, or NULL if the table is too long. */
static const char *embedded_digest_of(const prnn_embedded_file *f)
{
    size_t i = (size_t)(f - prnn_kernel_files);
    return i < embedded_count ? embedded_digest[i] : NULL;
}

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...) PRNN_PRINTF(2, 3);
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= b->len + (size_t)n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* A key is line-oriented: a newline inside one of its parts would let two
 * different requests produce the same text. */
static prnnStatus_t check_line(const char *what, const char *value, const char *kernel)
{
    if (strchr(value, '\n') || strchr(value, '\r'))
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "kernel %s: the %s contains a line break",
                         kernel, what);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_cubin_key_build(const prnn_compile_request *req, prnn_cubin_key *key)
{
    memset(key, 0, sizeof(*key));
    const prnn_nvrtc *nv;
    const char *source;
    prnn_nvrtc_options opts = {NULL, 0};
    prnnStatus_t s = prnn_nvrtc_options_build(req, &opts);
    if (!s)
        s = prnn_nvrtc_get(&nv);
    if (!s)
        s = prnn_compile_request_source(req, &source);
    if (!s)
        s = check_line("kernel name", req->kernel_name, req->kernel_name);
    if (!s)
        s = check_line("source name", req->source_name, req->kernel_name);
    for (int i = 0; !s && i < opts.count; i++)
        s = check_line("option", opts.argv[i], req->kernel_name);
    if (s) {
        prnn_nvrtc_options_free(&opts);
        return s;
    }
    pthread_once(&digest_once, hash_embedded);

    strbuf b = {NULL, 0, 0, 0};
    sb_printf(&b, "prnn cubin cache format %u\n", PRNN_CUBIN_CACHE_FORMAT);
    sb_printf(&b, "kernel %s\n", req->kernel_name);
    char hex[65];
    const char *digest = NULL;
    if (!req->source_text) {
        const prnn_embedded_file *f = prnn_embedded_find(prnn_kernel_files, req->source_name);
        digest = f ? embedded_digest_of(f) : NULL;
    }
    if (!digest) {
        digest_text(source, strlen(source), hex);
        digest = hex;
    }
    sb_printf(&b, "source %s %zu %s\n", req->source_name, strlen(source), digest);
    /* Every header NVRTC is given, used or not: cheaper than knowing which
     * ones the source includes, and never wrong. */
    for (const prnn_embedded_file *f = prnn_kernel_files; f->name; f++) {
        if (prnn_kernel_file_is_header(f->name)) {
            const char *d = embedded_digest_of(f);
            if (!d) {
                digest_text(f->data, f->size, hex);
                d = hex;
            }
            sb_printf(&b, "header %s %zu %s\n", f->name, f->size, d);
        }
    }
    sb_printf(&b, "arch sm_%d\n", req->sm);
    sb_printf(&b, "nvrtc %d.%d %lld %lld\n", nv->major, nv->minor, nv->file_size, nv->file_mtime);
    for (int i = 0; i < opts.count; i++)
        sb_printf(&b, "option %s\n", opts.argv[i]);
    prnn_nvrtc_options_free(&opts);
    if (b.oom) {
        free(b.s);
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    }

    key->text = b.s;
    key->len = b.len;
    unsigned char d[32];
    prnn_sha256(key->text, key->len, d);
    prnn_hex(d, 16, key->name);
    return PRNN_STATUS_SUCCESS;
}

void prnn_cubin_key_free(prnn_cubin_key *key)
{
    if (key) {
        free(key->text);
        key->text = NULL;
        key->len = 0;
    }
}
