/*
 * Many cubins at once: the kernels one plan needs (or every kernel
 * prnn-cache warm fills the cache with) are looked up in the disk cache or
 * compiled by NVRTC on several threads, instead of one after another as
 * their loads ask for them. NVRTC is thread-safe for separate programs.
 *
 * The result does not depend on the threads: each request's cubin is what
 * prnn_cubin_get would give (NVRTC is deterministic for a request), and the
 * loads that follow run in the order they always did, on the calling
 * thread. Failures are not reported here: a load that asks for a kernel
 * whose compile failed compiles it again on its own thread and fails with
 * the message and log it always had, in the order it always met them.
 */
#ifndef PRNN_CUBIN_BATCH_H
#define PRNN_CUBIN_BATCH_H

#include <stddef.h>

#include "jit/cubin_cache.h"
#include "jit/nvrtc_compile.h"
#include "prnn.h"

typedef struct prnn_cubin_batch prnn_cubin_batch;

/* What a batch did. */
typedef struct {
    int requests;      /* distinct requests (duplicates are fetched once) */
    int compiled;      /* compiled by NVRTC (and stored in the disk cache) */
    int cached;        /* read from the disk cache */
    int failed;        /* could not be compiled (or its key built) */
    double compile_ms; /* summed over threads: NVRTC time, not wall time */
    int threads;       /* the threads it ran on */
    /* The first failure in the requests' order: its status and log. */
    prnnStatus_t first_status;
    char first_failure[2048];
} prnn_cubin_batch_counts;

/*
 * Gets the cubin of each of the n requests (the disk cache in dir, NULL for
 * the default one, else NVRTC, which stores it there) on up to prnn_compile_threads(n) threads, and
 * returns when all are done. The requests (and the strings they point to)
 * need to live only until it returns.
 *
 * With keep, the cubins stay in memory for the calling thread: its
 * prnn_cubin_get_keyed takes each (once) instead of reading the disk or
 * compiling, with the source and compile time the batch had, and appends the
 * notes the batch's thread logged for it (NVRTC warnings, cache notes),
 * until prnn_cubin_batch_end. Without keep, only the disk cache keeps them,
 * and the return is NULL. A batch that cannot be allocated is NULL too: the
 * loads then get their cubins as they always did.
 */
prnn_cubin_batch *prnn_cubin_batch_get(const char *dir, const prnn_compile_request *reqs, int n,
                                       int keep, prnn_cubin_batch_counts *counts);

/* Frees what no load took. NULL is accepted. */
void prnn_cubin_batch_end(prnn_cubin_batch *b);

/* The calling thread's batch's cubin for key, handed over (*cubin freed by
 * the caller): 1, or 0 when no batch of this thread holds it. */
int prnn_cubin_batch_take(const prnn_cubin_key *key, void **cubin, size_t *size,
                          prnnCubinSource_t *source, double *compile_ms);

/*
 * The cubin for req: from the calling thread's batch when one holds it,
 * else from the disk cache (*source = PRNN_CUBIN_DISK_CACHE, *compile_ms =
 * 0) or compiled by NVRTC and stored (PRNN_CUBIN_COMPILED).
 * Cache problems are notes in the log, never errors; compile errors are
 * those of prnn_nvrtc_compile. *cubin is freed by the caller with free().
 * source and compile_ms may be NULL.
 */
prnnStatus_t prnn_cubin_get(const prnn_compile_request *req, void **cubin, size_t *size,
                            prnnCubinSource_t *source, double *compile_ms);

/* As prnn_cubin_get with the key already built (it must be req's). */
prnnStatus_t prnn_cubin_get_keyed(const prnn_compile_request *req, const prnn_cubin_key *key,
                                  void **cubin, size_t *size, prnnCubinSource_t *source,
                                  double *compile_ms);

/* The threads a batch of jobs compiles on: $PRNN_COMPILE_THREADS when set
 * (1: one after another), else the CPUs this process may run on; never more
 * than jobs or PRNN_COMPILE_THREADS_MAX, never fewer than 1. */
#define PRNN_COMPILE_THREADS_MAX 64
int prnn_compile_threads(int jobs);

#endif
