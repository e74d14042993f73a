/*
 * The writer: store then find, replace on the same key, sorted output, both
 * passes side by side, concurrent writers in separate processes, malformed
 * files backed up, and failures reported with the path and the reason,
 * never a partial file.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "tuning_test.h"

/* Parses the file at path; returns its entry count (-1: file rejected). */
static long file_entries(const char *path, prnn_tuning_db *db)
{
    char *text = test_read_file(path, NULL);
    memset(db, 0, sizeof(*db));
    if (!text)
        return -1;
    prnn_log_clear();
    int rc = test_parse(db, text);
    free(text);
    if (rc != 0 || db->entries_skipped) {
        fprintf(stderr, "%s: %s\n", path, prnn_log_get());
        return -1;
    }
    return (long)db->count;
}

static int find_pass_blocks(const prnn_tuning_db *db, prnn_pass pass, int hidden, int batch)
{
    prnn_tuning_key k = test_key(hidden, batch);
    k.pass = pass;
    prnn_tuning_result r;
    if (!prnn_tuning_search(db, NULL, &k, NULL, NULL, &r) || !r.exact)
        return 0;
    return r.entry.config.tile.blocks;
}

static int find_blocks(const prnn_tuning_db *db, int hidden, int batch)
{
    return find_pass_blocks(db, PRNN_PASS_FORWARD, hidden, batch);
}

static void test_round_trip(void)
{
    char *dir = test_mkdtemp();
    char path[4096];
    /* missing directories are created */
    snprintf(path, sizeof(path), "%s/new/sub/db.json", dir);
    prnn_tuning_entry e;
    prnn_tuning_db db;

    test_entry(&e, 1024, 8, 5);
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    CHECK(file_entries(path, &db) == 1);
    CHECK(find_blocks(&db, 1024, 8) == 5);
    if (db.count == 1) {
        const prnn_tuning_entry *x = &db.items[0].entry;
        CHECK(prnn_tuning_entry_same_key(x, &e));
        CHECK(memcmp(&x->config, &e.config, sizeof(e.config)) == 0);
        CHECK(x->us_per_step == e.us_per_step);
        CHECK(strcmp(x->source, e.source) == 0);
    }
    prnn_tuning_db_free(&db);

    /* the same key replaces */
    test_entry(&e, 1024, 8, 6);
    e.us_per_step = 0.75;
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    CHECK(file_entries(path, &db) == 1);
    CHECK(find_blocks(&db, 1024, 8) == 6);
    prnn_tuning_db_free(&db);

    /* other keys are added, and the file comes out sorted by key */
    prnn_tuning_entry more[4];
    test_entry(&more[0], 512, 8, 7);
    test_entry(&more[1], 1024, 4, 8);
    test_entry(&more[2], 1024, 1, 9);
    more[2].batch_max = 16;           /* a range is a different key from batch 8 */
    test_entry(&more[3], 512, 8, 10); /* same key as more[0]: later wins */
    CHECK(prnn_tuning_db_store_many(path, more, 4) == PRNN_STATUS_SUCCESS);
    CHECK(file_entries(path, &db) == 4);
    CHECK(find_blocks(&db, 512, 8) == 10);
    CHECK(find_blocks(&db, 1024, 4) == 8);
    CHECK(find_blocks(&db, 1024, 8) == 6); /* exact batch beats the range */
    CHECK(find_blocks(&db, 1024, 9) == 9);
    for (size_t i = 1; i < db.count; i++)
        CHECK(prnn_tuning_entry_compare(&db.items[i - 1].entry, &db.items[i].entry) < 0);
    prnn_tuning_db_free(&db);

    /* writing it again changes nothing (stable output) */
    char *before = test_read_file(path, NULL);
    CHECK(prnn_tuning_db_store(path, &more[3]) == PRNN_STATUS_SUCCESS);
    char *after = test_read_file(path, NULL);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);

    /* only the database and its lock file are left */
    snprintf(path, sizeof(path), "%s/new/sub", dir);
    CHECK(test_count_files(path, "db.json") == 2);
    CHECK(test_count_files(path, "db.json.lock") == 1);
    CHECK(test_count_files(path, "db.json.tmp") == 0);

    /* a symlinked database is updated where it points */
    char target[4096], link[4096];
    snprintf(target, sizeof(target), "%s/target.json", dir);
    snprintf(link, sizeof(link), "%s/link.json", dir);
    test_entry(&e, 128, 1, 1);
    CHECK(prnn_tuning_db_store(target, &e) == PRNN_STATUS_SUCCESS);
    CHECK(symlink(target, link) == 0);
    test_entry(&e, 128, 2, 2);
    CHECK(prnn_tuning_db_store(link, &e) == PRNN_STATUS_SUCCESS);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(file_entries(target, &db) == 2);
    prnn_tuning_db_free(&db);

    /* NULL path: the user DB */
    snprintf(path, sizeof(path), "%s/user.json", dir);
    setenv("PRNN_TUNING_DB", path, 1);
    test_entry(&e, 256, 2, 3);
    CHECK(prnn_tuning_db_store(NULL, &e) == PRNN_STATUS_SUCCESS);
    CHECK(file_entries(path, &db) == 1 && find_blocks(&db, 256, 2) == 3);
    prnn_tuning_db_free(&db);
    prnn_tuning_result r;
    prnn_tuning_key k = test_key(256, 2);
    CHECK(prnn_tuning_lookup(&k, NULL, NULL, &r) == 1);
    CHECK(r.source == PRNN_CONFIG_USER_DB && r.entry.config.tile.blocks == 3);
    unsetenv("PRNN_TUNING_DB");

    test_rm_rf(dir);
    free(dir);
}

static void test_invalid_entries(void)
{
    char *dir = test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof(path), "%s/db.json", dir);
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 5);
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    char *before = test_read_file(path, NULL);

    prnn_tuning_entry bad[2] = {e, e};
    bad[1].config.tile.threads = 100;
    prnn_log_clear();
    CHECK(prnn_tuning_db_store_many(path, bad, 2) == PRNN_STATUS_BAD_PARAM);
    CHECK_LOG("entry 1 (lstm half hidden 1024");
    CHECK_LOG("config.threads = 100: must be a multiple of 32");
    bad[0].batch_min = 9;
    CHECK(prnn_tuning_db_store(path, &bad[0]) == PRNN_STATUS_BAD_PARAM);
    bad[0] = e;
    bad[0].gpu_name[0] = '\0';
    CHECK(prnn_tuning_db_store(path, &bad[0]) == PRNN_STATUS_BAD_PARAM);
    bad[0] = e;
    bad[0].us_per_step = NAN;
    CHECK(prnn_tuning_db_store(path, &bad[0]) == PRNN_STATUS_BAD_PARAM);
    /* each rule of prnn_tuning_entry_check, through the writer */
    static const struct {
        int field, value;
        const char *message;
    } rules[] = {
        {0, 0, "gpu.cc 0.6: must be in"},
        {1, 100, "gpu.cc 8.100: must be in"},
        {2, 0, "gpu.sm_count = 0"},
        {3, 7, "mode 7 is not a prnnRNNMode_t"},
        {4, -1, "dtype -1 is not a prnnDataType_t"},
        {5, 0, "hidden = 0"},
        {6, 3, "directions = 3"},
        {7, 0, "batch 0..8"},
        {8, 0, "config.blocks = 0: must be in [1, 4096]"},
        {9, 3, "config.handoff = 3"},
        {10, 0, "config.batch_groups = 0: must be in [1, 1024]"},
        {11, 2, "pass 2 is not a prnn_pass"},
        {11, -1, "pass -1 is not a prnn_pass"},
        {12, 0, "engine \"warp-drive\" is not an engine this library has"},
        {13, 0, "engine sru-scan does not run mode lstm"},
    };
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        prnn_tuning_entry x = e;
        int v = rules[i].value;
        switch (rules[i].field) {
        case 0: x.cc_major = v; break;
        case 1: x.cc_minor = v; break;
        case 2: x.sm_count = v; break;
        case 3: x.mode = (prnnRNNMode_t)v; break;
        case 4: x.dtype = (prnnDataType_t)v; break;
        case 5: x.hidden = v; break;
        case 6: x.directions = v; break;
        case 7: x.batch_min = v; break;
        case 8: x.config.tile.blocks = v; break;
        case 9: x.config.tile.handoff = v; break;
        case 10: x.config.tile.batch_groups = v; break;
        case 11: x.pass = (prnn_pass)v; break;
        case 12: snprintf(x.engine, sizeof(x.engine), "warp-drive"); break;
        case 13: snprintf(x.engine, sizeof(x.engine), "sru-scan"); break;
        }
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &x) == PRNN_STATUS_BAD_PARAM);
        CHECK_LOG(rules[i].message);
    }
    CHECK(prnn_tuning_db_store(path, NULL) == PRNN_STATUS_BAD_PARAM);
    CHECK(prnn_tuning_db_store_many(path, NULL, 1) == PRNN_STATUS_BAD_PARAM);
    CHECK(prnn_tuning_db_store("", &e) == PRNN_STATUS_BAD_PARAM);

    char *after = test_read_file(path, NULL);
    CHECK(before && after && strcmp(before, after) == 0); /* untouched */
    free(before);
    free(after);
    test_rm_rf(dir);
    free(dir);
}

/* Stores e into path, which must then hold the two passes' entries for
 * 1024 x 8 and nothing else, with these blocks. */
static void store_both_passes(const char *path, const prnn_tuning_entry *e, int fwd_blocks,
                              int bwd_blocks)
{
    prnn_tuning_db db;
    CHECK(prnn_tuning_db_store(path, e) == PRNN_STATUS_SUCCESS);
    CHECK(file_entries(path, &db) == 2);
    CHECK(find_pass_blocks(&db, PRNN_PASS_FORWARD, 1024, 8) == fwd_blocks);
    CHECK(find_pass_blocks(&db, PRNN_PASS_BACKWARD_DATA, 1024, 8) == bwd_blocks);
    prnn_tuning_db_free(&db);
}

/* One file holds both passes: a store replaces the entry of its own pass
 * only, and a file without backward-data entries never says "pass" (so
 * every file written before passes existed is rewritten unchanged). */
static void test_passes(void)
{
    const prnn_pass bwd = PRNN_PASS_BACKWARD_DATA;
    char *dir = test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof(path), "%s/db.json", dir);
    prnn_tuning_entry f, b;
    prnn_tuning_db db;
    test_entry(&f, 1024, 8, 5);
    CHECK(prnn_tuning_db_store(path, &f) == PRNN_STATUS_SUCCESS);
    char *text = test_read_file(path, NULL);
    CHECK(text && !strstr(text, "\"pass\""));
    free(text);

    /* the same shape for the other kernel, made as the autotuner makes it */
    prnn_tuning_key k = test_key(1024, 8);
    k.pass = bwd;
    prnn_tuning_entry_from_key(&b, &k);
    b.config = f.config;
    b.config.tile.blocks = 6;
    b.us_per_step = 1.5;
    store_both_passes(path, &b, 5, 6);

    /* re-tuning one pass leaves the other's entry alone, both ways round */
    b.config.tile.blocks = 7;
    store_both_passes(path, &b, 5, 7);
    f.config.tile.blocks = 8;
    store_both_passes(path, &f, 8, 7);

    /* sorted with the pass before the sizes: each pass's entries of one
     * layer kind stay together, forward first */
    prnn_tuning_entry more[2];
    test_entry(&more[0], 64, 8, 9);
    more[0].pass = bwd;
    test_entry(&more[1], 4096, 8, 10);
    CHECK(prnn_tuning_db_store_many(path, more, 2) == PRNN_STATUS_SUCCESS);
    CHECK(file_entries(path, &db) == 4);
    static const struct {
        prnn_pass pass;
        int hidden;
    } order[] = {{PRNN_PASS_FORWARD, 1024},
                 {PRNN_PASS_FORWARD, 4096},
                 {PRNN_PASS_BACKWARD_DATA, 64},
                 {PRNN_PASS_BACKWARD_DATA, 1024}};
    for (size_t i = 0; i < db.count && i < 4; i++)
        CHECK(db.items[i].entry.pass == order[i].pass &&
              db.items[i].entry.hidden == order[i].hidden);
    prnn_tuning_db_free(&db);

    test_rm_rf(dir);
    free(dir);
}

/* The key order the writer sorts by: the pass after the directions and
 * before the sizes; entries differing only in the pass are different keys. */
static void test_compare_passes(void)
{
    prnn_tuning_entry a, b;
    test_entry(&a, 4096, 64, 1);
    test_entry(&b, 64, 1, 2);
    b.pass = PRNN_PASS_BACKWARD_DATA;
    CHECK(prnn_tuning_entry_compare(&a, &b) < 0);
    CHECK(prnn_tuning_entry_compare(&b, &a) > 0);
    CHECK(!prnn_tuning_entry_same_key(&a, &b));
    test_entry(&b, 4096, 64, 2);
    b.pass = PRNN_PASS_BACKWARD_DATA;
    CHECK(prnn_tuning_entry_compare(&a, &b) < 0);
    CHECK(!prnn_tuning_entry_same_key(&a, &b));
    b.pass = PRNN_PASS_FORWARD;
    CHECK(prnn_tuning_entry_compare(&a, &b) == 0);
    CHECK(prnn_tuning_entry_same_key(&a, &b));
    /* the directions come first */
    b.pass = PRNN_PASS_BACKWARD_DATA;
    a.directions = 2;
    CHECK(prnn_tuning_entry_compare(&b, &a) < 0);
}

static void test_malformed_existing(void)
{
    char *dir = test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof(path), "%s/db.json", dir);
    static const char garbage[] = "{\"schema_version\": 1, \"entries\": [";
    CHECK(test_write_file(path, garbage) == 0);
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 5);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    CHECK_LOG("not valid JSON");
    CHECK_LOG("the existing file is malformed (see above); kept it as ");
    CHECK_LOG("db.json.bad-");
    /* the backup holds the original bytes */
    const char *bak = strstr(prnn_log_get(), "kept it as ");
    char bakpath[4096] = "";
    if (bak) {
        bak += strlen("kept it as ");
        size_t n = strcspn(bak, " \n");
        snprintf(bakpath, sizeof(bakpath), "%.*s", (int)n, bak);
    }
    prnn_tuning_db db;
    CHECK(file_entries(path, &db) == 1);
    prnn_tuning_db_free(&db);
    CHECK(test_count_files(dir, "db.json.bad-") == 1);
    char *saved = test_read_file(bakpath, NULL);
    CHECK(saved && strcmp(saved, garbage) == 0);
    free(saved);

    /* a second bad file in the same second gets its own backup name */
    CHECK(test_write_file(path, "[]") == 0);
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    CHECK(test_count_files(dir, "db.json.bad-") == 2);

    /* bad entries: dropped, the readable ones kept, the old file backed up */
    prnn_tuning_entry good;
    test_entry(&good, 2048, 8, 6);
    char *text = prnn_tuning_db_format(&good, 1);
    char *mixed = malloc(strlen(text) + 64);
    char *open_bracket = strchr(text, '[');
    sprintf(mixed, "%.*s{\"bad\": 1},%s", (int)(open_bracket + 1 - text), text, open_bracket + 1);
    CHECK(test_write_file(path, mixed) == 0);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    CHECK_LOG("entries[0] skipped: missing field \"gpu\"");
    CHECK_LOG("1 unreadable entries dropped (see above); the old file is kept");
    CHECK(file_entries(path, &db) == 2);
    CHECK(find_blocks(&db, 2048, 8) == 6 && find_blocks(&db, 1024, 8) == 5);
    prnn_tuning_db_free(&db);
    CHECK(test_count_files(dir, "db.json.bad-") == 3);
    free(text);
    free(mixed);

    test_rm_rf(dir);
    free(dir);
}

static void test_failures_reported(void)
{
    char *dir = test_mkdtemp();
    char path[4096], file[4096];
    prnn_tuning_entry e;
    test_entry(&e, 1024, 8, 5);

    /* parent is a regular file (fails for root too, unlike permissions) */
    snprintf(file, sizeof(file), "%s/plain", dir);
    CHECK(test_write_file(file, "x") == 0);
    snprintf(path, sizeof(path), "%s/plain/db.json", dir);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    CHECK_LOG(path);
    CHECK_LOG("cannot create its directory: Not a directory");

    /* the database path is a directory */
    snprintf(path, sizeof(path), "%s/isdir", dir);
    CHECK(mkdir(path, 0700) == 0);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    CHECK_LOG("isdir is not a regular file");

    /* a symlink loop where the database should be */
    snprintf(path, sizeof(path), "%s/loop.json", dir);
    CHECK(symlink(path, path) == 0);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    CHECK_LOG("loop.json is a symbolic link to");
    CHECK_LOG("cannot be resolved: Too many levels");

    /* a directory we may not write to (meaningless for root) */
    if (geteuid() != 0) {
        snprintf(path, sizeof(path), "%s/ro", dir);
        CHECK(mkdir(path, 0500) == 0);
        snprintf(file, sizeof(file), "%s/ro/db.json", dir);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(file, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        CHECK_LOG("Permission denied");
        chmod(path, 0700);
    }

    /* no user DB path at all */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("PRNN_TUNING_DB");
    unsetenv("PRNN_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    char buf[4096];
    if (prnn_tuning_user_db_path(buf, sizeof(buf)) != 0) {
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(NULL, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        CHECK_LOG("no user tuning DB path");
    }
    if (home)
        setenv("HOME", home, 1);
    free(home);

    CHECK(test_count_files(dir, "isdir.tmp") == 0);
    test_rm_rf(dir);
    free(dir);
}

/* A symlinked database is followed to a regular file (test_round_trip);
 * anything else is refused before a lock file is made beside its target
 * (issue #15: a link to /dev/null made the writer create /dev/null.lock, a
 * dangling link was silently replaced by a regular file). */
static void test_symlinks(void)
{
    char *dir = test_mkdtemp();
    char link[4096], lock[4200], msg[4200];
    prnn_tuning_entry e;
    test_entry(&e, 512, 2, 3);
    struct stat st;
    int had_lock = lstat("/dev/null.lock", &st) == 0;

    snprintf(link, sizeof(link), "%s/null.json", dir);
    CHECK(symlink("/dev/null", link) == 0);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(link, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    CHECK_LOG("is a symbolic link to /dev/null, which is not a regular file");
    if (!had_lock)
        CHECK(lstat("/dev/null.lock", &st) != 0);

    snprintf(link, sizeof(link), "%s/dangling.json", dir);
    CHECK(symlink("nowhere/db.json", link) == 0);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(link, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    snprintf(msg, sizeof(msg), "%s is a symbolic link to nowhere/db.json, which does not exist",
             link);
    CHECK_LOG(msg);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode)); /* not replaced */
    snprintf(lock, sizeof(lock), "%s.lock", link);
    CHECK(lstat(lock, &st) != 0);
    test_rm_rf(dir);
    free(dir);
}

/* A killed writer's temporary file is removed by a later store once it is
 * older than PRNN_TEMP_STALE_SECONDS; a young one is left alone. */
static void test_stale_temp_files(void)
{
    char *dir = test_mkdtemp();
    char path[4096], killed[4096], young[4096];
    snprintf(path, sizeof(path), "%s/db.json", dir);
    snprintf(killed, sizeof(killed), "%s/db.json.tmp-Kild42", dir);
    snprintf(young, sizeof(young), "%s/db.json.tmp-Yung42", dir);
    CHECK(test_write_file(killed, "{\"schema") == 0);
    CHECK(test_write_file(young, "{\"schema") == 0);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= PRNN_TEMP_STALE_SECONDS + 60;
    t[1] = t[0];
    CHECK(utimensat(AT_FDCWD, killed, t, 0) == 0);
    prnn_tuning_entry e;
    test_entry(&e, 512, 2, 3);
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);
    CHECK(test_count_files(dir, "db.json.tmp-Kild42") == 0);
    CHECK(test_count_files(dir, "db.json.tmp-Yung42") == 1);
    test_rm_rf(dir);
    free(dir);
}

/* Eight processes storing distinct keys into one file at once: the lock
 * must make every one of them survive. */
static void test_concurrent_writers(void)
{
    enum { PROCS = 8, EACH = 12 };
    char *dir = test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof(path), "%s/shared.json", dir);
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        CHECK(pids[p] >= 0);
        if (pids[p] == 0) {
            int bad = 0;
            for (int i = 0; i < EACH; i++) {
                prnn_tuning_entry e;
                test_entry(&e, 64 * (p + 1) + i, 1 + i % 4, 1 + p);
                if (prnn_tuning_db_store(path, &e) != PRNN_STATUS_SUCCESS) {
                    fprintf(stderr, "child %d: %s\n", p, prnn_log_get());
                    bad = 1;
                }
            }
            _exit(bad);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status = 0;
        if (pids[p] > 0)
            CHECK(waitpid(pids[p], &status, 0) == pids[p] && WIFEXITED(status) &&
                  WEXITSTATUS(status) == 0);
    }
    prnn_tuning_db db;
    CHECK(file_entries(path, &db) == PROCS * EACH);
    for (int p = 0; p < PROCS; p++)
        for (int i = 0; i < EACH; i++)
            CHECK(find_blocks(&db, 64 * (p + 1) + i, 1 + i % 4) == 1 + p);
    prnn_tuning_db_free(&db);
    CHECK(test_count_files(dir, "shared.json.tmp") == 0);
    CHECK(test_count_files(dir, "shared.json.bad") == 0);
    test_rm_rf(dir);
    free(dir);
}

int main(void)
{
    test_round_trip();
    test_invalid_entries();
    test_passes();
    test_compare_passes();
    test_malformed_existing();
    test_failures_reported();
    test_symlinks();
    test_stale_temp_files();
    test_concurrent_writers();
    return test_finish("tuning-store: store then find, replace, sorted output, concurrent writers, "
                       "malformed files backed up, symlinks, stale temporary files");
}
