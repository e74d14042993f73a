/*
 * The writer behind prnn-autotune: read, merge, write a temporary file,
 * rename. Writers are serialized by flock on a lock file beside the database
 * (never on the database itself, which rename replaces), so two autotuning
 * processes cannot lose each other's entries; readers need no lock because a
 * rename is atomic. The temporary file is locked too (temp_files.h), so
 * that later stores and prnn-cache can reclaim those of killed writers.
 *
 * A database path that is a symbolic link is followed to where it points
 * (say, into a dotfiles repository) and that file is replaced, when the
 * link is the user's (or root's) and the file it names is the user's; a
 * link to anything but an existing regular file (/dev/null, a directory,
 * nothing: a dangling link) is refused with a message, before any lock file
 * is made beside its target, and so is a path that is itself not a regular
 * file. The path is resolved once: from then on everything goes through
 * the descriptor of the trusted directory that holds the file
 * (trusted_path.h), with O_NOFOLLOW, so no file is created or replaced
 * through a link planted meanwhile (the lock file included).
 */
#include "tuning_db.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "store/cache_dir.h"
#include "store/safe_file.h"
#include "store/temp_files.h"
#include "store/trusted_path.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The file a store replaces, resolved once. */
typedef struct {
    const char *path; /* for messages: the file (a link's target) */
    char dir[PATH_MAX];
    const char *base; /* its name in dir */
    prnn_trusted_dir d;
} db_file;

static prnnStatus_t fail_errno(const char *path, const char *what)
{
    return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR, "tuning DB %s: %s: %s", path, what,
                     strerror(errno));
}

/* Reads the existing file. SUCCESS with *text NULL when there is none. */
static prnnStatus_t read_existing(const db_file *f, char **text, size_t *len, mode_t *mode)
{
    *text = NULL;
    *len = 0;
    struct stat st;
    int fd = prnn_safe_open_at(f->d.fd, f->base, 1, &st);
    if (fd < 0 && errno == ENOENT)
        return PRNN_STATUS_SUCCESS;
    if (fd < 0 && errno == ELOOP)
        return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                         "tuning DB %s: became a symbolic link while being stored: refused",
                         f->path);
    if (fd < 0)
        return fail_errno(f->path, "cannot read the existing file");
    char why[512];
    if (prnn_trusted_file_check(&f->d, &st, why, sizeof(why)) != 0) {
        close(fd);
        return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                         "tuning DB %s: the existing file is %s: not read and not replaced",
                         f->path, why);
    }
    /* Never group- or other-writable (the check above refuses those). */
    *mode = st.st_mode & 0755;
    /* The file cannot change under the lock, except by a writer that
     * ignores it; what it holds is bounded all the same. */
    *text = prnn_safe_read_all(fd, &st, PRNN_TUNING_MAX_FILE_BYTES, len);
    int err = errno;
    close(fd);
    if (*text)
        return PRNN_STATUS_SUCCESS;
    if (err == ENOMEM)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "tuning DB %s: out of memory", f->path);
    errno = err;
    return fail_errno(f->path, "cannot read the existing file");
}

/* Keeps the bytes of a file we are about to replace as <path>.bad-<UTC
 * time>, written from memory so it works wherever the new file can be
 * written. The backup's path into bak. */
static int backup(const db_file *f, const char *text, size_t len, char *bak, size_t bak_size)
{
    char stamp[32], name[PATH_MAX];
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
        snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
    for (int i = 0; i < 100; i++) {
        int n = i ? snprintf(name, sizeof(name), "%s.bad-%s-%d", f->base, stamp, i)
                  : snprintf(name, sizeof(name), "%s.bad-%s", f->base, stamp);
        if (n < 0 || (size_t)n >= sizeof(name)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        snprintf(bak, bak_size, "%s/%s", f->dir, name);
        int fd = openat(f->d.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return -1;
        int rc = prnn_safe_write_all(fd, text, len);
        if (rc == 0)
            rc = fsync(fd);
        int err = errno;
        if (close(fd) != 0 && rc == 0) {
            err = errno;
            rc = -1;
        }
        if (rc != 0) {
            unlinkat(f->d.fd, name, 0);
            errno = err;
            return -1;
        }
        return 0;
    }
    errno = EEXIST;
    return -1;
}

static int cmp_entries(const void *a, const void *b)
{
    return prnn_tuning_entry_compare(a, b);
}

/* The merged, sorted list: old entries with the new ones replacing the same
 * keys (later new entries win over earlier ones). */
static prnn_tuning_entry *merge(const prnn_tuning_db *old, const prnn_tuning_entry *add,
                                size_t n_add, size_t *count)
{
    size_t cap = old->count + n_add, n = 0;
    prnn_tuning_entry *all = malloc((cap ? cap : 1) * sizeof(*all));
    if (!all)
        return NULL;
    for (size_t i = 0; i < old->count; i++)
        all[n++] = old->items[i].entry;
    for (size_t i = 0; i < n_add; i++) {
        size_t j = 0;
        while (j < n && !prnn_tuning_entry_same_key(&all[j], &add[i]))
            j++;
        all[j] = add[i];
        if (j == n)
            n++;
    }
    qsort(all, n, sizeof(*all), cmp_entries);
    *count = n;
    return all;
}

/* Writes text to a temporary file beside the database and renames it over
 * it. On failure nothing is left behind and errno says why; *what names the
 * step. */
static int replace_file(const db_file *f, const char *text, mode_t mode, const char **what)
{
    char tmp[PATH_MAX];
    int n = snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", f->base);
    if (n < 0 || (size_t)n >= sizeof(tmp)) {
        *what = "temporary file name";
        errno = ENAMETOOLONG;
        return -1;
    }
    const prnn_safe_chunk chunk = {text, strlen(text)};
    switch (prnn_safe_replace_at(f->d.fd, tmp, f->base, mode, &chunk, 1, PRNN_SAFE_SYNC_DIR)) {
    case PRNN_SAFE_DONE: return 0;
    case PRNN_SAFE_CREATE: *what = "cannot create a temporary file"; break;
    case PRNN_SAFE_CHMOD: *what = "cannot set the mode of the temporary file"; break;
    case PRNN_SAFE_WRITE: *what = "cannot write the temporary file"; break;
    case PRNN_SAFE_FSYNC: *what = "cannot fsync the temporary file"; break;
    case PRNN_SAFE_RENAME:
    case PRNN_SAFE_DIR_IN_THE_WAY: *what = "cannot rename the temporary file into place"; break;
    }
    return -1;
}

static int base_matches(const char *name, const void *base)
{
    return prnn_temp_is_tuning_db(name, base);
}

void prnn_tuning_db_sweep(const char *path, long long min_age, prnn_temp_sweep_result *r)
{
    char dir[PATH_MAX];
    const char *base = prnn_path_split(path, dir, sizeof(dir));
    prnn_temp_sweep(dir, base_matches, base, min_age, r);
}

/* The file a store replaces: path (existing or not), or where the symbolic
 * link path points (into real, PATH_MAX bytes). Refused, with a message,
 * when that is not an existing regular file, when the link is another
 * user's (it would choose which file we replace), or when the file it names
 * is not ours (we would replace another user's file). */
static prnnStatus_t resolve_target(const char *path, char *real, const char **target)
{
    struct stat st;
    char owner[300];
    unsigned me = (unsigned)geteuid();
    *target = path;
    if (lstat(path, &st) != 0)
        return PRNN_STATUS_SUCCESS; /* a new database */
    if (S_ISLNK(st.st_mode)) {
        char link[PATH_MAX];
        ssize_t n = readlink(path, link, sizeof(link) - 1);
        link[n > 0 ? n : 0] = '\0';
        if (st.st_uid != me && st.st_uid != 0) {
            prnn_describe_owner((unsigned)st.st_uid, owner, sizeof(owner));
            return prnn_fail(
                PRNN_STATUS_TUNING_DB_ERROR,
                "tuning DB %s is a symbolic link (to %s) owned by %s, not by you (uid %u) or root: "
                "refused, another user's link does not choose the file a store replaces",
                path, link, owner, me);
        }
        if (!realpath(path, real))
            return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                             "tuning DB %s is a symbolic link to %s, which %s%s: make it point to "
                             "a regular file (or remove the link)",
                             path, link,
                             errno == ENOENT ? "does not exist" : "cannot be resolved: ",
                             errno == ENOENT ? "" : strerror(errno));
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
            return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                             "tuning DB %s is a symbolic link to %s, which is not a regular file: "
                             "make it point to one (or remove the link)",
                             path, real);
        if (st.st_uid != me) {
            prnn_describe_owner((unsigned)st.st_uid, owner, sizeof(owner));
            return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                             "tuning DB %s is a symbolic link to %s, which is owned by %s, not by "
                             "you (uid %u): refused, a store would replace another user's file",
                             path, real, owner, me);
        }
        *target = real;
        return PRNN_STATUS_SUCCESS;
    }
    if (!S_ISREG(st.st_mode))
        return prnn_fail(
            PRNN_STATUS_TUNING_DB_ERROR,
            "tuning DB %s is not a regular file: give the path of a file (or of one to create)",
            path);
    return PRNN_STATUS_SUCCESS;
}

/* Under the lock: read, check, back up if needed, merge, write. */
static prnnStatus_t store_locked(const db_file *f, const prnn_tuning_entry *entries, size_t count)
{
    char *text;
    size_t len;
    mode_t mode = 0644;
    PRNN_TRY(read_existing(f, &text, &len, &mode));

    prnn_tuning_db old = {0};
    if (text) {
        char origin[PATH_MAX + 32];
        snprintf(origin, sizeof(origin), "tuning DB %s", f->path);
        int rejected = prnn_tuning_db_parse(&old, text, len, origin) != 0;
        if (old.out_of_memory) {
            /* Not malformed: neither backed up nor replaced. */
            free(text);
            prnn_tuning_db_free(&old);
            return prnn_fail(
                PRNN_STATUS_ALLOC_FAILED,
                "tuning DB %s: out of memory reading the existing file; nothing written", f->path);
        }
        if (rejected || old.entries_skipped) {
            char bak[2 * PATH_MAX + 64];
            if (backup(f, text, len, bak, sizeof(bak)) != 0) {
                prnnStatus_t st = fail_errno(f->path, "cannot back up the malformed file");
                free(text);
                prnn_tuning_db_free(&old);
                return st;
            }
            if (rejected)
                prnn_log_append("tuning DB %s: the existing file is malformed (see above); kept it "
                                "as %s and started a fresh one",
                                f->path, bak);
            else
                prnn_log_append("tuning DB %s: %zu unreadable entries dropped (see above); the old "
                                "file is kept as %s",
                                f->path, old.entries_skipped, bak);
        }
        free(text);
    }

    size_t n = 0;
    prnn_tuning_entry *all = merge(&old, entries, count, &n);
    prnn_tuning_db_free(&old);
    char *json = all ? prnn_tuning_db_format(all, n) : NULL;
    free(all);
    if (!json)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "tuning DB %s: out of memory", f->path);
    const char *what = "";
    prnnStatus_t st = replace_file(f, json, mode, &what) == 0 ? PRNN_STATUS_SUCCESS
                                                              : fail_errno(f->path, what);
    free(json);
    return st;
}

/* The lock file beside the database, created if needed, never through a
 * link; locked exclusively. The fd, or -1 with the failure logged in *st. */
static int lock_db(const db_file *f, prnnStatus_t *st)
{
    char name[PATH_MAX];
    int n = snprintf(name, sizeof(name), "%s.lock", f->base);
    if (n < 0 || (size_t)n >= sizeof(name)) {
        errno = ENAMETOOLONG;
        *st = fail_errno(f->path, "cannot open the lock file");
        return -1;
    }
    prnn_safe_lock_step step;
    char why[512];
    int lfd = prnn_safe_lock_at(&f->d, name, &step, why, sizeof(why));
    switch (step) {
    case PRNN_SAFE_LOCKED: break;
    case PRNN_SAFE_LOCK_LINK:
        *st = prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                        "tuning DB %s: the lock file %s/%s is a symbolic link: refused (prnn "
                        "creates no file through a link; remove it)",
                        f->path, f->dir, name);
        break;
    case PRNN_SAFE_LOCK_OPEN: *st = fail_errno(f->path, "cannot open the lock file"); break;
    case PRNN_SAFE_LOCK_UNTRUSTED:
        *st = prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                        "tuning DB %s: the lock file %s/%s is %s: refused", f->path, f->dir, name,
                        why);
        break;
    case PRNN_SAFE_LOCK_FLOCK: *st = fail_errno(f->path, "cannot lock the lock file"); break;
    }
    return lfd;
}

prnnStatus_t prnn_tuning_db_store_many(const char *path, const prnn_tuning_entry *entries,
                                       size_t count)
{
    char user_path[PATH_MAX];
    if (!path) {
        if (prnn_tuning_user_db_path(user_path, sizeof(user_path)))
            return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR,
                             "no user tuning DB path: set PRNN_TUNING_DB, PRNN_CACHE_DIR, "
                             "XDG_CACHE_HOME or HOME");
        path = user_path;
    }
    if (!path[0])
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "tuning DB path is empty");
    /* A database that is a symlink is updated where it points; rename would
     * otherwise replace the link (see the top of this file). */
    char real[PATH_MAX];
    PRNN_TRY(resolve_target(path, real, &path));
    if (!entries && count)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "entries is NULL");
    for (size_t i = 0; i < count; i++) {
        char err[256], desc[400];
        if (prnn_tuning_entry_check(&entries[i], err, sizeof(err)) != 0) {
            prnn_tuning_entry_describe(&entries[i], desc, sizeof(desc));
            return prnn_fail(PRNN_STATUS_BAD_PARAM, "tuning DB %s: entry %zu (%s): %s", path, i,
                             desc, err);
        }
    }

    db_file f;
    f.path = path;
    f.base = prnn_path_split(path, f.dir, sizeof(f.dir));
    if (!f.base[0]) {
        errno = EISDIR;
        return fail_errno(path, "not a file name");
    }
    if (prnn_mkdir_p(f.dir) != 0)
        return fail_errno(path, "cannot create its directory");
    char why[PATH_MAX + 512];
    if (prnn_trusted_dir_open(f.dir, &f.d, why, sizeof(why)) != PRNN_TRUST_OK)
        return prnn_fail(PRNN_STATUS_TUNING_DB_ERROR, "tuning DB %s: not written: %s", path, why);
    prnnStatus_t st = PRNN_STATUS_SUCCESS;
    int lfd = lock_db(&f, &st);
    if (lfd >= 0) {
        st = store_locked(&f, entries, count);
        close(lfd); /* releases the lock */
        /* Killed writers' temporary files, old enough (temp_files.h). */
        prnn_temp_sweep_result swept = {0};
        prnn_temp_sweep_at(f.d.fd, f.dir, base_matches, f.base, PRNN_TEMP_STALE_SECONDS, &swept);
    }
    prnn_trusted_dir_close(&f.d);
    return st;
}

prnnStatus_t prnn_tuning_db_store(const char *path, const prnn_tuning_entry *entry)
{
    if (!entry)
        return prnn_fail(PRNN_STATUS_BAD_PARAM, "entry is NULL");
    return prnn_tuning_db_store_many(path, entry, 1);
}
