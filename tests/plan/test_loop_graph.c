/*
 * The standard engine's step graphs (src/gpu/run/loop_graph.c) against a
 * driver of counters, without a GPU: a loop of three launches whose last
 * argument is a value v.
 *  - the first call with v launches (signed first: nothing twice), the
 *    second captures on the loop's own stream and replays the graph on the
 *    caller's, the third only replays;
 *  - another v launches, and the same v again captures its own graph;
 *  - the caller's stream capturing (a user's CUDA graph): launches on it;
 *  - each signature replays its own graph;
 *  - a capture the driver refuses (at its begin, end or instantiation) or
 *    a loop failing under capture: launches, then and from then on;
 *  - more signatures than the table holds: those seen once go first, the
 *    graphs stay;
 *  - release destroys every graph and the stream, every captured graph is
 *    destroyed once instantiated; PRNN_STEP_GRAPHS=0: launches only;
 *  - a GEMM's key, pointers and workspace are in the signature.
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
    int refuse_capture, refuse_begin, refuse_instantiate, fail_launches;
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
    return n.fail_launches && stream == OWN_STREAM ? CUDA_ERROR_INVALID_IMAGE : CUDA_SUCCESS;
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
    CHECK(s == USER_STREAM);
    *status = n.user_status;
    return CUDA_SUCCESS;
}

static CUresult begin_capture(CUstream s, CUstreamCaptureMode mode)
{
    CHECK(s == OWN_STREAM);
    CHECK(mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    n.begins++;
    return n.refuse_begin ? CUDA_ERROR_INVALID_IMAGE : CUDA_SUCCESS;
}

static CUresult end_capture(CUstream s, CUgraph *graph)
{
    CHECK(s == OWN_STREAM);
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
static prnnStatus_t loop(const void *ctx, const prnn_call_plan *c, prnn_launch_sink *sink)
{
    int v = *(const int *)ctx, zero = 0;
    for (int i = 0; i < 3; i++) {
        int *arg = i == 2 ? &v : &zero;
        PRNN_TRY(prnn_sink_launch(sink, c, (CUfunction)(uintptr_t)(0x100 + i), 1, 32, arg,
                                  sizeof(*arg), "test"));
    }
    return PRNN_STATUS_SUCCESS;
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
    prnn_loop_graphs_init(&g, cu);
    const int graph_launches = n.graph_launches, begins = n.begins;
    const int destroyed = n.streams_destroyed;
    *flag = 1;
    run(&g, c, 7);
    run(&g, c, 7);
    *flag = 0;
    run(&g, c, 7);
    CHECK(n.begins == begins + 1);
    CHECK(n.graph_launches == graph_launches);
    CHECK(n.streams_destroyed == destroyed + 1);
    prnn_loop_graphs_release(&g);
}

/* The signature of one GEMM through a signing sink. */
static void gemm_signature(const prnn_call_plan *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out, uint64_t *h1, uint64_t *h2)
{
    prnn_launch_sink s = {1, 1, 2};
    CHECK(prnn_sink_gemm(&s, c, key, a, b, out) == PRNN_STATUS_SUCCESS);
    *h1 = s.h1;
    *h2 = s.h2;
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
    prnn_loop_graphs_init(&g, &cu);
    CHECK(n.streams_made == 1);

    run(&g, &c, 1); /* new: launched once */
    CHECK(n.launches == 3 && n.begins == 0 && n.graph_launches == 0);
    run(&g, &c, 1); /* seen: captured on the own stream, replayed */
    CHECK(n.begins == 1 && n.instantiated == 1 && n.graph_launches == 1);
    CHECK(n.launches == 6 && n.launches_on_own == 3);
    run(&g, &c, 1); /* replayed only */
    CHECK(n.launches == 6 && n.graph_launches == 2 && n.last_exec == EXEC(1));
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
    prnn_loop_graphs_init(&g, &cu);
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

    /* more signatures than the table holds, in turn: the graph of v = 1
     * stays while the others come and go seen once */
    prnn_loop_graphs_init(&g, &cu);
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
    CHECK(n.graphs_made == n.graphs_destroyed);

    const int made_streams = n.streams_made, launches = n.launches,
              graph_launches = n.graph_launches;
    setenv("PRNN_STEP_GRAPHS", "0", 1);
    prnn_loop_graphs_init(&g, &cu);
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
           "GEMM's signature, PRNN_STEP_GRAPHS=0: all checks passed\n");
    return 0;
}
