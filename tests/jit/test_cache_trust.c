/*
 * The cubin cache's trust rule (prnn.h, "Files on disk"; issue #25): a
 * cubin runs in the user's process, and its checksum detects damage, not
 * forgery, so what decides is who can write the directory and the file.
 * Files are planted by another user (tests/foreign_user.h: root acting as an
 * unused uid) and must never be loaded, never be written through, and each
 * refusal must name the path, the owner and the mode:
 *  - a directory owned by another user, a sticky world-writable one (/tmp
 *    style) with a valid entry planted in it, a group-writable one: neither
 *    read nor written;
 *  - in the user's own directory, an entry owned by another user, one that
 *    group and others may write, a symbolic link to a valid entry
 *    elsewhere, a FIFO: a miss, replaced by the next store, and the link's
 *    target never written;
 *  - PRNN_SHARED_CACHE_DIR trusts exactly the directory it names (another
 *    user's, group-writable), never a world-writable one or a writable
 *    entry;
 *  - a directory reached through a symbolic link of the user's is fine.
 * Without NVRTC: entries are stored under made-up keys. With NVRTC, the
 * whole prnn_cubin_get path too (compiled, noted, nothing written).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "jit/cubin_cache.h"
#include "jit_test.h"
#include "../foreign_user.h"
#include "../needs_libs.h"

static const char payload[] = "\177ELF pretend cubin";

static void entry_path(char *buf, size_t size, const char *dir, char d)
{
    snprintf(buf, size, "%s/%s%s", dir, jit_test_fake_key(d).name, PRNN_CUBIN_SUFFIX);
}

static int store(const char *dir, char d, char *why, size_t size)
{
    prnn_cubin_key k = jit_test_fake_key(d);
    why[0] = '\0';
    return prnn_cubin_cache_store(dir, &k, payload, sizeof(payload), why, size);
}

static prnn_cubin_lookup load(const char *dir, char d, char *why, size_t size)
{
    prnn_cubin_key k = jit_test_fake_key(d);
    void *p = NULL;
    size_t n = 0;
    prnn_cubin_lookup r = prnn_cubin_cache_load(dir, &k, &p, &n, why, size);
    if (r == PRNN_CUBIN_HIT) {
        CHECK(n == sizeof(payload) && memcmp(p, payload, n) == 0);
        free(p);
    }
    return r;
}

/* The bytes of a valid entry for key d, as a store writes them. */
static unsigned char *entry_bytes(char d, size_t *n)
{
    char *dir = jit_test_tmpdir("trust-src");
    char why[PATH_MAX + 512], path[PATH_MAX];
    CHECK(store(dir, d, why, sizeof(why)) == 0);
    entry_path(path, sizeof(path), dir, d);
    FILE *f = fopen(path, "rb");
    unsigned char *buf = malloc(4096);
    *n = f ? fread(buf, 1, 4096, f) : 0;
    if (f)
        fclose(f);
    CHECK(*n > 32);
    jit_test_rmtree(dir);
    free(dir);
    return buf;
}

static int write_file(const char *path, const void *data, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    int rc = write(fd, data, n) == (ssize_t)n ? 0 : -1;
    close(fd);
    return rc;
}

typedef struct {
    const char *path;
    const void *data;
    size_t n;
    const char *link_to; /* plant a symbolic link instead */
} plant_args;

/* In the other user's process. */
static int plant(void *arg)
{
    const plant_args *a = arg;
    if (a->link_to)
        return symlink(a->link_to, a->path);
    return write_file(a->path, a->data, a->n, 0644);
}

/* The log or why says all of these. */
static void expect_text(const char *text, const char *a, const char *b, const char *c)
{
    const char *want[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (want[i] && !strstr(text, want[i])) {
            fprintf(stderr, "expected \"%s\" in:\n  %s\n", want[i], text);
            test_failures++;
        }
}

static char uid_text[32];

/* dir is refused: no load, no store, nothing new in it, and the reason
 * names dir and the mode (and owner when given). */
static void expect_refused_dir(const char *dir, const char *mode, const char *owner)
{
    char why[PATH_MAX + 512];
    int before = jit_test_count_files(dir, "");
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_NO_DIR);
    expect_text(why, dir, mode, owner);
    printf("  load refused: %s\n", why);
    CHECK(store(dir, 'b', why, sizeof(why)) != 0);
    expect_text(why, dir, mode, owner);
    CHECK(jit_test_count_files(dir, "") == before);
}

static void test_foreign_directories(void)
{
    size_t n;
    unsigned char *bytes = entry_bytes('a', &n);
    char *base = jit_test_tmpdir("trust");
    CHECK(chmod(base, 0755) == 0); /* the other user may come in */
    char dir[PATH_MAX], path[PATH_MAX + 64];

    /* Another user's directory with a valid entry in it. */
    printf("another user's directory (0755):\n");
    snprintf(dir, sizeof(dir), "%s/theirs", base);
    CHECK(mkdir(dir, 0755) == 0);
    entry_path(path, sizeof(path), dir, 'a');
    CHECK(write_file(path, bytes, n, 0644) == 0);
    CHECK(chown(path, foreign_uid(), foreign_uid()) == 0);
    CHECK(chown(dir, foreign_uid(), foreign_uid()) == 0);
    expect_refused_dir(dir, "mode 0755", uid_text);

    /* A sticky world-writable directory (ours: root's, like /tmp) where
     * the other user planted a valid entry. */
    printf("sticky world-writable directory (1777), entry planted by another user:\n");
    snprintf(dir, sizeof(dir), "%s/sticky", base);
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 01777) == 0);
    entry_path(path, sizeof(path), dir, 'a');
    plant_args pa = {path, bytes, n, NULL};
    CHECK(as_foreign(plant, &pa) == 0);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && st.st_uid == foreign_uid());
    expect_refused_dir(dir, "mode 1777", "group and others");

    /* The user's own directory, but group-writable. */
    printf("own directory, group-writable (0770):\n");
    snprintf(dir, sizeof(dir), "%s/group", base);
    CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0770) == 0);
    entry_path(path, sizeof(path), dir, 'a');
    CHECK(write_file(path, bytes, n, 0644) == 0);
    expect_refused_dir(dir, "mode 0770", "its group");

    /* PRNN_SHARED_CACHE_DIR trusts exactly that directory: another user's
     * (a read-only cache in a container image), then group-writable; its
     * entries may be anyone's. */
    printf("PRNN_SHARED_CACHE_DIR:\n");
    char why[PATH_MAX + 512];
    snprintf(dir, sizeof(dir), "%s/theirs", base);
    setenv("PRNN_SHARED_CACHE_DIR", dir, 1);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_HIT);
    CHECK(chmod(dir, 02775) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_HIT);
    /* Every user may write it: never, shared or not. */
    CHECK(chmod(dir, 0777) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_NO_DIR);
    expect_text(why, "PRNN_SHARED_CACHE_DIR", "mode 0777", "every user");
    printf("  world-writable, shared: %s\n", why);
    CHECK(chmod(dir, 0755) == 0);
    /* A writable entry in it: not loaded. */
    entry_path(path, sizeof(path), dir, 'a');
    CHECK(chmod(path, 0666) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
    expect_text(why, "writable by group and others", "mode 0666", "not loaded");
    CHECK(chmod(path, 0644) == 0);
    /* It names one directory, not every directory. */
    snprintf(path, sizeof(path), "%s/group", base);
    CHECK(load(path, 'a', why, sizeof(why)) == PRNN_CUBIN_NO_DIR);
    expect_text(why, "PRNN_SHARED_CACHE_DIR", "names another", dir);
    /* A relative value names nothing. */
    setenv("PRNN_SHARED_CACHE_DIR", "theirs", 1);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_NO_DIR);
    unsetenv("PRNN_SHARED_CACHE_DIR");

    jit_test_rmtree(base);
    free(base);
    free(bytes);
}

/* In the user's own directory, entries that are not the user's own
 * regular files are misses, replaced by the next store; nothing is written
 * through a link. */
static void test_foreign_entries(int foreign)
{
    size_t n;
    unsigned char *bytes = entry_bytes('a', &n);
    char *dir = jit_test_tmpdir("trust-own");
    char *other = jit_test_tmpdir("trust-elsewhere");
    char path[PATH_MAX + 64], target[PATH_MAX + 64], why[PATH_MAX + 512];
    entry_path(path, sizeof(path), dir, 'a');
    struct stat st;

    if (foreign) {
        printf("own directory, entry owned by another user:\n");
        CHECK(write_file(path, bytes, n, 0644) == 0);
        CHECK(chown(path, foreign_uid(), foreign_uid()) == 0);
        CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
        expect_text(why, uid_text, "not by you", "not loaded");
        printf("  %s\n", why);
        CHECK(store(dir, 'a', why, sizeof(why)) == 0);
        CHECK(lstat(path, &st) == 0 && st.st_uid == geteuid());
        CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_HIT);
    }
    printf("own directory, entry writable by group and others:\n");
    CHECK(write_file(path, bytes, n, 0644) == 0 && chmod(path, 0666) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
    expect_text(why, "writable by group and others", "mode 0666", NULL);
    printf("  %s\n", why);
    CHECK(chmod(path, 0620) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
    expect_text(why, "writable by its group", "mode 0620", NULL);
    CHECK(store(dir, 'a', why, sizeof(why)) == 0);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_HIT);

    printf("own directory, entry a symbolic link to a valid entry elsewhere:\n");
    snprintf(target, sizeof(target), "%s/valid.cubin", other);
    CHECK(write_file(target, bytes, n, 0644) == 0);
    CHECK(unlink(path) == 0 && symlink(target, path) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
    expect_text(why, "symbolic link", "does not follow", NULL);
    printf("  %s\n", why);
    /* The store replaces the link, never the file it names. */
    struct stat before, after;
    CHECK(stat(target, &before) == 0);
    CHECK(store(dir, 'a', why, sizeof(why)) == 0);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(stat(target, &after) == 0 && after.st_ino == before.st_ino &&
          after.st_size == before.st_size && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    /* A dangling link: the store creates nothing where it points. */
    snprintf(target, sizeof(target), "%s/created-through-link", other);
    CHECK(unlink(path) == 0 && symlink(target, path) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
    CHECK(store(dir, 'a', why, sizeof(why)) == 0);
    CHECK(lstat(target, &st) != 0 && errno == ENOENT);
    CHECK(jit_test_count_files(other, "") == 1);

    printf("own directory, entry a FIFO:\n");
    CHECK(unlink(path) == 0 && mkfifo(path, 0600) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_BAD);
    expect_text(why, "a FIFO, not a regular file", NULL, NULL);
    printf("  %s\n", why);
    CHECK(store(dir, 'a', why, sizeof(why)) == 0);
    CHECK(load(dir, 'a', why, sizeof(why)) == PRNN_CUBIN_HIT);

    /* The directory itself through a link of the user's: fine. */
    char link[PATH_MAX];
    snprintf(link, sizeof(link), "%s/cache-link", other);
    CHECK(symlink(dir, link) == 0);
    CHECK(load(link, 'a', why, sizeof(why)) == PRNN_CUBIN_HIT);
    CHECK(store(link, 'c', why, sizeof(why)) == 0);
    CHECK(jit_test_count_files(dir, ".cubin") == 2);
    CHECK(jit_test_count_files(dir, ".tmp.") == 0);

    jit_test_rmtree(dir);
    jit_test_rmtree(other);
    free(dir);
    free(other);
    free(bytes);
}

/* The whole path: an untrusted directory costs a compile, a note naming
 * it, and nothing written. */
static void test_get(int foreign)
{
    static const char *const defs[] = {"PRNN_PROBE_OFFSET=5"};
    static const prnn_compile_request probe = {"probe.cu", defs, 1, 90, "prnn_probe", NULL};
    char *base = jit_test_tmpdir("trust-get");
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/cache", base);
    CHECK(mkdir(dir, 0700) == 0);
    CHECK(chmod(dir, 0777) == 0);
    if (foreign)
        CHECK(chown(dir, foreign_uid(), foreign_uid()) == 0);
    jit_test_use_cache_dir(dir);
    for (int i = 0; i < 2; i++) {
        prnn_log_clear();
        void *cubin = NULL;
        size_t size = 0;
        prnnCubinSource_t src = PRNN_CUBIN_NONE;
        CHECK_STATUS(prnn_cubin_get(&probe, &cubin, &size, &src, NULL), PRNN_STATUS_SUCCESS);
        CHECK(src == PRNN_CUBIN_COMPILED);
        free(cubin);
        if (i == 0) {
            expect_text(prnnGetLastErrorLog(), "cubin cache directory not used", dir, "mode 0777");
            expect_text(prnnGetLastErrorLog(), "neither loads nor stores", "memory only",
                        foreign ? uid_text : NULL);
            printf("  %s\n", prnnGetLastErrorLog());
        } else {
            CHECK(!jit_test_log_has("not used")); /* once per process */
        }
        CHECK(jit_test_count_files(dir, "") == 0);
    }
    jit_test_rmtree(base);
    free(base);
}

int main(void)
{
    const char *no_foreign = foreign_unavailable();
    snprintf(uid_text, sizeof(uid_text), "uid %u", (unsigned)foreign_uid());
    if (!no_foreign) {
        test_foreign_directories();
    }
    test_foreign_entries(!no_foreign);
    if (prnn_nvrtc_get(NULL) == PRNN_STATUS_SUCCESS)
        test_get(!no_foreign);
    else
        printf(
            "prnn_cubin_get with an untrusted directory: not run, NVRTC cannot be loaded here\n");
    int rc = jit_test_finish("jit-cache-trust: foreign, world- and group-writable directories "
                             "neither read nor written, foreign, writable and linked entries not "
                             "loaded, nothing written through links, PRNN_SHARED_CACHE_DIR");
    if (rc == 0 && no_foreign) {
        printf("SKIP: the checks with files of another user did not run: %s\n", no_foreign);
        return 77;
    }
    return rc;
}
