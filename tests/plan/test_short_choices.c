/*
 * The short-sequence slots (plan_short.h, plan.h) without a GPU: a tuning
 * DB entry of the one-step or short bucket chooses its slot's engine and
 * length, nearest entries only within the distance that lets an entry choose
 * an engine, an entry naming the forward pass's own engine and configuration
 * leaves the slot to the forward pass, an entry whose engine cannot run the
 * shape is passed over, the models' slot covers the lengths below the one
 * short entries are timed at (all of them without entries), FP32 under TF32
 * recurrence math and $PRNN_ENGINE take no entry; a call of T steps runs
 * on the first slot that covers T (prnn_plan_pass_for); every shipped
 * entry of a bucket is taken on its own GPU; the backward-data pass's
 * slots follow its own buckets' entries, else the models; and the
 * workspace size covers every backward slot that may run a length until
 * the training kernels load; plan info lists both passes' slots.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autotune_log.h"
#include "error.h"
#include "gpu/engines/engine.h"
#include "gpu/plan/plan_make.h"
#include "gpu/plan/plan_short.h"
#include "gpu/plan/plan_warm.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/workspace_layout.h"
#include "plan_check.h"
#include "plan_test.h"
#include "tuning/tuning_db.h"

static struct prnn_gpu_state gs;
static char db_path[256];

static prnn_engine_query query(int hidden, int batch)
{
    prnn_engine_query q;
    memset(&q, 0, sizeof(q));
    q.gs = &gs;
    q.key = plan_test_shape(PRNN_LSTM, PRNN_DATA_FLOAT, hidden, batch, 1, 0, PRNN_PASS_FORWARD).key;
    q.pass = PRNN_PASS_FORWARD;
    return q;
}

/* An entry of pass and bucket max_seq (1: one step, else short) for LSTM
 * f32 H 96 at batch on this test's H100, naming engine (no configuration
 * fields but the persistent engine's, given by its heuristic). */
static void store_pass(prnn_pass pass, int batch, int max_seq, const char *engine)
{
    prnn_engine_query q = query(96, batch);
    q.pass = pass;
    prnn_tuning_key key = prnn_plan_tuning_key(&gs.info, &q.key, pass);
    key.seq_bucket = prnn_seq_bucket_of(max_seq);
    prnn_tuning_entry e;
    prnn_tuning_entry_from_key(&e, &key);
    e.max_seq_length = max_seq;
    snprintf(e.engine, sizeof(e.engine), "%s", engine);
    const prnn_engine *en = prnn_engine_find(engine);
    if (en && en->fields)
        CHECK(en->candidates(&q, 0, 0, &e.config, 1) == 1);
    e.us_per_step = 10.0;
    snprintf(e.source, sizeof(e.source), "test_short_choices");
    CHECK(prnn_tuning_db_store(db_path, &e) == PRNN_STATUS_SUCCESS);
}

static void store(int batch, int max_seq, const char *engine)
{
    store_pass(PRNN_PASS_FORWARD, batch, max_seq, engine);
}

static void choices(int batch, const prnn_engine *fwd, const prnn_engine_config *fwd_config,
                    prnn_short_choice out[PRNN_SHORT_SLOTS])
{
    prnn_engine_query q = query(96, batch);
    prnn_plan_short_choices(&q, fwd, fwd_config, NULL, NULL, out);
    prnn_plan_short_trim(out);
}

/* The models' slot for LSTM f32 H 96 at batch over fwd, as the choices
 * should hold it given the measured slots' lengths (one, measured). */
static void expect_model(int batch, const prnn_engine *fwd, int one, int measured,
                         const prnn_short_choice *few)
{
    prnn_engine_query q = query(96, batch);
    prnn_engine_config cfg;
    int max_seq = 0;
    const prnn_engine *model = prnn_plan_short_engine(&q, fwd, NULL, &cfg, &max_seq);
    if (model && measured && max_seq >= PRNN_TUNING_SHORT_SEQ)
        max_seq = PRNN_TUNING_SHORT_SEQ - 1;
    if (!model || max_seq <= one) {
        CHECK(few->engine == NULL && few->max_seq == 0);
        return;
    }
    CHECK(few->engine == model && few->max_seq == max_seq);
    CHECK(few->choice.source == PRNN_CONFIG_HEURISTIC);
}

/* The models' slot fitted to the measured ones as they stand: below the
 * short entry's timed length while it has one, its own length once that
 * slot is cleared (it could not be prepared), and gone where the one-step
 * slot covers all it would. */
static void test_trim(const prnn_engine *a, const prnn_engine *b)
{
    prnn_short_choice c[PRNN_SHORT_SLOTS];
    memset(c, 0, sizeof(c));
    c[PRNN_SHORT_FEW].engine = a;
    c[PRNN_SHORT_FEW].max_seq = 40;
    c[PRNN_SHORT_MEASURED].engine = b;
    c[PRNN_SHORT_MEASURED].max_seq = 24;
    prnn_short_choice t[PRNN_SHORT_SLOTS];
    memcpy(t, c, sizeof(c));
    prnn_plan_short_trim(t);
    CHECK(t[PRNN_SHORT_FEW].engine == a && t[PRNN_SHORT_FEW].max_seq == PRNN_TUNING_SHORT_SEQ - 1);
    memcpy(t, c, sizeof(c));
    memset(&t[PRNN_SHORT_MEASURED], 0, sizeof(t[0]));
    prnn_plan_short_trim(t);
    CHECK(t[PRNN_SHORT_FEW].engine == a && t[PRNN_SHORT_FEW].max_seq == 40);
    memcpy(t, c, sizeof(c));
    t[PRNN_SHORT_FEW].max_seq = 1;
    t[PRNN_SHORT_ONE].engine = b;
    t[PRNN_SHORT_ONE].max_seq = 1;
    prnn_plan_short_trim(t);
    CHECK(t[PRNN_SHORT_FEW].engine == NULL && t[PRNN_SHORT_FEW].max_seq == 0);
}

/* Which pass a forward call of T steps runs on (prnn_plan_pass_for), on a
 * plan of three engines and no state: the first slot whose length covers
 * T, the forward pass where that slot has no pass of its own or none does;
 * other passes never look at the slots. */
static void test_pass_for(const prnn_engine *a, const prnn_engine *b, const prnn_engine *c)
{
    prnn_plan p;
    memset(&p, 0, sizeof(p));
    p.pass[PRNN_PASS_FORWARD].engine = a;
    p.pass[PRNN_PASS_BACKWARD_DATA].engine = a;
    p.short_fwd[PRNN_SHORT_ONE] = (prnn_short_slot){{.engine = b}, 1};
    p.short_fwd[PRNN_SHORT_FEW] = (prnn_short_slot){{.engine = c}, 8};
    p.short_fwd[PRNN_SHORT_MEASURED] = (prnn_short_slot){{.engine = NULL}, 40};
    const prnn_call_kind inf = PRNN_CALL_INFERENCE, fwt = PRNN_CALL_FORWARD_TRAINING;
    CHECK(prnn_plan_pass_for(&p, inf, 1) == &p.short_fwd[PRNN_SHORT_ONE].pass);
    CHECK(prnn_plan_pass_for(&p, fwt, 1) == &p.short_fwd[PRNN_SHORT_ONE].pass);
    CHECK(prnn_plan_pass_for(&p, inf, 2) == &p.short_fwd[PRNN_SHORT_FEW].pass);
    CHECK(prnn_plan_pass_for(&p, inf, 8) == &p.short_fwd[PRNN_SHORT_FEW].pass);
    CHECK(prnn_plan_pass_for(&p, inf, 9) == &p.pass[PRNN_PASS_FORWARD]);
    CHECK(prnn_plan_pass_for(&p, inf, 40) == &p.pass[PRNN_PASS_FORWARD]);
    CHECK(prnn_plan_pass_for(&p, inf, 41) == &p.pass[PRNN_PASS_FORWARD]);
    CHECK(prnn_plan_pass_for(&p, PRNN_CALL_BACKWARD_DATA, 1) == &p.pass[PRNN_PASS_BACKWARD_DATA]);
    p.short_fwd[PRNN_SHORT_MEASURED].pass.engine = b;
    CHECK(prnn_plan_pass_for(&p, inf, 9) == &p.short_fwd[PRNN_SHORT_MEASURED].pass);
    CHECK(prnn_plan_pass_for(&p, inf, 41) == &p.pass[PRNN_PASS_FORWARD]);
    p.short_fwd[PRNN_SHORT_ONE].max_seq = 0; /* unused: one step goes on */
    CHECK(prnn_plan_pass_for(&p, inf, 1) == &p.short_fwd[PRNN_SHORT_FEW].pass);
}

/* The backward-data pass's engine for q as a plan orders them (forced,
 * the tuning DB's, else the models'). */
static const prnn_engine *backward_engine(const prnn_engine_query *q)
{
    const prnn_engine *order[16];
    int n = prnn_plan_engine_order(q, order, NULL, 0);
    prnn_engine_sort_by_estimate(q, order, n);
    return n ? order[0] : NULL;
}

/* The backward-data slots' choices for q over the pass's engine runs. */
static void backward_choices(const prnn_engine_query *q, const prnn_engine *runs,
                             const char *forced_by, prnn_short_choice out[PRNN_SHORT_SLOTS])
{
    prnn_plan_short_choices(q, runs, NULL, NULL, forced_by, out);
    prnn_plan_short_trim(out);
}

/* The backward-data pass's models (prnn_plan_short_engine): where the
 * pass's engine loads R on-chip for every call (LSTM f32 H 1024 B 64: 16 MB
 * per batch group), the standard engine runs its short calls, up to the
 * length where the per-step gain repays the set-up; where that set-up is
 * small (H 128 B 1) nothing beats the pass's engine; a forced pass runs
 * every length (no slot at all); and a backward-data call of T steps runs
 * on the first backward slot that covers T (prnn_plan_pass_for), forward
 * calls never. */
static void test_backward_slot(const prnn_engine *persistent, const prnn_engine *standard)
{
    prnn_engine_query q;
    memset(&q, 0, sizeof(q));
    q.gs = &gs;
    q.pass = PRNN_PASS_BACKWARD_DATA;
    q.key = plan_test_shape(PRNN_LSTM, PRNN_DATA_FLOAT, 1024, 64, 1, 0, q.pass).key;
    prnn_engine_config cfg;
    int max_seq = 0;
    const prnn_engine *model = prnn_plan_short_engine(&q, persistent, NULL, &cfg, &max_seq);
    CHECK(model == standard && max_seq >= 1);
    const double t1_persistent = persistent->call_setup(&q) + persistent->estimate(&q);
    const double t1_standard = standard->call_setup(&q) + standard->estimate(&q);
    CHECK(t1_standard < t1_persistent);
    if (max_seq < PRNN_TUNING_MAX_SHORT_SEQ) /* the crossing */
        CHECK(standard->call_setup(&q) + (max_seq + 1) * standard->estimate(&q) >=
              persistent->call_setup(&q) + (max_seq + 1) * persistent->estimate(&q) - 1e-9);
    /* the pass already on the standard engine: nothing cheaper */
    CHECK(prnn_plan_short_engine(&q, standard, NULL, &cfg, &max_seq) == NULL);
    /* a small R: the persistent engine's own set-up is small */
    prnn_engine_query small = q;
    small.key = plan_test_shape(PRNN_LSTM, PRNN_DATA_FLOAT, 128, 1, 1, 0, q.pass).key;
    const prnn_engine *runs = backward_engine(&small);
    CHECK(runs != NULL && runs != standard);
    CHECK(prnn_plan_short_engine(&small, runs, NULL, &cfg, &max_seq) != standard);
    /* forced: $PRNN_ENGINE_BACKWARD, $PRNN_ENGINE, $PRNN_TILE_BACKWARD */
    prnn_short_choice c[PRNN_SHORT_SLOTS];
    const char *vars[] = {"PRNN_ENGINE_BACKWARD", "PRNN_ENGINE"};
    for (int v = 0; v < 2; v++) {
        setenv(vars[v], "persistent", 1);
        backward_choices(&q, persistent, NULL, c);
        for (int i = 0; i < PRNN_SHORT_SLOTS; i++)
            CHECK(c[i].engine == NULL && c[i].max_seq == 0);
        unsetenv(vars[v]);
    }
    backward_choices(&q, persistent, "PRNN_TILE_BACKWARD", c);
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++)
        CHECK(c[i].engine == NULL && c[i].max_seq == 0);

    prnn_plan p;
    memset(&p, 0, sizeof(p));
    p.pass[PRNN_PASS_FORWARD].engine = persistent;
    p.pass[PRNN_PASS_BACKWARD_DATA].engine = persistent;
    p.short_bwd[PRNN_SHORT_ONE] = (prnn_short_slot){{.engine = NULL}, 1};
    p.short_bwd[PRNN_SHORT_FEW] = (prnn_short_slot){{.engine = standard}, 4};
    const prnn_call_kind bwd = PRNN_CALL_BACKWARD_DATA;
    CHECK(prnn_plan_pass_for(&p, bwd, 1) == &p.pass[PRNN_PASS_BACKWARD_DATA]);
    CHECK(prnn_plan_pass_for(&p, bwd, 2) == &p.short_bwd[PRNN_SHORT_FEW].pass);
    CHECK(prnn_plan_pass_for(&p, bwd, 4) == &p.short_bwd[PRNN_SHORT_FEW].pass);
    CHECK(prnn_plan_pass_for(&p, bwd, 5) == &p.pass[PRNN_PASS_BACKWARD_DATA]);
    CHECK(prnn_plan_pass_for(&p, PRNN_CALL_FORWARD_TRAINING, 1) == &p.pass[PRNN_PASS_FORWARD]);
    CHECK(prnn_plan_pass_for(&p, PRNN_CALL_INFERENCE, 2) == &p.pass[PRNN_PASS_FORWARD]);
    p.short_bwd[PRNN_SHORT_ONE].max_seq = 0; /* unused: one step goes on */
    CHECK(prnn_plan_pass_for(&p, bwd, 1) == &p.short_bwd[PRNN_SHORT_FEW].pass);
    p.short_bwd[PRNN_SHORT_FEW].max_seq = 0; /* cleared: its kernels did not load */
    CHECK(prnn_plan_pass_for(&p, bwd, 1) == &p.pass[PRNN_PASS_BACKWARD_DATA]);
    fprintf(stderr,
            "backward slot: LSTM f32 H 1024 B 64 T 1 persistent %.1f us, standard %.1f us\n",
            t1_persistent, t1_standard);
}

/* Engines for the workspace size below: each takes the bytes its pass
 * plan's state points at, and runs nothing. */
static void sized_workspace(const prnn_pass_plan *pp, const prnn_rnn_problem *p, int call,
                            prnn_ws_builder *b)
{
    (void)p;
    (void)call;
    b->l->engine[0] = prnn_ws_take(b, *(const size_t *)pp->state);
}

static prnnStatus_t runs_nothing(struct prnn_call_plan *c, const void *buffers)
{
    (void)c;
    (void)buffers;
    return PRNN_STATUS_SUCCESS;
}

/* The size of the workspace of a call of T steps on a plan whose passes
 * take 0.5 MB and whose three backward slots take 1, 2 and 4 MB (one step,
 * up to 8, up to 40): until the training kernels load, as large as every
 * backward slot that covers T and the pass (any of them may run the call if
 * the slots before it cannot load); after, as the slot that runs T alone. */
static void test_backward_workspace(void)
{
    const prnn_engine sized = {.name = "sized", .workspace = sized_workspace, .run = runs_nothing};
    const size_t mb = 1 << 20;
    static size_t bytes[PRNN_SHORT_SLOTS + 2] = {1 << 20, 2 << 20, 4 << 20, 1 << 19, 0};
    prnn_plan p;
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < PRNN_PASS_COUNT; i++) {
        p.pass[i].engine = &sized;
        p.pass[i].state = &bytes[PRNN_SHORT_SLOTS + 1]; /* nothing: the layout's own parts */
    }
    struct prnnRNNStruct rnn;
    memset(&rnn, 0, sizeof(rnn));
    rnn.hidden = 16;
    rnn.layers = 1;
    rnn.direction = PRNN_UNIDIRECTIONAL;
    rnn.mode = PRNN_RNN_TANH;
    rnn.dtype = PRNN_DATA_FLOAT;
    const int batch[64] = {1};
    const struct {
        int T;
        size_t before, after; /* the engines' largest part */
    } cases[] = {
        {1, 4 * mb, 1 * mb}, {2, 4 * mb, 2 * mb}, {9, 4 * mb, 4 * mb}, {41, mb / 2, mb / 2}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        prnn_rnn_problem pr = {&rnn, 1, cases[c].T, batch, 1, (size_t)cases[c].T, NULL};
        for (int i = 0; i < PRNN_PASS_COUNT; i++)
            p.pass[i].state = &bytes[PRNN_SHORT_SLOTS + 1];
        memset(p.short_bwd, 0, sizeof(p.short_bwd));
        const size_t own = prnn_plan_workspace_bytes(&p, &pr);
        for (int i = 0; i < PRNN_PASS_COUNT; i++)
            p.pass[i].state = &bytes[PRNN_SHORT_SLOTS];
        const int lengths[PRNN_SHORT_SLOTS] = {1, 8, 40};
        for (int i = 0; i < PRNN_SHORT_SLOTS; i++)
            p.short_bwd[i] = (prnn_short_slot){{.engine = &sized, .state = &bytes[i]}, lengths[i]};
        for (int loaded = 0; loaded < 2; loaded++) {
            p.training_loaded = loaded;
            const size_t want = own + (loaded ? cases[c].after : cases[c].before);
            const size_t got = prnn_plan_workspace_bytes(&p, &pr);
            EXPECT(got == want, "T %d, training %s: %zu bytes, want %zu", cases[c].T,
                   loaded ? "loaded" : "not loaded", got, want);
        }
    }
}

static void describes_nothing(const prnn_pass_plan *pp, const prnn_rnn_key *key,
                              prnn_engine_info *info)
{
    (void)pp;
    (void)key;
    memset(info, 0, sizeof(*info));
}

/* Plan info's short slots (prnn_plan_info): the used slots of each pass in
 * the order calls try them, each with its engine, configuration and source
 * (a slot without a pass of its own names the pass's), the engines of a
 * one-step call, and of a two-step call where a slot with an engine of its
 * own runs it. */
static void test_slot_info(void)
{
    const prnn_engine pass_engine = {.name = "pass-engine", .describe = describes_nothing};
    const prnn_engine one = {.name = "one-step", .describe = describes_nothing};
    const prnn_engine few = {.name = "few-steps", .describe = describes_nothing};
    prnn_plan p;
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < PRNN_PASS_COUNT; i++) {
        p.pass[i].engine = &pass_engine;
        snprintf(p.pass[i].config, sizeof(p.pass[i].config), "pass config %d", i);
    }
    p.short_fwd[PRNN_SHORT_FEW] = (prnn_short_slot){{.engine = &few}, 8};
    snprintf(p.short_fwd[PRNN_SHORT_FEW].pass.config, sizeof(p.pass[0].config), "few config");
    p.short_fwd[PRNN_SHORT_FEW].pass.source = PRNN_CONFIG_HEURISTIC;
    p.short_bwd[PRNN_SHORT_ONE] = (prnn_short_slot){{.engine = &one}, 1};
    snprintf(p.short_bwd[PRNN_SHORT_ONE].pass.config, sizeof(p.pass[0].config), "one config");
    p.short_bwd[PRNN_SHORT_ONE].pass.source = PRNN_CONFIG_SHIPPED_DB;
    p.short_bwd[PRNN_SHORT_MEASURED] = (prnn_short_slot){{.engine = NULL}, 24};
    p.short_bwd[PRNN_SHORT_MEASURED].pass.source = PRNN_CONFIG_USER_DB;
    prnnRNNPlanInfo_t info;
    memset(&info, 0, sizeof(info));
    info.structSize = sizeof(info);
    prnn_plan_info(&p, "test device", &info);
    CHECK(info.shortSlots == 1 && info.shortSlotMaxSeqLength[0] == 8);
    CHECK(strcmp(info.shortSlotEngine[0], "few-steps") == 0);
    CHECK(strcmp(info.shortSlotConfig[0], "few config") == 0);
    CHECK(info.shortSlotConfigSource[0] == PRNN_CONFIG_HEURISTIC);
    CHECK(strcmp(info.singleStepEngine, "few-steps") == 0);
    CHECK(strcmp(info.shortEngine, "few-steps") == 0 && info.shortMaxSeqLength == 8);
    CHECK(info.backwardShortSlots == 2);
    CHECK(info.backwardShortSlotMaxSeqLength[0] == 1 &&
          info.backwardShortSlotMaxSeqLength[1] == 24);
    CHECK(strcmp(info.backwardShortSlotEngine[0], "one-step") == 0);
    CHECK(strcmp(info.backwardShortSlotConfig[0], "one config") == 0);
    CHECK(info.backwardShortSlotConfigSource[0] == PRNN_CONFIG_SHIPPED_DB);
    /* measured: the pass's own engine and configuration run those lengths */
    CHECK(strcmp(info.backwardShortSlotEngine[1], "pass-engine") == 0);
    CHECK(strcmp(info.backwardShortSlotConfig[1], "pass config 1") == 0);
    CHECK(info.backwardShortSlotConfigSource[1] == PRNN_CONFIG_USER_DB);
    CHECK(strcmp(info.backwardSingleStepEngine, "one-step") == 0);
    /* a two-step call runs on the pass's own engine: no short engine */
    CHECK(info.backwardShortEngine[0] == '\0' && info.backwardShortMaxSeqLength == 0);
}

/* The backward-data pass's own buckets' entries (LSTM f32 H 96 B 3 in the
 * user DB): its one-step and short slots take them, an entry naming the
 * pass's own engine and configuration leaves those lengths to it, the
 * forward pass's slots never take a backward entry nor the backward pass a
 * forward one. Called while the user DB holds the forward entries of both
 * buckets for the shape (step at one step, standard up to 24). */
static void test_backward_entries(const prnn_engine *persistent, const prnn_engine *standard,
                                  const prnn_engine *step)
{
    prnn_engine_query q = query(96, 3);
    q.pass = PRNN_PASS_BACKWARD_DATA;
    prnn_short_choice c[PRNN_SHORT_SLOTS];
    backward_choices(&q, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_MEASURED].max_seq == 0);
    store_pass(PRNN_PASS_BACKWARD_DATA, 3, 1, "standard");
    store_pass(PRNN_PASS_BACKWARD_DATA, 3, 48, "persistent");
    backward_choices(&q, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].engine == standard && c[PRNN_SHORT_ONE].max_seq == 1);
    CHECK(c[PRNN_SHORT_ONE].choice.source == PRNN_CONFIG_USER_DB);
    CHECK(c[PRNN_SHORT_MEASURED].engine == persistent && c[PRNN_SHORT_MEASURED].max_seq == 48);
    CHECK(c[PRNN_SHORT_MEASURED].choice.source == PRNN_CONFIG_USER_DB);
    CHECK(c[PRNN_SHORT_FEW].max_seq < PRNN_TUNING_SHORT_SEQ);
    /* the pass's own engine and configuration: the pass runs those lengths */
    const prnn_engine_config entry_config = c[PRNN_SHORT_MEASURED].choice.config;
    prnn_plan_short_choices(&q, persistent, &entry_config, NULL, NULL, c);
    CHECK(c[PRNN_SHORT_MEASURED].engine == NULL && c[PRNN_SHORT_MEASURED].max_seq == 48);
    prnn_engine_config none;
    memset(&none, 0, sizeof(none));
    prnn_plan_short_choices(&q, standard, &none, NULL, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].engine == NULL && c[PRNN_SHORT_ONE].max_seq == 1);
    /* the forward pass's slots keep the forward entries */
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].engine == step && c[PRNN_SHORT_MEASURED].engine == standard &&
          c[PRNN_SHORT_MEASURED].max_seq == 24);
}

/* Every shipped entry of a sequence-length bucket, either pass, on its own
 * GPU as prnn-cache warm describes it: its slot takes it (its engine runs
 * the shape there and its configuration fits), with its length. The pass
 * offered is another engine, so that no entry is the pass's own choice. */
typedef struct {
    int entries, taken;
} shipped_tally;

static void check_shipped_entry(const prnn_tuning_entry *e, void *ctx)
{
    shipped_tally *t = ctx;
    if (!e->max_seq_length)
        return;
    t->entries++;
    struct prnn_gpu_state *egs = calloc(1, sizeof(*egs));
    if (!egs || prnn_warm_describe(e->cc_major * 10 + e->cc_minor, e, egs)) {
        CHECK(0);
        free(egs);
        return;
    }
    prnn_engine_query q;
    memset(&q, 0, sizeof(q));
    q.gs = egs;
    prnn_warm_key(e, e->batch_max, &q.key);
    q.pass = e->pass;
    const prnn_engine *named = prnn_engine_find(e->engine);
    const char *forward_other = strcmp(e->engine, "standard") ? "standard" : "step";
    const char *backward_other = strcmp(e->engine, "standard") ? "standard" : "persistent";
    const prnn_engine *other =
        prnn_engine_find(e->pass == PRNN_PASS_FORWARD ? forward_other : backward_other);
    prnn_short_choice c[PRNN_SHORT_SLOTS];
    prnn_plan_short_choices(&q, other, NULL, NULL, NULL, c);
    const prnn_short_choice *s = &c[e->max_seq_length == 1 ? PRNN_SHORT_ONE : PRNN_SHORT_MEASURED];
    const int ok = named && s->engine == named && s->max_seq == e->max_seq_length &&
                   s->choice.source == PRNN_CONFIG_SHIPPED_DB;
    if (!ok) {
        char desc[400];
        prnn_tuning_entry_describe(e, desc, sizeof(desc));
        fprintf(stderr, "shipped entry not taken: %s (%s): %s\n", desc, e->engine, prnn_log_get());
    }
    t->taken += ok;
    CHECK(ok);
    free(egs);
}

int main(void)
{
    gs.info = autotune_log_h100();
    char dir[] = "/tmp/prnn-short-choices-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(db_path, sizeof(db_path), "%s/tuning.json", dir);
    setenv("PRNN_TUNING_DB", db_path, 1);
    unsetenv("PRNN_ENGINE");
    const prnn_engine *persistent = prnn_engine_find("persistent");
    const prnn_engine *step = prnn_engine_find("step");
    const prnn_engine *standard = prnn_engine_find("standard");
    CHECK(persistent && step && standard);
    test_pass_for(persistent, step, standard);
    test_backward_slot(persistent, standard);
    test_backward_workspace();
    test_slot_info();
    test_trim(step, standard);
    prnn_short_choice c[PRNN_SHORT_SLOTS];

    /* the shipped buckets' entries, before the user DB has any */
    shipped_tally shipped = {0, 0};
    prnn_tuning_each_entry(0, check_shipped_entry, &shipped);
    CHECK(shipped.entries > 0 && shipped.taken == shipped.entries);

    /* no entry: the models' slot alone, covering one step too */
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_MEASURED].max_seq == 0);
    expect_model(3, persistent, 0, 0, &c[PRNN_SHORT_FEW]);

    /* entries of both buckets: their slots, and the models' below the
     * length the short entry was timed at */
    store(3, 1, "step");
    store(3, 24, "standard");
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].engine == step && c[PRNN_SHORT_ONE].max_seq == 1);
    CHECK(c[PRNN_SHORT_ONE].choice.source == PRNN_CONFIG_USER_DB);
    CHECK(c[PRNN_SHORT_MEASURED].engine == standard && c[PRNN_SHORT_MEASURED].max_seq == 24);
    CHECK(c[PRNN_SHORT_MEASURED].choice.source == PRNN_CONFIG_USER_DB);
    expect_model(3, persistent, 1, 1, &c[PRNN_SHORT_FEW]);
    CHECK(c[PRNN_SHORT_FEW].max_seq < PRNN_TUNING_SHORT_SEQ);
    test_backward_entries(persistent, standard, step);

    /* an entry naming the forward pass's engine (one without configuration
     * fields: the same configuration) leaves its lengths to the forward
     * pass; a persistent entry gets a pass of its own unless its
     * configuration is the forward pass's */
    prnn_engine_config none;
    memset(&none, 0, sizeof(none));
    choices(3, standard, &none, c);
    CHECK(c[PRNN_SHORT_ONE].engine == step);
    CHECK(c[PRNN_SHORT_MEASURED].engine == NULL && c[PRNN_SHORT_MEASURED].max_seq == 24);
    CHECK(c[PRNN_SHORT_MEASURED].choice.source == PRNN_CONFIG_USER_DB);
    store(3, 1, "persistent");
    prnn_engine_config other = none;
    other.tile.blocks = 3;
    choices(3, persistent, &other, c);
    CHECK(c[PRNN_SHORT_ONE].engine == persistent && c[PRNN_SHORT_ONE].max_seq == 1);
    const prnn_engine_config entry_config = c[PRNN_SHORT_ONE].choice.config;
    choices(3, persistent, &entry_config, c);
    CHECK(c[PRNN_SHORT_ONE].engine == NULL && c[PRNN_SHORT_ONE].max_seq == 1);
    /* or its kernel's text form (what prnn-autotune reads from plan info) */
    char entry_text[256];
    persistent->format(&entry_config, entry_text, sizeof(entry_text));
    prnn_engine_query q3 = query(96, 3);
    prnn_plan_short_choices(&q3, persistent, &other, entry_text, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].engine == NULL && c[PRNN_SHORT_ONE].max_seq == 1);

    /* nearest entries: batch 4 stands for 3 (cost 0.42) and 12 for 16
     * (0.42); 40 has none within 1.0 (16 is 1.32 away): the models' */
    choices(4, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_MEASURED].engine == standard && c[PRNN_SHORT_MEASURED].max_seq == 24);
    store(16, 40, "step");
    choices(12, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_MEASURED].engine == step && c[PRNN_SHORT_MEASURED].max_seq == 40);
    choices(40, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_MEASURED].max_seq == 0);
    expect_model(40, persistent, 0, 0, &c[PRNN_SHORT_FEW]);

    /* an engine that cannot run the shape: tiny-h stops at H 64 */
    store(3, 1, "tiny-h");
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_ONE].engine == NULL);
    CHECK(c[PRNN_SHORT_MEASURED].engine == standard);

    /* FP32 under PRNN_TF32_RECURRENCE_MATH: the entries were timed in
     * strict FP32; the models choose */
    prnn_engine_query tq = query(96, 3);
    tq.key.math = PRNN_TF32_RECURRENCE_MATH;
    prnn_plan_short_choices(&tq, persistent, NULL, NULL, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_MEASURED].max_seq == 0);

    /* $PRNN_ENGINE runs every length on its engine */
    setenv("PRNN_ENGINE", "persistent", 1);
    choices(3, persistent, NULL, c);
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++)
        CHECK(c[i].max_seq == 0);
    unsetenv("PRNN_ENGINE");
    /* and so does a forced forward configuration */
    prnn_engine_query q = query(96, 3);
    prnn_plan_short_choices(&q, persistent, NULL, NULL, "PRNN_TILE", c);
    for (int i = 0; i < PRNN_SHORT_SLOTS; i++)
        CHECK(c[i].max_seq == 0);

    unlink(db_path);
    char lock[300];
    snprintf(lock, sizeof(lock), "%s.lock", db_path);
    unlink(lock);
    rmdir(dir);
    if (test_failures)
        fprintf(stderr, "short-choices: %d check(s) failed\n", test_failures);
    else
        printf("short-choices: the slots follow the buckets' entries (the %d shipped ones "
               "taken on their GPUs), the models below and without them; a call runs on the "
               "first slot that covers it\n",
               shipped.entries);
    return test_failures ? 1 : 0;
}
