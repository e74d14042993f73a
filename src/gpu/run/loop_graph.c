#include "gpu/run/loop_graph.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu/run/gpu_state.h"

void prnn_loop_graphs_init(prnn_loop_graphs *g, const prnn_cuda_driver *cu,
                           const char *off_variable)
{
    memset(g, 0, sizeof(*g));
    g->cu = cu;
    g->off_variable = off_variable;
    const char *v = getenv(off_variable);
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
static prnn_loop_graph *find(prnn_loop_graphs *g, const prnn_launch_signature *s)
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
 * when the driver refused it (or the loop failed under capture: the log
 * then holds why). */
static int capture(prnn_loop_graphs *g, prnn_loop_graph *e, const prnn_call_plan *c,
                   prnn_loop_fn fn, const void *ctx)
{
    const prnn_cuda_driver *cu = g->cu;
    if (prnn_cu_check(cu->cuStreamBeginCapture(g->capture, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "cuStreamBeginCapture"))
        return 0;
    prnn_call_plan on_capture = *c;
    on_capture.stream = g->capture;
    prnnStatus_t s = fn(ctx, &on_capture);
    CUgraph graph = NULL;
    prnnStatus_t ended =
        prnn_cu_check(cu->cuStreamEndCapture(g->capture, &graph), "cuStreamEndCapture");
    CUgraphExec exec = NULL;
    if (!s && !ended && graph &&
        !prnn_cu_check(cu->cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate"))
        e->exec = exec;
    if (graph)
        cu->cuGraphDestroy(graph);
    return e->exec != NULL;
}

prnnStatus_t prnn_loop_run(prnn_loop_graphs *g, const prnn_call_plan *c, prnn_loop_fn fn,
                           const void *ctx)
{
    if (c->signing)
        return fn(ctx, c); /* part of the caller's signature */
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!g->capture || g->cu->cuStreamIsCapturing(c->stream, &status) != CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_NONE)
        return fn(ctx, c);
    prnn_launch_signature signature = {0xcbf29ce484222325ULL, 0x6a09e667f3bcc909ULL};
    prnn_call_plan signing = *c;
    signing.signing = &signature;
    PRNN_TRY(fn(ctx, &signing));
    prnn_loop_graph *e = find(g, &signature);
    if (!e)
        return fn(ctx, c);
    if (!e->exec) {
        char *saved = prnn_log_save();
        if (!capture(g, e, c, fn, ctx)) {
            /* The same launches, without capture, say whose failure it
             * was: theirs (an error the call returns; the graphs stay), or
             * the capture's (the driver refused something under it):
             * launches from now on, and a note of why. */
            char *why = prnn_log_save();
            prnn_log_restore(saved);
            prnnStatus_t s = fn(ctx, c);
            if (s == PRNN_STATUS_SUCCESS) {
                prnn_log_append("note: %s's CUDA graphs off for this plan from now on (a capture "
                                "failed where the same launches ran): %s",
                                g->off_variable,
                                why && why[0] ? why : "the driver refused the capture");
                prnn_loop_graphs_release(g);
            }
            free(why);
            return s;
        }
        prnn_log_restore(saved);
        g->captured++;
    }
    g->replays++;
    return prnn_cu_check(g->cu->cuGraphLaunch(e->exec, c->stream), "cuGraphLaunch");
}
