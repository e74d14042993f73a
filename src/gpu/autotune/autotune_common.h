/*
 * The autotuner's tools (autotune.c runs the search): compiling candidates
 * into the disk cache in parallel, seeded test data, device buffers, the
 * short and long problems a candidate is checked and timed on, timing and
 * alternation, and storing the winner in a tuning database.
 */
#ifndef PRNN_AUTOTUNE_COMMON_H
#define PRNN_AUTOTUNE_COMMON_H

#include "cuda/cuda_driver.h"
#include "gpu/autotune/autotune_types.h"
#include "gpu/gpu_call.h"
#include "gpu/run/kernel_request.h"
#include "rnn_problem.h"
#include "tuning/tuning_db.h"

/* Compiles the kernels of count candidates for q into the disk cache on
 * several threads (jit/cubin_batch.h: a failure shows again when the
 * candidate is loaded). ALLOC_FAILED is its only failure. */
prnnStatus_t prnn_autotune_precompile(const prnn_engine_query *q,
                                      const prnn_autotune_candidate *chosen, int count);

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

/* A search's two problems (input size = hidden, every step mini_batch rows):
 * `check`, CHECK_STEPS steps, on which every candidate is compared with the
 * CPU reference, and `timed`, seq_length steps; and the seeded inputs of the
 * timed one on the host (the check problem reads their first rows). */
enum { PRNN_AUTOTUNE_CHECK_STEPS = 3 };
typedef struct {
    prnn_rnn_problem check, timed;
    int check_batch[PRNN_AUTOTUNE_CHECK_STEPS];
    int *timed_batch;
    void *w, *x, *hx, *cx, *dy;
    size_t wbytes;                 /* bytes of w */
    size_t xcount, ycount, scount; /* elements of x (and dx), y and dy (the longer
                                    * problem's), hx and cx */
} prnn_autotune_inputs;

/* Fills in (zeroed first; it must stay where it is: the problems point into
 * it). Free with prnn_autotune_inputs_free, also after a failure. */
prnnStatus_t prnn_autotune_inputs_make(const struct prnnRNNStruct *rnn, int mini_batch,
                                       int seq_length, prnn_autotune_inputs *in);
void prnn_autotune_inputs_free(prnn_autotune_inputs *in);
/* d's x, hx, cx, w, y, dy and dx for the timed problem, the inputs copied
 * in; returns once the copies are done. */
prnnStatus_t prnn_autotune_inputs_upload(const prnn_cuda_driver *cu, const prnn_autotune_inputs *in,
                                         prnnDataType_t t, prnn_autotune_buffers *d);

double prnn_autotune_now_s(void);
int prnn_autotune_cmp_double(const void *a, const void *b);

/* One candidate's pass (or pair of calls) on the handle's stream. */
typedef prnnStatus_t (*prnn_autotune_run_fn)(const void *ctx);

/* Times `repeats` runs of run(ctx) (at most 64) after `warmups`, each
 * between two events on h's stream; *us_per_step is their median divided by
 * seq_length. */
prnnStatus_t prnn_autotune_time(const prnn_gpu_call *h, prnn_autotune_run_fn run, const void *ctx,
                                int seq_length, int repeats, int warmups, double *us_per_step);

/* Times candidate k (0 or 1) once: builds its plan and times it. */
typedef prnnStatus_t (*prnn_autotune_time_fn)(void *ctx, int k, double *us_per_step);

/* The heuristic's choice (k = 0) and the winner (k = 1) timed again in
 * alternation, three rounds, so that clock and thermal drift over the
 * search cannot favour either; us[k] is each one's median. */
prnnStatus_t prnn_autotune_alternate(prnn_autotune_time_fn time, void *ctx, double us[2]);

/*
 * The end of candidate i (of m) in a search. cs: how its plan, check and
 * timing went; rejected: its results were wrong (o->note says how). Marks o
 * ok or notes the failure, sets *now_best when it is faster than best (NULL:
 * none yet), takes the heuristic's time from candidate 0, and reports the
 * progress line (config_text names the candidate). Returns the status the
 * search goes on with: a fault on the device leaves the context unusable and
 * stops it; a rejected or failing candidate does not.
 */
prnnStatus_t prnn_autotune_finish(const prnn_autotune_options *opts, int i, int m, prnnStatus_t cs,
                                  int rejected, const char *config_text, prnn_autotune_outcome *o,
                                  const prnn_autotune_outcome *best, int *now_best,
                                  double *heuristic_us);

/* After prnn_autotune_alternate: the two times become the heuristic's and
 * the winner's; 1 when the winner is still the faster, else 0 (the
 * heuristic's choice is kept: an autotuned entry is never slower than what
 * the library would choose without it). */
int prnn_autotune_settle(const double us[2], prnn_autotune_outcome *heuristic,
                         prnn_autotune_outcome *winner);

/* Stores e (its key, config and us_per_step filled) where output_db says
 * (NULL: the user DB; "": nowhere), its source naming this tool's version,
 * the date, T and the heuristic's own time. */
prnnStatus_t prnn_autotune_store(const char *output_db, prnn_tuning_entry *e, int seq_length,
                                 double heuristic_us);

#endif
