/*
 * The harness the GPU suites share (test_forward_gpu, test_training_gpu),
 * checkasm-style: seeded random data that is never zero, device buffers with
 * guard bands, NaN poisoning, relative errors that count NaNs as unwritten,
 * tolerances per data type, the case description, a worker pool that
 * serialises device work behind one lock, forced tiles run alone on fresh
 * handles, and the pieces of the final summary.
 *
 * Every device operation of the harness goes through a table (gc.dev):
 * the CUDA driver when a GPU runs the suite, or host memory with a second
 * CPU-reference handle as the device under test under --self-test. The
 * self-test runs on any machine and checks the harness's own plumbing
 * (buffer sizes, argument order, poisoning, guard bands, comparisons): the
 * device under test is then the reference itself, so every comparison must
 * be exact. Graph capture and forced tiles need a GPU and are skipped.
 *
 * Options every suite takes: [--quick|--full] [--seed N] [--threads N]
 * [--filter S] [--verbose] [--repeat N] [--self-test] [--list]. --filter
 * keeps the cases whose description contains S, or one of S's '|'-separated
 * parts; --list prints the descriptions of the cases and runs none.
 */
#ifndef PRNN_TESTS_GPU_CHECK_H
#define PRNN_TESTS_GPU_CHECK_H

#include <pthread.h>
#include <stddef.h>

#include "descriptors.h"
#include "prnn.h"

/* ---- the device operations ---- */

/* A device address (CUdeviceptr), or a host address in the self-test. */
typedef unsigned long long gc_ptr;
/* A CUstream (NULL in the self-test). */
typedef struct CUstream_st *gc_stream;

/* How a capture treats other threads (cuStreamBeginCapture's mode): GLOBAL
 * also forbids other threads' unsafe calls while it lasts; THREAD_LOCAL
 * only this thread's. */
typedef enum { GC_CAPTURE_GLOBAL, GC_CAPTURE_THREAD_LOCAL } gc_capture_mode;

/* Every int result is a CUresult: 0 is success. */
typedef struct {
    const char *alloc_name; /* for messages: "cuMemAlloc", "malloc" */
    int (*alloc)(gc_ptr *p, size_t bytes);
    void (*release)(gc_ptr p);
    int (*memset8)(gc_ptr p, unsigned char value, size_t bytes, gc_stream s);
    int (*copy)(gc_ptr dst, gc_ptr src, size_t bytes, gc_stream s);
    int (*upload)(gc_ptr dst, const void *src, size_t bytes);
    int (*download)(void *dst, gc_ptr src, size_t bytes);
    int (*sync_device)(void);
    int (*stream_create)(gc_stream *s);
    void (*stream_destroy)(gc_stream s);
    int (*stream_sync)(gc_stream s);
    const char *(*error_name)(int r);
    /* Graph capture; NULL where there is none (the self-test). */
    int (*capture_begin)(gc_stream s, gc_capture_mode mode);
    int (*capture_end)(gc_stream s, void **graph);
    int (*graph_instantiate)(void **exec, void *graph);
    int (*graph_launch)(void *exec, gc_stream s);
    void (*graph_destroy)(void *exec, void *graph);
} gc_device_ops;

/* ---- options and process state ---- */

typedef struct {
    const gc_device_ops *dev;
    int self_test, list;
    int full, verbose, repeat, threads;
    unsigned long long seed;
    const char *filter;
    int sms, smem_optin; /* device 0: SMs, shared memory per block (0 in the self-test) */
} gc_options;

extern gc_options gc;
/* Held around device work: two cooperative grids must not compete for SMs. */
extern pthread_mutex_t gc_gpu_lock;
/* Held while a worker takes a case or prints. */
extern pthread_mutex_t gc_print_lock;

/* Parses the options above (exit 2 with a usage line on a bad one). */
void gc_parse_args(int argc, char **argv);

/*
 * Brings up the device under test: the GPU (its driver table, device 0's
 * primary context current in this thread, its SM count and shared memory),
 * or host memory under --self-test. Also points $PRNN_TUNING_DB at a
 * scratch file (autotuned winners never reach the user's database).
 * Returns 0 when ready, else the exit status: 77 after a "SKIP: no GPU"
 * line when prnnCreate says PRNN_STATUS_NO_DEVICE, or a "SKIP: ... needs
 * NVRTC" (or cuBLASLt) line when that cannot be loaded; 1 after a "FAIL:"
 * line.
 */
int gc_start(void);

/* "<prog>: <n> cases (quick|full), seed S, T threads" (and a self-test note). */
void gc_print_header(const char *prog, int ncases);

/* Prints the seed line, removes the scratch tuning database, and returns
 * the exit status: 0 when every case passed, else 1. */
int gc_finish(int passed, int ncases);

/* ---- random data ---- */

/* The seed of case `index` (from --seed). */
unsigned long long gc_case_seed(int index);
/* Uniform in [-1, 1). */
double gc_rnd(unsigned long long *s);
/* n values uniform in [-scale, scale), never zero, rounded to t. */
void gc_fill(void *buf, prnnDataType_t t, size_t n, double scale, unsigned long long *s);

/* ---- comparisons ---- */

typedef struct {
    double num, den; /* sum (got - ref)^2, sum ref^2 over non-NaN got */
    size_t nan;      /* NaN elements of got: unwritten (poisoned) or NaN */
} gc_err_sum;

/* Adds elements [from, from + n) of got and ref (type t) to e. */
void gc_err_add(gc_err_sum *e, const void *got, const void *ref, prnnDataType_t t, size_t from,
                size_t n);
/* sqrt(num / den), or sqrt(num) when ref is all zeros. */
double gc_err_value(const gc_err_sum *e);
/* ||got - ref|| / ||ref|| over n elements; *nan_count as in gc_err_sum. */
double gc_rel_err(const void *got, const void *ref, prnnDataType_t t, size_t n, size_t *nan_count);

typedef enum {
    GC_TOL_FORWARD,     /* forward inference outputs */
    GC_TOL_TRAINING,    /* forward training outputs, dx, dhx, dcx */
    GC_TOL_WEIGHT_GRAD, /* dw: sums over every row of every step */
    /* at least this for the gradients (dx, dhx, dw) of ReLU layers: ReLU's
     * derivative jumps at 0, so a pre-activation within rounding distance
     * of 0 (the device computes it in fp32, and hands h off in 16 bits with
     * 16-bit data) takes the other branch there, moving that element's
     * gradient by its whole size. Simulated with the suite's data: in fp32
     * about 5e-8 of the pre-activations flip, one flip moving dx and dw by
     * 1e-3 to 5e-2 relative (more in smaller cases); with h rounded to
     * fp16 / bf16 every step, ordinary cases reach 2.5e-2 / 8.8e-2. fp64
     * never flips in practice and keeps the tolerances above. */
    GC_TOL_RELU_GRAD
} gc_tol_kind;

/* The relative-error tolerance; 0 in the self-test (the device under test
 * is the reference itself). */
double gc_tolerance(prnnDataType_t t, gc_tol_kind kind);

/* "a / b / c / d" for per-dtype values indexed by prnnDataType_t. */
void gc_format_per_dtype(const double v[4], char *buf, size_t n);

/* ---- device buffers with guard bands ---- */

typedef struct {
    gc_ptr p; /* what the API gets */
    size_t bytes;
    gc_ptr base; /* the allocation: p, or shifted bytes before it */
} gc_buf;

/* bytes between two guard bands, the bands filled with a known byte. 0, or
 * -1 with a message. */
int gc_alloc(gc_buf *b, size_t bytes, char *err, size_t errsize);
/* The same, the buffer starting `shift` bytes past an allocation's start
 * (which the driver aligns to 256): a caller's pointer that is aligned to
 * its element only, as a view into a larger tensor is. */
int gc_alloc_shifted(gc_buf *b, size_t bytes, size_t shift, char *err, size_t errsize);
void gc_free(gc_buf *b);
/* 1 when the guard bands before and after the buffer are intact. */
int gc_guard_ok(const gc_buf *b);
/* The buffer as the pointer the API takes. */
void *gc_addr(const gc_buf *b);
/* 0xFF bytes: NaN in every floating type. */
int gc_poison(const gc_buf *b, gc_stream s);
/* Returns once the bytes have landed: cuMemcpyHtoD from pageable memory
 * may return before its DMA does, and a case's non-blocking stream does not
 * wait for the legacy stream. gc_open_stream waited for a case's first
 * uploads, but not for the fresh inputs uploaded into the same buffers
 * later: dw's initial values, the last of them, once reached
 * BackwardWeights half-uploaded (gru double H=72 B=3 L=2 bi T=8 varlen
 * dropout, "dw: a second identical step gave different bits";
 * bench/NOTES.md, twenty-fifth session). */
int gc_upload(const gc_buf *b, const void *src);
int gc_download(void *dst, const gc_buf *b);

/*
 * Creates the stream a case runs on and gives it to the handle, after
 * waiting for every upload: cuMemcpyHtoD from pageable memory may return
 * before the DMA lands, and the non-blocking stream does not wait for the
 * legacy stream; without the wait, a fast kernel can read half-uploaded
 * weights (seen once in 825 cases, as a wrong and non-repeatable result).
 * The guard-band memsets (legacy stream) must also land first.
 */
void gc_open_stream(prnnHandle_t dut, gc_stream *s);
void gc_close_stream(prnnHandle_t dut, gc_stream s);

/* Waits for the stream. A fault is fatal: the context is gone, nothing
 * else can run; the message names the case. */
void gc_sync_or_die(gc_stream s, int index, const char *desc, const char *config);

/* ---- graph capture ---- */

/* Enqueues work on the stream the enqueuer knows; 0, or -1 with a message. */
typedef int (*gc_enqueue_fn)(void *ctx, char *err, size_t errsize);

/* 1 when the device can capture graphs. */
int gc_can_capture(void);

/*
 * Captures what fn enqueues on s into a graph, instantiates it and launches
 * it `launches` times back to back (replays must not interfere). 0, or -1
 * with a message that starts with `what` where fn failed under capture.
 */
int gc_capture_replay(gc_stream s, gc_capture_mode mode, gc_enqueue_fn fn, void *ctx, int launches,
                      const char *what, char *err, size_t errsize);

/* How many runs a case has: two plain ones (the second must repeat the
 * first's bits), and a graph replay when `capture` and the device can. */
int gc_run_count(int capture);

/*
 * Run `run` of a case: runs 0 and 1 call fn plainly; run 2 captures it into
 * a graph launched twice. Then waits for the stream: a fault is fatal
 * (gc_sync_or_die with index, desc, config). 0, or -1 with a message
 * ("gpu <what>: ..." when fn failed).
 */
int gc_run(gc_stream s, int run, gc_capture_mode mode, gc_enqueue_fn fn, void *ctx,
           const char *what, int index, const char *desc, const char *config, char *err,
           size_t errsize);

/* ---- cases ---- */

/* What every case reports. */
typedef struct {
    int done, pass;
    char path[32];    /* the plan's path */
    char config[256]; /* the plan's tile */
    char problem[480];
} gc_result;

/* The shape every case has. */
typedef struct {
    prnnRNNMode_t mode;
    int hidden, batch, layers, dirs, steps, input;
    prnnDataType_t dtype;
    int varlen; /* batch sizes shrink over time */
    int skip;   /* SKIP_INPUT */
    prnnRNNAlgo_t algo;
    float dropout;        /* between layers (training) */
    const char *tile;     /* forced tile (normalised text form): run alone,
                           * after the others, on fresh handles */
    const char *bwd_tile; /* forced backward-data tile only
                           * ($PRNN_TILE_BACKWARD; tile, when set, forces
                           * the forward one): run alone likewise */
    int sru;              /* SRU: gc_sru_conventions[sru] (0: the defaults) */
} gc_shape;

/* SRU's conventions (prnnSetRNNSRUConvention) the suites run: 0 is the
 * default; the others are the sru package's (its highway split across
 * directions, identity or tanh, scaled), and prnn's with the identity. */
typedef struct {
    const char *name; /* in descriptions: " sru-pkg-id" ... */
    prnnSRUConvention_t convention;
    prnnSRUActivation_t activation;
    double scale;
} gc_sru_convention;
extern const gc_sru_convention gc_sru_conventions[];
extern const int gc_sru_convention_count;

/*
 * "<mode> <dtype> H= B= L= uni|bi T= in=" then " varlen", " skip", the SRU
 * convention's name, mid, " standard", tail, " forced tile": mid and tail
 * are the suite's own flags (each starting with a space, or "").
 */
void gc_describe(const gc_shape *s, const char *mid, const char *tail, char *buf, size_t n);

/* Enough steps to use both hand-off parities many times, few enough that
 * the reference's work (gates * H^2 * B * layers * dirs per step) stays
 * under `budget`: 3 to 24. */
int gc_default_steps(const gc_shape *s, double budget);

/* 1 when desc passes --filter. */
int gc_filter_match(const char *desc);

/* A growing array of one suite's cases. Every case type starts with its
 * gc_shape; describe writes a case's description. */
typedef struct {
    void *items;
    int n, cap;
    size_t size;
    void (*describe)(const void *c, char *buf, size_t n);
} gc_cases;

#define GC_CASES(type, describe)                                                                   \
    {                                                                                              \
        NULL, 0, 0, sizeof(type), describe                                                         \
    }

/* Case i, and its shape. */
void *gc_case(const gc_cases *v, int i);
gc_shape *gc_case_shape(const gc_cases *v, int i);

/* Completes c's shape (input size = hidden where 0, steps by
 * gc_default_steps with the suites' budget where 0) and appends --repeat
 * copies of c (at least one) when its description passes --filter. */
void gc_add(gc_cases *v, void *c);

/*
 * Forced tiles: code paths the tuning DB and the heuristic may not pick on
 * this device -- batch groups with each engine and hand-off, a last group
 * only partly filled, variable lengths shrinking whole groups away, streamed
 * weights per group (both engines), SKIP input, f64, the FMA engine on half
 * data. Each needs `sms` SMs and `smem` bytes of shared memory per block.
 */
typedef struct {
    gc_shape s;
    const char *tile;
    int sms, smem;
} gc_forced_tile;

extern const gc_forced_tile gc_forced_tiles[];
extern const int gc_forced_tile_count;

/*
 * A case for each of gc_forced_tiles[which[0..n-1]] (all of them when which
 * is NULL) that this device can hold: a zeroed case of v's type with the
 * tile's shape and tile, passed to adapt (when not NULL) to set the suite's
 * own fields, then to gc_add. Says how many were left out, and why (never
 * run in the self-test).
 */
void gc_add_forced_tiles(gc_cases *v, const int *which, int n, void (*adapt)(void *c));

/* The same over a suite's own table of tiles (an entry may force only the
 * backward tile: its shape's bwd_tile, with tile NULL). */
void gc_add_tile_cases(gc_cases *v, const gc_forced_tile *tiles, const int *which, int n,
                       void (*adapt)(void *c));

/* ---- the descriptors of one case ---- */

typedef struct {
    prnnRNNDescriptor_t rnn;
    prnnTensorDescriptor_t *xd, *yd; /* per step */
    prnnTensorDescriptor_t hd;       /* every state tensor */
    prnnFilterDescriptor_t wd;       /* w and dw */
    int *batch;                      /* per step */
    int steps;
    size_t rows, es, xbytes, ybytes, sbytes, wbytes;
} gc_problem;

/* Descriptors and sizes for s (dropout with dropout_seed when s->dropout >
 * 0); ref is the handle that sizes the weights. 0, or -1 with a message;
 * gc_problem_free is safe either way. */
int gc_problem_init(gc_problem *p, const gc_shape *s, prnnHandle_t ref,
                    unsigned long long dropout_seed, char *err, size_t errsize);
void gc_problem_free(gc_problem *p);

/*
 * Plans s on the device under test (with the handle's autotune mode on when
 * `autotune`, under the GPU lock: the autotuner runs kernels) and writes the
 * plan's path ("resident", "streamed", "standard", "cpu") and config into r.
 * Fails when a forced tile is not the plan's forward config (a forced
 * backward tile, its backward config), or when an
 * autotuned plan does not say so. 0, or -1 with r->problem set.
 */
int gc_plan(prnnHandle_t dut, const gc_problem *p, const gc_shape *s, int autotune, gc_result *r);

/* The calls of p's plan on dut that replayed one of the plan's own CUDA
 * graphs so far (prnnRNNPlanInfo_t.callGraphReplays): 0, or 1 where call
 * graphs do not apply (the CPU backend, PRNN_CALL_GRAPHS=0), or -1 with
 * err set when the plan info fails or a GPU plan has them off. */
int gc_call_graph_replays(prnnHandle_t dut, const gc_problem *p, const gc_shape *s,
                          unsigned long long *replays, char *err, size_t errsize);

/* snprintf into a case's problem text and go to its `out` label. */
#define GC_FAILF(problem, ...)                                                                     \
    do {                                                                                           \
        snprintf((problem), sizeof(problem), __VA_ARGS__);                                         \
        goto out;                                                                                  \
    } while (0)

/* ---- running a suite ---- */

/* The reference (CPU) and the device under test. */
typedef struct {
    prnnHandle_t ref, dut;
} gc_handles;

typedef struct {
    const gc_cases *cases;
    void (*run)(int i, gc_handles *h);
    void (*report)(int i);
    /* the environment variables a forced tile is written to while its case
     * runs; NULL-terminated */
    const char *const *tile_vars;
} gc_suite;

/*
 * Runs every case without a forced tile on --threads workers (each with its
 * own handles), then the forced-tile cases one at a time on fresh handles
 * with the suite's tile variables set: those are read by every plan of the
 * process, and plans are cached per handle.
 */
void gc_run_suite(const gc_suite *suite);

/*
 * A suite's main: parses the options, starts the device (gc_start), builds
 * the sweep (build(--full)), prints the header, and runs every case
 * (gc_run_suite), or with --list prints their descriptions. Returns -1 when
 * the cases ran (the suite prints its summary, then returns gc_finish's
 * status), else the exit status to return now.
 */
int gc_main(int argc, char **argv, const char *prog, void (*build)(int full),
            const gc_suite *suite);

#endif
