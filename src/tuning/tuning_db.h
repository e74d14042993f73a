/*
 * The tuning database: tile configurations measured per GPU and layer shape,
 * read from JSON (tuning_db/README.md has the schema and the rules).
 *
 * Two databases are consulted: the shipped one (the .json files of
 * tuning_db/, embedded in the library) and the user's ($PRNN_TUNING_DB,
 * default <cache dir>/tuning.json), which prnn-autotune writes. Nothing here
 * ever fails a plan: a bad file or entry is reported with prnn_log_append and
 * skipped, and a miss simply leaves the planner to its heuristic.
 *
 * What the planner calls: prnn_tuning_lookup (tuning_lookup.c).
 * What prnn-autotune calls: prnn_tuning_entry_from_key, prnn_tuning_db_store.
 * The rest is exposed for tests, the fuzzer and tools.
 */
#ifndef PRNN_TUNING_DB_H
#define PRNN_TUNING_DB_H

#include <stddef.h>

#include "prnn.h"
#include "rnn_key.h"
#include "rnn_pass.h"
#include "store/temp_files.h"
#include "tile_config.h"

/* The one schema this library reads and writes. */
#define PRNN_TUNING_SCHEMA_VERSION 1

/* String capacities, terminator included. cuDeviceGetName names fit in 256. */
#define PRNN_TUNING_NAME_MAX 256
#define PRNN_TUNING_SOURCE_MAX 256
#define PRNN_TUNING_ENGINE_MAX 32

/* Bounds of the shape fields, shared by the parser and the writer. */
#define PRNN_TUNING_MAX_HIDDEN (1 << 20)
#define PRNN_TUNING_MAX_BATCH (1 << 20)
#define PRNN_TUNING_MAX_SM_COUNT 65535

/* Sequence-length buckets (issue 22). An entry with "max_seq_length" is
 * measured on calls of few steps: 1 is the bucket of one-step calls (a
 * streaming decoder's); PRNN_TUNING_SHORT_SEQ..PRNN_TUNING_MAX_SHORT_SEQ
 * the short bucket, whose entry was timed on calls of
 * PRNN_TUNING_SHORT_SEQ steps and says up to which length its engine beat
 * the pass's own choice (prnn-autotune --seq-buckets short); the lengths
 * between are the engines' models' (plan_short.h). An entry without it is
 * for every length, as entries were before buckets: the forward pass's
 * engine and the backward-data pass's. Which bucket an entry is in is part
 * of its key; its max_seq_length within the short bucket is not (tuning
 * again replaces the entry, whatever length it found). */
typedef enum {
    PRNN_SEQ_BUCKET_ANY = 0,   /* no max_seq_length: every length */
    PRNN_SEQ_BUCKET_ONE = 1,   /* max_seq_length 1 */
    PRNN_SEQ_BUCKET_SHORT = 2, /* max_seq_length PRNN_TUNING_SHORT_SEQ.. */
} prnn_seq_bucket;
#define PRNN_TUNING_SHORT_SEQ 16
#define PRNN_TUNING_MAX_SHORT_SEQ 64
/* The bucket of an entry's max_seq_length (0: PRNN_SEQ_BUCKET_ANY). */
prnn_seq_bucket prnn_seq_bucket_of(int max_seq_length);
/* "any", "one", "short"; NULL for a value outside the enum. */
const char *prnn_seq_bucket_name(prnn_seq_bucket b);
/* 0 and *b set for a name of prnn_seq_bucket_name, else -1. */
int prnn_seq_bucket_from_name(const char *name, prnn_seq_bucket *b);

/* A user DB larger than this is refused (it would be a mistake, not data). */
#define PRNN_TUNING_MAX_FILE_BYTES (64u << 20)

/* What a file may cost beyond its size (tuning_db_bounds.c): the shipped
 * DB has 240 entries of about 26 values each, nested 4 deep. A file over
 * these is reported and ignored. */
#define PRNN_TUNING_MAX_ENTRIES 32768
#define PRNN_TUNING_MAX_VALUES (1 << 20)
#define PRNN_TUNING_MAX_DEPTH 16

/* What a plan asks for: the device, the RNN key (its mode, data type,
 * hidden size, directions and batch are what entries are matched on), the
 * pass and the sequence-length bucket (zero: PRNN_SEQ_BUCKET_ANY, the
 * entries without max_seq_length). */
typedef struct {
    const char *gpu_name; /* cuDeviceGetName, e.g. "NVIDIA H100 80GB HBM3" */
    int cc_major;         /* compute capability, e.g. 9 and 0 */
    int cc_minor;
    int sm_count; /* multiprocessors visible (MIG slices have fewer) */
    prnn_rnn_key rnn;
    prnn_pass pass;
    prnn_seq_bucket seq_bucket;
} prnn_tuning_key;

/* One database entry, as the parser produces it and the writer consumes it.
 * The key is (gpu_name, cc, sm_count, mode, dtype, hidden, directions,
 * batch_min, batch_max, pass, the bucket of max_seq_length); an exact
 * batch has batch_min == batch_max. */
typedef struct {
    char gpu_name[PRNN_TUNING_NAME_MAX];
    int cc_major;
    int cc_minor;
    int sm_count;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    int hidden;
    int directions;
    int batch_min;
    int batch_max;
    prnn_pass pass; /* the kernel the configuration was tuned for */
    /* 0: the entry is for calls of any length; 1 or PRNN_TUNING_SHORT_SEQ..
     * PRNN_TUNING_MAX_SHORT_SEQ: for forward calls of at most that many
     * steps (prnn_seq_bucket), whose us_per_step was timed at 1 step
     * (bucket one) or PRNN_TUNING_SHORT_SEQ (short). */
    int max_seq_length;
    /* The engine that runs the pass (prnn_engine_schema; "" before the
     * parser or prnn_tuning_entry_from_key fills it) and its configuration.
     * SRU's scan ("sru-scan") has pass forward: one configuration compiles
     * both of its scans. */
    char engine[PRNN_TUNING_ENGINE_MAX];
    prnn_engine_config config;
    double us_per_step;                  /* measured on the entry's own shape, > 0 */
    char source[PRNN_TUNING_SOURCE_MAX]; /* free text, may be "" */
} prnn_tuning_entry;

/* ------------------------------------------------------------------------ */
/* Entries (tuning_entry.c)                                                 */
/* ------------------------------------------------------------------------ */

/* "relu", "tanh", "lstm", "gru", "sru"; NULL for a value outside the enum. */
const char *prnn_tuning_mode_name(prnnRNNMode_t mode);
/* 0 and *mode set for a known name, -1 otherwise. */
int prnn_tuning_mode_from_name(const char *name, prnnRNNMode_t *mode);
/* The names of prnn_dtype_name ("float", "double", "half", "bfloat16"). */
int prnn_tuning_dtype_from_name(const char *name, prnnDataType_t *dtype);

/* Clears e and copies the key's GPU and shape into it (batch_min = batch_max
 * = the key's batch; the engine the mode's default; max_seq_length 1 for
 * bucket one, PRNN_TUNING_MAX_SHORT_SEQ for short, else 0); the caller then
 * sets engine, config, us_per_step, source and a short entry's
 * max_seq_length. */
void prnn_tuning_entry_from_key(prnn_tuning_entry *e, const prnn_tuning_key *key);

/* Checks every rule of the schema that does not depend on a device: ranges,
 * batch_min <= batch_max, a known pass, the config's field ranges and
 * structure (threads a multiple of 32, ksplit dividing the warps, lanes_k a
 * power of two and 1 with mma, mma only for half/bfloat16), max_seq_length
 * 0, 1 or in [PRNN_TUNING_SHORT_SEQ, PRNN_TUNING_MAX_SHORT_SEQ] and only
 * on a mode other than SRU (whose scan runs every length). Returns 0, or -1
 * with the first broken rule in err. */
int prnn_tuning_entry_check(const prnn_tuning_entry *e, char *err, size_t err_size);

/* Nonzero when a and b have the same key (the writer replaces such an
 * entry). */
int prnn_tuning_entry_same_key(const prnn_tuning_entry *a, const prnn_tuning_entry *b);
/* Total order on keys (GPU, cc, SMs, mode, dtype, directions, pass, bucket,
 * hidden, batch) used to sort a written file so its diffs stay readable: the pass
 * before the sizes keeps each pass's entries of one layer kind in one run
 * (forward first), so tuning one pass touches one block of lines. */
int prnn_tuning_entry_compare(const prnn_tuning_entry *a, const prnn_tuning_entry *b);

/* Short description for messages: "lstm half hidden 1024 dirs 1 batch 8 on
 * NVIDIA H100 80GB HBM3 (9.0, 132 SMs)"; a pass other than forward follows
 * the batch ("... batch 8 backward-data on ..."), and so does a bucket
 * ("... batch 8 T<=1 on ..."). */
void prnn_tuning_entry_describe(const prnn_tuning_entry *e, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* Parsed databases (tuning_db_parse.c)                                     */
/* ------------------------------------------------------------------------ */

typedef struct {
    prnn_tuning_entry entry;
    unsigned origin; /* index into the database's origins */
    int index;       /* position in its file's "entries" array */
} prnn_tuning_item;

/* One or more files' valid entries. Zero-initialised means empty. */
typedef struct {
    prnn_tuning_item *items;
    size_t count;
    size_t capacity;
    char **origins; /* "user tuning DB /path", "shipped tuning DB x.json" */
    unsigned n_origins;
    int files_rejected; /* files ignored as a whole */
    size_t entries_skipped;
    int out_of_memory; /* a file was ignored for lack of memory, not for
                        * what it holds: nothing to back up or to
                        * remember as bad */
} prnn_tuning_db;

/* 1 when text is a JSON value (with white space around it) that cJSON would
 * parse given the memory: tells a malformed file from cJSON running out of
 * memory. Allocates nothing (json_syntax.c). */
int prnn_json_syntax_ok(const char *text, size_t len);

/*
 * Parses one file's text (len bytes, need not be NUL-terminated) and appends
 * its valid entries to db. origin names the file in messages. Every problem is
 * reported with prnn_log_append as "<origin>: ...":
 *  - file level (not JSON, trailing data, not an object, schema_version
 *    missing, not an integer or not PRNN_TUNING_SCHEMA_VERSION, entries
 *    missing or not an array, out of memory): nothing is appended, returns -1
 *    (out of memory also sets db->out_of_memory);
 *  - entry level (a missing, duplicated or wrongly typed field, a value out
 *    of range, an unknown mode, dtype, pass or config field): that entry is
 *    skipped, the others are kept, returns 0.
 * Never crashes, on any input.
 */
int prnn_tuning_db_parse(prnn_tuning_db *db, const char *text, size_t len, const char *origin);

/* 0 when text stays within PRNN_TUNING_MAX_VALUES values and
 * PRNN_TUNING_MAX_DEPTH levels (counted without parsing, in one pass);
 * otherwise -1 with the bound it breaks in why. The parser calls it first. */
int prnn_tuning_db_check_bounds(const char *text, size_t len, char *why, size_t why_size);

/* Frees what db holds and zeroes it. */
void prnn_tuning_db_free(prnn_tuning_db *db);

/* ------------------------------------------------------------------------ */
/* Search (tuning_search.c)                                                 */
/* ------------------------------------------------------------------------ */

/*
 * The planner's test of whether an entry (its engine and configuration) can
 * run for the key on the device (registers, shared memory, blocks that must
 * be co-resident). Returns
 * 0 when it fits (the project's 0-is-success convention, like
 * prnn_kernel_geometry_compute); otherwise nonzero, optionally with the
 * reason written into why (which starts as ""), and lookup reports the entry
 * as skipped and goes on to the next candidate.
 */
typedef int (*prnn_tuning_fits_fn)(const prnn_tuning_entry *entry, const void *ctx, char *why,
                                   size_t why_size);

/* An entry's engine and configuration in text form ("persistent:
 * blocks=8 ..."), for messages. */
void prnn_tuning_entry_config_text(const prnn_tuning_entry *e, char *buf, size_t size);

typedef struct {
    prnn_tuning_entry entry;   /* the entry used (its own shape and µs) */
    prnnConfigSource_t source; /* PRNN_CONFIG_USER_DB or _SHIPPED_DB */
    int exact;                 /* 1: the key itself; 0: nearest entry */
    int sibling;               /* 1: an entry of another GPU of the same
                                * architecture and SM count (entry.gpu_name
                                * says which) */
    double cost;               /* nearest-entry distance (0 when exact) */
} prnn_tuning_result;

/* Entries farther than this (see prnn_tuning_distance) are not used: a
 * configuration tuned for a shape that different is no better a guess than
 * the heuristic. SRU's scan has its own, tighter bound: its best
 * configuration follows its lane count (dirs x batch x hidden), and an entry
 * for a quarter of the lanes already lost to the heuristic's choice
 * (bench/NOTES.md v0.8). */
#define PRNN_TUNING_NEAREST_MAX_COST 4.0
#define PRNN_TUNING_NEAREST_MAX_COST_SRU 1.0

/*
 * Distance used to rank entries of the same GPU, mode, dtype, directions and
 * pass:
 *   cost = log2(entry.hidden / key.hidden) + |log2(batch ratio)|
 * The batch ratio is to the nearest end of the entry's batch range (1 inside
 * it). An entry with a smaller hidden size is HUGE_VAL away: its tile spreads
 * the layer over too few blocks, with more weights per thread than it holds
 * (such entries ran several times slower than the heuristic's tiles:
 * bench/NOTES.md v0.10); a tiling for a larger layer spreads a smaller one
 * over the same blocks. An entry of another pass is HUGE_VAL away too: its
 * tile was measured on a different kernel; so is one of another
 * sequence-length bucket: it was measured on calls of other lengths.
 */
double prnn_tuning_distance(const prnn_tuning_entry *e, const prnn_tuning_key *key);

/*
 * The layered search over two parsed databases (either may be NULL), among
 * the entries of the key's pass only:
 *   1. user exact, 2. shipped exact (within each, the narrowest batch range
 *   first, then file order), both first among the key's own GPU's entries,
 *   then among those of a sibling: another GPU of the same architecture and
 *   SM count (an H200 uses the H100's file: result->sibling says so);
 *   3. the nearest entry of either database and either GPU with cost <=
 *   PRNN_TUNING_NEAREST_MAX_COST (_SRU for mode SRU), by cost, ties going
 *   to the key's own GPU, then the user DB, then the larger hidden size,
 *   then the larger batch, then file order. A sibling's exact entry beats
 *   the own GPU's nearest one: the same chip measured the same shape.
 * Each candidate is offered to fits (NULL accepts everything); a rejected one
 * is reported in the log and the search goes on. Returns 1 with *result set,
 * or 0 (result untouched) when nothing matches or the key is invalid.
 */
int prnn_tuning_search(const prnn_tuning_db *user, const prnn_tuning_db *shipped,
                       const prnn_tuning_key *key, prnn_tuning_fits_fn fits, const void *ctx,
                       prnn_tuning_result *result);

/* ------------------------------------------------------------------------ */
/* The process-wide lookup (tuning_lookup.c)                                */
/* ------------------------------------------------------------------------ */

/* The user DB's path: $PRNN_TUNING_DB if set and not empty, else
 * <prnn_cache_dir>/tuning.json. 0, or -1 when there is none (no cache dir,
 * or buf too small). */
int prnn_tuning_user_db_path(char *buf, size_t size);

/*
 * prnn_tuning_search over the user DB and the shipped DB (all embedded
 * tuning_db files merged). Both are parsed once per process and cached; the
 * user DB is re-read when its path, inode, size or mtime changes, so entries
 * written by prnn-autotune in another process reach later plans. Problems of
 * a file are logged by the call that (re)reads it. Thread-safe.
 */
int prnn_tuning_lookup(const prnn_tuning_key *key, prnn_tuning_fits_fn fits, const void *ctx,
                       prnn_tuning_result *result);

/* Calls fn with every valid entry of the user DB (user_db = 1) or of the
 * shipped DB (0), as lookups see them (prnn-cache warm's keys). */
typedef void (*prnn_tuning_entry_fn)(const prnn_tuning_entry *e, void *ctx);
void prnn_tuning_each_entry(int user_db, prnn_tuning_entry_fn fn, void *ctx);

/* ------------------------------------------------------------------------ */
/* Writing (tuning_db_format.c, tuning_db_store.c)                          */
/* ------------------------------------------------------------------------ */

/* The JSON text of a database holding these entries (in the given order),
 * pretty-printed, one line per key, config and measurement. malloc'd; NULL
 * when out of memory. */
char *prnn_tuning_db_format(const prnn_tuning_entry *entries, size_t count);

/*
 * Adds entries to the database file at path (NULL: the user DB), replacing
 * any entry with the same key (pass included: the other pass's entry for
 * the same shape stays), and rewrites it sorted by key. Serialized
 * with other writers (threads and processes) by flock on "<path>.lock";
 * written to a temporary file in the same directory, fsync'ed and renamed, so
 * readers see the old file or the new one, never a part. Creates missing
 * directories. An existing file that is malformed (or has entries this
 * library cannot read) is kept as "<path>.bad-<UTC time>" and a note is
 * logged; its readable entries are carried over. A path that is a symbolic
 * link is followed to the regular file it names, which is replaced; a link
 * to anything else (/dev/null, a directory, nothing) and a path that is not
 * a regular file are refused (TUNING_DB_ERROR, with the target). After the
 * store, temporary files of killed writers of this database older than
 * PRNN_TEMP_STALE_SECONDS are removed (temp_files.h).
 * Returns SUCCESS; BAD_PARAM for an entry that breaks
 * prnn_tuning_entry_check; TUNING_DB_ERROR (log: path and errno text) when
 * the file cannot be read, locked or written; ALLOC_FAILED.
 */
prnnStatus_t prnn_tuning_db_store_many(const char *path, const prnn_tuning_entry *entries,
                                       size_t count);
prnnStatus_t prnn_tuning_db_store(const char *path, const prnn_tuning_entry *entry);

/* Removes the temporary files of the database at path ("<path>.tmp-XXXXXX"
 * beside it) at least min_age seconds old that no live writer holds. */
void prnn_tuning_db_sweep(const char *path, long long min_age, prnn_temp_sweep_result *r);

#endif
