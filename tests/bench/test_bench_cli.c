/*
 * prnn-bench as a user runs it: bad arguments exit 2 with the usage, --help
 * exits 0, and without a GPU it says so and exits 2. With a GPU present only
 * --help is checked (a sweep would take minutes).
 * argv[1]: the prnn-bench executable.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_test.h"
#include "cuda/cuda_driver.h"

typedef struct {
    int status; /* exit status, or -1 */
    char *out, *err;
} run_result;

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

static run_result run(const char *exe, const char *const *args)
{
    run_result r = {-1, NULL, NULL};
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

static void done(run_result *r)
{
    free(r->out);
    free(r->err);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PRNN_BENCH\n", argv[0]);
        return 2;
    }
    const char *exe = argv[1];

    run_result r = run(exe, (const char *const[]){"--help", NULL});
    EXPECT(r.status == 0, "--help exits %d", r.status);
    EXPECT(strstr(r.out, "usage: prnn-bench") && strstr(r.out, "--quick"),
           "--help output: %s", r.out);
    done(&r);

    const prnn_cuda_driver *cu;
    if (prnn_cuda_driver_get(&cu) == PRNN_STATUS_SUCCESS) {
        printf("a CUDA driver and device are present: only --help checked\n");
        return test_done("tools-bench-cli: prnn-bench's exit codes and "
                         "messages for bad arguments, --help and no GPU");
    }

    r = run(exe, (const char *const[]){"--bogus", NULL});
    EXPECT(r.status == 2, "--bogus exits %d", r.status);
    EXPECT(strstr(r.err, "unknown option '--bogus'") &&
               strstr(r.err, "usage: prnn-bench"),
           "--bogus stderr: %s", r.err);
    EXPECT(r.out[0] == '\0', "--bogus wrote to stdout: %s", r.out);
    done(&r);

    r = run(exe, (const char *const[]){"--hidden", "0", NULL});
    EXPECT(r.status == 2 && strstr(r.err, "--hidden"), "--hidden 0: %d %s",
           r.status, r.err);
    done(&r);

    r = run(exe, (const char *const[]){"--repeats", NULL});
    EXPECT(r.status == 2 && strstr(r.err, "needs a value"),
           "--repeats: %d %s", r.status, r.err);
    done(&r);

    /* No GPU: a clear message naming the way out, exit 2, nothing on
     * stdout; for an inference sweep and a training one. */
    const char *const *sweeps[] = {
        (const char *const[]){"--quick", NULL},
        (const char *const[]){"--training", "--quick", NULL},
    };
    for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++) {
        r = run(exe, sweeps[i]);
        EXPECT(r.status == 2, "no GPU (%s): exit %d", sweeps[i][0],
               r.status);
        EXPECT(strstr(r.err, "prnn-bench: no CUDA GPU found (") &&
                   strstr(r.err, "nothing to benchmark") &&
                   strstr(r.err, "prnn-demo"),
               "no-GPU message (%s): %s", sweeps[i][0], r.err);
        EXPECT(r.out[0] == '\0', "stdout: %s", r.out);
        done(&r);
    }

    /* The same with --no-cudnn and --cold-start: the GPU check comes
     * first. */
    r = run(exe, (const char *const[]){"--no-cudnn", "--cold-start", "--csv",
                                       "/nonexistent/x.csv", NULL});
    EXPECT(r.status == 2 && strstr(r.err, "no CUDA GPU found"),
           "no GPU (2): %d %s", r.status, r.err);
    done(&r);
    return test_done("tools-bench-cli: prnn-bench's exit codes and messages "
                     "for bad arguments, --help and no GPU");
}
