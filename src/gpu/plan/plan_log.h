/*
 * PRNN_LOG_PLANS: with it set (to anything but "" or "0"), the library
 * prints one line on stderr per planning decision, for people asking "why is
 * this shape slow here" without a debugger:
 *
 *   prnn: plan lstm float hidden=256 batch=8 layers=2 dirs=2 on NVIDIA H100 80GB HBM3 sm_90 132SM
 *     | forward: persistent-resident [blocks=8 threads=256 ...] from shipped-db
 *     | backward-data: persistent-resident [blocks=8 ...] from heuristic
 *     | cubin: compiled | 120.3 ms (compile 98.1 ms)
 *
 * (one line; wrapped here). Sources: shipped-db, user-db, heuristic,
 * autotuned, or "PRNN_TILE (forced)"; a database entry of another GPU of
 * the same architecture and SM count adds "(tuned on <GPU>)". Two events: "plan" when a plan is
 * made (the forward tile that loaded, and the backward-data tile chosen with it, which sizes the
 * workspace) and "training kernels" when the training kernels are loaded (the backward-data tile
 * that loaded). The cubin source is the worst of the event's modules (compiled > disk > memory);
 * the times are the event's own. When kernels were compiled ahead in parallel, or the loads
 * compiled any, "| ahead: N on T threads, M by the loads" follows (M is NVRTC's compiles in the
 * process meanwhile: 0 when the prediction was complete). A failed event prints its status
 * instead of the passes.
 */
#ifndef PRNN_PLAN_LOG_H
#define PRNN_PLAN_LOG_H

#include <stddef.h>

#include "prnn.h"

/* The passes one event can print. */
#define PRNN_PLAN_LOG_MAX_PASSES 8

/* One pass's decision. config: the tile's text form, or "standard". */
typedef struct {
    const char *pass; /* "forward", "backward-data", "forward T=1", "forward T<=n",
                       * "backward-data T=1", "backward-data T<=n" */
    prnnRNNPath_t path;
    const char *config;
    prnnConfigSource_t source;
    const char *forced_by; /* the variable that forced the tile, or NULL */
    const char *tuned_on;  /* the GPU of a sibling's tuning DB entry, or NULL */
} prnn_plan_log_pass;

typedef struct {
    const char *event; /* "plan", "training kernels" */
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden, batch, layers, dirs;
    int caller_rows; /* a plan of unpacked data's calls (prnn_rnn_key.caller_rows) */
    const char *device;
    prnnStatus_t status; /* not SUCCESS: the event failed (passes unused) */
    int npasses;
    /* forward, backward-data, and each one's short slots (plan_select.c
     * checks the count against PRNN_SHORT_SLOTS) */
    prnn_plan_log_pass passes[PRNN_PLAN_LOG_MAX_PASSES];
    prnnCubinSource_t cubin;
    double ms, compile_ms;
    /* Compiled ahead on several threads for this event (kernels, threads),
     * and NVRTC compiles its loads still made (kernels the prediction
     * missed, or a failure compiled again): "| ahead: 5 on 5 threads, 0 by
     * the loads", printed when either is nonzero. */
    int ahead_kernels, ahead_threads;
    unsigned long later_compiles;
} prnn_plan_log_event;

/* Whether PRNN_LOG_PLANS asks for the log: read once per process. */
int prnn_plan_log_enabled(void);

/* The event's line, without the newline, into buf (always terminated). */
void prnn_plan_log_format(const prnn_plan_log_event *e, char *buf, size_t size);

/* Formats e and writes it to stderr with one write, so that lines from
 * concurrent threads do not interleave. */
void prnn_plan_log_print(const prnn_plan_log_event *e);

#endif
