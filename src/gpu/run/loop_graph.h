/*
 * Launches replayed as one CUDA graph once they repeat: a whole call
 * (prnn_call_run, the plan's table), and inside it the standard engine's
 * steps (a cuBLASLt GEMM and a pointwise kernel each, its pass plan's
 * table). A launch costs the host a few microseconds, a cooperative one
 * (the persistent kernels') about 8 and cuBLASLt's 5-7 on an H100, while
 * a call of a few steps takes the GPU tens of microseconds: the host's
 * enqueueing was most of a short call's time, and at small H a tenth of a
 * 256-step one's (bench/NOTES.md, the fifteenth session). The standard
 * engine's steps: LSTM f16 H 1024 B 64 ran 12.9 us a step as launches and
 * 8.5 replayed (the eighth session).
 *
 * The loop is a function that makes its launches through gpu_run.h's
 * helpers on the call plan it is given. prnn_loop_run first runs it
 * signing (prnn_call_plan.signing): every launch's kernel, grid and
 * argument bytes, every GEMM's key and pointers, every memset, fork and
 * join hashed (two 64-bit hashes), nothing launched. A signature seen
 * before with a graph replays the graph; one seen once before is captured
 * (on a stream of the table's own: the caller's may be the legacy default
 * stream, which cannot capture), instantiated and launched; a new one runs
 * as launches and is remembered. So a call whose buffers change every time
 * pays only the signing, and a loop whose allocator hands back the same
 * buffers replays from its third call on. What a replay reads on the
 * device it reads when it runs, as the launches would: only what the host
 * put into the launches is fixed, and all of it is in the signature.
 *
 * A loop run while its caller signs (a standard engine's steps inside a
 * call being signed) signs into the caller's signature; the caller's
 * stream already capturing (a call being captured, or the user's own CUDA
 * graph) runs the launches, into that capture.
 *
 * Plain launches are the fallback: the table's environment variable 0
 * (PRNN_CALL_GRAPHS for calls, PRNN_STEP_GRAPHS for the steps), or a
 * capture that failed where the same launches then ran without it (the
 * driver refused something under capture: the table runs launches from
 * then on, its log line saying why). A loop that fails under capture and
 * again as launches returns its launches' error and keeps its graphs.
 */
#ifndef PRNN_GPU_LOOP_GRAPH_H
#define PRNN_GPU_LOOP_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_driver.h"
#include "gpu/run/gpu_run.h"

/* The signatures one table keeps: a training step of L layers and D
 * directions signs 2 L D step loops (forward and backward-data; an
 * inference call's forward signs apart from a training call's); a plan's
 * calls one per call kind and set of buffers. Those seen once go before
 * those holding a graph, the least recently used first. */
#define PRNN_LOOP_GRAPHS 64

typedef struct {
    uint64_t h1, h2;
    CUgraphExec exec; /* NULL: seen once, not captured yet */
    unsigned long long last_use;
    int used;
} prnn_loop_graph;

typedef struct prnn_loop_graphs {
    const prnn_cuda_driver *cu;
    const char *off_variable; /* the environment variable that turns it off */
    CUstream capture;         /* NULL: graphs off */
    prnn_loop_graph entries[PRNN_LOOP_GRAPHS];
    unsigned long long clock;
    /* graphs captured, and loops run as a replay, so far */
    int captured;
    unsigned long long replays;
} prnn_loop_graphs;

/* At planning (the context current): the capture stream, unless the
 * environment variable `off_variable` is 0. Graphs stay off, without an
 * error, where the stream cannot be made. */
void prnn_loop_graphs_init(prnn_loop_graphs *g, const prnn_cuda_driver *cu,
                           const char *off_variable);
/* Destroys the graphs and the stream (the context current). */
void prnn_loop_graphs_release(prnn_loop_graphs *g);

/* A loop: makes its launches through gpu_run.h on c's stream. ctx is the
 * caller's. It must launch the same things from the same arguments every
 * time it runs (signing, capturing, launching), and change nothing but
 * the device's memory. */
typedef prnnStatus_t (*prnn_loop_fn)(const void *ctx, const prnn_call_plan *c);

/* Runs fn on c's stream: replayed, captured or launched (above). */
prnnStatus_t prnn_loop_run(prnn_loop_graphs *g, const prnn_call_plan *c, prnn_loop_fn fn,
                           const void *ctx);

#endif
