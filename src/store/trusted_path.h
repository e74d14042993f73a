/*
 * The trust rule for the files prnn keeps on disk (prnn.h, "Files on disk"):
 * a cubin is code that runs in the user's process and a tuning DB entry
 * decides which code runs, so both are read only from places that nobody
 * but the user (and root, who can do anything anyway) can write, as git
 * (safe.directory), ssh (StrictModes) and SQLite's own file checks do.
 *
 *  - A directory is trusted when it is owned by the effective user and not
 *    writable by its group or others. Untrusted, prnn neither reads nor
 *    writes there.
 *  - A file in it is trusted when it is a regular file owned by the
 *    effective user or root and not writable by group or others; entries
 *    are opened without following symbolic links (the callers' job:
 *    O_NOFOLLOW relative to the directory's descriptor).
 *  - PRNN_SHARED_CACHE_DIR (an absolute path) names one directory shared on
 *    purpose: it may be owned by anyone and writable by its group, and its
 *    files may be owned by anyone. It then trusts the directory's owner,
 *    its group's members when the group may write, and root. A directory
 *    that every user may write (mode o+w, sticky or not) and files writable
 *    by group or others are refused even then.
 *
 * Everything after the check goes through the directory's descriptor
 * (openat, renameat, unlinkat), so a directory renamed or replaced after
 * the check is never the one written to.
 */
#ifndef PRNN_TRUSTED_PATH_H
#define PRNN_TRUSTED_PATH_H

#include <stddef.h>
#include <sys/stat.h>

#define PRNN_SHARED_CACHE_ENV "PRNN_SHARED_CACHE_DIR"

typedef struct {
    int fd;     /* the directory (O_RDONLY | O_DIRECTORY), -1 when not open */
    int shared; /* 1: it is PRNN_SHARED_CACHE_DIR */
} prnn_trusted_dir;

typedef enum {
    PRNN_TRUST_OK = 0,
    PRNN_TRUST_ABSENT,  /* the directory does not exist (why is empty) */
    PRNN_TRUST_REFUSED, /* it exists and is not trusted: why names the path,
                         * the owner, the mode and the rule */
    PRNN_TRUST_ERROR    /* it cannot be opened (not a directory, no
                         * permission, ...): why says so */
} prnn_trust_result;

/* Opens dir (following symbolic links: the directory itself may be a link
 * to one of the user's) and applies the rule to what was opened. On OK d is
 * open and the caller closes it with prnn_trusted_dir_close; otherwise
 * d->fd is -1. */
prnn_trust_result prnn_trusted_dir_open(const char *dir, prnn_trusted_dir *d, char *why,
                                        size_t why_size);

/* The same verdict for maintenance (prnn-cache), which looks into any
 * directory it is pointed at: on REFUSED d stays open too, with the reason
 * in why. Never for loading or storing. */
prnn_trust_result prnn_trusted_dir_inspect(const char *dir, prnn_trusted_dir *d, char *why,
                                           size_t why_size);

void prnn_trusted_dir_close(prnn_trusted_dir *d);

/* Applies the rule for files to st (from fstat of a file opened in d, or
 * fstatat of a link there): 0, or -1 with why ("owned by uid 1001 (alice),
 * not by you (uid 0) or root", "writable by group and others (mode 0666)",
 * "not a regular file (a FIFO)"). A NULL d applies the rule for a file in
 * a directory of one's own (no shared opt-in). */
int prnn_trusted_file_check(const prnn_trusted_dir *d, const struct stat *st, char *why,
                            size_t why_size);

/* "a FIFO", "a directory", "a symbolic link", ... for messages. */
const char *prnn_file_kind(mode_t mode);

/* "uid 1001 (alice)" (the name when the password database knows it). */
void prnn_describe_owner(unsigned uid, char *buf, size_t size);

#endif
