#include "trusted_path.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *prnn_file_kind(mode_t mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

void prnn_describe_owner(unsigned uid, char *buf, size_t size)
{
    struct passwd pw, *res = NULL;
    char pwbuf[1024];
    if (getpwuid_r((uid_t)uid, &pw, pwbuf, sizeof(pwbuf), &res) == 0 && res && res->pw_name &&
        res->pw_name[0])
        snprintf(buf, size, "uid %u (%s)", uid, res->pw_name);
    else
        snprintf(buf, size, "uid %u", uid);
}

/* "group", "others", "group and others", or NULL when neither may write. */
static const char *writers(mode_t mode)
{
    int g = (mode & S_IWGRP) != 0, o = (mode & S_IWOTH) != 0;
    return g && o ? "group and others" : g ? "its group" : o ? "others" : NULL;
}

/* 1 when PRNN_SHARED_CACHE_DIR names the directory st describes. */
static int is_shared(const struct stat *st)
{
    const char *v = getenv(PRNN_SHARED_CACHE_ENV);
    struct stat s;
    return v && v[0] == '/' && stat(v, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino;
}

static prnn_trust_result refuse_dir(const char *dir, const struct stat *st, int shared, char *why,
                                    size_t size)
{
    unsigned me = (unsigned)geteuid();
    unsigned mode = (unsigned)(st->st_mode & 07777);
    const char *w = writers(st->st_mode);
    if (shared) {
        snprintf(why, size,
                 "%s (%s) has mode %04o: every user may write to it, and prnn trusts no such "
                 "directory, shared or not",
                 dir, PRNN_SHARED_CACHE_ENV, mode);
        return PRNN_TRUST_REFUSED;
    }
    char owner[300], what[700];
    prnn_describe_owner((unsigned)st->st_uid, owner, sizeof(owner));
    if (st->st_uid != me && w)
        snprintf(what, sizeof(what),
                 "is owned by %s, not by you (uid %u), and its mode %04o lets %s write to it",
                 owner, me, mode, w);
    else if (st->st_uid != me)
        snprintf(what, sizeof(what), "is owned by %s, not by you (uid %u); mode %04o", owner, me,
                 mode);
    else
        snprintf(what, sizeof(what), "has mode %04o, which lets %s write to it", mode, w);
    const char *v = getenv(PRNN_SHARED_CACHE_ENV);
    snprintf(why, size,
             "%s %s: prnn trusts only a directory of your own that nobody else can write, or one "
             "shared on purpose and named by " PRNN_SHARED_CACHE_ENV "%s%s%s",
             dir, what, v && v[0] ? " (it names another: " : "", v && v[0] ? v : "",
             v && v[0] ? ")" : "");
    return PRNN_TRUST_REFUSED;
}

static prnn_trust_result open_checked(const char *dir, prnn_trusted_dir *d, int keep_refused,
                                      char *why, size_t why_size)
{
    d->fd = -1;
    d->shared = 0;
    if (why && why_size)
        why[0] = '\0';
    char scratch[8];
    if (!why || !why_size) {
        why = scratch;
        why_size = sizeof(scratch);
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err == ENOENT)
            return PRNN_TRUST_ABSENT;
        struct stat st;
        if (err == ENOTDIR && stat(dir, &st) == 0)
            snprintf(why, why_size, "%s is %s, not a directory", dir, prnn_file_kind(st.st_mode));
        else
            snprintf(why, why_size, "cannot open %s: %s", dir, strerror(err));
        errno = err;
        return PRNN_TRUST_ERROR;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        snprintf(why, why_size, "cannot stat %s: %s", dir, strerror(err));
        close(fd);
        errno = err;
        return PRNN_TRUST_ERROR;
    }
    int shared = is_shared(&st);
    int ok = shared ? !(st.st_mode & S_IWOTH)
                    : st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
    d->shared = shared;
    if (!ok) {
        if (keep_refused)
            d->fd = fd;
        else
            close(fd);
        errno = EACCES;
        return refuse_dir(dir, &st, shared, why, why_size);
    }
    d->fd = fd;
    return PRNN_TRUST_OK;
}

prnn_trust_result prnn_trusted_dir_open(const char *dir, prnn_trusted_dir *d, char *why,
                                        size_t why_size)
{
    return open_checked(dir, d, 0, why, why_size);
}

prnn_trust_result prnn_trusted_dir_inspect(const char *dir, prnn_trusted_dir *d, char *why,
                                           size_t why_size)
{
    return open_checked(dir, d, 1, why, why_size);
}

void prnn_trusted_dir_close(prnn_trusted_dir *d)
{
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
}

int prnn_trusted_file_check(const prnn_trusted_dir *d, const struct stat *st, char *why,
                            size_t why_size)
{
    char owner[300];
    unsigned me = (unsigned)geteuid();
    if (!S_ISREG(st->st_mode)) {
        snprintf(why, why_size, "%s, not a regular file", prnn_file_kind(st->st_mode));
        return -1;
    }
    if (!(d && d->shared) && st->st_uid != me && st->st_uid != 0) {
        prnn_describe_owner((unsigned)st->st_uid, owner, sizeof(owner));
        snprintf(why, why_size, "owned by %s, not by you (uid %u) or root", owner, me);
        return -1;
    }
    const char *w = writers(st->st_mode);
    if (w) {
        snprintf(why, why_size, "writable by %s (mode %04o)", w, (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}
