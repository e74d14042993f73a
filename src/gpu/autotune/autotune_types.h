/*
 * What the autotuner is asked and what it reports (autotune.h runs it),
 * apart from its entry points so that its tools (autotune_common.h) use
 * them without including the search they serve.
 */
#ifndef PRNN_AUTOTUNE_TYPES_H
#define PRNN_AUTOTUNE_TYPES_H

#include <stddef.h>

#include "gpu/engines/engine.h"
#include "tuning/tuning_db.h"

typedef struct {
    int max_candidates; /* configurations to try (default 12, at most 32) */
    int seq_length;     /* steps of the timed sequence (default 256) */
    int repeats;        /* timed runs, median taken (default 5) */
    double budget_s;    /* stop trying candidates after this (default 60) */
    /* The sequence-length bucket tuned (tuning_db.h), of the forward or
     * the backward-data pass (not of an engine whose one configuration
     * serves both passes and every length: SRU's scan):
     * PRNN_SEQ_BUCKET_ANY (default) times seq_length steps; ONE times
     * calls of one step; SHORT times calls of PRNN_TUNING_SHORT_SEQ steps
     * and then measures up to which length (at most
     * PRNN_TUNING_MAX_SHORT_SEQ) the winner beats the pass's own choice
     * (pass_engine below), which is always a candidate. A bucket's calls
     * are timed back to back, several a timed run, as a streaming caller
     * makes them (BackwardData calls: on the reserve of one
     * ForwardTraining call, which is not timed). */
    prnn_seq_bucket seq_bucket;
    /* Buckets ONE and SHORT: the engine and the configuration (text form)
     * the planner gives the tuned pass for every length
     * (prnnGetRNNPlanInfo's engine and config, or backwardEngine and
     * backwardConfig), a candidate and what SHORT's limit is measured
     * against; NULL: not known (the limit is then PRNN_TUNING_SHORT_SEQ). */
    const char *pass_engine;
    const char *pass_config;
    /* Where the winner goes: NULL = the user tuning DB, "" = nowhere. */
    const char *output_db;
    /* Candidates needing more hand-off and streamed-weight bytes per
     * direction than this are not tried (0: no limit): a plan's workspace
     * size has been reported before a backward configuration is tuned. */
    size_t max_scratch_bytes;
    /* Called after each candidate (may be NULL). */
    void (*progress)(void *ctx, int done, int total, const char *line);
    void *progress_ctx;
} prnn_autotune_options;

enum { PRNN_AUTOTUNE_MAX_CANDIDATES = 32 };

/* What a search learnt of one candidate. */
typedef struct {
    double us_per_step; /* 0 when not timed */
    double rel_error;   /* against the CPU reference */
    int ok;             /* 1: correct and timed */
    char note[160];     /* why rejected or failed */
} prnn_autotune_outcome;

typedef struct {
    const prnn_engine *engine;
    prnn_engine_config config;
    prnn_autotune_outcome out;
} prnn_autotune_candidate;

typedef struct {
    int count;
    prnn_autotune_candidate cand[PRNN_AUTOTUNE_MAX_CANDIDATES];
    int best;            /* index into cand, -1 when none survived */
    double heuristic_us; /* the library's own choice without a DB (cand[0]) */
    int max_seq_length;  /* bucket SHORT: the measured limit stored */
    double seconds;      /* wall time of the whole search */
} prnn_autotune_report;

typedef struct {
    const prnn_engine *engine;
    prnn_engine_config config;
    double us_per_step;
} prnn_autotune_result;

#endif
