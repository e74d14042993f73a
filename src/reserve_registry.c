#include "reserve_registry.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "descriptors.h"
#include "dtype.h"
#include "error.h"

/*
 * A fixed table: records live in entries[1..CAPACITY] (index 0 means "none",
 * so that the zero-initialised table is a valid empty one and needs no setup
 * call), chained from BUCKETS hash buckets on the reserve's address and
 * linked in a most-recently-used list for eviction. Twice as many buckets as
 * records keeps chains at one or two entries.
 */
#define CAPACITY PRNN_MAX_TRACKED_RESERVES
#define BUCKETS (2 * CAPACITY)

typedef struct {
    const void *reserve;
    size_t bytes;
    prnn_reserve_shape shape;
    prnn_reserve_stage stage;
    /* Unique per recorded forward pass: a BackwardData that finishes after
     * another thread's ForwardTraining replaced the record must not advance
     * the new record's stage. */
    uint64_t serial;
    int bucket_next;
    int newer, older; /* the use-order list */
} record;

static struct {
    pthread_mutex_t lock;
    int used;           /* entries[1..used] have held a record */
    int newest, oldest; /* ends of the use-order list */
    uint64_t last_serial;
    int bucket[BUCKETS]; /* first record of each chain */
    record entries[CAPACITY + 1];
} reg = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* bucket_of masks: PRNN_MAX_TRACKED_RESERVES must be a power of two (C99 has
 * no static_assert; a negative array size fails the build instead). */
typedef char prnn_buckets_are_a_power_of_two[(BUCKETS & (BUCKETS - 1)) == 0 ? 1 : -1];

/* Caller-allocated buffers of one allocator sit at regular strides; the
 * multiply-xorshift spreads them over all buckets. */
static int bucket_of(const void *reserve)
{
    uint64_t k = (uint64_t)(uintptr_t)reserve;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (int)(k & (BUCKETS - 1));
}

/* ---- the table (the lock is held) ---- */

static int find(const void *reserve)
{
    int i = reg.bucket[bucket_of(reserve)];
    while (i && reg.entries[i].reserve != reserve)
        i = reg.entries[i].bucket_next;
    return i;
}

static void unlink_use(int i)
{
    record *r = &reg.entries[i];
    if (r->newer)
        reg.entries[r->newer].older = r->older;
    else
        reg.newest = r->older;
    if (r->older)
        reg.entries[r->older].newer = r->newer;
    else
        reg.oldest = r->newer;
}

static void push_newest(int i)
{
    record *r = &reg.entries[i];
    r->newer = 0;
    r->older = reg.newest;
    if (reg.newest)
        reg.entries[reg.newest].newer = i;
    reg.newest = i;
    if (!reg.oldest)
        reg.oldest = i;
}

static void touch(int i)
{
    if (reg.newest != i) {
        unlink_use(i);
        push_newest(i);
    }
}

static void unlink_bucket(int i)
{
    int *link = &reg.bucket[bucket_of(reg.entries[i].reserve)];
    while (*link != i)
        link = &reg.entries[*link].bucket_next;
    *link = reg.entries[i].bucket_next;
}

/* A record for a new address: an unused one, else the least recently used
 * one, forgotten. */
static int take_record(const void *reserve)
{
    int i;
    if (reg.used < CAPACITY) {
        i = ++reg.used;
    } else {
        i = reg.oldest;
        unlink_bucket(i);
        unlink_use(i);
    }
    int b = bucket_of(reserve);
    reg.entries[i].reserve = reserve;
    reg.entries[i].bucket_next = reg.bucket[b];
    reg.bucket[b] = i;
    push_newest(i);
    return i;
}

/* The record whose buffer contains p, for the message about an address that
 * is not a reserve's start; 0 if none. A scan, on failure paths only. */
static int find_containing(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 1; i <= reg.used; i++) {
        uintptr_t r = (uintptr_t)reg.entries[i].reserve;
        if (a > r && a - r < reg.entries[i].bytes)
            return i;
    }
    return 0;
}

/* ---- shapes ---- */

void prnn_reserve_shape_of(const prnn_rnn_problem *p, prnnBackend_t backend,
                           prnn_reserve_shape *shape)
{
    const struct prnnRNNStruct *rnn = p->rnn;
    /* FNV-1a over the batch sizes: a hash, because a reserve's record must
     * not grow with seqLength (the table is fixed). */
    uint64_t h = 0xcbf29ce484222325ull;
    for (int t = 0; t < p->seq_length; t++) {
        h ^= (uint32_t)p->batch[t];
        h *= 0x100000001b3ull;
    }
    /* Dropout acts between layers only: with one layer, or a probability of
     * 0, the seed means nothing, and a framework that draws a fresh seed per
     * call must not be told its reserve is of another problem. */
    int dropout = rnn->layers > 1 && rnn->dropout > 0.0f;
    const int sru = rnn->mode == PRNN_SRU;
    memset(shape, 0, sizeof(*shape));
    shape->backend = backend;
    prnn_rnn_key_of(rnn, p->mini_batch, &shape->key);
    shape->dropout = dropout ? rnn->dropout : 0.0f;
    shape->seed = dropout ? rnn->seed : 0;
    shape->sru_convention = sru ? rnn->sru_convention : PRNN_SRU_CONVENTION_PRNN;
    shape->sru_activation = sru ? rnn->sru_activation : PRNN_SRU_ACTIVATION_TANH;
    shape->sru_scale = sru ? rnn->sru_scale : 1.0;
    shape->input_size = p->input_size;
    shape->seq_length = p->seq_length;
    shape->total_rows = p->total_rows;
    shape->batch_hash = h;
    shape->v8 = rnn->input_size != 0;
    shape->proj = rnn->proj;
    shape->no_bias_w = rnn->no_bias_w;
    shape->no_bias_r = rnn->no_bias_r;
    shape->clip_mode = (int)rnn->clip_mode;
    shape->clip_nan = (int)rnn->clip_nan;
    shape->lclip = rnn->lclip;
    shape->rclip = rnn->rclip;
    shape->layout = p->io ? (int)p->io->layout : -1;
    h = 0xcbf29ce484222325ull;
    for (int b = 0; p->io && b < p->io->batch; b++) {
        h ^= (uint32_t)p->io->lengths[b];
        h *= 0x100000001b3ull;
    }
    shape->lengths_hash = h;
}

/* The clause of a mismatch message: how the forward call and this one
 * differ. */
typedef struct {
    char text[256];
} shape_diff;

static int differs(shape_diff *d, const char *what, const char *was, const char *is,
                   const char *arg)
{
    snprintf(d->text, sizeof(d->text), "with %s %s, this call%s%s has %s %s", what, was,
             arg ? "'s " : "", arg ? arg : "", what, is);
    return 1;
}

/* A floating-point setting, printed with `digits` significant digits. */
static int differs_real(shape_diff *d, const char *what, double was, double is, int digits)
{
    char a[32], b[32];
    snprintf(a, sizeof(a), "%.*g", digits, was);
    snprintf(b, sizeof(b), "%.*g", digits, is);
    return differs(d, what, a, b, "rnnDesc");
}

static int differs_count(shape_diff *d, const char *what, unsigned long long was,
                         unsigned long long is, const char *arg)
{
    char a[24], b[24];
    snprintf(a, sizeof(a), "%llu", was);
    snprintf(b, sizeof(b), "%llu", is);
    return differs(d, what, a, b, arg);
}

/* Enum values as the header spells them. The descriptor calls validated
 * them; "invalid" guards the tables all the same. */
static const char *enum_name(const char *const *names, int n, int v)
{
    return v >= 0 && v < n ? names[v] : "invalid";
}

#define ENUM_NAME(names, v) enum_name(names, (int)(sizeof(names) / sizeof(names[0])), (int)(v))

static const char *const direction_names[] = {"PRNN_UNIDIRECTIONAL", "PRNN_BIDIRECTIONAL"};
static const char *const input_mode_names[] = {"PRNN_LINEAR_INPUT", "PRNN_SKIP_INPUT"};
static const char *const math_names[] = {"PRNN_DEFAULT_MATH", "PRNN_TENSOR_OP_MATH",
                                         "PRNN_FMA_MATH", "PRNN_TF32_RECURRENCE_MATH"};
static const char *const algo_names[] = {"PRNN_RNN_ALGO_AUTO", "PRNN_RNN_ALGO_PERSISTENT",
                                         "PRNN_RNN_ALGO_STANDARD"};
static const char *const sru_convention_names[] = {"PRNN_SRU_CONVENTION_PRNN",
                                                   "PRNN_SRU_CONVENTION_SRU_PACKAGE"};
static const char *const sru_activation_names[] = {"PRNN_SRU_ACTIVATION_TANH",
                                                   "PRNN_SRU_ACTIVATION_IDENTITY"};
static const char *const backend_names[] = {"the GPU backend", "the CPU reference backend"};

/* One line per field of the fingerprint below: the field, how the message
 * calls it, and the argument of this call that carries it (NULL: the
 * argument is the field itself, seqLength). */
#define DIFFERS_COUNT(field, what, arg)                                                            \
    do {                                                                                           \
        if (was->field != is->field)                                                               \
            return differs_count(d, what, was->field, is->field, arg);                             \
    } while (0)
#define DIFFERS_NAMED(field, what, name_of)                                                        \
    do {                                                                                           \
        if (was->field != is->field)                                                               \
            return differs(d, what, name_of(was->field), name_of(is->field), "rnnDesc");           \
    } while (0)
#define DIFFERS_IN(field, what, names)                                                             \
    do {                                                                                           \
        if (was->field != is->field)                                                               \
            return differs(d, what, ENUM_NAME(names, was->field), ENUM_NAME(names, is->field),     \
                           "rnnDesc");                                                             \
    } while (0)

/* The first way in which shape `is` differs from the recorded `was`, or 0.
 * Input shape first (the usual mistake: another layer's or another batch's
 * reserve), then rnnDesc. */
static int find_difference(const prnn_reserve_shape *was, const prnn_reserve_shape *is,
                           const char *input_name, shape_diff *d)
{
    if (was->backend != is->backend) {
        snprintf(d->text, sizeof(d->text), "on %s, this call's handle is on %s",
                 ENUM_NAME(backend_names, was->backend), ENUM_NAME(backend_names, is->backend));
        return 1;
    }
    if (was->v8 != is->v8) {
        snprintf(d->text, sizeof(d->text),
                 "by the %s calls, this is a %s call: a reserve is read "
                 "by the backward calls of the family that filled it",
                 was->v8 ? "v8" : "v5", is->v8 ? "v8" : "v5");
        return 1;
    }
    DIFFERS_COUNT(seq_length, "seqLength", NULL);
    DIFFERS_COUNT(input_size, "inputSize", input_name);
    DIFFERS_COUNT(key.mini_batch, "miniBatch", input_name);
    DIFFERS_COUNT(total_rows, "sum of batch sizes", input_name);
    if (was->batch_hash != is->batch_hash) {
        snprintf(d->text, sizeof(d->text),
                 "with other per-step batch sizes than this call's %s (both have miniBatch %d and "
                 "%zu rows in all)",
                 input_name, is->key.mini_batch, is->total_rows);
        return 1;
    }
    if (was->layout != is->layout || was->lengths_hash != is->lengths_hash) {
        snprintf(d->text, sizeof(d->text),
                 "with another layout or other sequence lengths than this call's %s", input_name);
        return 1;
    }
    DIFFERS_NAMED(key.mode, "mode", prnn_mode_name);
    DIFFERS_NAMED(key.dtype, "dataType", prnn_dtype_name);
    DIFFERS_COUNT(key.hidden, "hiddenSize", "rnnDesc");
    DIFFERS_COUNT(key.layers, "numLayers", "rnnDesc");
    if (was->key.dirs != is->key.dirs)
        return differs(d, "direction", ENUM_NAME(direction_names, was->key.dirs - 1),
                       ENUM_NAME(direction_names, is->key.dirs - 1), "rnnDesc");
    DIFFERS_IN(key.input_mode, "inputMode", input_mode_names);
    if (was->dropout != is->dropout)
        return differs_real(d, "dropout", was->dropout, is->dropout, 9);
    DIFFERS_COUNT(seed, "dropout seed", "rnnDesc");
    DIFFERS_IN(key.math, "mathType", math_names);
    DIFFERS_IN(key.algo, "algorithm", algo_names);
    DIFFERS_IN(sru_convention, "SRU convention", sru_convention_names);
    DIFFERS_IN(sru_activation, "SRU activation", sru_activation_names);
    if (was->sru_scale != is->sru_scale)
        return differs_real(d, "SRU highway scale", was->sru_scale, is->sru_scale, 17);
    DIFFERS_COUNT(proj, "projSize (0: none)", "rnnDesc");
    if (was->no_bias_w != is->no_bias_w || was->no_bias_r != is->no_bias_r)
        return differs(d, "bias mode", "one", "another", "rnnDesc");
    DIFFERS_COUNT(clip_mode, "clipMode", "rnnDesc");
    DIFFERS_COUNT(clip_nan, "clipNanOpt", "rnnDesc");
    if (was->lclip != is->lclip)
        return differs_real(d, "lclip", was->lclip, is->lclip, 17);
    if (was->rclip != is->rclip)
        return differs_real(d, "rclip", was->rclip, is->rclip, 17);
    return 0;
}

/* ---- the operations ---- */

void prnn_reserve_record_forward(const void *reserve, size_t bytes, const prnn_reserve_shape *shape)
{
    pthread_mutex_lock(&reg.lock);
    int i = find(reserve);
    if (i)
        touch(i);
    else
        i = take_record(reserve);
    record *r = &reg.entries[i];
    r->bytes = bytes;
    r->shape = *shape;
    r->stage = PRNN_RESERVE_FORWARD_DONE;
    r->serial = ++reg.last_serial;
    pthread_mutex_unlock(&reg.lock);
}

/* The calls of a family (prnn_reserve_shape.v8), as messages name them. */
typedef struct {
    const char *forward, *backward_data, *backward_weights;
} family_names;

static const family_names *names_of(int v8)
{
    static const family_names v5_calls = {"prnnRNNForwardTraining", "prnnRNNBackwardData",
                                          "prnnRNNBackwardWeights"};
    static const family_names v8_calls = {"prnnRNNForward (PRNN_FWD_MODE_TRAINING)",
                                          "prnnRNNBackwardData_v8", "prnnRNNBackwardWeights_v8"};
    return v8 ? &v8_calls : &v5_calls;
}

/* The message for an address the registry does not hold, asked for by a
 * call of family v8 (its forward is the one that should have filled it). */
static prnnStatus_t fail_unknown(const void *reserve, const record *inside, int v8)
{
    if (!reserve)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "reserveSpace is NULL: pass the reserve that %s filled",
                         names_of(v8)->forward);
    if (inside)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "reserveSpace (%p) lies %zu bytes inside the reserve (%p) that "
                         "%s filled: pass the reserve's start, unchanged",
                         reserve, (size_t)((uintptr_t)reserve - (uintptr_t)inside->reserve),
                         inside->reserve, names_of(inside->shape.v8)->forward);
    return prnn_fail(PRNN_STATUS_BAD_PARAM,
                     "reserveSpace (%p) was not filled by %s (or was evicted: "
                     "the registry remembers the last %d reserves)",
                     reserve, names_of(v8)->forward, PRNN_MAX_TRACKED_RESERVES);
}

prnnStatus_t prnn_reserve_check(const void *reserve, const prnn_reserve_shape *shape,
                                const char *input_name, prnn_reserve_stage stage, uint64_t *serial)
{
    /* What a failure reports is copied out, and the message (prnn_fail may
     * allocate) written after the lock is released: other threads' calls
     * wait on this lock. */
    record found = {0};
    int known, inside = 0, mismatch = 0, early = 0;
    shape_diff d;
    pthread_mutex_lock(&reg.lock);
    int i = find(reserve);
    known = i != 0;
    if (known) {
        found = reg.entries[i];
        mismatch = find_difference(&found.shape, shape, input_name, &d);
        early = !mismatch && found.stage < stage;
        if (!mismatch && !early)
            touch(i);
    } else {
        int c = find_containing(reserve);
        if (c) {
            found = reg.entries[c];
            inside = 1;
        }
    }
    pthread_mutex_unlock(&reg.lock);

    if (!known)
        return fail_unknown(reserve, inside ? &found : NULL, shape->v8);
    if (mismatch) {
        const char *filled_by = names_of(found.shape.v8)->forward;
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "reserveSpace (%p) was filled by %s %s: a backward call must describe "
                         "the problem of the %s call that filled its reserveSpace",
                         reserve, filled_by, d.text, filled_by);
    }
    if (early)
        return prnn_fail(PRNN_STATUS_BAD_PARAM,
                         "reserveSpace (%p): %s before %s on this reserveSpace: BackwardWeights "
                         "reads the gate gradients BackwardData leaves in it",
                         reserve, names_of(shape->v8)->backward_weights,
                         names_of(shape->v8)->backward_data);
    if (serial)
        *serial = found.serial;
    return PRNN_STATUS_SUCCESS;
}

void prnn_reserve_record_backward_data(const void *reserve, uint64_t serial)
{
    pthread_mutex_lock(&reg.lock);
    int i = find(reserve);
    if (i && reg.entries[i].serial == serial)
        reg.entries[i].stage = PRNN_RESERVE_BACKWARD_DATA_DONE;
    pthread_mutex_unlock(&reg.lock);
}
