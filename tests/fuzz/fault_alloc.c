#include "fault_alloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
void __wrap_free(void *p);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long countdown = -1, count;
static int fired, sticky;

/* The live pointers: open addressing, deleted slots marked. */
#define TOMB ((uintptr_t)1)
static uintptr_t *slots;
static size_t cap, used, live;

static size_t hash(uintptr_t p)
{
    return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull);
}

static void put(uintptr_t p);

static void grow(void)
{
    uintptr_t *old = slots;
    size_t old_cap = cap;
    cap = cap ? cap * 2 : 1 << 14;
    slots = __real_calloc(cap, sizeof(*slots));
    used = live = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i] > TOMB)
            put(old[i]);
    __real_free(old);
}

static void put(uintptr_t p)
{
    if (2 * (used + 1) > cap)
        grow();
    size_t i = hash(p) & (cap - 1);
    while (slots[i] > TOMB)
        i = (i + 1) & (cap - 1);
    if (slots[i] == 0)
        used++;
    slots[i] = p;
    live++;
}

/* 1 when p was ours (and is now forgotten). */
static int take(uintptr_t p)
{
    if (!cap)
        return 0;
    size_t i = hash(p) & (cap - 1);
    while (slots[i]) {
        if (slots[i] == p) {
            slots[i] = TOMB;
            live--;
            return 1;
        }
        i = (i + 1) & (cap - 1);
    }
    return 0;
}

/* 1 when this allocation is the one to fail. */
static int fail_now(void)
{
    count++;
    if (fired && sticky)
        return 1;
    if (countdown < 0)
        return 0;
    if (countdown-- == 0) {
        fired = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    pthread_mutex_lock(&lock);
    void *p = fail_now() ? NULL : __real_malloc(n);
    if (p)
        put((uintptr_t)p);
    pthread_mutex_unlock(&lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
    pthread_mutex_lock(&lock);
    void *p = fail_now() ? NULL : __real_calloc(n, m);
    if (p)
        put((uintptr_t)p);
    pthread_mutex_unlock(&lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

void *__wrap_realloc(void *old, size_t n)
{
    pthread_mutex_lock(&lock);
    void *p = NULL;
    if (!fail_now()) {
        p = __real_realloc(old, n);
        if (p) {
            if (old)
                take((uintptr_t)old);
            put((uintptr_t)p);
        }
    }
    pthread_mutex_unlock(&lock);
    if (!p)
        errno = ENOMEM;
    return p;
}

char *__wrap_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = __wrap_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&lock);
    take((uintptr_t)p);
    pthread_mutex_unlock(&lock);
    __real_free(p);
}

void fault_alloc_init(void)
{
    cJSON_Hooks hooks = {__wrap_malloc, __wrap_free};
    cJSON_InitHooks(&hooks);
}

static void arm(long nth, int keep_failing)
{
    pthread_mutex_lock(&lock);
    countdown = nth;
    count = 0;
    fired = 0;
    sticky = keep_failing;
    pthread_mutex_unlock(&lock);
}

void fault_alloc_arm(long nth)
{
    arm(nth, 0);
}
void fault_alloc_arm_from(long nth)
{
    arm(nth, 1);
}

long fault_alloc_count(void)
{
    pthread_mutex_lock(&lock);
    long n = count;
    pthread_mutex_unlock(&lock);
    return n;
}

int fault_alloc_fired(void)
{
    pthread_mutex_lock(&lock);
    int f = fired;
    pthread_mutex_unlock(&lock);
    return f;
}

long fault_alloc_live(void)
{
    pthread_mutex_lock(&lock);
    long n = (long)live;
    pthread_mutex_unlock(&lock);
    return n;
}

void *fault_real_malloc(size_t n)
{
    return __real_malloc(n);
}
void fault_real_free(void *p)
{
    __real_free(p);
}
