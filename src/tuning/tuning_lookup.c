/*
 * The process-wide view of the two databases. The shipped DB is parsed once;
 * the user DB is re-read whenever the file behind its path changes (the
 * writer renames a new file into place, so the inode changes on every store),
 * which is how an autotuning run in another process reaches later plans.
 *
 * A parsed user DB is reference-counted: a lookup holds it while it runs the
 * planner's fits callback, outside the mutex, so a concurrent reload never
 * frees entries under it and a slow callback never blocks other threads.
 * The file is read and parsed outside the mutex too (its cost is bounded,
 * tuning_db_bounds.c, but a planning thread must not wait on another's
 * read): two threads that meet a new file at once may both parse it, and
 * the first to finish installs it.
 */
#include "tuning_db.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "embedded.h"
#include "error.h"
#include "note_once.h"
#include "store/cache_dir.h"
#include "store/safe_file.h"
#include "store/trusted_path.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct {
    prnn_tuning_db db;
    int refs;
    int transient; /* the file could not be read this time: not cached */
} shared_db;

typedef struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} file_id;

/* Parsed once, under the mutex, and never changed after: lookups read it
 * without the lock. Loaded again by the next lookup when it ran out of
 * memory (a lack of memory must not cost the process its database). */
static pthread_mutex_t shipped_mutex = PTHREAD_MUTEX_INITIALIZER;
static int shipped_loaded;
static prnn_tuning_db shipped_db;

static pthread_mutex_t user_mutex = PTHREAD_MUTEX_INITIALIZER;
static shared_db *user_cached; /* holds one reference */
static char user_cached_path[PATH_MAX];
static file_id user_cached_id;

int prnn_tuning_user_db_path(char *buf, size_t size)
{
    if (!buf || !size)
        return -1;
    const char *v = getenv("PRNN_TUNING_DB");
    if (v && v[0]) {
        int n = snprintf(buf, size, "%s", v);
        return (n < 0 || (size_t)n >= size) ? -1 : 0;
    }
    if (prnn_cache_dir(buf, size))
        return -1;
    size_t len = strlen(buf);
    int n = snprintf(buf + len, size - len, "/tuning.json");
    return (n < 0 || (size_t)n >= size - len) ? -1 : 0;
}

static const prnn_tuning_db *shipped(void)
{
    pthread_mutex_lock(&shipped_mutex);
    if (!shipped_loaded) {
        char origin[300];
        prnn_tuning_db db = {0};
        for (const prnn_embedded_file *f = prnn_tuning_db_files; f->name; f++) {
            snprintf(origin, sizeof(origin), "shipped tuning DB %s", f->name);
            prnn_tuning_db_parse(&db, f->data, f->size, origin);
        }
        if (db.out_of_memory) {
            prnn_tuning_db_free(&db);
        } else {
            shipped_db = db;
            shipped_loaded = 1;
        }
    }
    int loaded = shipped_loaded;
    pthread_mutex_unlock(&shipped_mutex);
    return loaded ? &shipped_db : NULL;
}

static void release(shared_db *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&user_mutex);
    int last = --s->refs == 0;
    pthread_mutex_unlock(&user_mutex);
    if (last) {
        prnn_tuning_db_free(&s->db);
        free(s);
    }
}

/* A fresh shared_db with the file's entries (empty, with the problem logged,
 * when the file cannot be read). NULL only when out of memory. */
static shared_db *load_user(int fd, const struct stat *st, const char *path)
{
    shared_db *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->refs = 1;
    char origin[PATH_MAX + 32];
    snprintf(origin, sizeof(origin), "user tuning DB %s", path);
    size_t len = 0;
    char *text = prnn_safe_read_all(fd, st, PRNN_TUNING_MAX_FILE_BYTES, &len);
    if (!text) {
        /* Out of memory or an I/O error says nothing about the file's
         * contents: not to be remembered as rejected (acquire_user). */
        s->transient = 1;
        s->db.out_of_memory = errno == ENOMEM;
        prnn_log_append("%s: ignored: %s%s", origin,
                        s->db.out_of_memory ? "out of memory" : "cannot read it: ",
                        s->db.out_of_memory ? "" : strerror(errno));
        s->db.files_rejected = 1;
        return s;
    }
    prnn_tuning_db_parse(&s->db, text, len, origin);
    free(text);
    return s;
}

static int same_id(const file_id *a, const file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* Why there is no user DB path: a value too long for a path, or nothing to
 * make one from (then silence: no DB is the normal case). Once per
 * process. */
static void note_no_path(void)
{
    const char *v = getenv("PRNN_TUNING_DB");
    if (v && v[0])
        prnn_note_once("user tuning DB: ignored: PRNN_TUNING_DB is %zu characters long, more than "
                       "a path may have (PATH_MAX %d)",
                       strlen(v), PATH_MAX);
    else if (getenv("PRNN_CACHE_DIR") || getenv("XDG_CACHE_HOME") || getenv("HOME")) {
        char why[PATH_MAX];
        prnn_cache_dir_explain(why, sizeof(why));
        prnn_note_once("user tuning DB: none: %s", why);
    }
}

/* A path that is a symbolic link to nothing: the user meant a DB there. */
static void note_if_dangling(const char *path)
{
    struct stat st;
    char target[PATH_MAX];
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return;
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    target[n > 0 ? n : 0] = '\0';
    prnn_note_once("user tuning DB %s: ignored: it is a symbolic link to %s, which does not exist",
                   path, target);
}

/* Drops the cached user DB (a file that can no longer be read, or is no
 * longer trusted, must not be used from memory either). Returns 1 when
 * path was already the one forgotten: its note was given. */
static int forget_cached(const char *path)
{
    pthread_mutex_lock(&user_mutex);
    int known = strcmp(user_cached_path, path) == 0 && !user_cached;
    if (!known)
        snprintf(user_cached_path, sizeof(user_cached_path), "%s", path);
    shared_db *old = user_cached;
    user_cached = NULL;
    pthread_mutex_unlock(&user_mutex);
    release(old);
    return known;
}

/* The user DB at path, opened for reading after the trust checks
 * (trusted_path.h): its directory trusted, the file it names (a symbolic
 * link is followed: the link itself is in that directory, so it is the
 * user's) a regular file owned by the user or root and writable by nobody
 * else. The fd and its fstat, or -1 when there is none or it is refused
 * (noted once). */
static int open_user_db(const char *path, struct stat *st)
{
    char dir[PATH_MAX], why[PATH_MAX + 512];
    const char *base = prnn_path_split(path, dir, sizeof(dir));
    prnn_trusted_dir d;
    switch (prnn_trusted_dir_open(dir, &d, why, sizeof(why))) {
    case PRNN_TRUST_OK: break;
    case PRNN_TRUST_ABSENT: return -1; /* no directory, no DB: the normal case before tuning */
    case PRNN_TRUST_REFUSED:
    case PRNN_TRUST_ERROR:
        forget_cached(path);
        prnn_note_once("user tuning DB %s: ignored: %s", path, why);
        return -1;
    }
    /* O_NONBLOCK: a FIFO at that path must not hang the planner. */
    int fd = base[0] ? prnn_safe_open_at(d.fd, base, 0, st) : -1;
    int open_errno = base[0] ? errno : EISDIR;
    if (fd < 0 && open_errno != ENOENT && open_errno != ENOTDIR) {
        /* Exists but unreadable: worth a note, once per path. */
        if (!forget_cached(path))
            prnn_log_append("user tuning DB %s: ignored: cannot open it: %s", path,
                            strerror(open_errno));
    } else if (fd < 0) {
        /* no user DB: the normal case before any tuning run */
        if (open_errno == ENOENT)
            note_if_dangling(path);
    } else if (!S_ISREG(st->st_mode)) {
        prnn_note_once("user tuning DB %s: ignored: not a regular file", path);
        close(fd);
        fd = -1;
    } else if (prnn_trusted_file_check(&d, st, why, sizeof(why)) != 0) {
        forget_cached(path);
        prnn_note_once("user tuning DB %s: ignored: it is %s; prnn reads tuning data only from "
                       "files nobody else can write",
                       path, why);
        close(fd);
        fd = -1;
    }
    prnn_trusted_dir_close(&d);
    return fd;
}

/* The current user DB with a reference for the caller, or NULL when there is
 * none. The identity comes from fstat of the descriptor that is read, so the
 * cached text and the identity always belong to the same file. */
static shared_db *acquire_user(void)
{
    char path[PATH_MAX];
    if (prnn_tuning_user_db_path(path, sizeof(path))) {
        note_no_path();
        return NULL;
    }
    struct stat st;
    int fd = open_user_db(path, &st);
    if (fd < 0)
        return NULL;
    file_id id = {st.st_dev, st.st_ino, st.st_size, st.st_mtim};

    pthread_mutex_lock(&user_mutex);
    shared_db *s = NULL;
    if (user_cached && strcmp(user_cached_path, path) == 0 && same_id(&user_cached_id, &id)) {
        s = user_cached;
        s->refs++;
        pthread_mutex_unlock(&user_mutex);
        close(fd);
        return s;
    }
    pthread_mutex_unlock(&user_mutex);
    /* Read and parsed outside the mutex (see the top of this file). */
    s = load_user(fd, &st, path);
    close(fd);
    if (!s) {
        prnn_log_append("user tuning DB %s: ignored: out of memory", path);
        return NULL;
    }
    /* Out of memory, or a read that failed, says nothing about the file:
     * used (empty) this once, never remembered, so the next lookup reads
     * it again. */
    if (s->transient || s->db.out_of_memory)
        return s;
    shared_db *old = NULL;
    pthread_mutex_lock(&user_mutex);
    if (user_cached && strcmp(user_cached_path, path) == 0 && same_id(&user_cached_id, &id)) {
        /* another thread installed this file meanwhile: use its copy */
        old = s;
        s = user_cached;
        s->refs++;
    } else {
        old = user_cached;
        user_cached = s;
        s->refs++; /* the cache's reference and the caller's */
        snprintf(user_cached_path, sizeof(user_cached_path), "%s", path);
        user_cached_id = id;
    }
    pthread_mutex_unlock(&user_mutex);
    release(old);
    return s;
}

int prnn_tuning_lookup(const prnn_tuning_key *key, prnn_tuning_fits_fn fits, const void *ctx,
                       prnn_tuning_result *result)
{
    const prnn_tuning_db *ship = shipped();
    shared_db *user = acquire_user();
    int found = prnn_tuning_search(user ? &user->db : NULL, ship, key, fits, ctx, result);
    release(user);
    return found;
}

void prnn_tuning_each_entry(int user_db, prnn_tuning_entry_fn fn, void *ctx)
{
    shared_db *user = user_db ? acquire_user() : NULL;
    const prnn_tuning_db *db = user_db ? (user ? &user->db : NULL) : shipped();
    for (size_t i = 0; db && i < db->count; i++)
        fn(&db->items[i].entry, ctx);
    release(user);
}
