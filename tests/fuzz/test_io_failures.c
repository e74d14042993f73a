/*
 * I/O-error injection (issue #25): the cubin cache's and the tuning DB's
 * writers and readers with each of their I/O calls (open, openat, write,
 * fsync, fchmod, renameat, close, read, pread, mkdir, unlinkat, flock)
 * failing in turn, with ENOSPC and with EIO (tests/fuzz/fault_io.h), and
 * with every write short. After each run:
 *  - a writer either succeeded (the new content in place) or failed with a
 *    message naming the path and the error, and the old content is intact
 *    byte for byte: never a torn or empty file, never a lost entry;
 *  - no temporary file is left (unless the failing call was the unlink
 *    that removes it: then a later sweep does), no malformed-file backup
 *    made for a file that was fine, no descriptor leaked;
 *  - a reader returns the right content or a miss that says why, never
 *    wrong content, and does not remember the failure: the same sequence
 *    run again without a failure succeeds (the lock was released, no
 *    rejected file was cached).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fault_io.h"
#include "jit/cubin_cache.h"
#include "tuning_test.h"

static char dir[4096], path[4200];
static const char p1[] = "\177ELF the old cubin";
static const char p2[] = "\177ELF the new cubin, longer than the old one";
static char key_text[] = "io-fault key";

static prnn_cubin_key key(void)
{
    prnn_cubin_key k = {key_text, sizeof(key_text) - 1, ""};
    memset(k.name, 'e', 32);
    return k;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static int count_files(const char *prefix_in_dir)
{
    return test_count_files(dir, prefix_in_dir);
}

/* The message says what failed: the error's text. */
static int says_error(const char *msg, int err)
{
    return strstr(msg, strerror(err)) != NULL ||
           (err == EIO && strstr(msg, "input/output error")) ||
           strstr(msg, "the read failed") != NULL;
}

/* ---- scenarios ------------------------------------------------------------ */

typedef struct {
    int rc;         /* 0: success */
    char msg[8192]; /* why, or the log */
} result;

static void clean_dir(void)
{
    test_rm_rf(dir);
    CHECK(mkdir(dir, 0700) == 0);
}

static void cubin_setup(void)
{
    clean_dir();
    prnn_cubin_key k = key();
    char why[512];
    CHECK(prnn_cubin_cache_store(dir, &k, p1, sizeof(p1), why, sizeof(why)) == 0);
}

static void cubin_store(result *r)
{
    prnn_cubin_key k = key();
    r->msg[0] = '\0';
    r->rc = prnn_cubin_cache_store(dir, &k, p2, sizeof(p2), r->msg, sizeof(r->msg));
}

/* The entry holds p1 or p2, whole; p2 when the store succeeded. */
static void cubin_store_check(const result *r, const char *failed, int err)
{
    prnn_cubin_key k = key();
    void *got = NULL;
    size_t n = 0;
    char why[512];
    prnn_cubin_lookup l = prnn_cubin_cache_load(dir, &k, &got, &n, why, sizeof(why));
    int old = l == PRNN_CUBIN_HIT && n == sizeof(p1) && !memcmp(got, p1, n);
    int new_ = l == PRNN_CUBIN_HIT && n == sizeof(p2) && !memcmp(got, p2, n);
    EXPECT(old || new_,
           "cubin store (%s failed): the entry is neither the old nor the new one (%d: %s)",
           failed ? failed : "nothing", (int)l, why);
    if (r->rc == 0)
        EXPECT(new_, "cubin store succeeded (%s failed) but the entry is not the new one",
               failed ? failed : "nothing");
    else
        EXPECT(says_error(r->msg, err), "cubin store failed (%s) without saying why: \"%s\"",
               failed, r->msg);
    free(got);
    if (!failed || strcmp(failed, "unlinkat") != 0)
        EXPECT(count_files("eeee") == 1, "cubin store (%s failed): %d files left",
               failed ? failed : "nothing", count_files("eeee"));
}

static void cubin_load(result *r)
{
    prnn_cubin_key k = key();
    void *got = NULL;
    size_t n = 0;
    r->msg[0] = '\0';
    prnn_cubin_lookup l = prnn_cubin_cache_load(dir, &k, &got, &n, r->msg, sizeof(r->msg));
    r->rc = l == PRNN_CUBIN_HIT ? 0 : 1;
    if (l == PRNN_CUBIN_HIT)
        EXPECT(n == sizeof(p1) && memcmp(got, p1, n) == 0, "cubin load: a hit with other bytes");
    free(got);
}

static void cubin_load_check(const result *r, const char *failed, int err)
{
    if (r->rc)
        EXPECT(says_error(r->msg, err), "cubin load missed (%s failed) without saying why: \"%s\"",
               failed, r->msg);
}

/* Two entries in the DB before each run. */
static void db_setup(void)
{
    clean_dir();
    prnn_tuning_entry e[2];
    test_entry(&e[0], 256, 8, 3);
    test_entry(&e[1], 512, 8, 4);
    CHECK(prnn_tuning_db_store_many(path, e, 2) == PRNN_STATUS_SUCCESS);
}

static char *db_before;

static void db_store(result *r)
{
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 5);
    prnn_log_clear();
    r->rc = prnn_tuning_db_store(path, &e) != PRNN_STATUS_SUCCESS;
    snprintf(r->msg, sizeof(r->msg), "%s", prnn_log_get());
}

static void db_store_check(const result *r, const char *failed, int err)
{
    char *text = test_read_file(path, NULL);
    prnn_tuning_db db;
    int parsed = text && test_parse(&db, text) == 0;
    EXPECT(parsed, "tuning DB store (%s failed): the file does not parse",
           failed ? failed : "nothing");
    if (parsed) {
        EXPECT(test_exact_blocks(&db, 256) == 3 && test_exact_blocks(&db, 512) == 4,
               "tuning DB store (%s failed): an old entry was lost", failed);
        if (r->rc == 0)
            EXPECT(test_exact_blocks(&db, 1024) == 5,
                   "tuning DB store succeeded (%s failed) without the new entry", failed);
        else
            EXPECT(db_before && strcmp(text, db_before) == 0,
                   "tuning DB store failed (%s) and changed the file", failed);
        prnn_tuning_db_free(&db);
    }
    free(text);
    if (r->rc)
        EXPECT(says_error(r->msg, err) && strstr(r->msg, path),
               "tuning DB store failed (%s) without naming the file and the error: \"%s\"", failed,
               r->msg);
    EXPECT(count_files("db.json.bad") == 0,
           "tuning DB store (%s failed): an I/O error taken for a malformed file", failed);
    if (!failed || strcmp(failed, "unlinkat") != 0)
        EXPECT(count_files("db.json.tmp") == 0,
               "tuning DB store (%s failed): a temporary file left", failed);
}

/* A malformed DB: the store keeps it as a backup, whole or not at all. */
static const char malformed[] = "{\"schema_version\": 1, \"entries\": [ oops";

static void bad_db_setup(void)
{
    clean_dir();
    CHECK(test_write_file(path, malformed) == 0);
}

static void bad_db_store_check(const result *r, const char *failed, int err)
{
    char *text = test_read_file(path, NULL);
    if (r->rc == 0) {
        prnn_tuning_db db;
        EXPECT(text && test_parse(&db, text) == 0 && test_exact_blocks(&db, 1024) == 5,
               "store over a malformed DB succeeded (%s failed) without the new entry",
               failed ? failed : "nothing");
        if (text)
            prnn_tuning_db_free(&db);
        EXPECT(count_files("db.json.bad") == 1,
               "store over a malformed DB succeeded (%s failed) without a backup", failed);
    } else {
        EXPECT(text && strcmp(text, malformed) == 0,
               "store over a malformed DB failed (%s) and changed it", failed);
        EXPECT(says_error(r->msg, err),
               "store over a malformed DB failed (%s) without saying why: \"%s\"", failed, r->msg);
    }
    free(text);
    /* Any backup there is holds the whole file. */
    DIR *d = opendir(dir);
    struct dirent *ent;
    while (d && (ent = readdir(d)) != NULL) {
        if (strncmp(ent->d_name, "db.json.bad", 11) != 0)
            continue;
        char bak[8400];
        snprintf(bak, sizeof(bak), "%s/%s", dir, ent->d_name);
        char *b = test_read_file(bak, NULL);
        EXPECT(b && strcmp(b, malformed) == 0, "a partial backup (%s failed)",
               failed ? failed : "nothing");
        free(b);
    }
    if (d)
        closedir(d);
}

static void db_lookup(result *r)
{
    setenv("PRNN_TUNING_DB", path, 1);
    prnn_tuning_key k = test_key(512, 8);
    prnn_tuning_result res;
    prnn_log_clear();
    int found = prnn_tuning_lookup(&k, NULL, NULL, &res) && res.source == PRNN_CONFIG_USER_DB;
    r->rc = found ? 0 : 1;
    if (found)
        EXPECT(res.entry.config.tile.blocks == 4, "lookup: the wrong entry");
    snprintf(r->msg, sizeof(r->msg), "%s", prnn_log_get());
    unsetenv("PRNN_TUNING_DB");
}

static void db_lookup_check(const result *r, const char *failed, int err)
{
    if (r->rc)
        EXPECT(says_error(r->msg, err), "lookup missed (%s failed) without saying why: \"%s\"",
               failed, r->msg);
}

static void new_dir_setup(void)
{
    clean_dir();
}

static void new_dir_store(result *r)
{
    char deep[4300];
    snprintf(deep, sizeof(deep), "%s/a/b/db.json", dir);
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 5);
    prnn_log_clear();
    r->rc = prnn_tuning_db_store(deep, &e) != PRNN_STATUS_SUCCESS;
    snprintf(r->msg, sizeof(r->msg), "%s", prnn_log_get());
}

static void new_dir_check(const result *r, const char *failed, int err)
{
    if (r->rc)
        EXPECT(says_error(r->msg, err),
               "store into new directories failed (%s) without saying why: \"%s\"", failed, r->msg);
}

typedef struct {
    const char *name;
    void (*setup)(void);
    void (*run)(result *r);
    void (*check)(const result *r, const char *failed, int err);
} scenario;

static const scenario scenarios[] = {
    {"cubin cache store over an entry", cubin_setup, cubin_store, cubin_store_check},
    {"cubin cache load", cubin_setup, cubin_load, cubin_load_check},
    {"tuning DB store over a DB", db_setup, db_store, db_store_check},
    {"tuning DB store over a malformed DB", bad_db_setup, db_store, bad_db_store_check},
    {"tuning DB lookup", db_setup, db_lookup, db_lookup_check},
    {"tuning DB store into new directories", new_dir_setup, new_dir_store, new_dir_check},
};

static int total_runs;

static void inject(const scenario *s)
{
    static const int errs[] = {ENOSPC, EIO};
    static result r;
    int before = test_failures;
    /* How many calls, and that it works unharmed, with short writes too. */
    s->setup();
    fault_io_arm(-1, 0);
    s->run(&r);
    long n = fault_io_count();
    EXPECT(r.rc == 0, "%s: fails without an injected error: %s", s->name, r.msg);
    s->setup();
    fault_io_short_writes(1);
    s->run(&r);
    fault_io_short_writes(0);
    EXPECT(r.rc == 0, "%s: fails with short writes: %s", s->name, r.msg);
    s->check(&r, NULL, 0);
    for (size_t e = 0; e < 2; e++) {
        for (long k = 0; k < n; k++) {
            s->setup();
            free(db_before);
            db_before = test_read_file(path, NULL);
            int fds = count_fds();
            fault_io_arm(k, errs[e]);
            s->run(&r);
            const char *failed = fault_io_failed();
            fault_io_arm(-1, 0);
            total_runs++;
            if (!failed) /* the call count changed: nothing was injected */
                continue;
            EXPECT(count_fds() == fds, "%s: %s failing with %s leaked a descriptor", s->name,
                   failed, strerror(errs[e]));
            s->check(&r, failed, errs[e]);
            /* Again, unharmed: nothing was left locked or remembered. */
            s->run(&r);
            total_runs++;
            EXPECT(r.rc == 0, "%s: after %s failed with %s, the next run failed too: %s", s->name,
                   failed, strerror(errs[e]), r.msg);
            if (test_failures - before > 20)
                break;
        }
    }
    printf("%-40s %3ld I/O calls, each failed in turn with ENOSPC and EIO, and short writes%s\n",
           s->name, n, test_failures == before ? ": clean" : ": FAILURES");
}

int main(void)
{
    char *base = test_mkdtemp();
    snprintf(dir, sizeof(dir), "%s/cache", base);
    snprintf(path, sizeof(path), "%s/db.json", dir);
    unsetenv("PRNN_TUNING_DB");
    setenv("PRNN_CACHE_DIR", "/nonexistent/prnn-io-test", 1);
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
        inject(&scenarios[i]);
    printf("%d runs\n", total_runs);
    test_rm_rf(base);
    free(base);
    free(db_before);
    return test_finish(
        "faults-io: every I/O call of the cache's and the tuning DB's writers and readers failed "
        "in turn: old contents intact, no torn files, no leftovers, messages that say why");
}
