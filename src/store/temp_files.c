#include "temp_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/cache_dir.h"

/* Six characters of randomness per try: getrandom when it answers at once,
 * else the clock, the process and a counter mixed (O_EXCL makes a clash a
 * retry, never a shared file). */
static void random_suffix(char *out)
{
    static const char set[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    static unsigned long counter;
    unsigned char r[6];
    if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^
                               ((unsigned long long)ts.tv_sec << 30) ^
                               ((unsigned long long)getpid() << 12) ^
                               __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        for (int i = 0; i < 6; i++) {
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdull;
            r[i] = (unsigned char)(x >> 56);
        }
    }
    for (int i = 0; i < 6; i++)
        out[i] = set[r[i] % (sizeof(set) - 1)];
}

int prnn_temp_create_at(int dirfd, char *name)
{
    size_t n = strlen(name);
    if (n < 6 || strcmp(name + n - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        random_suffix(name + n - 6);
        int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            /* Cannot block: nobody else knows the name yet. A filesystem
             * without flock gives an unlocked file, which the age still
             * protects. */
            (void)flock(fd, LOCK_EX | LOCK_NB);
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

static int alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int prnn_temp_is_tuning_db(const char *name, const char *base)
{
    size_t b = strlen(base), n = strlen(name);
    if (n != b + 5 + 6 || strncmp(name, base, b) != 0 || strncmp(name + b, ".tmp-", 5) != 0)
        return 0;
    for (size_t i = b + 5; i < n; i++)
        if (!alnum(name[i]))
            return 0;
    return 1;
}

void prnn_temp_each_tuning_db(const char *db, prnn_temp_visit_fn visit, void *user)
{
    char folder[PATH_MAX];
    const char *base = prnn_path_split(db, folder, sizeof(folder));
    DIR *d = opendir(folder);
    if (!d)
        return;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (!prnn_temp_is_tuning_db(ent->d_name, base))
            continue;
        char path[PATH_MAX + 256];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", strcmp(folder, "/") ? folder : "", ent->d_name);
        if (lstat(path, &st) != 0)
            continue; /* renamed by its writer meanwhile */
        if (visit(path, ent->d_name, &st, user))
            break;
    }
    closedir(d);
}

void prnn_temp_note_failure(prnn_temp_sweep_result *r, const char *path, const char *reason)
{
    if (!r->failed++)
        snprintf(r->why, sizeof(r->why), "%s: %s", path, reason);
}

void prnn_temp_remove_abandoned(const char *path, long long min_age, prnn_temp_sweep_result *r)
{
    prnn_temp_remove_abandoned_at(AT_FDCWD, NULL, path, min_age, r);
}

/* dir/name, or name alone when dir is NULL, for messages. */
static void shown(char *buf, size_t size, const char *dir, const char *name)
{
    if (dir)
        snprintf(buf, size, "%s/%s", dir, name);
    else
        snprintf(buf, size, "%s", name);
}

void prnn_temp_remove_abandoned_at(int dirfd, const char *dir, const char *name, long long min_age,
                                   prnn_temp_sweep_result *r)
{
    char path[PATH_MAX];
    shown(path, sizeof(path), dir, name);
    /* O_NOFOLLOW: a link planted under a temporary name is not followed to
     * something else's lock; O_NONBLOCK: nor does a FIFO hang us. */
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ELOOP)
            prnn_temp_note_failure(r, path,
                                   "a symbolic link, not a temporary file of ours: left alone");
        else if (errno != ENOENT)
            prnn_temp_note_failure(r, path, strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        prnn_temp_note_failure(r, path, "not a regular file");
        close(fd);
        return;
    }
    /* min_age 0 takes any age without reading the clock: time() is a
     * coarse clock that can still say the previous second for a file just
     * stamped by the precise one (an age of -1, which kept a temporary file
     * that prnn-cache clear should remove: the cache tests failed so, now
     * and then, under load). */
    long long age = (long long)time(NULL) - (long long)st.st_mtime;
    if ((min_age > 0 && age < min_age) || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        r->kept++; /* young, or a live writer holds it */
        close(fd);
        return;
    }
    /* Removed while locked: no writer can be half-way through it. */
    if (unlinkat(dirfd, name, 0) == 0)
        r->removed++;
    else if (errno != ENOENT)
        prnn_temp_note_failure(r, path, strerror(errno));
    close(fd);
}

void prnn_temp_sweep(const char *dir, prnn_temp_match_fn match, const void *user, long long min_age,
                     prnn_temp_sweep_result *r)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            prnn_temp_note_failure(r, dir, strerror(errno));
        return;
    }
    prnn_temp_sweep_at(fd, dir, match, user, min_age, r);
    close(fd);
}

void prnn_temp_sweep_at(int dirfd, const char *dir, prnn_temp_match_fn match, const void *user,
                        long long min_age, prnn_temp_sweep_result *r)
{
    /* A descriptor of its own: closedir closes it. */
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        prnn_temp_note_failure(r, dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    /* The duplicate shares the position of dirfd, which an earlier listing
     * may have left at the end. */
    rewinddir(d);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL)
        if (match(ent->d_name, user))
            prnn_temp_remove_abandoned_at(dirfd, dir, ent->d_name, min_age, r);
    closedir(d);
}
