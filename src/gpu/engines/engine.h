/*
 * A GPU engine: one way of running the recurrence of a pass (forward, or
 * backward-data), with its kernels, its configuration and what it needs of
 * the workspace. The planner (src/gpu/plan) and the autotuner
 * (src/gpu/autotune) see engines only through this table; each engine lives
 * in its own folder beside this file and calls down into the run
 * infrastructure (src/gpu/run) alone.
 *
 * How a pass gets its engine (plan_select.c): the engines that support the
 * shape are tried in the order of the table (PRNN_ENGINE first); for each,
 * its configurations in order of preference -- forced by its variable, the
 * tuning database's entry for that engine, the autotuner's winner, then its
 * own heuristic candidates -- go to prepare(), which loads the first that
 * runs. An engine that cannot run the shape answers NOT_SUPPORTED and the
 * next one is tried.
 *
 * Adding an engine: a folder with its code, its row in engine_table.c, its
 * sources in src/meson.build, its configuration's field table in
 * src/tuning/tile_config.c (if it has one) and its path in prnn.h.
 */
#ifndef PRNN_ENGINE_H
#define PRNN_ENGINE_H

#include <stddef.h>

#include "gpu/gpu_call.h"
#include "gpu/run/load_stats.h"
#include "prnn.h"
#include "rnn_key.h"
#include "rnn_pass.h"
#include "rnn_problem.h"
#include "tuning/tile_config.h"

struct prnn_gpu_state;
struct prnnRNNStruct;
struct prnn_call_plan;
struct prnn_kernel_request;
struct prnn_ws_builder;

/* What an engine is asked about: a pass of one RNN key on the call's GPU. */
typedef struct {
    const prnn_gpu_call *g;
    struct prnn_gpu_state *gs;       /* g->gs */
    const struct prnnRNNStruct *rnn; /* the descriptor the key was made from */
    prnn_rnn_key key;
    prnn_pass pass;
} prnn_engine_query;

/* One configuration of an engine in a pass's order of preference. */
typedef struct {
    prnn_engine_config config;
    prnnConfigSource_t source;
    const char *forced_by; /* the variable that forced it, or NULL */
    char tuned_on[128];    /* a tuning DB entry of another GPU of the same
                            * architecture and SM count: that GPU; else "" */
} prnn_engine_choice;

typedef struct prnn_engine prnn_engine;

/* The most kernels an engine's requests() gives for one configuration. */
#define PRNN_ENGINE_MAX_REQUESTS 4

/* A pass's engine inside a plan, with what the engine keeps (its kernels). */
typedef struct {
    const prnn_engine *engine;
    prnnConfigSource_t source;
    const char *forced_by;
    char config[256];          /* the configuration that runs, in its text form */
    prnn_engine_config chosen; /* the choice it was prepared from (its text
                                * above may be the kernel's normalised form) */
    char tuned_on[128];        /* its tuning DB entry's GPU when another of the same
                                * architecture and SM count (prnn_engine_choice) */
    int loaded;                /* its kernels are loaded (backward-data: on the
                                * first training need) */
    int settled;               /* its configuration was forced or is an exact tuning
                                * DB entry: autotuning must not replace it */
    void *state;               /* the engine's own; engine->release frees it */
    prnn_load_stats stats;     /* what loading its kernels cost so far */
} prnn_pass_plan;

/* What plan info reports of a pass plan. */
typedef struct {
    prnnRNNPath_t path;
    int num_blocks; /* per direction */
    int threads_per_block;
    int units_per_block;
    int tensor_cores;
    double resident_fraction;
} prnn_engine_info;

/* The recurrence of one layer (every direction) inside the layered runner
 * (src/gpu/run/layered_run.h): the call, the layer and its data. */
typedef struct {
    const struct prnn_call_plan *c;
    int layer;
    int skip;          /* layer 0 of a SKIP_INPUT network (forward) */
    unsigned tag_base; /* hand-off tags of the layer's first step */
    /* forward: the call's buffers, the layer's input (what SKIP adds) and
     * output */
    const prnn_forward_buffers *fwd;
    const void *input;
    void *output;
    /* backward-data: the call's buffers, the gradient of the layer's output
     * (dout_storage: in the storage type, else the math type) and the
     * layer's output */
    const prnn_backward_data_buffers *bwd;
    const void *dout;
    int dout_storage;
    const void *hout;
} prnn_layer_run;

struct prnn_engine {
    const char *name; /* as PRNN_ENGINE, the tuning DB and plan info write it */
    /* Its configuration's fields (NULL: it has none) */
    const prnn_tile_field *fields;
    /* Variables forcing a configuration, per pass (NULL: none) */
    const char *force_var[PRNN_PASS_COUNT];
    /* One configuration serves both passes (stored under pass forward) */
    int one_config;
    /* Its recurrence runs in TF32 for FP32 data under
     * PRNN_TF32_RECURRENCE_MATH (the standard engine's per-step GEMMs), so
     * its time depends on the math type, which tuning DB keys do not hold */
    int tf32_recurrence;
    /* Its kernels read and write a v8 call's unpacked buffers where the
     * caller has them (prnn_call_plan.x_rows, y_rows, order: layer
     * 0's x or input projection, the top layer's y and dy, every state),
     * so such a call runs without moving them into packed order
     * (gpu/run/seq_io.h). Kernels that run every step in one launch are
     * compiled for it only in such calls' plans (prnn_rnn_key.caller_rows:
     * PRNN_CALLER_ROWS), which the engine's requests pass on. */
    int unpacked_in_place;

    /* Whether it can run q at all (mode, algorithm, device): 0, or -1 with
     * why. No compilation, no device work. */
    int (*supports)(const prnn_engine_query *q, char *why, size_t n);
    /* Whether configuration c can run q here: 0, or -1 with why. */
    int (*fits)(const prnn_engine_query *q, const prnn_engine_config *c, char *why, size_t n);
    /* Up to max configurations for q, its own model's best first: the
     * heuristic's few (search = 0) or the autotuner's wider set (search = 1;
     * max_scratch: the largest hand-off and streamed-weight bytes per
     * direction a candidate may need, 0 for no limit). Returns how many. */
    int (*candidates)(const prnn_engine_query *q, int search, size_t max_scratch,
                      prnn_engine_config *out, int max);
    /* Its own model's time of one step of q (µs, a long sequence, the
     * configuration it would choose), for ordering engines where no tuning
     * database entry chooses; HUGE_VAL when it has nothing that runs. */
    double (*estimate)(const prnn_engine_query *q);
    /* What one call costs it beyond its steps (µs: set-up kernels, GEMM
     * library calls, loading weights on-chip), so that the planner can give
     * short sequences to the engine that is cheapest for them. */
    double (*call_setup)(const prnn_engine_query *q);
    /* The configuration's text form. */
    void (*format)(const prnn_engine_config *c, char *buf, size_t size);
    /*
     * Takes q's choices in order of preference into pp: the forward pass
     * loads the first that runs; the backward-data pass keeps them (its
     * workspace is sized from them) for load(). NOT_SUPPORTED (with why in
     * the log) when none can run here. The caller holds the context.
     */
    prnnStatus_t (*prepare)(const prnn_engine_query *q, const prnn_engine_choice *choices,
                            int count, prnn_pass_plan *pp);
    /* What training needs beyond an inference plan: the forward pass's
     * variant that keeps what the backward pass reads; the backward-data
     * pass's kernels (the first kept choice that loads). NOT_SUPPORTED
     * when none loads. The caller holds the context. */
    prnnStatus_t (*load_training)(const prnn_engine_query *q, prnn_pass_plan *pp);
    /* The bytes of its own scratch per direction that pp's workspace holds
     * (the autotuner's max_scratch for a later search; NULL: no limit). */
    size_t (*scratch)(const prnn_pass_plan *pp);
    /* The kernels prepare() loads with configuration c (training: and
     * load_training() after it) into out, at most PRNN_ENGINE_MAX_REQUESTS:
     * how many, or -1 when c does not run q here. What the planner and the
     * autotuner compile ahead on several threads, and prnn-cache warm into
     * the disk cache; a kernel missing here is still loaded, compiled on
     * its own. */
    int (*requests)(const prnn_engine_query *q, const prnn_engine_config *c, int training,
                    struct prnn_kernel_request *out);

    /* Its parts of a call's workspace (the runner adds its own). */
    void (*workspace)(const prnn_pass_plan *pp, const prnn_rnn_problem *p, int call,
                      struct prnn_ws_builder *b);
    /* The recurrence of one layer in the layered runner (forward and
     * backward-data), or NULL for an engine that runs whole calls. */
    prnnStatus_t (*forward_layer)(const prnn_layer_run *lr);
    prnnStatus_t (*backward_layer)(const prnn_layer_run *lr);
    /* A whole call of any kind (SRU's scan): NULL for the layered runner. */
    prnnStatus_t (*run)(struct prnn_call_plan *c, const void *buffers);

    void (*describe)(const prnn_pass_plan *pp, const prnn_rnn_key *key, prnn_engine_info *info);
    void (*release)(prnn_pass_plan *pp);
};

/* The table, in the order the planner tries engines; count via
 * prnn_engine_count. */
const prnn_engine *prnn_engine_at(int i);
int prnn_engine_count(void);
/* By name; NULL when there is none. */
const prnn_engine *prnn_engine_find(const char *name);
/* The names of every engine, ", "-separated, into buf (for messages). */
void prnn_engine_names(char *buf, size_t size);
/* order[0..n) by the engines' own models' time of a step of q, fastest
 * first (a stable order: the given one among equals): the planner's order
 * without a forced or tuned choice, and so the autotuner's. */
void prnn_engine_sort_by_estimate(const prnn_engine_query *q, const prnn_engine **order, int n);
/* The same by the modelled cost of a call of seq_length steps (set-up and
 * steps; 0: by the step's estimate alone, as above). */
void prnn_engine_sort_by_call_cost(const prnn_engine_query *q, const prnn_engine **order, int n,
                                   int seq_length);

/* Parts engines share (engine_common.c). For an engine without a
 * configuration: fits accepts any, candidates gives the one empty
 * configuration. release for a pass plan whose state is one heap block. */
int prnn_engine_fits_any(const prnn_engine_query *q, const prnn_engine_config *c, char *why,
                         size_t n);
int prnn_engine_no_config(const prnn_engine_query *q, int search, size_t max_scratch,
                          prnn_engine_config *out, int max);
void prnn_engine_free_state(prnn_pass_plan *pp);
/* supports() for an engine without LSTM projections: -1 with the reason in
 * why when q's key has one (the standard engine alone runs them), else 0. */
int prnn_engine_refuse_projection(const prnn_engine_query *q, char *why, size_t n);
/* A cuBLASLt GEMM's time (µs on an H100) of m x n x k, reading its n x k
 * operand from L2 or HBM: tensor cores for 16-bit data (and FP32 under tf32,
 * at half their rate), strict FP32 or FP64 otherwise, whose rate falls with
 * m (on the H200, 1024-wide layers ran 19-22 TFLOPS at m = 256 and 12-15 at
 * m = 64, bench/NOTES.md v0.10: 20 TFLOPS x (m / 256)^0.35). */
double prnn_engine_gemm_us(const prnn_rnn_key *key, double m, double n, double k, int tf32);
/* The layered runner's input projection of one step's rows (B x G.H.dirs
 * x H: the key holds no input size, so the hidden size stands for it), the
 * part of a short call every engine but the fused step engine pays before
 * its recurrence. */
double prnn_engine_input_gemm_us(const prnn_rnn_key *key);
/* The bytes of one direction's recurrent weights R (G.H x H), what an
 * engine that holds R on-chip loads before its first step. */
double prnn_engine_r_bytes(const prnn_rnn_key *key);
/* The forward cell's chain of transcendental functions in one step (µs on
 * an H100), where the cell has several gates: 0.15 with FP32's (and FP64's)
 * accurate functions, 0.09 with the hardware's for 16-bit data (fitted to
 * the tiny-h kernels, bench/NOTES.md, tiny-h; the persistent kernels run
 * the same cell); 0 for one gate, whose single tanh the estimates' fixed
 * parts hold. The backward cell reads the forward's activations instead. */
double prnn_engine_cell_chain_us(const prnn_rnn_key *key);
/* prepare()'s start for an engine without a configuration: its one choice
 * (NOT_SUPPORTED when there is none) noted in pp with its text form, and a
 * zeroed state of state_bytes in pp->state (ALLOC_FAILED without one). */
prnnStatus_t prnn_engine_take_choice(prnn_pass_plan *pp, const prnn_engine_choice *choices,
                                     int count, size_t state_bytes);
/* Where a pass plan's configuration came from (plan info): c's source, the
 * variable that forced it, the GPU it was tuned on. */
void prnn_engine_note_choice(prnn_pass_plan *pp, const prnn_engine_choice *c);
/* Adds to r the define of every field of the table `fields` that names one
 * (prnn_tile_field.define), with its value in c, in the table's order: a
 * field reaches its kernel under the one name its table gives it. */
void prnn_request_config_defines(struct prnn_kernel_request *r, const prnn_tile_field *fields,
                                 const void *c);

#endif
