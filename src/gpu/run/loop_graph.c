#include "gpu/run/loop_graph.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/run/gpu_state.h"

/* Two 64-bit hashes of the launches' bytes, eight at a time (a step's
 * arguments are a few hundred bytes: signing must cost far less than the
 * launch it stands for), with different multipliers and seeds, so that a
 * replayed graph is the loop's own but for a chance far below any
 * hardware error's. */
static void sign(prnn_launch_sink *s, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    uint64_t h1 = s->h1, h2 = s->h2;
    for (; bytes >= 8; bytes -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h1 = (h1 ^ w) * 0x100000001b3ULL;
        h1 ^= h1 >> 32;
        h2 = (h2 + w) * 0x9e3779b97f4a7c15ULL;
        h2 ^= h2 >> 29;
    }
    for (; bytes; bytes--, p++) {
        h1 = (h1 ^ *p) * 0x100000001b3ULL;
        h2 = (h2 + *p + 1) * 0x9e3779b97f4a7c15ULL;
        h2 ^= h2 >> 29;
    }
    s->h1 = h1;
    s->h2 = h2;
}

static void sign_pointer(prnn_launch_sink *s, const void *p)
{
    sign(s, &p, sizeof(p));
}

prnnStatus_t prnn_sink_launch(prnn_launch_sink *s, const prnn_call_plan *c, CUfunction fn,
                              unsigned grid_x, unsigned block, void *arg, size_t arg_bytes,
                              const char *name)
{
    if (!s->signing)
        return prnn_run_launch(c, fn, grid_x, 1, block, arg, name);
    const unsigned dims[2] = {grid_x, block};
    sign_pointer(s, fn);
    sign(s, dims, sizeof(dims));
    sign(s, arg, arg_bytes);
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_sink_gemm(prnn_launch_sink *s, const prnn_call_plan *c, const prnn_gemm_key *key,
                            const void *a, const void *b, void *out)
{
    if (!s->signing)
        return prnn_run_gemm(c, key, a, b, out);
    sign(s, key, sizeof(*key));
    sign_pointer(s, a);
    sign_pointer(s, b);
    sign_pointer(s, out);
    sign_pointer(s, c->l.gemm_ws == (size_t)-1 ? NULL : prnn_run_ws(c, c->l.gemm_ws));
    return PRNN_STATUS_SUCCESS;
}

void prnn_loop_graphs_init(prnn_loop_graphs *g, const prnn_cuda_driver *cu)
{
    memset(g, 0, sizeof(*g));
    g->cu = cu;
    const char *v = getenv("PRNN_STEP_GRAPHS");
    if (v && strcmp(v, "0") == 0)
        return;
    if (cu->cuStreamCreate(&g->capture, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
        g->capture = NULL;
}

static void forget(prnn_loop_graphs *g, prnn_loop_graph *e)
{
    if (e->exec)
        g->cu->cuGraphExecDestroy(e->exec);
    memset(e, 0, sizeof(*e));
}

void prnn_loop_graphs_release(prnn_loop_graphs *g)
{
    if (!g->cu)
        return;
    for (int i = 0; i < PRNN_LOOP_GRAPHS; i++)
        forget(g, &g->entries[i]);
    if (g->capture)
        g->cu->cuStreamDestroy(g->capture);
    g->capture = NULL;
}

/* How much an entry is worth keeping: free, seen once, holding a graph;
 * the least recently used goes first among equals. */
static int worth(const prnn_loop_graph *e)
{
    return !e->used ? 0 : !e->exec ? 1 : 2;
}

/* The entry of signature s, or NULL after taking the least worth keeping
 * for it (seen once now): a loop of many layers and directions fills the
 * table with signatures seen once before they repeat, and those must not
 * push out the graphs. */
static prnn_loop_graph *find(prnn_loop_graphs *g, const prnn_launch_sink *s)
{
    prnn_loop_graph *victim = &g->entries[0];
    for (int i = 0; i < PRNN_LOOP_GRAPHS; i++) {
        prnn_loop_graph *e = &g->entries[i];
        if (e->used && e->h1 == s->h1 && e->h2 == s->h2) {
            e->last_use = ++g->clock;
            return e;
        }
        if (worth(e) < worth(victim) ||
            (worth(e) == worth(victim) && e->last_use < victim->last_use))
            victim = e;
    }
    forget(g, victim);
    victim->used = 1;
    victim->h1 = s->h1;
    victim->h2 = s->h2;
    victim->last_use = ++g->clock;
    return NULL;
}

/* The loop captured on g's stream into e's graph: 1 when e holds one, 0
 * when the driver refused it (or the loop failed under capture). */
static int capture(prnn_loop_graphs *g, prnn_loop_graph *e, const prnn_call_plan *c,
                   prnn_loop_fn fn, const void *ctx)
{
    const prnn_cuda_driver *cu = g->cu;
    if (cu->cuStreamBeginCapture(g->capture, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS)
        return 0;
    prnn_call_plan on_capture = *c;
    on_capture.stream = g->capture;
    prnn_launch_sink launch = {0, 0, 0};
    prnnStatus_t s = fn(ctx, &on_capture, &launch);
    CUgraph graph = NULL;
    CUresult ended = cu->cuStreamEndCapture(g->capture, &graph);
    CUgraphExec exec = NULL;
    if (!s && ended == CUDA_SUCCESS && graph &&
        cu->cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS)
        e->exec = exec;
    if (graph)
        cu->cuGraphDestroy(graph);
    return e->exec != NULL;
}

prnnStatus_t prnn_loop_run(prnn_loop_graphs *g, const prnn_call_plan *c, prnn_loop_fn fn,
                           const void *ctx)
{
    prnn_launch_sink launch = {0, 0, 0};
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!g->capture || g->cu->cuStreamIsCapturing(c->stream, &status) != CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_NONE)
        return fn(ctx, c, &launch);
    prnn_launch_sink signature = {1, 0xcbf29ce484222325ULL, 0x6a09e667f3bcc909ULL};
    PRNN_TRY(fn(ctx, c, &signature));
    prnn_loop_graph *e = find(g, &signature);
    if (!e)
        return fn(ctx, c, &launch);
    if (!e->exec) {
        if (!capture(g, e, c, fn, ctx)) {
            /* not capturable here (the driver refused, or the loop failed
             * under capture, whose real failures its launches then
             * report): launches from now on */
            prnn_loop_graphs_release(g);
            return fn(ctx, c, &launch);
        }
    }
    return prnn_cu_check(g->cu->cuGraphLaunch(e->exec, c->stream), "cuGraphLaunch");
}
