#include "note_once.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Hashes of the notes given. When the table is full, notes are given again
 * rather than lost: repeating is the lesser failure. */
#define SEEN_MAX 512

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seen[SEEN_MAX];
static int n_seen;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* 1 the first time h is offered (and recorded). */
static int first_time(uint64_t h)
{
    int first = 1;
    pthread_mutex_lock(&seen_lock);
    for (int i = 0; i < n_seen && first; i++)
        first = seen[i] != h;
    if (first && n_seen < SEEN_MAX)
        seen[n_seen++] = h;
    pthread_mutex_unlock(&seen_lock);
    return first;
}

int prnn_note_once(const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (!first_time(fnv1a(text)))
        return 0;
    prnn_log_append("%s", text);
    return 1;
}
