#include "object_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The free-list link lives in a header before the object, so that a
 * released object's own bytes (its magic word above all) stay untouched.
 * The union keeps the object aligned as malloc would (C99 has no
 * max_align_t). */
typedef union header {
    union header *next;
    long double ld;
    long long ll;
    void (*fn)(void);
} header;

/* One free list per object size; the library has a handful of sizes. */
#define SIZES 8

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    size_t size;
    header *free;
} lists[SIZES];

/* The list for size (made on first use), or NULL when all are taken. */
static header **list_of(size_t size)
{
    for (int i = 0; i < SIZES; i++) {
        if (lists[i].size == size)
            return &lists[i].free;
        if (lists[i].size == 0) {
            lists[i].size = size;
            return &lists[i].free;
        }
    }
    return NULL;
}

void *prnn_object_alloc(size_t size)
{
    header *h = NULL;
    pthread_mutex_lock(&pool_lock);
    header **list = list_of(size);
    if (list && *list) {
        h = *list;
        *list = h->next;
    }
    pthread_mutex_unlock(&pool_lock);
    if (!h) {
        h = malloc(sizeof(header) + size);
        if (!h)
            return NULL;
    }
    memset(h + 1, 0, size);
    return h + 1;
}

void prnn_object_release(void *p, size_t size)
{
    if (!p)
        return;
    header *h = (header *)p - 1;
    pthread_mutex_lock(&pool_lock);
    header **list = list_of(size);
    if (list) {
        h->next = *list;
        *list = h;
        h = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    /* Only with more sizes than SIZES, which the library does not have. */
    free(h);
}

size_t prnn_object_pool_count(void)
{
    size_t n = 0;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < SIZES; i++)
        for (header *h = lists[i].free; h; h = h->next)
            n++;
    pthread_mutex_unlock(&pool_lock);
    return n;
}

void prnn_object_pool_trim(void)
{
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < SIZES; i++) {
        while (lists[i].free) {
            header *h = lists[i].free;
            lists[i].free = h->next;
            free(h);
        }
    }
    pthread_mutex_unlock(&pool_lock);
}
