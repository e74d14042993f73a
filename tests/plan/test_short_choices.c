/*
 * The short-sequence slots' choices (plan_short.h) without a GPU: a tuning
 * DB entry of the one-step or short bucket chooses its slot's engine and
 * length, nearest entries only within the distance that lets an entry choose
 * an engine, an entry naming the forward pass's own engine and configuration
 * leaves the slot to the forward pass, an entry whose engine cannot run the
 * shape is passed over, and without entries the short slot takes the
 * engines' models' choice. $PRNN_ENGINE chooses every length.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autotune_log.h"
#include "gpu/engines/engine.h"
#include "gpu/plan/plan_short.h"
#include "gpu/run/gpu_state.h"
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

/* An entry of bucket max_seq (1: one step, else short) for LSTM f32 H 96
 * at batch on this test's H100, naming engine (no configuration fields
 * but the persistent engine's, given by its heuristic). */
static void store(int batch, int max_seq, const char *engine)
{
    prnn_engine_query q = query(96, batch);
    prnn_tuning_key key = prnn_plan_tuning_key(&gs.info, &q.key, PRNN_PASS_FORWARD);
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

static void choices(int batch, const prnn_engine *fwd, const char *fwd_config,
                    prnn_short_choice out[PRNN_SHORT_SLOTS])
{
    prnn_engine_query q = query(96, batch);
    prnn_plan_short_choices(&q, fwd, fwd_config, NULL, out);
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
    prnn_short_choice c[PRNN_SHORT_SLOTS];

    /* no entry: the model's choice in the short slot, covering one step */
    choices(3, persistent, NULL, c);
    prnn_engine_query q = query(96, 3);
    prnn_engine_config cfg;
    int max_seq = 0;
    const prnn_engine *model = prnn_plan_short_engine(&q, persistent, NULL, &cfg, &max_seq);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0);
    CHECK(c[PRNN_SHORT_FEW].engine == model);
    CHECK(c[PRNN_SHORT_FEW].max_seq == (model ? max_seq : 0));
    if (model)
        CHECK(c[PRNN_SHORT_FEW].choice.source == PRNN_CONFIG_HEURISTIC);

    /* entries of both buckets choose both slots */
    store(3, 1, "step");
    store(3, 24, "standard");
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].engine == step && c[PRNN_SHORT_ONE].max_seq == 1);
    CHECK(c[PRNN_SHORT_ONE].choice.source == PRNN_CONFIG_USER_DB);
    CHECK(c[PRNN_SHORT_FEW].engine == standard && c[PRNN_SHORT_FEW].max_seq == 24);
    CHECK(c[PRNN_SHORT_FEW].choice.source == PRNN_CONFIG_USER_DB);

    /* an entry naming the forward pass's engine (one without
     * configuration fields: the same configuration) leaves its lengths to
     * the forward pass; a persistent entry whose configuration text differs
     * from the forward pass's gets a pass of its own */
    choices(3, standard, "", c);
    CHECK(c[PRNN_SHORT_ONE].engine == step);
    CHECK(c[PRNN_SHORT_FEW].engine == NULL && c[PRNN_SHORT_FEW].max_seq == 24);
    CHECK(c[PRNN_SHORT_FEW].choice.source == PRNN_CONFIG_USER_DB);
    store(3, 1, "persistent");
    choices(3, persistent, "not the entry's", c);
    CHECK(c[PRNN_SHORT_ONE].engine == persistent && c[PRNN_SHORT_ONE].max_seq == 1);
    char text[256];
    persistent->format(&c[PRNN_SHORT_ONE].choice.config, text, sizeof(text));
    choices(3, persistent, text, c);
    CHECK(c[PRNN_SHORT_ONE].engine == NULL && c[PRNN_SHORT_ONE].max_seq == 1);

    /* nearest entries: batch 4 stands for 3 (cost 0.42) and 12 for 16
     * (0.42); 40 has none within 1.0 (16 is 1.32 away): the model's */
    choices(4, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_FEW].engine == standard && c[PRNN_SHORT_FEW].max_seq == 24);
    store(16, 24, "step");
    choices(12, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_FEW].engine == step && c[PRNN_SHORT_FEW].max_seq == 24);
    choices(40, persistent, NULL, c);
    prnn_engine_query q40 = query(96, 40);
    max_seq = 0;
    model = prnn_plan_short_engine(&q40, persistent, NULL, &cfg, &max_seq);
    CHECK(c[PRNN_SHORT_FEW].engine == model && c[PRNN_SHORT_FEW].max_seq == (model ? max_seq : 0));
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0);

    /* an engine that cannot run the shape: tiny-h stops at H 64 */
    store(3, 1, "tiny-h");
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_ONE].engine == NULL);
    CHECK(c[PRNN_SHORT_FEW].engine == standard);

    /* $PRNN_ENGINE runs every length on its engine */
    setenv("PRNN_ENGINE", "persistent", 1);
    choices(3, persistent, NULL, c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_FEW].max_seq == 0);
    unsetenv("PRNN_ENGINE");
    /* and so does a forced forward configuration */
    prnn_plan_short_choices(&q, persistent, NULL, "PRNN_TILE", c);
    CHECK(c[PRNN_SHORT_ONE].max_seq == 0 && c[PRNN_SHORT_FEW].max_seq == 0);

    unlink(db_path);
    char lock[300];
    snprintf(lock, sizeof(lock), "%s.lock", db_path);
    unlink(lock);
    rmdir(dir);
    if (test_failures)
        fprintf(stderr, "short-choices: %d check(s) failed\n", test_failures);
    else
        printf("short-choices: the slots follow the buckets' entries, the model without them\n");
    return test_failures ? 1 : 0;
}
