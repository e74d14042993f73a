/*
 * The tile configuration of the persistent recurrent kernel: every choice the
 * tuning database, the heuristic and the autotuner make. The same field table
 * serves the text form ("blocks=64 threads=256 ...", used in plan info and
 * cache keys), the JSON form of the tuning database and the kernel's -D
 * defines (each field's `define`): one name per field, and one place that
 * pairs it with the kernel's.
 *
 * How the kernel uses them (kernel_src/rnn_persistent.cu has the details):
 * each direction runs `batch_groups` independent copies of the recurrence,
 * each on `blocks` blocks and a contiguous share of the batch; block i of a
 * group owns a contiguous slice of hidden units with all their gates. Inside a block, warps split
 * the K dimension (the hidden units of h_{t-1}) into `ksplit` ranges; their partial products are
 * summed in shared memory. Each thread's share of R is a list of "slots" (one 32-bit register
 * each): the first `reg_slots` stay in registers, the next `smem_slots` in shared memory, the rest
 * are re-read from global memory every step (the streamed variant).
 */
#ifndef PRNN_TILE_CONFIG_H
#define PRNN_TILE_CONFIG_H

#include <stddef.h>

typedef struct {
    int blocks;       /* blocks per direction and batch group, >= 1 */
    int threads;      /* threads per block, multiple of 32, 32..1024 */
    int ksplit;       /* warps splitting K; divides threads/32 */
    int lanes_k;      /* FMA engine: lanes along K within a warp (1,2,4,..,32);
                       * must be 1 with the mma engine */
    int batch_chunk;  /* batch columns per pass, >= 1 */
    int reg_slots;    /* weight slots per thread kept in registers, >= 0 */
    int smem_slots;   /* weight slots per thread kept in shared memory, >= 0 */
    int mma;          /* 1: tensor cores (mma.sync, half/bf16); 0: FMA */
    int handoff;      /* 0: Lamport words (step + value); 1: step counter;
                       * 2: through the block's shared memory (blocks=1, the
                       * small-h engine: a barrier instead of L2) */
    int batch_groups; /* independent copies of the recurrence, each on its own
                       * `blocks` blocks with its own copy of R, each running a
                       * contiguous share of the batch; >= 1. Optional in the
                       * text and JSON forms (absent: 1), so databases written
                       * before it existed still read. Like `blocks` and
                       * `batch_chunk`, normalised for the shape: groups hold
                       * whole chunks and none is empty, so B = 7 with 3
                       * groups of chunk 2 runs as 2 groups of 4 rows (the
                       * plan's config text says what runs). */
    int partial_sums; /* backward-data only: 1 = each block multiplies its
                       * own units' gate gradients by its rows of R and the
                       * blocks exchange partial sums of dh (H words per
                       * batch row, summed in a fixed order), 0 = every block
                       * reads every unit's gate gradients (G * H words).
                       * Needs an L2 hand-off (0 or 1), ksplit 1 and lanes_k
                       * 1. Optional (absent: 0) and written only when 1, so
                       * the text and JSON forms of other tiles are those
                       * from before it existed. Runs wherever a tile names
                       * it; the library's own search offers it unless
                       * $PRNN_PARTIAL_SUMS=0 (heuristic.h). */
} prnn_tile_config;

typedef struct {
    const char *name;
    size_t offset;
    int min_value;
    int max_value;
    int optional;      /* 1: may be absent from the text and JSON forms;
                        * 2: likewise, and written only when its value is
                        * not the default (prnn_config_field_written) */
    int default_value; /* its value when absent */
    /* The -D define through which the kernel receives the field's value
     * (the engine's request emits it from this table: prnn_request_config_defines),
     * or NULL for a field the kernel gets in another form (the weight slots
     * become k-steps, PRNN_KREG and PRNN_KSMEM, which the geometry derives). */
    const char *define;
} prnn_tile_field;

/* The fields, in canonical order; ends with a NULL name. */
extern const prnn_tile_field prnn_tile_fields[];

/*
 * SRU's scan (kernel_src/sru_scan.cu) has no tile: one thread walks time for
 * `units_per_thread` adjacent hidden units of one (direction, batch row),
 * keeping the loads of the next `steps_in_flight` steps in flight (a ring in
 * shared memory on sm_80 and newer, in registers below). One configuration
 * compiles both the forward and the backward scan. Text form
 * "threads=128 units_per_thread=1 steps_in_flight=4" (PRNN_SRU_TILE, plan
 * info); the same fields make a tuning DB entry's config for mode "sru".
 */
typedef struct {
    int threads;          /* block size, a multiple of 32, 32..1024 */
    int units_per_thread; /* 1..8 */
    int steps_in_flight;  /* 1..32; what a device allows besides (below sm_80
                           * at most 8, units_per_thread x steps_in_flight <=
                           * 16: registers; the ring's shared memory within
                           * the device's limit) the SRU engine checks */
} prnn_sru_config;

extern const prnn_tile_field prnn_sru_fields[];

/*
 * The configuration of any engine (src/gpu/engines), as the tuning database
 * stores it beside the engine's name: the struct of ints its field table
 * describes. Engines without a configuration leave it zero.
 */
typedef union {
    prnn_tile_config tile; /* "persistent" */
    prnn_sru_config sru;   /* "sru-scan" */
    int values[16];
} prnn_engine_config;

/* What the tuning database knows of an engine: its name, its
 * configuration's fields (NULL: it has none, and an entry's "config" is
 * empty or absent), and whether it runs the scan modes (1: SRU, whose
 * traits say scan, rnn_cell_traits.h) or the other modes (0). */
typedef struct {
    const char *engine;
    const prnn_tile_field *fields;
    int scan;
} prnn_engine_schema;

/* By engine name; NULL when the database knows no such engine. */
const prnn_engine_schema *prnn_engine_schema_find(const char *engine);
/* Every engine name the database knows, ", "-separated, into buf (for
 * messages; truncated to size). */
void prnn_engine_schema_names(char *buf, size_t size);

/* The engine an entry without "engine" names (databases written before
 * engines were recorded): "sru-scan" for the scan modes (SRU), else
 * "persistent". */
const char *prnn_engine_schema_default(int scan);

/* The rules beyond each field's range (threads a multiple of 32): 0, or -1
 * with the first broken rule in err. The device's limits are the SRU
 * engine's (prnn_sru_config_fits_device). */
int prnn_sru_config_check(const prnn_sru_config *c, char *err, size_t err_size);

/* The same forms over any field table (fields) and its struct of ints (c):
 * prnn_tile_fields with prnn_tile_config, prnn_sru_fields with
 * prnn_sru_config. The prnn_tile_config functions below are these with
 * prnn_tile_fields. */
int *prnn_config_field_ptr(void *c, const prnn_tile_field *f);
int prnn_config_field_get(const void *c, const prnn_tile_field *f);
/* Whether the text and JSON forms of c carry field f. */
int prnn_config_field_written(const void *c, const prnn_tile_field *f);
/* 0 when every field of c is in its range; else -1 and, in err, the first
 * that is not: "<prefix><name> = <value>: must be in [min, max]". */
int prnn_config_check_ranges(const prnn_tile_field *fields, const void *c, const char *prefix,
                             char *err, size_t err_size);
/* The end of a parse (text or JSON): bit i of `seen` says whether fields[i]
 * was given. Sets every optional field not given to its default; returns the
 * first required field not given (the caller reports it), or NULL when the
 * configuration is complete. */
const prnn_tile_field *prnn_config_complete(const prnn_tile_field *fields, void *c,
                                            unsigned long long seen);
void prnn_config_format(const prnn_tile_field *fields, const void *c, char *buf, size_t size);
/* Clears c_size bytes of c first; every required field exactly once. */
int prnn_config_parse(const prnn_tile_field *fields, const char *text, void *c, size_t c_size,
                      char *err, size_t err_size);

/* Canonical text form into buf (always NUL-terminated). */
void prnn_tile_config_format(const prnn_tile_config *c, char *buf, size_t size);

/* Parses the text form; every field must be present exactly once (optional
 * ones at most once) and in range. Returns 0 on success, -1 with a message in err otherwise. */
int prnn_tile_config_parse(const char *text, prnn_tile_config *c, char *err, size_t err_size);

#endif
