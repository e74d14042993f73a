/*
 * Writers' temporary files (the cubin cache's <name>.cubin.tmp.XXXXXX, the
 * tuning DB's <db>.tmp-XXXXXX): created locked, so that whoever finds one
 * can tell a live writer's file from one a killed writer left behind.
 *
 * A writer creates its file with prnn_temp_create_at, which holds an exclusive
 * flock on it until the writer closes it (after the rename, or on failure
 * after unlinking it). The kernel drops the lock when the process dies, so
 * an unlocked temporary file is one nobody will ever rename: abandoned.
 * The sweep also requires an age (PRNN_TEMP_STALE_SECONDS, an hour, for the
 * sweeps that stores do) so that a file in the instant between its creation and
 * flock, or on a filesystem where flock is local only (NFS), is left alone.
 */
#ifndef PRNN_TEMP_FILES_H
#define PRNN_TEMP_FILES_H

#include <limits.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* What later stores count as abandoned: a writer takes milliseconds. */
#define PRNN_TEMP_STALE_SECONDS 3600

/* Creates the file name (a base name ending in XXXXXX, which is replaced
 * by six random letters and digits) in the directory dirfd, exclusively
 * (O_CREAT | O_EXCL | O_NOFOLLOW: never through a link planted under the
 * name), mode 0600, with an exclusive flock on it; the fd, or -1 with errno
 * (nothing left behind). */
int prnn_temp_create_at(int dirfd, char *name);

/* 1 when name is <base>.tmp-XXXXXX (six letters or digits): a temporary
 * file of the tuning DB named base. */
int prnn_temp_is_tuning_db(const char *name, const char *base);

/* Calls visit for each temporary file of the tuning DB at path db (in its
 * directory, in directory order), with the file's path, its name and its
 * lstat; a file renamed by its writer meanwhile is skipped. Stops when
 * visit returns nonzero. A directory that cannot be read has none. */
struct stat;
typedef int (*prnn_temp_visit_fn)(const char *path, const char *name, const struct stat *st,
                                  void *user);
void prnn_temp_each_tuning_db(const char *db, prnn_temp_visit_fn visit, void *user);

typedef struct {
    int removed;             /* abandoned files removed */
    int kept;                /* a live writer's, or younger than the age asked for */
    int failed;              /* could not be removed */
    char why[PATH_MAX + 80]; /* the first failure: path and reason */
} prnn_temp_sweep_result;

/* Removes path if it is a regular file at least min_age seconds old (0: of
 * any age, the clock not read) that no writer holds locked. Counts it in r (removed, kept or
 * failed; a file gone meanwhile counts as nothing). */
void prnn_temp_remove_abandoned(const char *path, long long min_age, prnn_temp_sweep_result *r);
/* The same for the file name of the directory dirfd (shown as dir/name). */
void prnn_temp_remove_abandoned_at(int dirfd, const char *dir, const char *name, long long min_age,
                                   prnn_temp_sweep_result *r);

/* prnn_temp_remove_abandoned for every file of dir that match accepts. A
 * directory that cannot be read counts as one failure. */
typedef int (*prnn_temp_match_fn)(const char *name, const void *user);
void prnn_temp_sweep(const char *dir, prnn_temp_match_fn match, const void *user, long long min_age,
                     prnn_temp_sweep_result *r);
/* The same in the open directory dirfd (dir: its name, for messages). */
void prnn_temp_sweep_at(int dirfd, const char *dir, prnn_temp_match_fn match, const void *user,
                        long long min_age, prnn_temp_sweep_result *r);

/* Records a failure in r (the first one's reason is kept). */
void prnn_temp_note_failure(prnn_temp_sweep_result *r, const char *path, const char *reason);

#endif
