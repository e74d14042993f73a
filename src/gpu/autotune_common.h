/*
 * What the autotuner's searches share (autotune.c for the persistent
 * kernels' tiles, autotune_sru.c for SRU's scan): compiling candidates into
 * the disk cache in parallel, seeded test data, device buffers, the short
 * and long problems a candidate is checked and timed on, and storing the
 * winner in a tuning database.
 */
#ifndef PRNN_AUTOTUNE_COMMON_H
#define PRNN_AUTOTUNE_COMMON_H

#include "cuda/cuda_driver.h"
#include "gpu/autotune.h"
#include "gpu/kernel_request.h"
#include "rnn_problem.h"
#include "tuning/tuning_db.h"

/* Compiles the requests into the disk cache on `threads` threads (a
 * failure shows again when the candidate is loaded). */
void prnn_autotune_precompile(prnn_kernel_request *reqs, int count, int threads);

/* n values uniform in [-scale, scale) of type t, from a xorshift state. */
void prnn_autotune_fill(void *buf, prnnDataType_t t, size_t n, double scale,
                        unsigned long long *state);

/* The device buffers of a search; zero-initialise, free with
 * prnn_autotune_free_buffers. */
typedef struct {
    CUdeviceptr x, hx, cx, w, y, dy, dx, ws, reserve;
    size_t ws_bytes, reserve_bytes;
} prnn_autotune_buffers;

void prnn_autotune_free_buffers(const prnn_cuda_driver *cu, prnn_autotune_buffers *d);
prnnStatus_t prnn_autotune_alloc(const prnn_cuda_driver *cu, CUdeviceptr *p, size_t bytes);
/* Grows a device buffer to at least bytes. */
prnnStatus_t prnn_autotune_ensure(const prnn_cuda_driver *cu, CUdeviceptr *p, size_t *have,
                                  size_t bytes);

/* Problem with `steps` steps of mini_batch rows, input size = hidden
 * (batch: steps ints, filled here). */
void prnn_autotune_problem(const struct prnnRNNStruct *rnn, int steps, int mini_batch,
                           int *batch, prnn_rnn_problem *p);

double prnn_autotune_now_s(void);
int prnn_autotune_cmp_double(const void *a, const void *b);

/* Stores e (its key, config and us_per_step filled) where output_db says
 * (NULL: the user DB; "": nowhere), its source naming this tool's version,
 * the date, T and the heuristic's own time. */
prnnStatus_t prnn_autotune_store(const char *output_db, prnn_tuning_entry *e, int seq_length,
                                 double heuristic_us);

#endif
