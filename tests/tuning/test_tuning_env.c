/*
 * The process-wide lookup: where the user DB is (PRNN_TUNING_DB,
 * PRNN_CACHE_DIR, XDG_CACHE_HOME, HOME), that a changed file is re-read, that
 * a bad one is reported and ignored, that the shipped files are clean, and
 * that concurrent lookups and writes do not crash.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "embedded.h"
#include "error.h"
#include "store/cache_dir.h"
#include "tuning_test.h"

static void clear_env(void)
{
    unsetenv("PRNN_TUNING_DB");
    unsetenv("PRNN_CACHE_DIR");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
}

static int cache_dir_is(const char *expected)
{
    char buf[4096];
    if (prnn_cache_dir(buf, sizeof(buf)) != 0)
        return 0;
    if (strcmp(buf, expected) != 0) {
        fprintf(stderr, "cache dir \"%s\", expected \"%s\"\n", buf, expected);
        return 0;
    }
    return 1;
}

static void test_cache_dir(void)
{
    clear_env();
    setenv("HOME", "/home/u", 1);
    CHECK(cache_dir_is("/home/u/.cache/prnn"));
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(cache_dir_is("/xdg/prnn"));
    setenv("XDG_CACHE_HOME", "relative/xdg", 1); /* the spec: ignore it */
    CHECK(cache_dir_is("/home/u/.cache/prnn"));
    setenv("XDG_CACHE_HOME", "", 1);
    CHECK(cache_dir_is("/home/u/.cache/prnn"));
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("PRNN_CACHE_DIR", "/explicit/dir", 1);
    CHECK(cache_dir_is("/explicit/dir"));
    setenv("PRNN_CACHE_DIR", "", 1); /* empty means unset */
    CHECK(cache_dir_is("/xdg/prnn"));

    char small[8];
    CHECK(prnn_cache_dir(small, sizeof(small)) == -1); /* never cut a path */
    CHECK(prnn_cache_dir(NULL, 10) == -1);

    /* No HOME: the password database, if it knows this user. */
    clear_env();
    char buf[4096];
    if (prnn_cache_dir(buf, sizeof(buf)) == 0) {
        size_t n = strlen(buf);
        CHECK(buf[0] == '/' && n > 12 && strcmp(buf + n - 12, "/.cache/prnn") == 0);
    }
}

static void test_user_db_path(void)
{
    char buf[4096];
    clear_env();
    setenv("HOME", "/home/u", 1);
    CHECK(prnn_tuning_user_db_path(buf, sizeof(buf)) == 0);
    CHECK(strcmp(buf, "/home/u/.cache/prnn/tuning.json") == 0);
    setenv("PRNN_CACHE_DIR", "/c", 1);
    CHECK(prnn_tuning_user_db_path(buf, sizeof(buf)) == 0);
    CHECK(strcmp(buf, "/c/tuning.json") == 0);
    setenv("PRNN_TUNING_DB", "/somewhere/db.json", 1);
    CHECK(prnn_tuning_user_db_path(buf, sizeof(buf)) == 0);
    CHECK(strcmp(buf, "/somewhere/db.json") == 0);
    char small[16];
    CHECK(prnn_tuning_user_db_path(small, sizeof(small)) == -1);
    unsetenv("PRNN_TUNING_DB");
    CHECK(prnn_tuning_user_db_path(small, 5) == -1);
}

static void test_mkdir_p(void)
{
    char *dir = test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof(path), "%s/a/b//c/", dir);
    CHECK(prnn_mkdir_p(path) == 0);
    CHECK(prnn_mkdir_p(path) == 0); /* exists: fine */
    struct stat st;
    snprintf(path, sizeof(path), "%s/a/b/c", dir);
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0700);
    snprintf(path, sizeof(path), "%s/file", dir);
    CHECK(test_write_file(path, "x") == 0);
    errno = 0;
    CHECK(prnn_mkdir_p(path) == -1 && errno == ENOTDIR);
    snprintf(path, sizeof(path), "%s/file/sub", dir);
    CHECK(prnn_mkdir_p(path) == -1);
    CHECK(prnn_mkdir_p("") == -1);
    CHECK(prnn_mkdir_p(NULL) == -1);
    test_rm_rf(dir);
    free(dir);
}

/* Every shipped file parses without a single complaint, and is what the
 * writer makes of it byte for byte (so re-tuning a shipped file changes only
 * the lines of the keys it re-tunes). */
static void test_shipped_files_clean(void)
{
    CHECK(prnn_tuning_db_files_count >= 1);
    for (const prnn_embedded_file *f = prnn_tuning_db_files; f->name; f++) {
        prnn_tuning_db db = {0};
        prnn_log_clear();
        CHECK(prnn_tuning_db_parse(&db, f->data, f->size, f->name) == 0);
        CHECK(db.entries_skipped == 0);
        if (prnn_log_get()[0])
            fprintf(stderr, "shipped %s: %s\n", f->name, prnn_log_get());
        CHECK(prnn_log_get()[0] == '\0');
        prnn_tuning_entry *all = malloc((db.count + 1) * sizeof(*all));
        for (size_t i = 0; all && i < db.count; i++)
            all[i] = db.items[i].entry;
        char *text = all ? prnn_tuning_db_format(all, db.count) : NULL;
        CHECK(text && strlen(text) == f->size && memcmp(text, f->data, f->size) == 0);
        free(text);
        free(all);
        prnn_tuning_db_free(&db);
    }
}

static int lookup_blocks(int hidden, int batch, prnn_tuning_result *r)
{
    prnn_tuning_key k = test_key(hidden, batch);
    memset(r, 0, sizeof(*r));
    return prnn_tuning_lookup(&k, NULL, NULL, r) ? r->entry.config.tile.blocks : 0;
}

static void write_db(const char *path, int hidden, int blocks)
{
    prnn_tuning_entry e;
    test_entry(&e, hidden, 8, blocks);
    char *text = prnn_tuning_db_format(&e, 1);
    CHECK(text && test_write_file(path, text) == 0);
    free(text);
}

static void test_lookup_user_db(void)
{
    char *dir = test_mkdtemp();
    char path[4096], path2[4096];
    prnn_tuning_result r;
    clear_env();
    snprintf(path, sizeof(path), "%s/user.json", dir);
    setenv("PRNN_TUNING_DB", path, 1);

    /* no file: nothing, and nothing to report */
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK(prnn_log_get()[0] == '\0');

    write_db(path, 1024, 7);
    CHECK(lookup_blocks(1024, 8, &r) == 7);
    CHECK(r.source == PRNN_CONFIG_USER_DB && r.exact == 1);
    CHECK(lookup_blocks(512, 8, &r) == 7 && r.exact == 0);

    /* rewritten (same size, maybe the same mtime: the inode tells) */
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s/new.json", dir);
    write_db(tmp, 1024, 9);
    CHECK(rename(tmp, path) == 0);
    CHECK(lookup_blocks(1024, 8, &r) == 9);

    /* rewritten in place, bigger */
    write_db(path, 1024, 11);
    CHECK(lookup_blocks(1024, 8, &r) == 11);

    /* malformed: reported once when read, then ignored */
    CHECK(test_write_file(path, "{\"schema_version\": 2, \"entries\": []}") == 0);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK_LOG("user tuning DB ");
    CHECK_LOG("user.json: ignored: schema_version 2 is not supported");
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK(prnn_log_get()[0] == '\0');

    /* a directory where the file should be */
    CHECK(unlink(path) == 0 && mkdir(path, 0700) == 0);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK_LOG("not a regular file");
    CHECK(rmdir(path) == 0);

    /* cannot be opened (a symlink loop fails for root too): noted once */
    CHECK(symlink(path, path) == 0);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK_LOG("user.json: ignored: cannot open it: ");
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK(prnn_log_get()[0] == '\0');
    CHECK(unlink(path) == 0);

    /* removed: nothing */
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK(prnn_log_get()[0] == '\0');

    /* the default name in the cache directory, by each variable */
    unsetenv("PRNN_TUNING_DB");
    snprintf(path2, sizeof(path2), "%s/cache", dir);
    CHECK(prnn_mkdir_p(path2) == 0);
    snprintf(path2, sizeof(path2), "%s/cache/tuning.json", dir);
    write_db(path2, 1024, 13);
    snprintf(path2, sizeof(path2), "%s/cache", dir);
    setenv("PRNN_CACHE_DIR", path2, 1);
    CHECK(lookup_blocks(1024, 8, &r) == 13);
    unsetenv("PRNN_CACHE_DIR");
    snprintf(path2, sizeof(path2), "%s/xdg/prnn", dir);
    CHECK(prnn_mkdir_p(path2) == 0);
    snprintf(path2, sizeof(path2), "%s/xdg/prnn/tuning.json", dir);
    write_db(path2, 1024, 14);
    snprintf(path2, sizeof(path2), "%s/xdg", dir);
    setenv("XDG_CACHE_HOME", path2, 1);
    CHECK(lookup_blocks(1024, 8, &r) == 14);
    unsetenv("XDG_CACHE_HOME");
    snprintf(path2, sizeof(path2), "%s/home/.cache/prnn", dir);
    CHECK(prnn_mkdir_p(path2) == 0);
    snprintf(path2, sizeof(path2), "%s/home/.cache/prnn/tuning.json", dir);
    write_db(path2, 1024, 15);
    snprintf(path2, sizeof(path2), "%s/home", dir);
    setenv("HOME", path2, 1);
    CHECK(lookup_blocks(1024, 8, &r) == 15);

    clear_env();
    test_rm_rf(dir);
    free(dir);
}

/* Issue #15: what was silent is said, and what repeated on every lookup is
 * said once per process; a file over the bounds is reported and ignored in
 * well under a second (63 MB of ",0" took 12 s and 2.6 GB). */
static void test_lookup_notes(void)
{
    char *dir = test_mkdtemp();
    char path[4096], msg[4300];
    prnn_tuning_result r;
    clear_env();

    /* a dangling symlink */
    snprintf(path, sizeof(path), "%s/dangling.json", dir);
    CHECK(symlink("gone.json", path) == 0);
    setenv("PRNN_TUNING_DB", path, 1);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    snprintf(msg, sizeof(msg),
             "user tuning DB %s: ignored: it is a symbolic link to gone.json, which does not exist",
             path);
    CHECK_LOG(msg);

    /* too long for a path */
    char *longer = malloc(PATH_MAX + 100);
    memset(longer, 'x', PATH_MAX + 99);
    longer[0] = '/';
    longer[PATH_MAX + 99] = '\0';
    setenv("PRNN_TUNING_DB", longer, 1);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    snprintf(msg, sizeof(msg), "PRNN_TUNING_DB is %d characters long, more than a path may have",
             PATH_MAX + 99);
    CHECK_LOG(msg);
    /* and PRNN_CACHE_DIR too long names itself, not "(none)" */
    unsetenv("PRNN_TUNING_DB");
    setenv("PRNN_CACHE_DIR", longer, 1);
    prnn_cache_dir_explain(msg, sizeof(msg));
    CHECK(strstr(msg, "the directory from PRNN_CACHE_DIR is") != NULL);
    unsetenv("PRNN_CACHE_DIR");
    free(longer);

    /* not a regular file: once per process */
    snprintf(path, sizeof(path), "%s/isdir.json", dir);
    CHECK(mkdir(path, 0700) == 0);
    setenv("PRNN_TUNING_DB", path, 1);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK_LOG("isdir.json: ignored: not a regular file");
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    CHECK(prnn_log_get()[0] == '\0');

    /* 60 MB of ",0": refused before cJSON sees it */
    snprintf(path, sizeof(path), "%s/huge.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"schema_version\": 1, \"entries\": [0", f);
        static char chunk[1 << 16];
        for (size_t i = 0; i < sizeof(chunk); i += 2)
            memcpy(chunk + i, ",0", 2);
        for (int i = 0; i < 60 * 16; i++)
            fwrite(chunk, 1, sizeof(chunk), f);
        fputs("]}", f);
        fclose(f);
    }
    setenv("PRNN_TUNING_DB", path, 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    prnn_log_clear();
    CHECK(lookup_blocks(1024, 8, &r) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK_LOG("huge.json: ignored: more than 1048576 JSON values");
    printf("60 MB of \",0\" rejected in %.3f s\n", s);
    CHECK(s < 2.0);

    clear_env();
    test_rm_rf(dir);
    free(dir);
}

typedef struct {
    int stop;
    int lookups;
    int bad;
} reader_state;

static void *reader(void *p)
{
    reader_state *s = p;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        prnn_tuning_result r;
        int blocks = lookup_blocks(1024, 8, &r);
        /* every writer stores blocks 1..64; 0 only before the first store */
        if (blocks < 0 || blocks > 64)
            s->bad++;
        s->lookups++;
    }
    return NULL;
}

/* Lookups in several threads while the file is rewritten under them. */
static void test_concurrent_lookups(void)
{
    char *dir = test_mkdtemp();
    char path[4096];
    snprintf(path, sizeof(path), "%s/user.json", dir);
    clear_env();
    setenv("PRNN_TUNING_DB", path, 1);
    enum { N = 4 };
    pthread_t th[N];
    reader_state st[N];
    memset(st, 0, sizeof(st));
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&th[i], NULL, reader, &st[i]) == 0);
    for (int i = 0; i < 200; i++) {
        prnn_tuning_entry e;
        test_entry(&e, 1024, 8, 1 + i % 64);
        CHECK(prnn_tuning_db_store(NULL, &e) == PRNN_STATUS_SUCCESS);
    }
    for (int i = 0; i < N; i++) {
        __atomic_store_n(&st[i].stop, 1, __ATOMIC_RELEASE);
        pthread_join(th[i], NULL);
        CHECK(st[i].bad == 0 && st[i].lookups > 0);
    }
    prnn_tuning_result r;
    CHECK(lookup_blocks(1024, 8, &r) == 1 + 199 % 64);
    clear_env();
    test_rm_rf(dir);
    free(dir);
}

int main(void)
{
    test_cache_dir();
    test_user_db_path();
    test_mkdir_p();
    test_shipped_files_clean();
    test_lookup_user_db();
    test_lookup_notes();
    test_concurrent_lookups();
    return test_finish("tuning-env: where the user DB is, re-reading, bad files ignored, shipped "
                       "files clean, concurrent lookups");
}
