#include "temp_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int prnn_temp_create(char *tmpl)
{
    int fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* Cannot block: nobody else knows the name yet. A filesystem without
     * flock gives an unlocked file, which the age still protects. */
    (void)flock(fd, LOCK_EX | LOCK_NB);
    return fd;
}

static int alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int prnn_temp_is_tuning_db(const char *name, const char *base)
{
    size_t b = strlen(base), n = strlen(name);
    if (n != b + 5 + 6 || strncmp(name, base, b) != 0 ||
        strncmp(name + b, ".tmp-", 5) != 0)
        return 0;
    for (size_t i = b + 5; i < n; i++)
        if (!alnum(name[i]))
            return 0;
    return 1;
}

void prnn_temp_note_failure(prnn_temp_sweep_result *r, const char *path,
                            const char *reason)
{
    if (!r->failed++)
        snprintf(r->why, sizeof(r->why), "%s: %s", path, reason);
}

void prnn_temp_remove_abandoned(const char *path, long long min_age,
                                prnn_temp_sweep_result *r)
{
    /* O_NOFOLLOW: a link planted under a temporary name is not followed to
     * something else's lock; O_NONBLOCK: nor does a FIFO hang us. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) {
        if (errno != ENOENT)
            prnn_temp_note_failure(r, path, strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        prnn_temp_note_failure(r, path, "not a regular file");
        close(fd);
        return;
    }
    long long age = (long long)time(NULL) - (long long)st.st_mtime;
    if (age < min_age || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        r->kept++; /* young, or a live writer holds it */
        close(fd);
        return;
    }
    /* Removed while locked: no writer can be half-way through it. */
    if (unlink(path) == 0)
        r->removed++;
    else if (errno != ENOENT)
        prnn_temp_note_failure(r, path, strerror(errno));
    close(fd);
}

void prnn_temp_sweep(const char *dir, prnn_temp_match_fn match, void *user,
                     long long min_age, prnn_temp_sweep_result *r)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno != ENOENT)
            prnn_temp_note_failure(r, dir, strerror(errno));
        return;
    }
    struct dirent *ent;
    char path[PATH_MAX];
    while ((ent = readdir(d)) != NULL) {
        if (!match(ent->d_name, user))
            continue;
        int n = snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
        if (n < 0 || (size_t)n >= sizeof(path))
            prnn_temp_note_failure(r, dir, "path too long");
        else
            prnn_temp_remove_abandoned(path, min_age, r);
    }
    closedir(d);
}
