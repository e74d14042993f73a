/*
 * The kernel-cache maintenance calls (prnnGetCacheDirectory,
 * prnnScanKernelCache, prnnClearKernelCache) on their own: the default
 * directory's rules, bad arguments, what a scan visits and in which order,
 * stopping early, what clear removes and leaves, and the failures it goes
 * on past. Real entries, and the tools that print them, are
 * package-cache-python's (against prnn-cache) and tools-cache's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "prnn.h"

static int test_failures;
#include "../test_check.h"

#define ENTRY "0123456789abcdef0123456789abcdef.cubin"

static char tmp[] = "/tmp/prnn-cache-api.XXXXXX";

static void put(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    /* A minute old: a file's mtime can be a second ahead of time(), which
     * clear's age check reads, and "abandoned" must not depend on that. */
    struct timeval old[2];
    gettimeofday(&old[0], NULL);
    old[0].tv_sec -= 60;
    old[1] = old[0];
    CHECK(utimes(path, old) == 0);
}

static int exists(const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", tmp, name);
    return lstat(path, &st) == 0;
}

static void test_directory(void)
{
    char buf[256] = "untouched";
    CHECK(prnnGetCacheDirectory(NULL, 10) == PRNN_STATUS_BAD_PARAM);
    CHECK(prnnGetCacheDirectory(buf, 0) == PRNN_STATUS_BAD_PARAM);
    CHECK(strstr(prnnGetLastErrorLog(), "buf") != NULL);

    setenv("PRNN_CACHE_DIR", "/opt/cache", 1);
    CHECK(prnnGetCacheDirectory(buf, sizeof(buf)) == PRNN_STATUS_SUCCESS);
    EXPECT(strcmp(buf, "/opt/cache") == 0, "PRNN_CACHE_DIR: %s", buf);
    /* Too small: CACHE_ERROR naming the size, buf left alone. */
    strcpy(buf, "untouched");
    CHECK(prnnGetCacheDirectory(buf, 5) == PRNN_STATUS_CACHE_ERROR);
    CHECK(strcmp(buf, "untouched") == 0);
    EXPECT(strstr(prnnGetLastErrorLog(), "size: 5 bytes") != NULL, "%s", prnnGetLastErrorLog());

    unsetenv("PRNN_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(prnnGetCacheDirectory(buf, sizeof(buf)) == PRNN_STATUS_SUCCESS);
    EXPECT(strcmp(buf, "/xdg/prnn") == 0, "XDG_CACHE_HOME: %s", buf);
    /* A relative XDG_CACHE_HOME does not count (the XDG rule). */
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/someone", 1);
    CHECK(prnnGetCacheDirectory(buf, sizeof(buf)) == PRNN_STATUS_SUCCESS);
    EXPECT(strcmp(buf, "/home/someone/.cache/prnn") == 0, "HOME: %s", buf);
    unsetenv("XDG_CACHE_HOME");
}

typedef struct {
    int calls, stop_after;
    prnnCacheFileKind_t kinds[16];
    int valid[16];
    char names[16][64];
} visits;

static int visit(const prnnCacheFile_t *f, void *user)
{
    visits *v = user;
    CHECK(f->structSize == sizeof(prnnCacheFile_t));
    CHECK(f->path && f->name && f->problem && f->kernel && f->source && f->nvrtcVersion);
    CHECK(strstr(f->path, f->name) != NULL);
    if (v->calls < 16) {
        v->kinds[v->calls] = f->kind;
        v->valid[v->calls] = f->valid;
        snprintf(v->names[v->calls], sizeof(v->names[0]), "%s", f->name);
    }
    v->calls++;
    return v->stop_after && v->calls >= v->stop_after;
}

static void test_scan_and_clear(void)
{
    char missing[600], db[600];
    snprintf(missing, sizeof(missing), "%s/missing", tmp);
    snprintf(db, sizeof(db), "%s/tuning.json", tmp);
    visits v = {0};
    CHECK(prnnScanKernelCache(tmp, NULL, 0, NULL, NULL) == PRNN_STATUS_BAD_PARAM);
    CHECK(strstr(prnnGetLastErrorLog(), "callback") != NULL);
    /* A missing directory has no files. */
    CHECK(prnnScanKernelCache(missing, db, 1, visit, &v) == PRNN_STATUS_SUCCESS);
    CHECK(v.calls == 0);

    put(ENTRY, "not a cubin");             /* an entry by name, bad inside */
    put(ENTRY ".tmp.Ab12Cd", "half");      /* a writer's temporary file */
    put("tuning.json", "{}");              /* never touched */
    put("tuning.json.tmp-Zx98Yw", "{");    /* the DB writer's temporary file */
    put("notes.txt", "a stranger's file"); /* never touched */

    /* PRNN_TUNING_DB names the DB that goes with the directory. */
    setenv("PRNN_TUNING_DB", db, 1);
    CHECK(prnnScanKernelCache(tmp, NULL, 1, visit, &v) == PRNN_STATUS_SUCCESS);
    unsetenv("PRNN_TUNING_DB");
    EXPECT(v.calls == 3, "%d files visited, expected 3", v.calls);
    CHECK(v.kinds[0] == PRNN_CACHE_FILE_TUNING_DB_TEMPORARY && v.valid[0]);
    CHECK(v.kinds[1] == PRNN_CACHE_FILE_ENTRY && !v.valid[1]);
    CHECK(strcmp(v.names[1], ENTRY) == 0);
    CHECK(v.kinds[2] == PRNN_CACHE_FILE_TEMPORARY && v.valid[2]);
    /* The DB is <dir>/tuning.json by default; another DB has other temps. */
    memset(&v, 0, sizeof(v));
    CHECK(prnnScanKernelCache(tmp, "/nonexistent/db.json", 0, visit, &v) == PRNN_STATUS_SUCCESS);
    CHECK(v.calls == 2);
    /* A nonzero return stops the scan, successfully. */
    memset(&v, 0, sizeof(v));
    v.stop_after = 1;
    CHECK(prnnScanKernelCache(tmp, NULL, 0, visit, &v) == PRNN_STATUS_SUCCESS);
    CHECK(v.calls == 1);
    /* A path that is not a directory cannot be read. */
    char file[600];
    snprintf(file, sizeof(file), "%s/notes.txt", tmp);
    CHECK(prnnScanKernelCache(file, NULL, 0, visit, &v) == PRNN_STATUS_CACHE_ERROR);
    EXPECT(strstr(prnnGetLastErrorLog(), "notes.txt") != NULL, "%s", prnnGetLastErrorLog());

    prnnCacheClearResult_t r;
    memset(&r, 0xff, sizeof(r));
    CHECK(prnnClearKernelCache(tmp, NULL, NULL) == PRNN_STATUS_BAD_PARAM);
    r.structSize = sizeof(size_t) + 3 * sizeof(int);
    CHECK(prnnClearKernelCache(tmp, NULL, &r) == PRNN_STATUS_BAD_PARAM);
    CHECK(strstr(prnnGetLastErrorLog(), "structSize") != NULL);
    CHECK(exists(ENTRY));
    r.structSize = sizeof(r);
    CHECK(prnnClearKernelCache(missing, "/nonexistent/db.json", &r) == PRNN_STATUS_SUCCESS);
    CHECK(r.removed == 0 && r.failed == 0);

    /* An empty directory squatting on an entry's name goes; one with files
     * in it is not ours to empty: counted, named, the rest still removed. */
    char squat[600];
    snprintf(squat, sizeof(squat), "%s/fedcba9876543210fedcba9876543210.cubin", tmp);
    CHECK(mkdir(squat, 0700) == 0);
    put("fedcba9876543210fedcba9876543210.cubin/keep", "x");
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    CHECK(prnnClearKernelCache(tmp, NULL, &r) == PRNN_STATUS_CACHE_ERROR);
    EXPECT(r.removed == 3 && r.kept == 0 && r.failed == 1, "removed %d kept %d failed %d",
           r.removed, r.kept, r.failed);
    EXPECT(strstr(r.firstFailure, "fedcba98") != NULL &&
               strstr(r.firstFailure, "directory with files") != NULL,
           "firstFailure: %s", r.firstFailure);
    CHECK(strstr(prnnGetLastErrorLog(), "could not remove 1 file") != NULL);
    CHECK(!exists(ENTRY) && !exists(ENTRY ".tmp.Ab12Cd") && !exists("tuning.json.tmp-Zx98Yw"));
    CHECK(exists("tuning.json") && exists("notes.txt"));

    char keep[700];
    snprintf(keep, sizeof(keep), "%s/keep", squat);
    unlink(keep);
    memset(&r, 0, sizeof(r));
    r.structSize = sizeof(r);
    CHECK(prnnClearKernelCache(tmp, NULL, &r) == PRNN_STATUS_SUCCESS);
    CHECK(r.removed == 1 && r.failed == 0 && r.firstFailure[0] == '\0');
}

int main(void)
{
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    test_directory();
    test_scan_and_clear();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    if (test_failures)
        printf("FAIL: %d check(s) failed\n", test_failures);
    else
        printf("ok: the kernel-cache maintenance calls\n");
    return test_failures != 0;
}
