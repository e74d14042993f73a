/*
 * The standard engine's step graphs (src/gpu/run/loop_graph.c) against a
 * driver of counters, without a GPU: a loop of three launches whose last
 * argument is a value v.
 *  - the first call with v launches (signed first: nothing twice), the
 *    second captures on the loop's own stream and replays the graph on the
 *    caller's, the third only replays;
 *  - another v launches, and the same v again captures its own graph;
 *  - the caller's stream capturing (a user's CUDA graph): launches on it;
 *  - a capture the driver refuses: launches, then and from then on;
 *  - release destroys every graph and the stream; PRNN_STEP_GRAPHS=0:
 *    launches only.
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
    int streams_made, streams_destroyed;
    CUstreamCaptureStatus user_status;
    int refuse_capture;
} n;

static CUresult launch_kernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned smem, CUstream stream,
                              void **params, void **extra)
{
    (void)fn, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem;
    (void)params, (void)extra;
    n.launches++;
    n.launches_on_own += stream == OWN_STREAM;
    return CUDA_SUCCESS;
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
    return CUDA_SUCCESS;
}

static CUresult end_capture(CUstream s, CUgraph *graph)
{
    CHECK(s == OWN_STREAM);
    *graph = n.refuse_capture ? NULL : (CUgraph)(uintptr_t)0x3000;
    return n.refuse_capture ? CUDA_ERROR_INVALID_IMAGE : CUDA_SUCCESS;
}

static CUresult instantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    (void)graph, (void)flags;
    n.instantiated++;
    *exec = (CUgraphExec)(uintptr_t)(0x4000 + n.instantiated);
    return CUDA_SUCCESS;
}

static CUresult graph_launch(CUgraphExec exec, CUstream s)
{
    CHECK(exec != NULL);
    CHECK(s == USER_STREAM);
    n.graph_launches++;
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
    CHECK(n.launches == 6 && n.graph_launches == 2);

    run(&g, &c, 2); /* another argument: launched */
    CHECK(n.launches == 9 && n.launches_on_own == 3 && n.graph_launches == 2);
    run(&g, &c, 2);
    CHECK(n.instantiated == 2 && n.graph_launches == 3);
    run(&g, &c, 1); /* the first graph kept */
    CHECK(n.instantiated == 2 && n.graph_launches == 4 && n.launches == 12);

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

    setenv("PRNN_STEP_GRAPHS", "0", 1);
    prnn_loop_graphs_init(&g, &cu);
    CHECK(n.streams_made == 2);
    for (int i = 0; i < 3; i++)
        run(&g, &c, 4);
    CHECK(n.launches == 36 && n.graph_launches == 4);
    prnn_loop_graphs_release(&g);
    unsetenv("PRNN_STEP_GRAPHS");

    if (test_failures) {
        printf("plan-loop-graph: %d failure(s)\n", test_failures);
        return 1;
    }
    printf("plan-loop-graph: launched, captured, replayed; other arguments, a user's capture, a "
           "refused capture, release, PRNN_STEP_GRAPHS=0: all checks passed\n");
    return 0;
}
