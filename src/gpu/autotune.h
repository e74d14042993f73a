/*
 * The autotuner: for one shape, candidate tiles (the heuristic's best and
 * their neighbours) are compiled in parallel, each is checked against the CPU
 * reference on a short sequence -- a wrong candidate is rejected, never
 * recorded -- and the survivors are timed on the device. The fastest is
 * stored in a tuning database. Used by prnn-autotune and by handles with
 * PRNN_AUTOTUNE_ON.
 */
#ifndef PRNN_AUTOTUNE_H
#define PRNN_AUTOTUNE_H

#include "gpu/gpu_backend.h"
#include "rnn_pass.h"
#include "tuning/tile_config.h"

typedef struct {
    int max_candidates; /* tiles to try (default 12, at most 32) */
    int seq_length;     /* steps of the timed sequence (default 256) */
    int repeats;        /* timed runs, median taken (default 5) */
    double budget_s;    /* stop trying candidates after this (default 60) */
    int compile_threads;/* parallel NVRTC compiles (default: online CPUs) */
    /* Where the winner goes: NULL = the user tuning DB, "" = nowhere. */
    const char *output_db;
    /* Candidates needing more hand-off and streamed-weight bytes per
     * direction than this are not tried (0: no limit): a plan's workspace
     * size has been reported before a backward tile is tuned. */
    size_t max_scratch_bytes;
    /* Called after each candidate (may be NULL). */
    void (*progress)(void *ctx, int done, int total, const char *line);
    void *progress_ctx;
} prnn_autotune_options;

enum { PRNN_AUTOTUNE_MAX_CANDIDATES = 32 };

/* What a search learnt of one candidate, whatever it configures. */
typedef struct {
    double us_per_step; /* 0 when not timed */
    double rel_error;   /* against the CPU reference */
    int ok;             /* 1: correct and timed */
    char note[160];     /* why rejected or failed */
} prnn_autotune_outcome;

typedef struct {
    prnn_tile_config config;
    prnn_autotune_outcome out;
} prnn_autotune_candidate;

typedef struct {
    int count;
    prnn_autotune_candidate cand[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int best;            /* index into cand, -1 when none survived */
    double heuristic_us; /* the heuristic's own choice (cand[0]) */
    double seconds;      /* wall time of the whole search */
} prnn_autotune_report;

void prnn_autotune_defaults(prnn_autotune_options *o);

/*
 * Tunes pass's kernel for (rnn's mode, data type, hidden size, directions,
 * math) at batch mini_batch on h's device. Forward candidates are timed on
 * inference calls; backward-data candidates on BackwardData calls after one
 * ForwardTraining (standard path), each checked first by its dx against the
 * CPU reference. opts and report may be NULL. On success *best holds the
 * winner, which has been stored as opts->output_db says. NOT_SUPPORTED when
 * no candidate fits or survives.
 */
prnnStatus_t prnn_autotune_shape(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                                 int mini_batch, prnn_pass pass,
                                 const prnn_autotune_options *opts, prnn_tile_config *best,
                                 prnn_autotune_report *report);

/* The SRU scan's search (one configuration compiles both scans); its
 * outcomes' times are of ForwardTraining + BackwardData, per step, and
 * their errors the worse of y and dx. */
typedef struct {
    prnn_sru_config config;
    prnn_autotune_outcome out;
} prnn_autotune_sru_candidate;

typedef struct {
    int count;
    prnn_autotune_sru_candidate cand[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int best;            /* index into cand, -1 when none survived */
    double heuristic_us; /* the heuristic's own choice (cand[0]) */
    double seconds;
} prnn_autotune_sru_report;

/*
 * Tunes SRU's scan for (data type, hidden size, directions, layers) at batch
 * mini_batch: candidates (the heuristic's first, then block sizes 128 and
 * 256 with units per thread 1, 2, 4, 8 and steps in flight 2, 4, 8) are
 * each checked on a short sequence (y of ForwardTraining and dx of
 * BackwardData against the CPU reference) and timed on a training step's
 * two scan-bearing calls (ForwardTraining + BackwardData; the GEMMs around
 * the scans are the same for every candidate); the heuristic and the winner
 * are timed again in alternation, and the winner kept only if faster. The
 * winner is stored with pass forward as opts->output_db says.
 */
prnnStatus_t prnn_autotune_sru(const prnn_gpu_call *h, const struct prnnRNNStruct *rnn,
                               int mini_batch, const prnn_autotune_options *opts,
                               prnn_sru_config *best, prnn_autotune_sru_report *report);

#endif
