#include "cache_dir.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static const char *env_nonempty(const char *name)
{
    const char *v = getenv(name);
    return (v && v[0]) ? v : NULL;
}

/* snprintf that reports truncation as failure, so a cut path is never used. */
static int join(char *buf, size_t size, const char *a, const char *b)
{
    int n = snprintf(buf, size, "%s%s", a, b);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

/* The rule: where the directory comes from (the name of the variable, for
 * messages) and its two parts; NULL when nothing gives one. pwbuf holds the
 * password database's answer. */
static const char *choose(const char **base, const char **suffix, char *pwbuf, size_t pwsize)
{
    *suffix = "/prnn";
    if ((*base = env_nonempty("PRNN_CACHE_DIR")) != NULL) {
        *suffix = "";
        return "PRNN_CACHE_DIR";
    }
    *base = env_nonempty("XDG_CACHE_HOME");
    if (*base && (*base)[0] == '/')
        return "XDG_CACHE_HOME";
    *suffix = "/.cache/prnn";
    *base = env_nonempty("HOME");
    if (*base && (*base)[0] == '/')
        return "HOME";
    /* No HOME (daemons, some containers): ask the password database. */
    struct passwd pw, *res = NULL;
    if (getpwuid_r(getuid(), &pw, pwbuf, pwsize, &res) == 0 && res && res->pw_dir &&
        res->pw_dir[0] == '/') {
        *base = res->pw_dir;
        return "the home directory of the password database";
    }
    return NULL;
}

int prnn_cache_dir(char *buf, size_t size)
{
    if (!buf || !size)
        return -1;
    buf[0] = '\0';
    const char *base, *suffix;
    char pwbuf[4096];
    if (!choose(&base, &suffix, pwbuf, sizeof(pwbuf)))
        return -1;
    if (join(buf, size, base, suffix) == 0)
        return 0;
    buf[0] = '\0';
    return -1;
}

void prnn_cache_dir_explain(char *why, size_t size)
{
    const char *base, *suffix;
    char pwbuf[4096];
    const char *from = choose(&base, &suffix, pwbuf, sizeof(pwbuf));
    if (!from)
        snprintf(why, size, "no PRNN_CACHE_DIR, XDG_CACHE_HOME or home directory");
    else
        snprintf(
            why, size,
            "the directory from %s is %zu characters long, more than a path may have (PATH_MAX %d)",
            from, strlen(base) + strlen(suffix), PATH_MAX);
}

static int mkdir_one(const char *path)
{
    if (mkdir(path, 0700) == 0)
        return 0;
    int err = errno;
    struct stat st;
    /* EEXIST, or a race with another process creating it: fine if it is a
     * directory now. */
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    errno = (err == EEXIST) ? ENOTDIR : err;
    return -1;
}

int prnn_mkdir_p(const char *path)
{
    if (!path || !path[0]) {
        errno = ENOENT;
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        errno = ENOTDIR;
        return -1;
    }
    size_t len = strlen(path);
    char *p = malloc(len + 1);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(p, path, len + 1);
    /* Create each prefix that ends at a slash, then the whole path. */
    for (size_t i = 1; i < len; i++) {
        if (p[i] != '/' || p[i - 1] == '/')
            continue;
        p[i] = '\0';
        int rc = mkdir_one(p);
        p[i] = '/';
        if (rc != 0) {
            int err = errno;
            free(p);
            errno = err;
            return -1;
        }
    }
    int rc = mkdir_one(p);
    int err = errno;
    free(p);
    errno = err;
    return rc;
}

const char *prnn_path_split(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
    return slash ? slash + 1 : path;
}
