/*
 * The public kernel-cache maintenance calls (prnn.h, "Kernel cache
 * maintenance"): a thin layer over jit/cubin_cache.h's maintenance
 * functions and the tuning DB's temporary files, so that every front end
 * (prnn-cache, python -m prnn.cache) lists, verifies and clears the same
 * files by the same rules.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "gpu/plan/plan_warm.h"
#include "jit/cubin_cache.h"
#include "store/cache_dir.h"
#include "store/temp_files.h"
#include "store/trusted_path.h"
#include "tuning/tuning_db.h"

/* The default cache directory into buf, or a failure naming why. */
static prnnStatus_t default_dir(char *buf, size_t size)
{
    char dir[PATH_MAX];
    if (prnn_cache_dir(dir, sizeof(dir)) != 0) {
        char why[PATH_MAX];
        prnn_cache_dir_explain(why, sizeof(why));
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "no cache directory: %s", why);
    }
    size_t n = strlen(dir);
    if (n >= size)
        return prnn_fail(PRNN_STATUS_CACHE_ERROR,
                         "size: %zu bytes, the cache directory %s needs %zu", size, dir, n + 1);
    memcpy(buf, dir, n + 1);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnGetCacheDirectory(char *buf, size_t size)
{
    prnn_api_enter("prnnGetCacheDirectory");
    if (!buf || !size)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "buf: NULL or size 0; it must hold the path");
    return default_dir(buf, size);
}

/* dir, or the default one into buf; NULL (log set) when there is none. */
static const char *resolve_dir(const char *dir, char *buf, size_t size)
{
    if (dir)
        return dir;
    return default_dir(buf, size) == PRNN_STATUS_SUCCESS ? buf : NULL;
}

/* The user tuning DB that goes with dir, into buf (as prnn-cache has
 * always paired them: $PRNN_TUNING_DB, else <dir>/tuning.json). */
static const char *resolve_db(const char *db, const char *dir, char *buf, size_t size)
{
    if (db)
        return db;
    const char *env = getenv("PRNN_TUNING_DB");
    int n = env && env[0] ? snprintf(buf, size, "%s", env)
                          : snprintf(buf, size, "%s/tuning.json", dir);
    return n < 0 || (size_t)n >= size ? NULL : buf;
}

static int dir_missing(const char *dir)
{
    struct stat st;
    return stat(dir, &st) != 0 && errno == ENOENT;
}

typedef struct {
    prnnCacheFileCallback_t callback;
    void *user;
    const char *dir;
    int stopped;
} scan_ctx;

static int visit_entry(const prnn_cubin_entry *e, void *user)
{
    scan_ctx *c = user;
    char path[PATH_MAX + sizeof(e->file) + 1];
    snprintf(path, sizeof(path), "%s/%s", c->dir, e->file);
    prnnCacheFile_t f = {sizeof(f),
                         e->is_temp ? PRNN_CACHE_FILE_TEMPORARY : PRNN_CACHE_FILE_ENTRY,
                         path,
                         e->file,
                         e->is_temp || e->valid,
                         e->is_temp ? "" : e->problem,
                         e->kernel,
                         e->source,
                         e->sm,
                         e->nvrtc,
                         e->file_size,
                         e->mtime};
    c->stopped = c->callback(&f, c->user) != 0;
    return c->stopped;
}

/* One of the tuning DB's temporary files (prnn_temp_each_tuning_db; a
 * folder that cannot be read has none to show: the DB's writer reports its
 * own problems). */
static int visit_db_temp(const char *path, const char *name, const struct stat *st, void *user)
{
    scan_ctx *c = user;
    prnnCacheFile_t f = {sizeof(f),
                         PRNN_CACHE_FILE_TUNING_DB_TEMPORARY,
                         path,
                         name,
                         1,
                         "",
                         "",
                         "",
                         0,
                         "",
                         (unsigned long long)st->st_size,
                         (long long)st->st_mtime};
    c->stopped = c->callback(&f, c->user) != 0;
    return c->stopped;
}

prnnStatus_t prnnScanKernelCache(const char *dir, const char *tuningDB, int verify,
                                 prnnCacheFileCallback_t callback, void *userData)
{
    prnn_api_enter("prnnScanKernelCache");
    if (!callback)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "callback: NULL");
    char dir_buf[PATH_MAX], db_buf[PATH_MAX + 16];
    if (!(dir = resolve_dir(dir, dir_buf, sizeof(dir_buf))))
        return PRNN_STATUS_CACHE_ERROR;
    const char *db = resolve_db(tuningDB, dir, db_buf, sizeof(db_buf));
    scan_ctx c = {callback, userData, dir, 0};
    if (db)
        prnn_temp_each_tuning_db(db, visit_db_temp, &c);
    if (c.stopped || dir_missing(dir))
        return PRNN_STATUS_SUCCESS;
    return prnn_cubin_cache_scan(dir, verify, visit_entry, &c);
}

prnnStatus_t prnnClearKernelCache(const char *dir, const char *tuningDB,
                                  prnnCacheClearResult_t *result)
{
    prnn_api_enter("prnnClearKernelCache");
    if (!result)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "result: NULL");
    size_t size = result->structSize;
    if (size < offsetof(prnnCacheClearResult_t, firstFailure) + sizeof(result->firstFailure))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "result->structSize: %zu, below the %zu bytes that hold firstFailure; set "
                         "it to sizeof(prnnCacheClearResult_t)",
                         size, sizeof(prnnCacheClearResult_t));
    memset(result, 0, sizeof(*result));
    result->structSize = sizeof(*result);
    char dir_buf[PATH_MAX], db_buf[PATH_MAX + 16];
    if (!(dir = resolve_dir(dir, dir_buf, sizeof(dir_buf))))
        return PRNN_STATUS_CACHE_ERROR;
    prnn_temp_sweep_result r = {0}, t = {0};
    if (!dir_missing(dir) && prnn_cubin_cache_clear(dir, &r) && !r.failed)
        prnn_temp_note_failure(&r, dir, prnn_log_get()); /* unreadable */
    /* Any age: a writer that holds its file is alive and keeps it. */
    const char *db = resolve_db(tuningDB, dir, db_buf, sizeof(db_buf));
    if (db)
        prnn_tuning_db_sweep(db, 0, &t);
    result->removed = r.removed + t.removed;
    result->kept = r.kept + t.kept;
    result->failed = r.failed + t.failed;
    snprintf(result->firstFailure, sizeof(result->firstFailure), "%s", r.failed ? r.why : t.why);
    if (result->failed)
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "could not remove %d file%s; the first: %s",
                         result->failed, result->failed == 1 ? "" : "s", result->firstFailure);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnnWarmKernelCache(const char *dir, int sm, unsigned sources,
                                 prnnCacheWarmResult_t *result)
{
    prnn_api_enter("prnnWarmKernelCache");
    if (!result)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "result: NULL");
    if (result->structSize < sizeof(prnnCacheWarmResult_t))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "result->structSize: %zu, below %zu; set it to "
                         "sizeof(prnnCacheWarmResult_t)",
                         result->structSize, sizeof(prnnCacheWarmResult_t));
    const unsigned dbs = PRNN_WARM_SHIPPED_DB | PRNN_WARM_USER_DB;
    const unsigned data = PRNN_WARM_PACKED_DATA | PRNN_WARM_UNPACKED_DATA;
    if (!(sources & dbs) || (sources & ~(dbs | data)))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "sources: %u; it must name PRNN_WARM_SHIPPED_DB (1), PRNN_WARM_USER_DB "
                         "(2) or both, with PRNN_WARM_PACKED_DATA (4), PRNN_WARM_UNPACKED_DATA "
                         "(8), both or neither (packed)",
                         sources);
    if (!prnn_warm_arch_known(sm))
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "sm: %d; prnn knows the limits of 70, 75, 80, 86, 87, 89, 90, 100 and "
                         "120 (90 for sm_90)",
                         sm);
    memset(result, 0, sizeof(*result));
    result->structSize = sizeof(*result);
    char dir_buf[PATH_MAX];
    if (!(dir = resolve_dir(dir, dir_buf, sizeof(dir_buf))))
        return PRNN_STATUS_CACHE_ERROR;
    /* Checked here, where a store would only note it and go on: filling a
     * directory no plan will read is a mistake worth an error. */
    char why[PATH_MAX + 256] = "";
    prnn_trusted_dir d;
    if (prnn_mkdir_p(dir) != 0 || prnn_trusted_dir_open(dir, &d, why, sizeof(why)) != PRNN_TRUST_OK)
        return prnn_fail(PRNN_STATUS_CACHE_ERROR, "cache directory %s: %s", dir,
                         why[0] ? why : strerror(errno));
    prnn_trusted_dir_close(&d);
    prnn_warm_what what = {(sources & PRNN_WARM_SHIPPED_DB) != 0,
                           (sources & PRNN_WARM_USER_DB) != 0,
                           (sources & PRNN_WARM_PACKED_DATA) != 0 || !(sources & data),
                           (sources & PRNN_WARM_UNPACKED_DATA) != 0};
    return prnn_plan_warm(dir, sm, &what, result);
}
