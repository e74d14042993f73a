/*
 * A prnn tool's command line as a user meets it (the conventions of
 * tools/common/tool_cli.h), none of which needs a GPU: --help and -h print
 * the usage on stdout, ending with the exit statuses, and exit 0;
 * --version prints "<tool> MAJOR.MINOR.PATCH" and exits 0; a bad argument
 * prints exactly "<tool>: <what>" and the pointer to --help on stderr,
 * nothing on stdout, and exits 2. Without a CUDA driver, a tool that needs
 * a GPU exits 3.
 * argv[1]: the tool (prnn-bench, prnn-cache, prnn-autotune or prnn-demo).
 */
#include <libgen.h>
#include <stdlib.h>

#include "bench_test.h"
#include "cuda/cuda_driver.h"
#include "prnn.h"
#include "run_tool.h"

/* A bad command line and what the tool must say about it. */
typedef struct {
    const char *args[6];
    const char *message; /* after "<tool>: " */
} bad_args;

typedef struct {
    const char *name;
    int uses_gpu, handles_sigint;
#define MAX_BAD 10
    bad_args bad[MAX_BAD];
    /* A command line that would run (needs a GPU), for the no-GPU check;
     * args[0] NULL when the tool needs none. */
    const char *run[6];
} tool_case;

/* clang-format off */
static const tool_case tools[] = {
    {"prnn-bench", 1, 0,
     {{{"--bogus"}, "unknown option --bogus"},
      {{"--quick=1"}, "option --quick takes no value"},
      {{"--repeats"}, "option --repeats needs a value"},
      {{"--hidden", "0"}, "--hidden \"0\": must be an integer in [1, 65536]"},
      {{"--modes=lstm,qrnn"},
       "--modes \"lstm,qrnn\": \"qrnn\" must be one of relu, tanh, lstm, gru, sru"},
      {{"lstm"}, "unexpected argument \"lstm\": prnn-bench takes options "
                 "only"},
      {{"--layout", "packed,tiled"},
       "--layout \"packed,tiled\": \"tiled\" must be one of packed, "
       "seq-padded, batch-padded"},
      {{"--lengths", "varied"},
       "--lengths varied needs a padded layout (--layout seq-padded or "
       "batch-padded): packed runs every sequence T long"},
      {{"--proj", "0,128", "--modes", "lstm,gru"},
       "--proj 128: only lstm has a projection, and the sweep's modes "
       "include gru (give --modes lstm; 0 means no projection)"},
      {{"--modes=lstm", "--hidden", "128,256", "--proj", "128"},
       "--proj 128: a projection size must be below the hidden size, and "
       "the sweep's hidden sizes include 128"}},
     {"--quick", "--no-cudnn"}},
    {"prnn-cache", 0, 0,
     {{{"--bogus", "list"}, "unknown option --bogus"},
      {{"list", "--dir"}, "option --dir needs a value"},
      {{"--dir=", "list"}, "--dir \"\": must not be empty"},
      {{"frobnicate"}, "unknown command \"frobnicate\": must be list, verify, "
                       "clear or warm"},
      {{"list", "clear"}, "unexpected argument \"clear\": one command at a "
                          "time"},
      {{NULL}, "a command is needed: list, verify, clear or warm"},
      {{"warm"}, "warm needs --arch (e.g. --arch sm_90)"},
      {{"--arch", "sm9", "warm"}, "--arch \"sm9\": must be an architecture, sm_90 or 90"}},
     {NULL}},
    {"prnn-autotune", 1, 1,
     {{{"--bogus"}, "unknown option --bogus"},
      {{"--candidates", "0"},
       "--candidates \"0\": must be an integer in [1, 32]"},
      {{"--budget=soon"},
       "--budget \"soon\": must be a number of seconds above 0"},
      {{"--directions", "1,3"},
       "--directions \"1,3\": \"3\" must be an integer in [1, 2]"},
      {{"--pass", "backward"},
       "--pass \"backward\": must be forward or backward-data"},
      {{"--force=yes"}, "option --force takes no value"}},
     {"--quick", "--output", "/nonexistent/tuning.json"}},
    /* Status 3 is --probe's, which says why on stdout; the demo itself
     * runs on the CPU reference without a GPU (tools-demo-cpu-verdict). */
    {"prnn-demo", 1, 0,
     {{{"--bogus"}, "unknown option --bogus"},
      {{"--cpu=1"}, "option --cpu takes no value"},
      {{"--seq"}, "option --seq needs a value"},
      {{"--hidden", "0"},
       "--hidden \"0\": must be an integer in [1, 2147483647]"},
      {{"--batch=8x"},
       "--batch \"8x\": must be an integer in [1, 2147483647]"},
      {{"lstm"}, "unexpected argument \"lstm\": prnn-demo takes options "
                 "only"}},
     {NULL}},
};
/* clang-format on */

static void check_help(const tool_case *t, const char *exe, const char *flag)
{
    run_result r = run_tool(exe, (const char *const[]){flag, NULL});
    char usage[64];
    snprintf(usage, sizeof(usage), "usage: %s", t->name);
    EXPECT(r.status == 0, "%s %s: exit %d", t->name, flag, r.status);
    EXPECT(strncmp(r.out, usage, strlen(usage)) == 0, "%s %s: stdout does not start with '%s': %s",
           t->name, flag, usage, r.out);
    EXPECT(r.err[0] == '\0', "%s %s: stderr: %s", t->name, flag, r.err);
    /* The usage ends with the exit statuses, each tool with its own. */
    const char *status = strstr(r.out, "\nExit status:\n");
    EXPECT(status != NULL, "%s %s: no exit statuses", t->name, flag);
    if (status) {
        EXPECT(strstr(status, "\n  0    ") && strstr(status, "\n  1    ") &&
                   strstr(status, "\n  2    bad arguments"),
               "%s: statuses 0, 1, 2: %s", t->name, status);
        EXPECT(!strstr(status, "\n  3    no GPU") == !t->uses_gpu, "%s: status 3: %s", t->name,
               status);
        EXPECT(!strstr(status, "\n  130  interrupted") == !t->handles_sigint, "%s: status 130: %s",
               t->name, status);
    }
    run_result_free(&r);
}

static void check_version(const tool_case *t, const char *exe)
{
    run_result r = run_tool(exe, (const char *const[]){"--version", NULL});
    char expected[64];
    snprintf(expected, sizeof(expected), "%s %d.%d.%d\n", t->name, PRNN_VERSION_MAJOR,
             PRNN_VERSION_MINOR, PRNN_VERSION_PATCH);
    EXPECT(r.status == 0, "%s --version: exit %d", t->name, r.status);
    EXPECT(strcmp(r.out, expected) == 0, "%s --version: '%s', expected '%s'", t->name, r.out,
           expected);
    EXPECT(r.err[0] == '\0', "%s --version: stderr: %s", t->name, r.err);
    run_result_free(&r);
}

static void check_bad(const tool_case *t, const char *exe, const bad_args *b)
{
    run_result r = run_tool(exe, b->args);
    char expected[512];
    snprintf(expected, sizeof(expected), "%s: %s\nrun '%s --help' for the usage\n", t->name,
             b->message, t->name);
    EXPECT(r.status == 2, "%s %s: exit %d", t->name, b->args[0] ? b->args[0] : "", r.status);
    EXPECT(strcmp(r.err, expected) == 0, "%s: stderr '%s', expected '%s'", t->name, r.err,
           expected);
    EXPECT(r.out[0] == '\0', "%s: stdout: %s", t->name, r.out);
    run_result_free(&r);
}

static void check_no_gpu(const tool_case *t, const char *exe)
{
    run_result r = run_tool(exe, t->run);
    EXPECT(r.status == 3, "%s without a GPU: exit %d (%s)", t->name, r.status, r.err);
    EXPECT(strstr(r.err, "no GPU") || strstr(r.err, "no CUDA GPU"), "%s without a GPU: %s", t->name,
           r.err);
    run_result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PRNN_TOOL\n", argv[0]);
        return 2;
    }
    const char *exe = argv[1];
    char path[4096];
    snprintf(path, sizeof(path), "%s", exe);
    const char *name = basename(path);
    const tool_case *t = NULL;
    for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
        if (strcmp(tools[i].name, name) == 0)
            t = &tools[i];
    if (!t) {
        fprintf(stderr, "test_tool_cli: no cases for %s\n", name);
        return 1;
    }

    check_help(t, exe, "--help");
    check_help(t, exe, "-h");
    check_version(t, exe);
    int nbad = 0;
    for (; nbad < MAX_BAD && t->bad[nbad].message; nbad++)
        check_bad(t, exe, &t->bad[nbad]);
    const char *gpu = t->uses_gpu ? "no run that needs one" : "it needs none";
    if (t->run[0]) {
        const prnn_cuda_driver *cu;
        if (prnn_cuda_driver_get(&cu) == PRNN_STATUS_SUCCESS) {
            gpu = "not checked: a GPU is present";
        } else {
            check_no_gpu(t, exe);
            gpu = "exit 3 checked";
        }
    }
    printf("%s: --help and -h (stdout, exit 0, exit statuses), --version, %d bad command lines "
           "(exact message, exit 2); no GPU: %s\n",
           t->name, nbad, gpu);
    return test_done("test_tool_cli");
}
