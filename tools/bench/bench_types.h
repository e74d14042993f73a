/*
 * prnn-bench: what one benchmark point is, and what was measured for it.
 * Plain data shared by the sweep, the runners and the report writers.
 */
#ifndef PRNN_BENCH_TYPES_H
#define PRNN_BENCH_TYPES_H

#include <stddef.h>

#include "prnn.h"
#include "rnn_cell_traits.h"

typedef enum { BENCH_INFERENCE = 0, BENCH_TRAINING = 1 } bench_pass;

/*
 * The calls of one training step, in the order they run (each needs the
 * one before it: backward-data reads what forward-training left in the
 * reserve, backward-weights what backward-data left there). Besides the
 * whole step, each is timed on its own: see bench_run_phases().
 */
typedef enum {
    BENCH_PHASE_FWD_TRAINING = 0, /* prnnRNNForwardTraining, cudnnRNNForward
                                     (CUDNN_FWD_MODE_TRAINING) */
    BENCH_PHASE_BWD_DATA,         /* ...BackwardData(_v8) */
    BENCH_PHASE_BWD_WEIGHTS,      /* ...BackwardWeights(_v8) */
    BENCH_NUM_PHASES
} bench_phase;

/*
 * How x, y, dx and dy lie in memory at a point (--layout). PACKED is
 * time-major with every sequence T long, timed through prnn's v5 calls (v8
 * at a point with a projection) and cuDNN's SEQ_MAJOR_PACKED: the tool's
 * figures before layouts existed. The padded layouts run prnn's v8 calls and
 * cuDNN's with RNN data descriptors of that layout (SEQ_MAJOR_UNPACKED,
 * BATCH_MAJOR_UNPACKED), a length per sequence (bench_lengths) and room for
 * T steps each.
 */
typedef enum {
    BENCH_LAYOUT_PACKED = 0,
    BENCH_LAYOUT_SEQ_PADDED,
    BENCH_LAYOUT_BATCH_PADDED,
    BENCH_NUM_LAYOUTS
} bench_layout;

/* The lengths of a padded point's sequences (--lengths; bench_layout.h
 * says which). A packed point's are always FULL. */
typedef enum {
    BENCH_LENGTHS_FULL = 0, /* every sequence T long: the packed point's work */
    BENCH_LENGTHS_VARIED    /* from T down to ceil(T/2), in a fixed shuffled order */
} bench_lengths;

/* One configuration of the sweep. */
typedef struct {
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden;
    /* LSTM projection size (--proj: cuDNN's projSize, torch.nn's
     * proj_size), below hidden; 0: none. A point with one runs through the
     * v8-shaped calls on both sides whatever its layout. */
    int proj;
    int input; /* input size (the sweep sets it to hidden unless --input) */
    int batch;
    int seq; /* T */
    int layers;
    int bidirectional;
    bench_pass pass;
    bench_layout layout;
    bench_lengths lengths; /* FULL on packed points */
} bench_point;

/* The width of what a layer outputs (y per direction, hx / hy): projSize
 * as the libraries take it, the hidden size without a projection. */
static inline int bench_out_size(const bench_point *pt)
{
    return pt->proj > 0 ? pt->proj : pt->hidden;
}

/*
 * The implementations timed at every point, in the order they run. The
 * first that runs is the reference the others' outputs are compared with.
 */
typedef enum {
    BENCH_IMPL_PRNN = 0,       /* PRNN_RNN_ALGO_AUTO, plain call on a stream */
    BENCH_IMPL_PRNN_GRAPH,     /* the same call captured once, replayed */
    BENCH_IMPL_CUBLASLT_GRAPH, /* PRNN_RNN_ALGO_STANDARD captured, replayed */
    BENCH_IMPL_CUDNN_STANDARD,
    BENCH_IMPL_CUDNN_PERSIST_STATIC,
    BENCH_IMPL_CUDNN_PERSIST_DYNAMIC,
    BENCH_IMPL_CUDNN_PERSIST_SMALL_H,
    BENCH_NUM_IMPLS
} bench_impl;

#define BENCH_FIRST_CUDNN BENCH_IMPL_CUDNN_STANDARD
#define BENCH_NUM_CUDNN 4

typedef enum {
    BENCH_NOT_RUN = 0, /* not asked for (--no-cudnn, cuDNN missing, ...) */
    BENCH_OK,          /* timed */
    BENCH_REFUSED,     /* cuDNN answered NOT_SUPPORTED: shown as "—" */
    BENCH_NA,          /* prnn answered NOT_SUPPORTED: shown as "n/a" */
    BENCH_FAILED       /* any other failure: shown as "err", message in note */
} bench_state;

/* Robust summary of the repeats, all in µs per timestep. */
typedef struct {
    int n;
    double median, min, max, q1, q3, mean;
} bench_stats;

typedef struct {
    bench_state state;
    bench_stats us;       /* µs per timestep (valid when state == OK) */
    double setup_ms;      /* plan / descriptor setup, wall clock, untimed */
    double first_call_ms; /* the first (checked) call, wall clock incl. sync */
    /* Largest relative difference of this implementation's outputs from the
     * point's reference (see bench_result.reference); NaN when not compared
     * (or when an output held NaN/Inf: a red flag). */
    double max_rel_diff;
    int compared;   /* 1 when max_rel_diff was computed */
    int fallback;   /* cuDNN: ran with its second math choice */
    char note[512]; /* math fallback, error message, reason refused */
    /* Training points, plain calls (prnn, cuDNN): each phase timed alone,
     * µs per timestep; n = 0 and NaN where not timed (graph replays,
     * inference points, state not OK). */
    bench_stats phase[BENCH_NUM_PHASES];
} bench_impl_result;

/* prnn's plan, as prnnGetRNNPlanInfo described it. */
typedef struct {
    int valid;
    char path[24];   /* resident, streamed, small-h, step, standard, sru-scan, cpu */
    char engine[32]; /* the engine that runs the point's forward pass */
    char backward_engine[32];
    char config_source[16]; /* shipped-db, user-db, heuristic, autotuned */
    char cubin_source[16];  /* memory, disk, compiled */
    int num_blocks, threads_per_block, units_per_block, tensor_cores;
    double resident_fraction;
    double plan_ms, compile_ms; /* as the plan reports them */
    double prepare_wall_ms;     /* prnnPrepareRNN, wall clock */
    char config[256];
} bench_plan;

typedef struct {
    bench_point pt;
    bench_impl_result impl[BENCH_NUM_IMPLS];
    bench_plan plan;
    int best_cudnn;      /* bench_impl index, or -1 */
    double ratio;        /* prnn median / best cuDNN median; NaN when n/a */
    double max_rel_diff; /* largest over the compared implementations */
    int reference;       /* bench_impl of the reference output, or -1 */
    /* Training points: prnnRNNForwardInference of the same shape, timed
     * like an inference point: the yardstick of prnn's backward-data. Its
     * state is NOT_RUN on inference points and without prnn. */
    bench_impl_result fwd_inference;
    /* prnn's backward-data median / fwd_inference median; NaN when n/a. */
    double bwd_data_ratio;
    /* Padded points: prnn's median / that of the packed point of the same
     * shape in the run, and the same for the best cuDNN algorithms; NaN on
     * packed points and where either is missing (bench_pair_layouts). */
    double layout_ratio;
    double layout_ratio_cudnn;
} bench_result;

/* Cold-start figures of one shape (see cold_start.h). */
typedef struct {
    int ok;         /* 0: see note */
    double wall_ms; /* prnnPrepareRNN, wall clock */
    double plan_ms; /* prnnRNNPlanInfo.planMs */
    double compile_ms;
    char cubin_source[16];
} bench_cold_phase;

typedef struct {
    bench_point pt;
    /* empty cache (fresh process, empty PRNN_CACHE_DIR); then a second
     * handle in the same process (in-memory module cache); then a fresh
     * process with the cache the first one filled (disk). */
    bench_cold_phase cold, memory, disk;
    double process_to_plan_ms; /* child start (incl. cuInit, context) to the
                                  end of its first plan, empty cache */
    char note[256];
} bench_cold_result;

/* What the header, CSV and JSON say about the run. */
typedef struct {
    char date[32]; /* UTC, ISO 8601 */
    char device[320];
    char driver[64];
    char cudnn[256]; /* "9.14.0 (/path/libcudnn.so.9)" or why missing */
    char prnn_version[32];
    const char *math; /* "strict" or "tf32" */
    int warmup, repeats;
    int workspaces;        /* prnn's calls rotate through this many */
    int training;          /* the sweep has training points: the table gets
                              the phase columns, the preamble their notes */
    int padded;            /* the sweep has padded layouts: the table gets the
                              layout column, the preamble their notes */
    int proj;              /* the sweep has projected points: the table gets
                              the P column, the preamble its note */
    bench_lengths lengths; /* of the padded points */
    const char *pad_input; /* what their x and dy padding hold: "nan" or
                              "finite" (bench_layout.h) */
} bench_meta;

/* Short names: "prnn", "prnn-graph", "cublasLt-graph", "cudnn-standard",
 * "cudnn-persist-static", "cudnn-persist-dynamic", "cudnn-persist-small-h". */
const char *bench_impl_name(bench_impl i);
const char *bench_state_name(bench_state s);
const char *bench_dtype_short(prnnDataType_t t); /* f32, f64, f16, bf16 */
const char *bench_pass_name(bench_pass p);       /* inference, training */
/* CSV/JSON keys: fwd_training, bwd_data, bwd_weights. */
const char *bench_phase_key(bench_phase p);

/* " P=128" into buf, or "" without a projection (proj 0): what a point's
 * or a group's line adds. */
void bench_proj_suffix(char *buf, size_t n, int proj);

/* Copies src into dst (size n >= 1), truncating; always terminated. */
void bench_copy(char *dst, size_t n, const char *src);

/* A result with every implementation NOT_RUN and every number NaN. */
void bench_result_init(bench_result *r, const bench_point *pt);
/* Picks the best cuDNN algorithm (by its whole-call median) and computes
 * the ratios and max_rel_diff from impl[]; call once every implementation
 * has run. */
void bench_result_finish(bench_result *r);

/* The best cuDNN algorithm's result, or NULL when none ran. */
const bench_impl_result *bench_best_cudnn(const bench_result *r);

/* 1 when any implementation's outputs were compared with the reference. */
int bench_result_compared(const bench_result *r);

#endif
