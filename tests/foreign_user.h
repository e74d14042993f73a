/*
 * Another user, for the trust tests (prnn.h, "Files on disk"): files planted
 * by someone who is not the user running prnn. Root can make them: a child
 * process drops to a uid that no account uses (nothing else on the machine
 * is touched, no account is created) and plants files as that user, and
 * chown/lchown gives an existing file to it. Without root neither is
 * possible: foreign_unavailable() says why, and the test skips (77) after
 * running the checks that need no other user.
 */
#ifndef PRNN_TEST_FOREIGN_USER_H
#define PRNN_TEST_FOREIGN_USER_H

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A uid (and gid) no account uses, searched from 61234 up; 0 when none. */
static inline uid_t foreign_uid(void)
{
    static uid_t uid;
    if (!uid)
        for (uid_t u = 61234; u < 61334 && !uid; u++)
            if (!getpwuid(u) && !getgrgid((gid_t)u))
                uid = u;
    return uid;
}

/* NULL when this process can act as another user; otherwise why not. */
static inline const char *foreign_unavailable(void)
{
    if (geteuid() != 0)
        return "not running as root: no way to create a file owned by another user (run the test "
               "as root, as CI does)";
    if (!foreign_uid())
        return "no unused uid between 61234 and 61333";
    return NULL;
}

/* Runs fn(arg) in a child process that is foreign_uid() (uid and gid, no
 * supplementary groups); fn returns 0 on success. 0 when it did, -1 when the
 * child could not become that user or fn failed. */
static inline int as_foreign(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        uid_t u = foreign_uid();
        if (setgroups(0, NULL) != 0 || setgid((gid_t)u) != 0 || setuid(u) != 0) {
            perror("as_foreign: cannot become the other user");
            _exit(2);
        }
        _exit(fn(arg) == 0 ? 0 : 1);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

#endif
