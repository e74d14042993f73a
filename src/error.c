#include "error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Logs can hold a whole NVRTC log; past this they are cut with a marker so a
 * runaway log cannot exhaust memory. */
#define PRNN_LOG_MAX (256 * 1024)

typedef struct {
    char *text;
    size_t len;
    size_t cap;
    const char *api;
    int lost; /* the last message could not be stored (out of memory) */
} thread_log;

/* What the log reads when the message of the last failure could not be
 * stored: never nothing, never an older message. */
static const char out_of_memory[] =
    "out of host memory (the message of the last failure could not be stored)";

static pthread_key_t log_key;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void free_thread_log(void *p)
{
    thread_log *log = p;
    if (log) {
        free(log->text);
        free(log);
    }
}

static void make_key(void)
{
    pthread_key_create(&log_key, free_thread_log);
}

static thread_log *get_log(void)
{
    pthread_once(&log_once, make_key);
    thread_log *log = pthread_getspecific(log_key);
    if (!log) {
        log = calloc(1, sizeof(*log));
        if (!log)
            return NULL;
        pthread_setspecific(log_key, log);
    }
    return log;
}

static void append_bytes(thread_log *log, const char *s, size_t n)
{
    if (log->len >= PRNN_LOG_MAX)
        return;
    int truncated = 0;
    if (log->len + n > PRNN_LOG_MAX) {
        n = PRNN_LOG_MAX - log->len;
        truncated = 1;
    }
    size_t need = log->len + n + 32;
    if (need > log->cap) {
        size_t cap = log->cap ? log->cap : 256;
        while (cap < need)
            cap *= 2;
        char *t = realloc(log->text, cap);
        if (!t) {
            log->lost = 1;
            return;
        }
        log->text = t;
        log->cap = cap;
    }
    memcpy(log->text + log->len, s, n);
    log->len += n;
    if (truncated) {
        static const char mark[] = "\n[log truncated]";
        memcpy(log->text + log->len, mark, sizeof(mark) - 1);
        log->len += sizeof(mark) - 1;
    }
    log->text[log->len] = '\0';
}

static void append_vfmt(thread_log *log, const char *fmt, va_list ap)
{
    char small[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof(small)) {
        append_bytes(log, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            append_bytes(log, big, (size_t)n);
            free(big);
        } else {
            log->lost = 1;
        }
    }
    va_end(ap2);
}

void prnn_api_enter(const char *api_name)
{
    thread_log *log = get_log();
    if (log)
        log->api = api_name;
}

prnnStatus_t prnn_fail(prnnStatus_t status, const char *fmt, ...)
{
    thread_log *log = get_log();
    if (!log)
        return status;
    log->len = 0;
    log->lost = 0;
    if (log->text)
        log->text[0] = '\0';
    if (log->api) {
        append_bytes(log, log->api, strlen(log->api));
        append_bytes(log, ": ", 2);
    }
    va_list ap;
    va_start(ap, fmt);
    append_vfmt(log, fmt, ap);
    va_end(ap);
    return status;
}

void prnn_log_append(const char *fmt, ...)
{
    thread_log *log = get_log();
    if (!log)
        return;
    if (log->len)
        append_bytes(log, "\n", 1);
    va_list ap;
    va_start(ap, fmt);
    append_vfmt(log, fmt, ap);
    va_end(ap);
}

void prnn_log_append_text(const char *text)
{
    thread_log *log = get_log();
    if (log && text)
        append_bytes(log, text, strlen(text));
}

void prnn_log_clear(void)
{
    thread_log *log = get_log();
    if (log) {
        log->len = 0;
        log->lost = 0;
        if (log->text)
            log->text[0] = '\0';
    }
}

const char *prnn_log_get(void)
{
    thread_log *log = get_log();
    if (!log || log->lost)
        return out_of_memory;
    return log->text ? log->text : "";
}

char *prnn_log_save(void)
{
    return strdup(prnn_log_get());
}

void prnn_log_restore(char *saved)
{
    prnn_log_clear();
    prnn_log_append_text(saved ? saved : out_of_memory);
    free(saved);
}
