#include "run_tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)exe;
    for (; *args && k < 15; args++)
        argv[k++] = (char *)*args;
    argv[k] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execv(exe, argv);
        _exit(127);
    }
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
