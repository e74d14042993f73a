#include "jit/cubin_batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "thread_count.h"

typedef struct {
    prnn_compile_request req;
    int dup; /* the same request as an earlier item: fetched once, there */
    int done;
    prnn_cubin_key key;
    prnnStatus_t status;
    void *cubin;
    size_t size;
    prnnCubinSource_t source;
    double ms;
    char *notes; /* what its thread logged while getting it (the failure's
                  * message and log when it failed), or NULL */
} batch_item;

struct prnn_cubin_batch {
    struct prnn_cubin_batch *next;
    const char *dir;
    pthread_t owner;
    batch_item *items;
    int n;
    int next_item; /* the queue's head, under lock */
    pthread_mutex_t lock;
};

/* The batches kept for their owners' loads. */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static prnn_cubin_batch *kept;

int prnn_compile_threads(int jobs)
{
    const int n = prnn_thread_count("PRNN_COMPILE_THREADS", PRNN_COMPILE_THREADS_MAX);
    return n > jobs ? (jobs < 1 ? 1 : jobs) : n;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Equal requests have equal keys: everything else in a key is the
 * process's (the embedded files, NVRTC). */
static int same_request(const prnn_compile_request *a, const prnn_compile_request *b)
{
    if (a->sm != b->sm || a->num_defines != b->num_defines ||
        !same_text(a->source_name, b->source_name) || !same_text(a->kernel_name, b->kernel_name) ||
        !same_text(a->source_text, b->source_text))
        return 0;
    for (int i = 0; i < a->num_defines; i++)
        if (!same_text(a->defines[i], b->defines[i]))
            return 0;
    return 1;
}

/* One item on a batch thread, whose log is its own: cleared first, kept as
 * the item's notes. */
static void fetch(const char *dir, batch_item *it)
{
    prnn_log_clear();
    it->status = prnn_cubin_key_build(&it->req, &it->key);
    if (!it->status)
        it->status = prnn_cubin_fetch_keyed(dir, &it->req, &it->key, &it->cubin, &it->size,
                                            &it->source, &it->ms);
    const char *log = prnn_log_get();
    if (log[0])
        it->notes = strdup(log);
    it->done = 1;
}

static void *worker(void *arg)
{
    prnn_cubin_batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        int i = b->next_item;
        while (i < b->n && b->items[i].dup)
            i++;
        b->next_item = i + 1;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n)
            return NULL;
        fetch(b->dir, &b->items[i]);
    }
}

static void free_items(prnn_cubin_batch *b)
{
    for (int i = 0; i < b->n; i++) {
        free(b->items[i].cubin);
        free(b->items[i].notes);
        prnn_cubin_key_free(&b->items[i].key);
    }
    free(b->items);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

prnn_cubin_batch *prnn_cubin_batch_get(const char *dir, const prnn_compile_request *reqs, int n,
                                       int keep, prnn_cubin_batch_counts *counts)
{
    prnn_cubin_batch_counts c;
    memset(&c, 0, sizeof(c));
    prnn_cubin_batch *b = calloc(1, sizeof(*b));
    batch_item *items = n > 0 ? calloc((size_t)n, sizeof(*items)) : NULL;
    if (!b || !items) {
        free(b);
        free(items);
        if (counts)
            *counts = c;
        return NULL;
    }
    b->items = items;
    b->n = n;
    b->dir = dir;
    b->owner = pthread_self();
    pthread_mutex_init(&b->lock, NULL);
    for (int i = 0; i < n; i++) {
        items[i].req = reqs[i];
        for (int j = 0; j < i && !items[i].dup; j++)
            items[i].dup = !items[j].dup && same_request(&reqs[i], &reqs[j]);
        c.requests += !items[i].dup;
    }
    pthread_t tid[PRNN_COMPILE_THREADS_MAX];
    int threads = prnn_compile_threads(c.requests), started = 0;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&tid[started], NULL, worker, b) == 0)
            started++;
    /* Without a thread, nothing was fetched: the loads fetch as they
     * always did. */
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    c.threads = started;
    for (int i = 0; i < n; i++) {
        const batch_item *it = &items[i];
        if (it->dup || !it->done)
            continue;
        if (it->status && !c.failed++) {
            c.first_status = it->status;
            snprintf(c.first_failure, sizeof(c.first_failure), "%s", it->notes ? it->notes : "");
        } else if (it->source == PRNN_CUBIN_COMPILED)
            c.compiled++;
        else
            c.cached++;
        c.compile_ms += it->ms;
    }
    if (counts)
        *counts = c;
    if (!keep) {
        free_items(b);
        return NULL;
    }
    pthread_mutex_lock(&kept_lock);
    b->next = kept;
    kept = b;
    pthread_mutex_unlock(&kept_lock);
    return b;
}

void prnn_cubin_batch_end(prnn_cubin_batch *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&kept_lock);
    for (prnn_cubin_batch **p = &kept; *p; p = &(*p)->next)
        if (*p == b) {
            *p = b->next;
            break;
        }
    pthread_mutex_unlock(&kept_lock);
    free_items(b);
}

int prnn_cubin_batch_take(const prnn_cubin_key *key, void **cubin, size_t *size,
                          prnnCubinSource_t *source, double *compile_ms)
{
    batch_item found;
    int hit = 0;
    pthread_mutex_lock(&kept_lock);
    for (prnn_cubin_batch *b = kept; b && !hit; b = b->next) {
        if (!pthread_equal(b->owner, pthread_self()))
            continue;
        for (int i = 0; i < b->n && !hit; i++) {
            batch_item *it = &b->items[i];
            if (it->cubin && it->key.len == key->len &&
                memcmp(it->key.text, key->text, key->len) == 0) {
                found = *it;
                it->cubin = NULL;
                it->notes = NULL;
                hit = 1;
            }
        }
    }
    pthread_mutex_unlock(&kept_lock);
    if (!hit)
        return 0;
    if (found.notes)
        prnn_log_append("%s", found.notes);
    free(found.notes);
    *cubin = found.cubin;
    *size = found.size;
    if (source)
        *source = found.source;
    if (compile_ms)
        *compile_ms = found.ms;
    return 1;
}

prnnStatus_t prnn_cubin_get_keyed(const prnn_compile_request *req, const prnn_cubin_key *key,
                                  void **cubin, size_t *size, prnnCubinSource_t *source,
                                  double *compile_ms)
{
    if (prnn_cubin_batch_take(key, cubin, size, source, compile_ms))
        return PRNN_STATUS_SUCCESS;
    return prnn_cubin_fetch_keyed(NULL, req, key, cubin, size, source, compile_ms);
}

prnnStatus_t prnn_cubin_get(const prnn_compile_request *req, void **cubin, size_t *size,
                            prnnCubinSource_t *source, double *compile_ms)
{
    prnn_cubin_key key;
    prnnStatus_t s = prnn_cubin_key_build(req, &key);
    if (s)
        return s;
    s = prnn_cubin_get_keyed(req, &key, cubin, size, source, compile_ms);
    prnn_cubin_key_free(&key);
    return s;
}
