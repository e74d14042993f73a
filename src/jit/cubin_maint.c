/* Listing, verifying and clearing the cubin cache (tools/prnn-cache). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit/cubin_file.h"
#include "store/trusted_path.h"

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Our file names in the open directory dirfd, sorted (malloc, free each). */
static prnnStatus_t list_ours(int dirfd, const char *dir, char ***out, size_t *count)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "cannot read cache directory %s: %s", dir,
                         strerror(errno));
    }
    rewinddir(d);
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

/* dir opened for maintenance: trusted or not (the tool says which), but a
 * directory. */
static prnnStatus_t open_dir(const char *dir, prnn_trusted_dir *d)
{
    char why[PATH_MAX + 512];
    switch (prnn_trusted_dir_inspect(dir, d, why, sizeof(why))) {
    case PRNN_TRUST_OK:
    case PRNN_TRUST_REFUSED: return PRNN_STATUS_SUCCESS;
    case PRNN_TRUST_ABSENT:
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "cache directory %s does not exist", dir);
    case PRNN_TRUST_ERROR: break;
    }
    return prnn_fail(PRNN_STATUS_CACHE_ERROR, "cache directory: %s", why);
}

prnnStatus_t prnn_cubin_cache_scan(const char *dir, int check_payload, prnn_cubin_entry_fn fn,
                                   void *user)
{
    prnn_trusted_dir d;
    PRNN_TRY(open_dir(dir, &d));
    char **names = NULL;
    size_t n = 0;
    prnnStatus_t s = list_ours(d.fd, dir, &names, &n);
    prnn_cubin_entry *e = s ? NULL : malloc(sizeof(*e));
    if (!s && !e)
        s = prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    for (size_t i = 0; !s && i < n; i++) {
        prnn_cubin_inspect_at(d.fd, d.shared, names[i], check_payload, e);
        if (fn(e, user))
            break;
    }
    free(e);
    free_names(names, n);
    prnn_trusted_dir_close(&d);
    return s;
}

/* An entry: unlinked (a directory squatting on an entry's name is removed
 * when empty, as a store would). A file another process renamed or removed
 * meanwhile is gone either way. */
static void remove_entry(int dirfd, const char *dir, const char *name, prnn_temp_sweep_result *r)
{
    char path[PATH_MAX + 128];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (unlinkat(dirfd, name, 0) == 0) {
        r->removed++;
        return;
    }
    int err = errno;
    if (err == ENOENT)
        return;
    if (err == EISDIR || err == EPERM) {
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
            if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
                r->removed++;
            else
                prnn_temp_note_failure(
                    r, path,
                    errno == ENOTEMPTY || errno == EEXIST
                        ? "a directory with files in it, not a cache entry: remove it yourself"
                        : strerror(errno));
            return;
        }
    }
    /* EPERM in a sticky directory: another user's file. */
    prnn_temp_note_failure(r, path,
                           err == EPERM || err == EACCES
                               ? "permission denied (another user's file in a shared directory?)"
                               : strerror(err));
}

prnnStatus_t prnn_cubin_cache_clear(const char *dir, prnn_temp_sweep_result *r)
{
    memset(r, 0, sizeof(*r));
    prnn_trusted_dir d;
    PRNN_TRY(open_dir(dir, &d));
    char **names = NULL;
    size_t n = 0;
    prnnStatus_t s = list_ours(d.fd, dir, &names, &n);
    if (s) {
        prnn_trusted_dir_close(&d);
        return s;
    }
    /* Goes on past what it cannot remove: one stuck file must not keep the
     * rest of the cache forever. */
    for (size_t i = 0; i < n; i++) {
        int temp;
        prnn_cubin_cache_is_ours(names[i], &temp);
        if (temp) /* a live writer's is left to it */
            prnn_temp_remove_abandoned_at(d.fd, dir, names[i], 0, r);
        else
            remove_entry(d.fd, dir, names[i], r);
    }
    free_names(names, n);
    prnn_trusted_dir_close(&d);
    if (r->failed)
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "could not remove %d file%s; the first: %s",
                         r->failed, r->failed == 1 ? "" : "s", r->why);
    return PRNN_STATUS_SUCCESS;
}
