/*
 * The tuning DB's trust rule (prnn.h, "Files on disk"; issue #25): a DB
 * entry decides which kernel runs, so the user DB is read only from a
 * directory of the user's that nobody else can write, and only when the
 * file is the user's (or root's) and writable by nobody else; the writer
 * never replaces or creates a file through another user's link, never
 * creates its lock file through a link, and writes nothing into an
 * untrusted directory. Files are planted by another user
 * (tests/foreign_user.h); each refusal must name the path, the owner or
 * the mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "tuning_test.h"
#include "../foreign_user.h"

static char uid_text[32];

static int lookup_blocks(int hidden)
{
    prnn_tuning_key k = test_key(hidden, 8);
    prnn_tuning_result r;
    memset(&r, 0, sizeof(r));
    if (!prnn_tuning_lookup(&k, NULL, NULL, &r) || r.source != PRNN_CONFIG_USER_DB)
        return 0;
    return r.entry.config.tile.blocks;
}

static char *db_text(int hidden, int blocks)
{
    prnn_tuning_entry e;
    test_entry(&e, hidden, 8, blocks);
    return prnn_tuning_db_format(&e, 1);
}

static void write_db(const char *path, int hidden, int blocks)
{
    char *text = db_text(hidden, blocks);
    CHECK(text && test_write_file(path, text) == 0);
    free(text);
}

/* The log says all of these (NULL: nothing). */
static void expect_log(const char *a, const char *b, const char *c)
{
    const char *want[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (want[i])
            CHECK_LOG(want[i]);
}

/* path's bytes and identity are as they were. */
typedef struct {
    char *text;
    struct stat st;
} snapshot;

static snapshot snap(const char *path)
{
    snapshot s;
    s.text = test_read_file(path, NULL);
    CHECK(s.text && lstat(path, &s.st) == 0);
    return s;
}

static void expect_unchanged(const char *path, snapshot *s)
{
    struct stat st;
    char *now = test_read_file(path, NULL);
    CHECK(now && s->text && strcmp(now, s->text) == 0);
    CHECK(lstat(path, &st) == 0 && st.st_ino == s->st.st_ino && st.st_uid == s->st.st_uid &&
          st.st_mode == s->st.st_mode);
    free(now);
    free(s->text);
}

typedef struct {
    const char *path, *link_to, *text;
} plant_args;

static int plant(void *arg)
{
    const plant_args *a = arg;
    if (a->link_to)
        return symlink(a->link_to, a->path);
    return test_write_file(a->path, a->text);
}

/* Reading: the user DB in places the user does not own is ignored, with a
 * note naming the path, the owner and the mode. */
static void test_reader(int foreign)
{
    char *base = test_mkdtemp();
    char dir[4096], path[4200], target[4200];
    CHECK(chmod(base, 0755) == 0);
    unsetenv("PRNN_CACHE_DIR");

    /* Baseline: the user's own directory and file. */
    snprintf(path, sizeof(path), "%s/tuning.json", base);
    write_db(path, 1024, 7);
    setenv("PRNN_TUNING_DB", path, 1);
    CHECK(lookup_blocks(1024) == 7);

    /* The file writable by group and others: not read, and the cached
     * copy is dropped too. */
    CHECK(chmod(path, 0666) == 0);
    prnn_log_clear();
    CHECK(lookup_blocks(1024) == 0);
    expect_log(path, "writable by group and others (mode 0666)", "ignored");
    printf("writable file: %s\n", prnn_log_get());
    CHECK(chmod(path, 0644) == 0);
    CHECK(lookup_blocks(1024) == 7);

    /* A group-writable directory (a planted tuning.json in it). */
    snprintf(dir, sizeof(dir), "%s/group", base);
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0770) == 0);
    snprintf(path, sizeof(path), "%s/tuning.json", dir);
    write_db(path, 1024, 8);
    setenv("PRNN_TUNING_DB", path, 1);
    prnn_log_clear();
    CHECK(lookup_blocks(1024) == 0);
    expect_log(dir, "mode 0770", "lets its group write");
    printf("group-writable directory: %s\n", prnn_log_get());

    if (foreign) {
        /* A sticky world-writable directory, tuning.json planted there by
         * another user (the default DB of PRNN_CACHE_DIR=that directory). */
        snprintf(dir, sizeof(dir), "%s/sticky", base);
        CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 01777) == 0);
        snprintf(path, sizeof(path), "%s/tuning.json", dir);
        char *text = db_text(1024, 9);
        plant_args pa = {path, NULL, text};
        CHECK(as_foreign(plant, &pa) == 0);
        free(text);
        unsetenv("PRNN_TUNING_DB");
        setenv("PRNN_CACHE_DIR", dir, 1);
        prnn_log_clear();
        CHECK(lookup_blocks(1024) == 0);
        expect_log(dir, "mode 1777", "ignored");
        printf("planted in a sticky directory: %s\n", prnn_log_get());
        unsetenv("PRNN_CACHE_DIR");

        /* Another user's directory. */
        snprintf(dir, sizeof(dir), "%s/theirs", base);
        CHECK(mkdir(dir, 0755) == 0);
        snprintf(path, sizeof(path), "%s/tuning.json", dir);
        write_db(path, 1024, 10);
        CHECK(chown(dir, foreign_uid(), foreign_uid()) == 0);
        setenv("PRNN_TUNING_DB", path, 1);
        prnn_log_clear();
        CHECK(lookup_blocks(1024) == 0);
        expect_log(dir, uid_text, "mode 0755");
        /* ... unless it is the directory shared on purpose. */
        setenv("PRNN_SHARED_CACHE_DIR", dir, 1);
        CHECK(lookup_blocks(1024) == 10);
        unsetenv("PRNN_SHARED_CACHE_DIR");

        /* Another user's file in the user's own directory. */
        snprintf(path, sizeof(path), "%s/foreign.json", base);
        write_db(path, 1024, 11);
        CHECK(chown(path, foreign_uid(), foreign_uid()) == 0);
        setenv("PRNN_TUNING_DB", path, 1);
        prnn_log_clear();
        CHECK(lookup_blocks(1024) == 0);
        expect_log(path, uid_text, "not by you");
        printf("another user's file: %s\n", prnn_log_get());

        /* The user's link to another user's file. */
        snprintf(target, sizeof(target), "%s/link.json", base);
        CHECK(symlink(path, target) == 0);
        setenv("PRNN_TUNING_DB", target, 1);
        prnn_log_clear();
        CHECK(lookup_blocks(1024) == 0);
        expect_log(target, uid_text, "ignored");
    }
    unsetenv("PRNN_TUNING_DB");
    test_rm_rf(base);
    free(base);
}

/* Writing: nothing replaced or created through planted links, nothing
 * written into untrusted directories. */
static void test_writer(int foreign)
{
    char *base = test_mkdtemp();
    char dir[4096], path[4200], victim[4200], lock[4300];
    CHECK(chmod(base, 0755) == 0);
    prnn_tuning_entry e;
    test_entry(&e, 512, 2, 3);
    struct stat st;

    /* A root-owned (the user's own, here) 0600 file that links point to. */
    snprintf(victim, sizeof(victim), "%s/victim", base);
    CHECK(test_write_file(victim, "precious\n") == 0 && chmod(victim, 0600) == 0);

    /* The lock file planted as a link (by the user, even): the writer
     * creates nothing where it points and says why. */
    snprintf(dir, sizeof(dir), "%s/own", base);
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof(path), "%s/tuning.json", dir);
    snprintf(lock, sizeof(lock), "%s.lock", path);
    char made[4300];
    snprintf(made, sizeof(made), "%s/made-through-lock-link", base);
    CHECK(symlink(made, lock) == 0);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    expect_log(lock, "is a symbolic link", "refused");
    printf("lock file a link: %s\n", prnn_log_get());
    CHECK(lstat(made, &st) != 0 && errno == ENOENT);
    CHECK(lstat(path, &st) != 0); /* no database either */
    CHECK(unlink(lock) == 0);
    /* ... and a link to an existing file: not opened, not truncated. */
    snapshot v = snap(victim);
    CHECK(symlink(victim, lock) == 0);
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    expect_unchanged(victim, &v);
    CHECK(unlink(lock) == 0);
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_SUCCESS);

    /* A group-writable directory: nothing written. */
    snprintf(dir, sizeof(dir), "%s/group", base);
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0770) == 0);
    snprintf(path, sizeof(path), "%s/tuning.json", dir);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    expect_log(path, "not written", "mode 0770");
    CHECK(test_count_files(dir, "") == 2); /* . and .. */

    /* The existing database writable by others: not read, not replaced. */
    snprintf(path, sizeof(path), "%s/own/tuning.json", base);
    CHECK(chmod(path, 0646) == 0);
    v = snap(path);
    prnn_log_clear();
    CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
    expect_log(path, "writable by others (mode 0646)", "not replaced");
    expect_unchanged(path, &v);
    CHECK(chmod(path, 0644) == 0);

    if (foreign) {
        /* Issue #25's case: in a sticky world-writable directory, another
         * user's tuning.json is a link to a root-owned 0600 file; a root
         * store replaced that file. Now: refused, the file untouched, no
         * lock file, no temporary file. */
        snprintf(dir, sizeof(dir), "%s/sticky", base);
        CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 01777) == 0);
        snprintf(path, sizeof(path), "%s/tuning.json", dir);
        plant_args pa = {path, victim, NULL};
        CHECK(as_foreign(plant, &pa) == 0);
        v = snap(victim);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        expect_log(path, uid_text, "refused");
        printf("another user's link in a sticky directory: %s\n", prnn_log_get());
        expect_unchanged(victim, &v);
        CHECK(test_count_files(base, "victim") == 1);
        CHECK(test_count_files(dir, "tuning.json") == 1);

        /* Their lock-file link there: nothing created where it points. */
        snprintf(path, sizeof(path), "%s/db.json", dir);
        snprintf(lock, sizeof(lock), "%s.lock", path);
        pa.path = lock;
        pa.link_to = made;
        CHECK(as_foreign(plant, &pa) == 0);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        expect_log(dir, "mode 1777", "not written");
        CHECK(lstat(made, &st) != 0 && errno == ENOENT);
        CHECK(lstat(path, &st) != 0);

        /* The same link rule in the user's own directory: another user's
         * link (root chowned it there) chooses nothing. */
        snprintf(path, sizeof(path), "%s/own/linked.json", base);
        CHECK(symlink(victim, path) == 0);
        CHECK(lchown(path, foreign_uid(), foreign_uid()) == 0);
        v = snap(victim);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        expect_log(path, "symbolic link", uid_text);
        expect_unchanged(victim, &v);

        /* The user's link to another user's file: refused. */
        char theirs[4300];
        snprintf(theirs, sizeof(theirs), "%s/theirs.json", base);
        write_db(theirs, 512, 4);
        CHECK(chown(theirs, foreign_uid(), foreign_uid()) == 0);
        snprintf(path, sizeof(path), "%s/own/to-theirs.json", base);
        CHECK(symlink(theirs, path) == 0);
        v = snap(theirs);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        expect_log(theirs, uid_text, "another user's file");
        expect_unchanged(theirs, &v);

        /* Another user's database in the user's own directory. */
        snprintf(path, sizeof(path), "%s/own/foreign.json", base);
        write_db(path, 512, 5);
        CHECK(chown(path, foreign_uid(), foreign_uid()) == 0);
        v = snap(path);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        expect_log(path, uid_text, "not replaced");
        expect_unchanged(path, &v);

        /* Another user's directory: nothing written in it. */
        snprintf(dir, sizeof(dir), "%s/theirs", base);
        CHECK(mkdir(dir, 0755) == 0);
        CHECK(chown(dir, foreign_uid(), foreign_uid()) == 0);
        snprintf(path, sizeof(path), "%s/tuning.json", dir);
        prnn_log_clear();
        CHECK(prnn_tuning_db_store(path, &e) == PRNN_STATUS_TUNING_DB_ERROR);
        expect_log(dir, uid_text, "not written");
        CHECK(test_count_files(dir, "") == 2);
    }
    CHECK(test_count_files(base, "made") == 0);
    test_rm_rf(base);
    free(base);
}

int main(void)
{
    const char *no_foreign = foreign_unavailable();
    snprintf(uid_text, sizeof(uid_text), "uid %u", (unsigned)foreign_uid());
    test_reader(!no_foreign);
    test_writer(!no_foreign);
    int rc = test_finish("tuning-trust: the user DB read only from the user's files in the user's "
                         "directories, the writer refuses planted links, foreign files and "
                         "directories, writes nothing through a link");
    if (rc == 0 && no_foreign) {
        printf("SKIP: the checks with files of another user did not run: %s\n", no_foreign);
        return 77;
    }
    return rc;
}
