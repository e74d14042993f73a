#include "store/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "store/temp_files.h"

int prnn_safe_open_at(int dirfd, const char *name, int nofollow, struct stat *st)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

const char *prnn_safe_open_problem(int err)
{
    return err == ELOOP ? "a symbolic link, which prnn does not follow" : strerror(err);
}

int prnn_safe_read_at(int fd, void *buf, size_t n, uint64_t off)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            errno = 0;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

const char *prnn_safe_read_problem(void)
{
    if (errno == 0)
        return "truncated while being read";
    return errno == EIO ? "cannot read it: input/output error" : "cannot read it: the read failed";
}

const char *prnn_safe_read_header(int fd, const struct stat *st, void *buf, size_t n)
{
    if ((uint64_t)st->st_size < n)
        return "truncated (shorter than the header)";
    if (prnn_safe_read_at(fd, buf, n, 0) != 0)
        return prnn_safe_read_problem();
    return NULL;
}

char *prnn_safe_read_all(int fd, const struct stat *st, size_t max, size_t *len)
{
    if (st->st_size < 0 || (uint64_t)st->st_size > max) {
        errno = EFBIG;
        return NULL;
    }
    /* Room for one byte more than fstat saw, so that a file that grew
     * meanwhile is noticed (and bounded) rather than cut. */
    size_t cap = (size_t)st->st_size + 2, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n == cap - 1) {
            size_t grown = n > max ? 0 : (cap - 1 > max / 2 ? max + 2 : 2 * cap);
            char *t = grown ? realloc(buf, grown) : NULL;
            if (!t) {
                free(buf);
                errno = grown ? ENOMEM : EFBIG;
                return NULL;
            }
            buf = t;
            cap = grown;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            free(buf);
            errno = err;
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int prnn_safe_write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

/* renameat() in dirfd, except that with REPLACE_EMPTY_DIR an empty
 * directory squatting on the name is removed first (rename cannot replace
 * it, so every later store would fail the same way); a directory with
 * files in it is reported, never emptied. */
static prnn_safe_step rename_over(int dirfd, const char *tmp, const char *name, unsigned flags)
{
    if (renameat(dirfd, tmp, dirfd, name) == 0)
        return PRNN_SAFE_DONE;
    int err = errno;
    struct stat st;
    if ((flags & PRNN_SAFE_REPLACE_EMPTY_DIR) &&
        (err == EISDIR || err == ENOTEMPTY || err == EEXIST) &&
        fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
        if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 && renameat(dirfd, tmp, dirfd, name) == 0)
            return PRNN_SAFE_DONE;
        return PRNN_SAFE_DIR_IN_THE_WAY;
    }
    errno = err;
    return PRNN_SAFE_RENAME;
}

prnn_safe_step prnn_safe_replace_at(int dirfd, char *tmp, const char *name, mode_t mode,
                                    const prnn_safe_chunk *chunks, size_t count, unsigned flags)
{
    /* Locked while we write: a sweep by another process leaves it alone. */
    int fd = prnn_temp_create_at(dirfd, tmp);
    if (fd < 0)
        return PRNN_SAFE_CREATE;
    prnn_safe_step step = PRNN_SAFE_DONE;
    if (fchmod(fd, mode) != 0)
        step = PRNN_SAFE_CHMOD;
    for (size_t i = 0; !step && i < count; i++)
        if (prnn_safe_write_all(fd, chunks[i].data, chunks[i].size) != 0)
            step = PRNN_SAFE_WRITE;
    /* Data on disk before the rename makes it visible: after a crash the
     * name holds the old file or the whole new one, never a torn one. */
    if (!step && fsync(fd) != 0)
        step = PRNN_SAFE_FSYNC;
    /* Renamed before the close that drops the temporary file's lock. */
    if (!step)
        step = rename_over(dirfd, tmp, name, flags);
    int err = errno;
    if (step)
        unlinkat(dirfd, tmp, 0);
    /* Its error is not ours: the data was fsync'ed before the rename, and
     * the file is in place (Linux closes the descriptor either way). */
    close(fd);
    if (step) {
        errno = err;
        return step;
    }
    if (flags & PRNN_SAFE_SYNC_DIR)
        (void)fsync(dirfd);
    return PRNN_SAFE_DONE;
}

int prnn_safe_lock_at(const prnn_trusted_dir *d, const char *name, prnn_safe_lock_step *step,
                      char *why, size_t why_size)
{
    int fd = openat(d->fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        *step = errno == ELOOP ? PRNN_SAFE_LOCK_LINK : PRNN_SAFE_LOCK_OPEN;
        return -1;
    }
    struct stat st;
    *step = PRNN_SAFE_LOCKED;
    if (fstat(fd, &st) != 0)
        *step = PRNN_SAFE_LOCK_OPEN;
    else if (prnn_trusted_file_check(d, &st, why, why_size) != 0)
        *step = PRNN_SAFE_LOCK_UNTRUSTED;
    else {
        int rc;
        while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
            ;
        if (rc != 0)
            *step = PRNN_SAFE_LOCK_FLOCK;
    }
    if (*step) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}
