/*
 * PRNN_LOG_PLANS without a GPU: the lines the planner prints (a plan, a
 * training-kernel load, a forced tile, the standard path, a failure), that a
 * line never overruns its buffer, that the variable is read once, and that
 * a line reaches stderr whole with its newline. The planner itself needs a
 * GPU to make plans, so that it calls these at the right moments is not
 * checked here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/plan/plan_log.h"

static int failures;

static void expect(const char *what, int ok, const char *detail)
{
    printf("%s: %s%s%s\n", ok ? "ok" : "FAILED", what, detail ? ": " : "", detail ? detail : "");
    failures += !ok;
}

static void expect_line(const char *what, const prnn_plan_log_event *e, const char *want)
{
    char got[1024];
    prnn_plan_log_format(e, got, sizeof(got));
    int ok = strcmp(got, want) == 0;
    expect(what, ok, got);
    if (!ok)
        printf("  expected: %s\n", want);
}

static prnn_plan_log_event lstm_event(const char *event)
{
    prnn_plan_log_event e;
    memset(&e, 0, sizeof(e));
    e.event = event;
    e.mode = PRNN_LSTM;
    e.dtype = PRNN_DATA_HALF;
    e.hidden = 1024;
    e.batch = 8;
    e.layers = 2;
    e.dirs = 2;
    e.device = "NVIDIA H100 80GB HBM3 sm_90 132SM";
    e.status = PRNN_STATUS_SUCCESS;
    e.cubin = PRNN_CUBIN_COMPILED;
    e.ms = 123.45;
    e.compile_ms = 98.76;
    return e;
}

static void test_lines(void)
{
    prnn_plan_log_event e = lstm_event("plan");
    e.npasses = 2;
    e.passes[0] = (prnn_plan_log_pass){
        "forward", PRNN_PATH_PERSISTENT_RESIDENT, "blocks=8 mma=1", PRNN_CONFIG_SHIPPED_DB, NULL,
        NULL};
    e.passes[1] = (prnn_plan_log_pass){"backward-data",
                                       PRNN_PATH_PERSISTENT_STREAMED,
                                       "blocks=16 mma=1",
                                       PRNN_CONFIG_HEURISTIC,
                                       NULL,
                                       NULL};
    expect_line("a plan: both passes, their tiles and sources, cubin, times", &e,
                "prnn: plan lstm half hidden=1024 batch=8 layers=2 dirs=2 on NVIDIA H100 80GB HBM3 "
                "sm_90 132SM | forward: persistent-resident [blocks=8 mma=1] from shipped-db | "
                "backward-data: persistent-streamed [blocks=16 mma=1] from heuristic | cubin: "
                "compiled | 123.5 ms (compile 98.8 ms)");

    e.passes[0].forced_by = "PRNN_TILE";
    e.passes[0].source = PRNN_CONFIG_USER_DB;
    e.passes[1] = (prnn_plan_log_pass){
        "backward-data", PRNN_PATH_STANDARD, "standard", PRNN_CONFIG_HEURISTIC, NULL, NULL};
    e.cubin = PRNN_CUBIN_MEMORY;
    expect_line("a forced tile names its variable; the standard path has no tile", &e,
                "prnn: plan lstm half hidden=1024 batch=8 layers=2 dirs=2 on NVIDIA H100 80GB HBM3 "
                "sm_90 132SM | forward: persistent-resident [blocks=8 mma=1] from PRNN_TILE "
                "(forced) | backward-data: standard | cubin: memory | 123.5 ms (compile 98.8 ms)");

    /* an H200 planned from the H100's entry says whose; the short pass */
    e.passes[0] = (prnn_plan_log_pass){
        "forward", PRNN_PATH_SMALL_H,      "blocks=1 handoff=2", PRNN_CONFIG_SHIPPED_DB,
        NULL,      "NVIDIA H100 80GB HBM3"};
    e.passes[2] = (prnn_plan_log_pass){"forward T<=3",        PRNN_PATH_STEP, "step",
                                       PRNN_CONFIG_HEURISTIC, NULL,           NULL};
    e.npasses = 3;
    expect_line("a sibling's entry names its GPU; the short-sequence pass has its own", &e,
                "prnn: plan lstm half hidden=1024 batch=8 layers=2 dirs=2 on NVIDIA H100 80GB HBM3 "
                "sm_90 132SM | forward: small-h [blocks=1 handoff=2] from shipped-db (tuned on "
                "NVIDIA H100 80GB HBM3) | backward-data: standard | forward T<=3: step | cubin: "
                "memory | 123.5 ms (compile 98.8 ms)");

    e = lstm_event("training kernels");
    e.npasses = 1;
    e.passes[0] = (prnn_plan_log_pass){"backward-data",
                                       PRNN_PATH_PERSISTENT_RESIDENT,
                                       "blocks=4",
                                       PRNN_CONFIG_AUTOTUNED,
                                       NULL,
                                       NULL};
    e.cubin = PRNN_CUBIN_DISK_CACHE;
    e.ms = 5;
    e.compile_ms = 0;
    expect_line("the training kernels' event: the backward tile that loaded", &e,
                "prnn: training kernels lstm half hidden=1024 batch=8 layers=2 dirs=2 on NVIDIA "
                "H100 80GB HBM3 sm_90 132SM | backward-data: persistent-resident [blocks=4] from "
                "autotuned | cubin: disk | 5.0 ms (compile 0.0 ms)");

    e.cubin = PRNN_CUBIN_COMPILED;
    e.ahead_kernels = 3;
    e.ahead_threads = 3;
    e.later_compiles = 0;
    expect_line("kernels compiled ahead: how many, on how many threads, and what the loads "
                "compiled after them",
                &e,
                "prnn: training kernels lstm half hidden=1024 batch=8 layers=2 dirs=2 on NVIDIA "
                "H100 80GB HBM3 sm_90 132SM | backward-data: persistent-resident [blocks=4] from "
                "autotuned | cubin: compiled | 5.0 ms (compile 0.0 ms) | ahead: 3 on 3 threads, 0 "
                "by the loads");

    e = lstm_event("plan");
    e.status = PRNN_STATUS_NOT_SUPPORTED;
    e.ms = 2;
    expect_line(
        "a failed plan says its status, not passes", &e,
        "prnn: plan lstm half hidden=1024 batch=8 layers=2 dirs=2 on NVIDIA H100 80GB HBM3 sm_90 "
        "132SM | failed: PRNN_STATUS_NOT_SUPPORTED (prnnGetLastErrorLog says why) | 2.0 ms");
}

static void test_truncation(void)
{
    prnn_plan_log_event e = lstm_event("plan");
    char buf[40];
    memset(buf, 'x', sizeof(buf));
    prnn_plan_log_format(&e, buf, 30);
    expect("a short buffer: cut, terminated, nothing written past it",
           strlen(buf) == 29 && buf[30] == 'x', buf);
}

/* The variable is read once: changing it later changes nothing. */
static void test_enabled_once(void)
{
    setenv("PRNN_LOG_PLANS", "1", 1);
    int first = prnn_plan_log_enabled();
    setenv("PRNN_LOG_PLANS", "0", 1);
    expect("PRNN_LOG_PLANS=1 enables the log", first == 1, NULL);
    expect("the variable is read once per process", prnn_plan_log_enabled() == 1, NULL);
}

/* A printed event is one line on stderr, newline included. */
static void test_print(void)
{
    FILE *tmp = tmpfile();
    int saved = dup(2);
    if (!tmp || saved < 0) {
        expect("stderr can be captured", 0, NULL);
        return;
    }
    fflush(stderr);
    dup2(fileno(tmp), 2);
    prnn_plan_log_event e = lstm_event("plan");
    prnn_plan_log_print(&e);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char line[1024] = "";
    rewind(tmp);
    size_t n = fread(line, 1, sizeof(line) - 1, tmp);
    line[n] = '\0';
    fclose(tmp);
    char want[1024];
    prnn_plan_log_format(&e, want, sizeof(want));
    strcat(want, "\n");
    expect("prnn_plan_log_print writes the line and its newline to stderr", strcmp(line, want) == 0,
           NULL);
}

int main(void)
{
    test_lines();
    test_truncation();
    test_enabled_once();
    test_print();
    printf("%s\n", failures ? "test_plan_log: FAILED" : "test_plan_log: all checks passed");
    return failures != 0;
}
