#include "fault_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t __real_write(int fd, const void *p, size_t n);
int __real_fsync(int fd);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_renameat(int a, const char *p, int b, const char *q);
int __real_fchmod(int fd, mode_t mode);
int __real_close(int fd);
ssize_t __real_pread64(int fd, void *p, size_t n, off_t off);
ssize_t __real_read(int fd, void *p, size_t n);
int __real_mkdir(const char *path, mode_t mode);
int __real_unlinkat(int dirfd, const char *path, int flags);
int __real_flock(int fd, int op);

ssize_t __wrap_write(int fd, const void *p, size_t n);
int __wrap_fsync(int fd);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_renameat(int a, const char *p, int b, const char *q);
int __wrap_fchmod(int fd, mode_t mode);
int __wrap_close(int fd);
ssize_t __wrap_pread64(int fd, void *p, size_t n, off_t off);
ssize_t __wrap_read(int fd, void *p, size_t n);
int __wrap_mkdir(const char *path, mode_t mode);
int __wrap_unlinkat(int dirfd, const char *path, int flags);
int __wrap_flock(int fd, int op);

static long countdown = -1, count;
static int error_to_give, short_writes;
static const char *failed;

/* 1 when this call is the one to fail (errno set). */
static int fail_now(const char *name)
{
    count++;
    if (countdown < 0 || countdown-- != 0)
        return 0;
    failed = name;
    errno = error_to_give;
    return 1;
}

void fault_io_arm(long nth, int err)
{
    countdown = nth;
    error_to_give = err;
    count = 0;
    failed = NULL;
}

void fault_io_short_writes(int on)
{
    short_writes = on;
}
long fault_io_count(void)
{
    return count;
}
const char *fault_io_failed(void)
{
    return failed;
}

ssize_t __wrap_write(int fd, const void *p, size_t n)
{
    if (fail_now("write"))
        return -1;
    return __real_write(fd, p, short_writes && n > 7 ? 7 : n);
}

int __wrap_fsync(int fd)
{
    return fail_now("fsync") ? -1 : __real_fsync(fd);
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return fail_now("openat") ? -1 : __real_openat64(dirfd, path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return fail_now("open") ? -1 : __real_open64(path, flags, mode);
}

int __wrap_renameat(int a, const char *p, int b, const char *q)
{
    return fail_now("renameat") ? -1 : __real_renameat(a, p, b, q);
}

int __wrap_fchmod(int fd, mode_t mode)
{
    return fail_now("fchmod") ? -1 : __real_fchmod(fd, mode);
}

int __wrap_close(int fd)
{
    /* Linux closes the descriptor even when close reports an error. */
    int rc = __real_close(fd);
    if (fail_now("close"))
        return -1;
    return rc;
}

ssize_t __wrap_pread64(int fd, void *p, size_t n, off_t off)
{
    return fail_now("pread") ? -1 : __real_pread64(fd, p, n, off);
}

ssize_t __wrap_read(int fd, void *p, size_t n)
{
    return fail_now("read") ? -1 : __real_read(fd, p, n);
}

int __wrap_mkdir(const char *path, mode_t mode)
{
    return fail_now("mkdir") ? -1 : __real_mkdir(path, mode);
}

int __wrap_unlinkat(int dirfd, const char *path, int flags)
{
    return fail_now("unlinkat") ? -1 : __real_unlinkat(dirfd, path, flags);
}

int __wrap_flock(int fd, int op)
{
    return fail_now("flock") ? -1 : __real_flock(fd, op);
}
