/* Listing, verifying and clearing the cubin cache (tools/prnn-cache). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit/cubin_file.h"

static int all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

int prnn_cubin_cache_is_ours(const char *file, int *is_temp)
{
    size_t n = strlen(file);
    const size_t sfx = strlen(PRNN_CUBIN_SUFFIX);
    const size_t tmp = strlen(PRNN_CUBIN_TEMP_INFIX);
    if (is_temp)
        *is_temp = 0;
    if (n < 32 || !all_hex(file, 32))
        return 0;
    if (n == 32 + sfx && strcmp(file + 32, PRNN_CUBIN_SUFFIX) == 0)
        return 1;
    /* mkstemp's six characters are letters and digits. */
    if (n == 32 + tmp + 6 && strncmp(file + 32, PRNN_CUBIN_TEMP_INFIX, tmp) == 0) {
        for (size_t i = 32 + tmp; i < n; i++) {
            char c = file[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                  (c >= 'A' && c <= 'Z')))
                return 0;
        }
        if (is_temp)
            *is_temp = 1;
        return 1;
    }
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Our file names in dir, sorted; NULL-terminated (malloc, free each). */
static prnnStatus_t list_ours(const char *dir, char ***out, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "cannot open cache directory "
                         "%s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    prnnStatus_t s = PRNN_STATUS_SUCCESS;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (!prnn_cubin_cache_is_ours(ent->d_name, NULL))
            continue;
        if (n + 1 >= cap) {
            size_t c = cap ? cap * 2 : 64;
            char **t = realloc(names, c * sizeof(*t));
            if (!t) {
                s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
                break;
            }
            names = t;
            cap = c;
        }
        names[n] = strdup(ent->d_name);
        if (!names[n]) {
            s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (s) {
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return s;
    }
    if (n)
        qsort(names, n, sizeof(*names), cmp_names);
    *out = names;
    *count = n;
    return PRNN_STATUS_SUCCESS;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

prnnStatus_t prnn_cubin_cache_scan(const char *dir, int check_payload,
                                   prnn_cubin_entry_fn fn, void *user)
{
    char **names = NULL;
    size_t n = 0;
    prnnStatus_t s = list_ours(dir, &names, &n);
    if (s)
        return s;
    prnn_cubin_entry *e = malloc(sizeof(*e));
    if (!e && n) {
        free_names(names, n);
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    }
    for (size_t i = 0; i < n; i++) {
        prnn_cubin_cache_inspect(dir, names[i], check_payload, e);
        if (fn(e, user))
            break;
    }
    free(e);
    free_names(names, n);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_cubin_cache_clear(const char *dir, int *removed)
{
    char **names = NULL;
    size_t n = 0;
    *removed = 0;
    prnnStatus_t s = list_ours(dir, &names, &n);
    if (s)
        return s;
    for (size_t i = 0; i < n && !s; i++) {
        char path[PATH_MAX];
        if (prnn_cubin_path(path, sizeof(path), dir, names[i], "") != 0)
            continue;
        /* A file another process renamed or removed meanwhile is gone
         * either way. A temporary file a writer still holds is removed too;
         * that writer's rename then fails and it degrades to no caching. */
        if (unlink(path) == 0)
            (*removed)++;
        else if (errno != ENOENT)
            s = prnn_fail(PRNN_STATUS_CACHE_ERROR, "cannot remove %s: %s", path,
                          strerror(errno));
    }
    free_names(names, n);
    return s;
}
