/*
 * Reading, replacing and locking one file in a directory opened with the
 * trust checks (trusted_path.h): the one way the cubin cache, the tuning DB
 * and the tools read and write what prnn keeps on disk.
 *
 * Reading is bounded before it allocates: a file is opened without blocking
 * on a FIFO (and, when asked, without following a symbolic link), its
 * fstat is taken from the descriptor that is read, and either its header
 * is read first (the caller checks the lengths it claims against the size
 * before reading more) or the whole file is read up to a limit.
 *
 * Replacing writes a temporary file in the same directory (temp_files.h:
 * locked while written), fsyncs it and renames it over the name, so a
 * reader sees the old file or the whole new one, never part of one, and
 * after a crash so does the disk.
 *
 * The functions say which step failed and leave errno; the callers word
 * the message, since they know what the file is.
 */
#ifndef PRNN_SAFE_FILE_H
#define PRNN_SAFE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "store/trusted_path.h"

/* ---- reading ------------------------------------------------------------ */

/* Opens name in the directory dirfd read-only, never blocking on a FIFO
 * and, with nofollow, never through a symbolic link (ELOOP); *st is its
 * fstat. The fd, or -1 with errno (nothing left open). */
int prnn_safe_open_at(int dirfd, const char *name, int nofollow, struct stat *st);

/* Why prnn_safe_open_at failed with err, for a message: a symbolic link
 * (ELOOP) names the rule, anything else is strerror's text. */
const char *prnn_safe_open_problem(int err);

/* n bytes at offset off: 0, or -1 when the file ends first (it shrank:
 * errno 0) or a read fails (errno). */
int prnn_safe_read_at(int fd, void *buf, size_t n, uint64_t off);

/* Why prnn_safe_read_at just failed (from errno), for a message. */
const char *prnn_safe_read_problem(void);

/* The first n bytes of the file fd (st: its fstat) into buf: NULL, or the
 * problem when the file is shorter or cannot be read. Reads nothing past
 * them, so a junk file costs n bytes of reading whatever its size. */
const char *prnn_safe_read_header(int fd, const struct stat *st, void *buf, size_t n);

/* The whole file fd (st: its fstat), NUL-terminated (malloc; *len bytes
 * without the terminator), or NULL with errno: EFBIG when it holds more
 * than max bytes (by its size, before any allocation, or by what is read),
 * ENOMEM, or the read's error. */
char *prnn_safe_read_all(int fd, const struct stat *st, size_t max, size_t *len);

/* ---- replacing ---------------------------------------------------------- */

/* size bytes at data to fd, however many writes that takes: 0, or -1 with
 * errno (EIO for a write that wrote nothing). */
int prnn_safe_write_all(int fd, const void *data, size_t size);

typedef struct {
    const void *data;
    size_t size;
} prnn_safe_chunk;

enum {
    /* An empty directory squatting on the name is removed first (rename
     * cannot replace it); one with files in it is reported, never emptied. */
    PRNN_SAFE_REPLACE_EMPTY_DIR = 1,
    /* The directory is fsync'ed after the rename, making the rename itself
     * durable; best effort (some filesystems refuse it, and the data is
     * safe either way). */
    PRNN_SAFE_SYNC_DIR = 2,
};

typedef enum {
    PRNN_SAFE_DONE = 0,
    PRNN_SAFE_CREATE,        /* the temporary file could not be created */
    PRNN_SAFE_CHMOD,         /* nor given its mode */
    PRNN_SAFE_WRITE,         /* nor written */
    PRNN_SAFE_FSYNC,         /* nor fsync'ed */
    PRNN_SAFE_RENAME,        /* nor renamed into place */
    PRNN_SAFE_DIR_IN_THE_WAY /* a directory holds the name (REPLACE_EMPTY_DIR):
                              * errno ENOTEMPTY or EEXIST when it has files in
                              * it, else why it could not be replaced */
} prnn_safe_step;

/*
 * Replaces name in the directory dirfd with the count chunks, written in
 * order to a new temporary file in the same directory (tmp: its name,
 * ending in XXXXXX, completed in place; prnn_temp_create_at), given mode,
 * fsync'ed, then renamed over name. The rename comes before the close that
 * drops the temporary file's lock, so a sweeper never finds it unlocked
 * under its temporary name. PRNN_SAFE_DONE, or the step that failed with
 * errno set and the temporary file removed.
 */
prnn_safe_step prnn_safe_replace_at(int dirfd, char *tmp, const char *name, mode_t mode,
                                    const prnn_safe_chunk *chunks, size_t count, unsigned flags);

/* ---- locks -------------------------------------------------------------- */

typedef enum {
    PRNN_SAFE_LOCKED = 0,
    PRNN_SAFE_LOCK_OPEN,      /* the lock file cannot be opened or created (errno) */
    PRNN_SAFE_LOCK_LINK,      /* it is a symbolic link: refused */
    PRNN_SAFE_LOCK_UNTRUSTED, /* it breaks the rule for files (why says how) */
    PRNN_SAFE_LOCK_FLOCK      /* it cannot be locked (errno) */
} prnn_safe_lock_step;

/*
 * The lock file name in the trusted directory d (created if needed, mode
 * 0644, never through a symbolic link; it must pass the rule for files),
 * locked exclusively, waiting for whoever holds it. The fd, whose close
 * releases the lock, or -1 with *step saying what failed (errno set; why
 * filled for LOCK_UNTRUSTED).
 */
int prnn_safe_lock_at(const prnn_trusted_dir *d, const char *name, prnn_safe_lock_step *step,
                      char *why, size_t why_size);

#endif
