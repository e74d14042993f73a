/*
 * Killed writers' temporary files and things in the way (issue #15),
 * without NVRTC: entries are stored under made-up keys.
 *  - a store removes the cache's abandoned temporary files (unlocked and
 *    older than PRNN_TEMP_STALE_SECONDS), and leaves a live writer's
 *    (locked) and a young one alone;
 *  - an empty directory at an entry's name is replaced by the entry;
 *  - prnn_cubin_cache_clear goes on past a file it cannot remove (a
 *    directory with files in it, which not even root can unlink), counts
 *    what it removed, kept and could not remove, and says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit_test.h"

static const char payload[] = "\177ELF pretend cubin";

/* A key whose name is hex digit d repeated (the name is all a store uses). */
/* Entry d's path, made a directory (with a file in it when full). */
static void directory_at_entry(const char *dir, char d, int full, char *path, size_t size)
{
    snprintf(path, size, "%s/%s%s", dir, jit_test_fake_key(d).name, PRNN_CUBIN_SUFFIX);
    CHECK(mkdir(path, 0755) == 0);
    if (full) {
        char inner[PATH_MAX + 8];
        snprintf(inner, sizeof(inner), "%s/keep", path);
        int fd = open(inner, O_WRONLY | O_CREAT, 0600);
        CHECK(fd >= 0);
        close(fd);
    }
}

static void store(const char *dir, char d)
{
    prnn_cubin_key k = jit_test_fake_key(d);
    char why[PATH_MAX + 256] = "";
    int rc = prnn_cubin_cache_store(dir, &k, payload, sizeof(payload), why, sizeof(why));
    if (rc)
        fprintf(stderr, "store %c: %s\n", d, why);
    CHECK(rc == 0);
}

/* A writer's temporary file for entry d, aged by age seconds; with locked,
 * held under flock by a descriptor returned (as a live writer holds it). */
static int temp_file(const char *dir, char d, const char *suffix, long age, int locked)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%.32s%s%s", dir, "dddddddddddddddddddddddddddddddd",
             PRNN_CUBIN_TEMP_INFIX, suffix);
    memset(path + strlen(dir) + 1, d, 32);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "partial", 7) == 7);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age;
    t[1] = t[0];
    CHECK(futimens(fd, t) == 0);
    if (locked) {
        CHECK(flock(fd, LOCK_EX) == 0);
        return fd;
    }
    close(fd);
    return -1;
}

static void test_store_sweeps(void)
{
    char *dir = jit_test_tmpdir("cache-sweep");
    long old = PRNN_TEMP_STALE_SECONDS + 600;
    temp_file(dir, 'a', "Killed", old, 0);
    int live = temp_file(dir, 'b', "Living", old, 1);
    temp_file(dir, 'c', "Recent", 5, 0);
    CHECK(jit_test_count_files(dir, ".tmp.") == 3);
    store(dir, '1');
    /* the killed writer's went; the live and the recent one stay */
    CHECK(jit_test_count_files(dir, "Killed") == 0);
    CHECK(jit_test_count_files(dir, "Living") == 1);
    CHECK(jit_test_count_files(dir, "Recent") == 1);
    CHECK(jit_test_entries(dir, NULL, 0) == 1);
    close(live);
    printf("store: abandoned temporary file removed, live and recent kept\n");
    jit_test_rmtree(dir);
    free(dir);
}

static void test_empty_directory_replaced(void)
{
    char *dir = jit_test_tmpdir("cache-emptydir");
    char path[PATH_MAX];
    directory_at_entry(dir, 'e', 0, path, sizeof(path));
    store(dir, 'e');
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(jit_test_count_files(dir, ".tmp.") == 0);
    printf("store: an empty directory at the entry's name is replaced\n");
    jit_test_rmtree(dir);
    free(dir);
}

static void test_clear_goes_on(void)
{
    char *dir = jit_test_tmpdir("cache-clear");
    char path[PATH_MAX];
    /* Sorted first, so a clear that stops at it removes nothing. */
    directory_at_entry(dir, '0', 1, path, sizeof(path));
    store(dir, '1');
    store(dir, '2');
    temp_file(dir, '3', "Killed", 0, 0); /* clear takes any age */
    int live = temp_file(dir, '4', "Living", 0, 1);
    prnn_temp_sweep_result r;
    CHECK_STATUS(prnn_cubin_cache_clear(dir, &r), PRNN_STATUS_CACHE_ERROR);
    printf("clear: removed %d, kept %d, failed %d (%s); log: %s\n", r.removed, r.kept, r.failed,
           r.why, prnnGetLastErrorLog());
    CHECK(r.removed == 3 && r.kept == 1 && r.failed == 1);
    CHECK(strstr(r.why, "a directory with files in it") != NULL);
    CHECK(jit_test_log_has("could not remove 1 file"));
    CHECK(jit_test_entries(dir, NULL, 0) == 1); /* the directory */
    CHECK(jit_test_count_files(dir, "Living") == 1);
    close(live);
    jit_test_rmtree(dir);
    free(dir);
}

/* A scan callback that removes every file after the first: what a
 * concurrent prnn-cache clear does between the listing and the reading. */
static int remove_the_rest(const prnn_cubin_entry *e, void *user)
{
    int *seen = user;
    if ((*seen)++ == 0) {
        const char *dir = getenv("PRNN_TEST_SCAN_DIR");
        prnn_temp_sweep_result r;
        CHECK_STATUS(prnn_cubin_cache_clear(dir, &r), PRNN_STATUS_SUCCESS);
        CHECK(r.removed == 3);
        CHECK(!e->vanished && e->has_stat);
        return 0;
    }
    /* Gone, not bad: no problem, and no size or age to show. */
    CHECK(e->vanished && !e->has_stat && !e->valid && !e->problem[0]);
    CHECK(e->file_size == 0 && e->mtime == 0);
    return 0;
}

static void test_scan_vanished(void)
{
    char *dir = jit_test_tmpdir("cache-vanish");
    store(dir, '1');
    store(dir, '2');
    temp_file(dir, '3', "Killed", 0, 0);
    setenv("PRNN_TEST_SCAN_DIR", dir, 1);
    int seen = 0;
    CHECK_STATUS(prnn_cubin_cache_scan(dir, 1, remove_the_rest, &seen), PRNN_STATUS_SUCCESS);
    CHECK(seen == 3);
    printf("scan: files removed by a concurrent clear are reported as vanished, not bad\n");
    jit_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    test_store_sweeps();
    test_empty_directory_replaced();
    test_clear_goes_on();
    test_scan_vanished();
    return jit_test_finish("jit-cache-temp-files: stale temporary files swept by stores, live ones "
                           "kept, an empty directory replaced, clear goes on past what it cannot "
                           "remove, files removed during a scan are not bad");
}
