/*
 * Timing on the GPU: a pair of CUDA events around each call.
 *
 * What one sample covers: the stream is idle, the start event is recorded,
 * the implementation's call (one forward over the whole sequence, or one
 * training step) is enqueued, the stop event is recorded, and the host waits
 * for it before the next sample. So a sample is the GPU time from the start
 * event to the end of the call's last kernel, including any time the GPU
 * waits for the host to enqueue the call's work (a library's host overhead
 * counts when it delays the device), and nothing of the previous call.
 */
#ifndef PRNN_BENCH_TIMING_H
#define PRNN_BENCH_TIMING_H

#include "bench_device.h"

typedef struct {
    CUevent *start, *stop;
    int n;
} bench_timer;

/* Events for up to repeats samples. */
int bench_timer_create(const bench_device *d, bench_timer *t, int repeats, char *err, size_t n);
void bench_timer_destroy(const bench_device *d, bench_timer *t);

/* Enqueues one call on the benchmark stream: 0, or -1 with a message. */
typedef int (*bench_call_fn)(void *user, char *err, size_t n);

/* One call on an idle stream, wall clock until it finished, in *ms. */
int bench_time_first_call(const bench_device *d, bench_call_fn fn, void *user, double *ms,
                          char *err, size_t n);

/* warmup untimed calls, then repeats timed ones (repeats <= t->n);
 * samples_ms[i] gets sample i in milliseconds. */
int bench_time_calls(const bench_device *d, bench_timer *t, int warmup, int repeats,
                     bench_call_fn fn, void *user, double *samples_ms, char *err, size_t n);

/*
 * Calls that depend on each other, each timed alone: per repeat, fns[0],
 * fns[1], ... fns[nfn - 1] in that order, each one a sample as above (the
 * host waits for a call's stop event before it enqueues the next, so each
 * starts on an idle stream). samples_ms[k * repeats + i] gets call k of
 * repeat i. No warm-up: meant to follow bench_time_calls on the same work.
 */
int bench_time_sequence(const bench_device *d, bench_timer *t, int repeats,
                        const bench_call_fn *fns, int nfn, void *user, double *samples_ms,
                        char *err, size_t n);

#endif
