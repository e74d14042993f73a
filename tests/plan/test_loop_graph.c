/*
 * The call and step graphs (src/gpu/run/loop_graph.c) against a driver of
 * counters, without a GPU: a loop of three launches whose last argument is
 * a value v.
 *  - the first call with v launches (signed first: nothing twice), the
 *    second captures on the loop's own stream and replays the graph on the
 *    caller's, the third only replays;
 *  - another v launches, and the same v again captures its own graph;
 *  - the caller's stream capturing (a user's CUDA graph): launches on it;
 *  - each signature replays its own graph;
 *  - a capture the driver refuses (at its begin, end or instantiation) or
 *    a loop failing under capture: launches, then and from then on;
 *  - a loop failing under capture and as launches too: its error, and the
 *    graphs stay on (a later capture of it works);
 *  - the table's counts of graphs captured and replays;
 *  - more signatures than the table holds: those seen once go first, the
 *    graphs stay;
 *  - release destroys every graph and the stream, every captured graph is
 *    destroyed once instantiated; PRNN_STEP_GRAPHS=0: launches only;
 *  - a GEMM's key, pointers and workspace are in the signature, and a
 *    launch's grid and a memset's pointer and size;
 *  - a loop inside a loop (a standard engine's steps inside a call): while
 *    the outer one signs, the inner one signs into its signature and its
 *    own table stays untouched; while the outer one captures, the inner
 *    one launches into the capture; the outer one's replay is the whole.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/loop_graph.h"
static int test_failures;
#include "../test_check.h"

#define USER_STREAM ((CUstream)(uintptr_t)0x1000)
#define OWN_STREAM ((CUstream)(uintptr_t)0x2000)

static struct {
    int launches, launches_on_own, begins, instantiated, graph_launches, exec_destroyed;
    int streams_made, streams_destroyed, graphs_made, graphs_destroyed;
    CUstreamCaptureStatus user_status;
    int refuse_capture, refuse_begin, refuse_instantiate, fail_launches, fail_all;
    int own_capturing; /* between a begin and an end of capture */
    CUgraphExec last_exec;
} n;

static CUresult launch_kernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned smem, CUstream stream,
                              void **params, void **extra)
{
    (void)fn, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem;
    (void)params, (void)extra;
    n.launches++;
    n.launches_on_own += stream == OWN_STREAM;
    return n.fail_all || (n.fail_launches && stream == OWN_STREAM) ? CUDA_ERROR_INVALID_IMAGE
                                                                   : CUDA_SUCCESS;
}

static CUresult stream_create(CUstream *s, unsigned flags)
{
    (void)flags;
    n.streams_made++;
    *s = OWN_STREAM;
    return CUDA_SUCCESS;
}

static CUresult stream_destroy(CUstream s)
{
    CHECK(s == OWN_STREAM);
    n.streams_destroyed++;
    return CUDA_SUCCESS;
}

static CUresult is_capturing(CUstream s, CUstreamCaptureStatus *status)
{
    CHECK(s == USER_STREAM || s == OWN_STREAM);
    *status = s == OWN_STREAM ? (n.own_capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                 : CU_STREAM_CAPTURE_STATUS_NONE)
                              : n.user_status;
    return CUDA_SUCCESS;
}

static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode)
{
    CHECK(s == OWN_STREAM);
    CHECK(mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    n.begins++;
    n.own_capturing = !n.refuse_begin;
    return n.refuse_begin ? CUDA_ERROR_INVALID_IMAGE : CUDA_SUCCESS;
}

static CUresult end_capture(CUstream s, CUgraph *graph)
{
    CHECK(s == OWN_STREAM);
    n.own_capturing = 0;
    *graph = n.refuse_capture ? NULL : (CUgraph)(uintptr_t)0x3000;
    n.graphs_made += *graph != NULL;
    return n.refuse_capture ? CUDA_ERROR_INVALID_IMAGE : CUDA_SUCCESS;
}

static CUresult instantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    (void)graph, (void)flags;
    if (n.refuse_instantiate)
        return CUDA_ERROR_INVALID_IMAGE;
    n.instantiated++;
    *exec = (CUgraphExec)(uintptr_t)(0x4000 + n.instantiated);
    return CUDA_SUCCESS;
}

static CUresult graph_launch(CUgraphExec exec, CUstream s)
{
    CHECK(exec != NULL);
    CHECK(s == USER_STREAM);
    n.graph_launches++;
    n.last_exec = exec;
    return CUDA_SUCCESS;
}

static CUresult exec_destroy(CUgraphExec exec)
{
    (void)exec;
    n.exec_destroyed++;
    return CUDA_SUCCESS;
}

static CUresult graph_destroy(CUgraph graph)
{
    (void)graph;
    n.graphs_destroyed++;
    return CUDA_SUCCESS;
}

/* Three launches, the last with v as its argument. */
static prnnStatus_t loop(const void *ctx, const prnn_call_plan *c)
{
    int v = *(const int *)ctx, zero = 0;
    for (int i = 0; i < 3; i++) {
        int *arg = i == 2 ? &v : &zero;
        PRNN_TRY(prnn_run_launch(c, (CUfunction)(uintptr_t)(0x100 + i), 1, 1, 32, arg, sizeof(*arg),
                                 "test"));
    }
    return PRNN_STATUS_SUCCESS;
}

/* A loop around a loop: a launch of v, then the inner loop (its table
 * `inner`) with v. */
typedef struct {
    prnn_loop_graphs *inner;
    int v;
} outer_ctx;

static prnnStatus_t outer_loop(const void *ctx, const prnn_call_plan *c)
{
    const outer_ctx *o = ctx;
    int v = o->v;
    PRNN_TRY(prnn_run_launch(c, (CUfunction)(uintptr_t)0x200, 1, 1, 32, &v, sizeof(v), "outer"));
    return prnn_loop_run(o->inner, c, loop, &o->v);
}

static void run(prnn_loop_graphs *g, const prnn_call_plan *c, int v)
{
    CHECK(prnn_loop_run(g, c, loop, &v) == PRNN_STATUS_SUCCESS);
}

#define EXEC(k) ((CUgraphExec)(uintptr_t)(0x4000 + (k)))

/* A refusal of some kind: the second sighting launches, and graphs stay
 * off (no capture at the third). */
static void refused(const prnn_cuda_driver *cu, const prnn_call_plan *c, int *flag)
{
    prnn_loop_graphs g;
    prnn_loop_graphs_init(&g, cu, "PRNN_STEP_GRAPHS");
    const int graph_launches = n.graph_launches, begins = n.begins;
    const int destroyed = n.streams_destroyed;
    *flag = 1;
    run(&g, c, 7);
    prnn_log_clear();
    run(&g, c, 7);
    CHECK(strstr(prnn_log_get(), "PRNN_STEP_GRAPHS's CUDA graphs off") != NULL);
    *flag = 0;
    run(&g, c, 7);
    CHECK(n.begins == begins + 1);
    CHECK(n.graph_launches == graph_launches);
    CHECK(n.streams_destroyed == destroyed + 1);
    prnn_loop_graphs_release(&g);
}

/* The signature of one GEMM on c signing. */
static void gemm_signature(const prnn_call_plan *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out, uint64_t *h1, uint64_t *h2)
{
    prnn_launch_signature s = {1, 2};
    prnn_call_plan signing = *c;
    signing.signing = &s;
    CHECK(prnn_run_gemm(&signing, key, a, b, out) == PRNN_STATUS_SUCCESS);
    *h1 = s.h1;
    *h2 = s.h2;
}

/* The signature of a launch of grid_x blocks, then of a memset of bytes at
 * ptr, on c signing. */
static prnn_launch_signature launch_zero_signature(const prnn_call_plan *c, unsigned grid_x,
                                                   void *ptr, size_t bytes)
{
    prnn_launch_signature s = {1, 2};
    prnn_call_plan signing = *c;
    signing.signing = &s;
    int v = 0;
    CHECK(prnn_run_launch(&signing, (CUfunction)(uintptr_t)0x100, grid_x, 1, 32, &v, sizeof(v),
                          "test") == PRNN_STATUS_SUCCESS);
    CHECK(prnn_run_zero(&signing, ptr, bytes) == PRNN_STATUS_SUCCESS);
    return s;
}

static int same(prnn_launch_signature a, prnn_launch_signature b)
{
    return a.h1 == b.h1 && a.h2 == b.h2;
}

int main(void)
{
    static prnn_cuda_driver cu;
    cu.cuLaunchKernel = launch_kernel;
    cu.cuStreamCreate = stream_create;
    cu.cuStreamDestroy = stream_destroy;
    cu.cuStreamIsCapturing = is_capturing;
    cu.cuStreamBeginCapture = begin_capture;
    cu.cuStreamEndCapture = end_capture;
    cu.cuGraphInstantiate = instantiate;
    cu.cuGraphLaunch = graph_launch;
    cu.cuGraphExecDestroy = exec_destroy;
    cu.cuGraphDestroy = graph_destroy;
    static struct prnn_gpu_state gs;
    gs.cu = &cu;
    prnn_call_plan c;
    memset(&c, 0, sizeof(c));
    c.gs = &gs;
    c.stream = USER_STREAM;
    c.l.gemm_ws = (size_t)-1;

    unsetenv("PRNN_STEP_GRAPHS");
    prnn_loop_graphs g;
    prnn_loop_graphs_init(&g, &cu, "PRNN_STEP_GRAPHS");
    CHECK(n.streams_made == 1);

    run(&g, &c, 1); /* new: launched once */
    CHECK(n.launches == 3 && n.begins == 0 && n.graph_launches == 0);
    run(&g, &c, 1); /* seen: captured on the own stream, replayed */
    CHECK(n.begins == 1 && n.instantiated == 1 && n.graph_launches == 1);
    CHECK(n.launches == 6 && n.launches_on_own == 3);
    run(&g, &c, 1); /* replayed only */
    CHECK(n.launches == 6 && n.graph_launches == 2 && n.last_exec == EXEC(1));
    CHECK(g.captured == 1 && g.replays == 2);
    CHECK(n.graphs_made == 1 && n.graphs_destroyed == 1);

    run(&g, &c, 2); /* another argument: launched */
    CHECK(n.launches == 9 && n.launches_on_own == 3 && n.graph_launches == 2);
    run(&g, &c, 2);
    CHECK(n.instantiated == 2 && n.graph_launches == 3);
    CHECK(n.last_exec == EXEC(2));
    run(&g, &c, 1); /* the first graph kept */
    CHECK(n.instantiated == 2 && n.graph_launches == 4 && n.launches == 12);
    CHECK(n.last_exec == EXEC(1));

    n.user_status = CU_STREAM_CAPTURE_STATUS_ACTIVE; /* the user's capture */
    run(&g, &c, 1);
    CHECK(n.launches == 15 && n.launches_on_own == 6 && n.graph_launches == 4);
    n.user_status = CU_STREAM_CAPTURE_STATUS_NONE;

    prnn_loop_graphs_release(&g);
    CHECK(n.exec_destroyed == 2 && n.streams_destroyed == 1);

    /* a refused capture: launches, and graphs off from then on */
    prnn_loop_graphs_init(&g, &cu, "PRNN_STEP_GRAPHS");
    n.refuse_capture = 1;
    run(&g, &c, 3);
    run(&g, &c, 3);
    CHECK(n.begins == 3 && n.graph_launches == 4);
    CHECK(n.launches == 15 + 3 + 3 + 3); /* signed, launched; captured (refused), launched */
    CHECK(n.streams_destroyed == 2);
    run(&g, &c, 3);
    CHECK(n.begins == 3 && n.graph_launches == 4 && n.launches == 27);
    prnn_loop_graphs_release(&g);
    n.refuse_capture = 0;

    /* refusals at the begin and at the instantiation, a loop failing
     * under capture: each launches, and turns graphs off */
    refused(&cu, &c, &n.refuse_begin);
    refused(&cu, &c, &n.refuse_instantiate);
    refused(&cu, &c, &n.fail_launches);

    /* a loop failing under capture and as launches: its error each time,
     * the graphs stay on, and once it runs it is captured */
    {
        prnn_loop_graphs f;
        prnn_loop_graphs_init(&f, &cu, "PRNN_STEP_GRAPHS");
        const int begins = n.begins, destroyed = n.streams_destroyed;
        int v = 11;
        n.fail_all = 1;
        CHECK(prnn_loop_run(&f, &c, loop, &v) != PRNN_STATUS_SUCCESS); /* new: launched */
        prnn_log_clear();
        CHECK(prnn_loop_run(&f, &c, loop, &v) != PRNN_STATUS_SUCCESS); /* captured, launched */
        CHECK(strstr(prnn_log_get(), "graphs off") == NULL);
        CHECK(strstr(prnn_log_get(), "cuLaunchKernel") != NULL); /* the launches' error */
        CHECK(n.begins == begins + 1 && f.capture != NULL && f.captured == 0);
        CHECK(n.streams_destroyed == destroyed);
        n.fail_all = 0;
        run(&f, &c, 11); /* captured now */
        CHECK(n.begins == begins + 2 && f.captured == 1 && f.replays == 1);
        prnn_loop_graphs_release(&f);
    }

    /* more signatures than the table holds, in turn: the graph of v = 1
     * stays while the others come and go seen once */
    prnn_loop_graphs_init(&g, &cu, "PRNN_STEP_GRAPHS");
    run(&g, &c, 1);
    run(&g, &c, 1);
    const int made = n.instantiated;
    for (int round = 0; round < 2; round++)
        for (int v = 100; v < 100 + 2 * PRNN_LOOP_GRAPHS; v++)
            run(&g, &c, v);
    CHECK(n.instantiated == made); /* no other signature ever repeated in time */
    const int replays = n.graph_launches;
    run(&g, &c, 1);
    CHECK(n.graph_launches == replays + 1 && n.last_exec == EXEC(made));
    const int execs_before = n.exec_destroyed;
    prnn_loop_graphs_release(&g);
    CHECK(n.exec_destroyed == execs_before + 1);

    /* a GEMM's signature: its key, each pointer and the workspace */
    {
        prnn_call_plan gc = c;
        char ws[64];
        gc.ws = ws;
        gc.l.gemm_ws = 0;
        prnn_gemm_key key;
        memset(&key, 0, sizeof(key));
        key.m = 4;
        uint64_t a1, a2, b1, b2;
        char buf[3];
        gemm_signature(&gc, &key, &buf[0], &buf[1], &buf[2], &a1, &a2);
        gemm_signature(&gc, &key, &buf[0], &buf[1], &buf[2], &b1, &b2);
        CHECK(a1 == b1 && a2 == b2);
        gemm_signature(&gc, &key, &buf[1], &buf[1], &buf[2], &b1, &b2);
        CHECK(a1 != b1 && a2 != b2);
        gemm_signature(&gc, &key, &buf[0], &buf[0], &buf[2], &b1, &b2);
        CHECK(a1 != b1 && a2 != b2);
        gemm_signature(&gc, &key, &buf[0], &buf[1], &buf[1], &b1, &b2);
        CHECK(a1 != b1 && a2 != b2);
        key.m = 5;
        gemm_signature(&gc, &key, &buf[0], &buf[1], &buf[2], &b1, &b2);
        CHECK(a1 != b1 && a2 != b2);
        key.m = 4;
        gc.l.gemm_ws = 8;
        gemm_signature(&gc, &key, &buf[0], &buf[1], &buf[2], &b1, &b2);
        CHECK(a1 != b1 && a2 != b2);
    }
    /* a launch's grid, a memset's pointer and size */
    {
        char buf[2];
        const prnn_launch_signature base = launch_zero_signature(&c, 1, &buf[0], 8);
        CHECK(same(base, launch_zero_signature(&c, 1, &buf[0], 8)));
        CHECK(!same(base, launch_zero_signature(&c, 2, &buf[0], 8)));
        CHECK(!same(base, launch_zero_signature(&c, 1, &buf[1], 8)));
        CHECK(!same(base, launch_zero_signature(&c, 1, &buf[0], 16)));
    }
    CHECK(n.graphs_made == n.graphs_destroyed);

    /* a loop inside a loop */
    {
        prnn_loop_graphs outer, inner;
        prnn_loop_graphs_init(&outer, &cu, "PRNN_CALL_GRAPHS");
        prnn_loop_graphs_init(&inner, &cu, "PRNN_STEP_GRAPHS");
        const outer_ctx o = {&inner, 9};
        const int launches = n.launches, begins = n.begins, outer_replays = n.graph_launches;
        const int on_own = n.launches_on_own;
        CHECK(prnn_loop_run(&outer, &c, outer_loop, &o) == PRNN_STATUS_SUCCESS);
        /* signed as a whole (the inner table untouched), then launched: the
         * outer launch, and the inner loop new to its own table */
        CHECK(n.launches == launches + 1 + 3 && n.begins == begins);
        int inner_used = 0;
        for (int i = 0; i < PRNN_LOOP_GRAPHS; i++)
            inner_used += inner.entries[i].used;
        CHECK(inner_used == 1);
        CHECK(prnn_loop_run(&outer, &c, outer_loop, &o) == PRNN_STATUS_SUCCESS);
        /* the outer one captured: the inner loop launched into the capture,
         * not captured on its own */
        CHECK(n.begins == begins + 1 && n.launches == launches + 2 * (1 + 3));
        CHECK(n.launches_on_own == on_own + 4 && n.graph_launches == outer_replays + 1);
        CHECK(prnn_loop_run(&outer, &c, outer_loop, &o) == PRNN_STATUS_SUCCESS);
        CHECK(n.begins == begins + 1 && n.launches == launches + 8);
        CHECK(n.graph_launches == outer_replays + 2);
        inner_used = 0;
        for (int i = 0; i < PRNN_LOOP_GRAPHS; i++)
            inner_used += inner.entries[i].used + (inner.entries[i].exec != NULL);
        CHECK(inner_used == 1);
        prnn_loop_graphs_release(&inner);
        prnn_loop_graphs_release(&outer);
    }

    const int made_streams = n.streams_made, launches = n.launches,
              graph_launches = n.graph_launches;
    setenv("PRNN_STEP_GRAPHS", "0", 1);
    prnn_loop_graphs_init(&g, &cu, "PRNN_STEP_GRAPHS");
    for (int i = 0; i < 3; i++)
        run(&g, &c, 4);
    CHECK(n.streams_made == made_streams);
    CHECK(n.launches == launches + 9 && n.graph_launches == graph_launches);
    prnn_loop_graphs_release(&g);
    unsetenv("PRNN_STEP_GRAPHS");

    if (test_failures) {
        printf("plan-loop-graph: %d failure(s)\n", test_failures);
        return 1;
    }
    printf("plan-loop-graph: launched, captured, replayed; other arguments, a user's capture, a "
           "refused capture (end, begin, instantiation, a failing loop), a full table, release, a "
           "GEMM's, a launch's and a memset's signature, a loop inside a loop, a loop failing "
           "with and without capture, the counts, "
           "PRNN_STEP_GRAPHS=0: all checks passed\n");
    return 0;
}
