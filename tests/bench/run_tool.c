#include "run_tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = '\0';
    return buf;
}

run_result run_tool(const char *exe, const char *const *args)
{
    run_result r = {-1, NULL, NULL};
    /* Files, not pipes: a tool that writes much cannot block on them. */
    FILE *out = tmpfile(), *err = tmpfile();
    if (!out || !err) {
        perror("tmpfile");
        exit(1);
    }
    /* execv takes char *const argv[] (and writes none of it): copies */
    char *argv[16];
    int k = 0;
    argv[k++] = strdup(exe);
    for (; *args && k < 15; args++)
        argv[k++] = strdup(*args);
    argv[k] = NULL;
    for (int i = 0; i < k; i++)
        if (!argv[i]) {
            perror("strdup");
            exit(1);
        }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execv(exe, argv);
        _exit(127);
    }
    for (int i = 0; i < k; i++)
        free(argv[i]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    fclose(out);
    fclose(err);
    return r;
}

void run_result_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
