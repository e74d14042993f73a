/*
 * A loop of launches replayed as one CUDA graph once its arguments repeat:
 * the standard engine's steps (a cuBLASLt GEMM and a pointwise kernel each).
 * A launch costs the host a few microseconds, cuBLASLt's more, which at
 * GEMM-sized steps is what a step takes: LSTM f16 H 1024 B 64 on an H100
 * ran 12.9 us a step as launches and 8.5 replayed from a graph
 * (bench/NOTES.md, the eighth session).
 *
 * The loop is a function that makes its launches through a prnn_launch_sink.
 * prnn_loop_run first runs it signing: every launch's kernel, grid and
 * argument bytes and every GEMM's shape and pointers hashed (two 64-bit
 * hashes), nothing launched. A signature seen before with a graph replays
 * the graph; one seen once before is captured (on a stream of the loop's
 * own: the caller's may be the legacy default stream, which cannot
 * capture), instantiated and launched; a new one runs as launches and is
 * remembered. So a call whose buffers change every time pays only the
 * signing, and a training loop whose allocator hands back the same buffers
 * replays from its third call on. The caller's stream already capturing
 * (the user's own CUDA graph) runs the launches, into that capture.
 *
 * Plain launches are the fallback: PRNN_STEP_GRAPHS=0, or a capture the
 * driver refused or the loop failed under (the loop then runs as launches
 * from then on).
 */
#ifndef PRNN_GPU_LOOP_GRAPH_H
#define PRNN_GPU_LOOP_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_driver.h"
#include "gpu/run/gpu_run.h"

/* Where a loop's launches go: the driver, or (signing) a hash. */
typedef struct {
    int signing;
    uint64_t h1, h2;
} prnn_launch_sink;

/* cuLaunchKernel of fn with one argument struct of arg_bytes (grid_x x 1
 * blocks of block threads), or its bytes into the signature. */
prnnStatus_t prnn_sink_launch(prnn_launch_sink *s, const prnn_call_plan *c, CUfunction fn,
                              unsigned grid_x, unsigned block, void *arg, size_t arg_bytes,
                              const char *name);
/* prnn_run_gemm, or its key and pointers (the call's GEMM workspace too)
 * into the signature. */
prnnStatus_t prnn_sink_gemm(prnn_launch_sink *s, const prnn_call_plan *c, const prnn_gemm_key *key,
                            const void *a, const void *b, void *out);

/* The signatures one pass plan keeps: a training step of L layers and D
 * directions signs 2 L D loops (forward and backward-data; an inference
 * call's forward signs apart from a training call's). Those seen once go
 * before those holding a graph, the least recently used first. */
#define PRNN_LOOP_GRAPHS 64

typedef struct {
    uint64_t h1, h2;
    CUgraphExec exec; /* NULL: seen once, not captured yet */
    unsigned long long last_use;
    int used;
} prnn_loop_graph;

typedef struct {
    const prnn_cuda_driver *cu;
    CUstream capture; /* NULL: graphs off */
    prnn_loop_graph entries[PRNN_LOOP_GRAPHS];
    unsigned long long clock;
} prnn_loop_graphs;

/* At planning (the context current): the capture stream, unless
 * PRNN_STEP_GRAPHS is 0. Graphs stay off, without an error, where the
 * stream cannot be made. */
void prnn_loop_graphs_init(prnn_loop_graphs *g, const prnn_cuda_driver *cu);
/* Destroys the graphs and the stream (the context current). */
void prnn_loop_graphs_release(prnn_loop_graphs *g);

/* A loop: makes its launches through sink on c's stream. ctx is the
 * caller's. It must launch the same things from the same arguments every
 * time it runs (signing, capturing, launching). */
typedef prnnStatus_t (*prnn_loop_fn)(const void *ctx, const prnn_call_plan *c,
                                     prnn_launch_sink *sink);

/* Runs fn on c's stream: replayed, captured or launched (above). */
prnnStatus_t prnn_loop_run(prnn_loop_graphs *g, const prnn_call_plan *c, prnn_loop_fn fn,
                           const void *ctx);

#endif
