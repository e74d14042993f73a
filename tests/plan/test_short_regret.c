/*
 * The short-sequence choice against measured T = 1 calls, without a GPU: a
 * table of calls timed on a GPU with each engine forced
 * (bench/results/<run>/t1-engines.tsv: a shape, the engine its long
 * sequences take, then per engine "plain/graph" microseconds of a call or
 * "-") gives, per shape, the fastest engine's plain call. The planner's
 * choice for a T = 1 call (prnn_plan_short_engine over the forward engine,
 * with the limits of the H100 the run used) is compared with it: its
 * regret. The test fails when the regret grows past what it is now (a
 * ratchet: lower the bounds when the models improve; issue 22 asks a T = 1
 * call at most cuDNN's best, which the fastest engine is not always), or
 * when a line no longer parses.
 *
 *   test_short_regret [--verbose] TABLE...
 *
 * --verbose prints every shape: each engine's modelled call (set-up + one
 * step) and its measured plain call.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "autotune_log.h"
#include "gpu/engines/engine.h"
#include "gpu/plan/plan_short.h"
#include "gpu/run/gpu_state.h"
#include "plan_check.h"

/* The bounds the models meet on the tables (bench/NOTES.md, sixteenth
 * session: 96 shapes, tanh/LSTM/GRU x f32/f16 x H 128-512 x B 64/256 and
 * H 64-1024 x B 1/8, timed with call graphs and the step engine's 16-byte
 * loads): 1.008 geomean, worst 1.25 (LSTM f16 H 256 B 64, the step engine
 * where the persistent one runs 1.25x faster). The thirteenth session's
 * tables and models: 1.010, worst 1.26; before the persistent engines'
 * set-up counted R once per batch group, the step engine its products and
 * every other engine the input projection's GEMM: 1.320, worst 2.61. */
#define MAX_GEOMEAN_REGRET 1.02
#define MAX_SHAPE_REGRET 1.30

enum { MAX_ENGINES = 8 };

typedef struct {
    autotune_regret r;
    int verbose;
    struct prnn_gpu_state *gs; /* the device the models read */
} regret_totals;

/* "persistent 47.26/35.01" columns: engine i's plain call, or -1 ("-"). */
typedef struct {
    const prnn_engine *engine[MAX_ENGINES];
    int n;
} table_columns;

static int parse_header(const char *line, table_columns *cols)
{
    const char *head = "# mode dtype hidden batch forward ";
    if (strncmp(line, head, strlen(head)) != 0)
        return 0;
    const char *at = line + strlen(head);
    cols->n = 0;
    char name[32];
    int used;
    while (cols->n < MAX_ENGINES && sscanf(at, "%31s%n", name, &used) == 1) {
        const prnn_engine *e = prnn_engine_find(name);
        EXPECT(e != NULL, "table header: unknown engine \"%s\"", name);
        if (!e)
            return 0;
        cols->engine[cols->n++] = e;
        at += used;
    }
    return cols->n > 0;
}

static void score_shape(struct prnn_gpu_state *gs, const char *line, const table_columns *cols,
                        regret_totals *tot)
{
    char mode_name[16], dtype_name[16], fwd_name[32];
    int hidden, batch, used;
    prnnRNNMode_t mode;
    prnnDataType_t dtype;
    if (sscanf(line, "%15s %15s %d %d %31s%n", mode_name, dtype_name, &hidden, &batch, fwd_name,
               &used) != 5 ||
        prnn_mode_from_name(mode_name, &mode) || prnn_tuning_dtype_from_name(dtype_name, &dtype)) {
        EXPECT(0, "a line that does not parse: %s", line);
        return;
    }
    const prnn_engine *fwd = prnn_engine_find(fwd_name);
    EXPECT(fwd != NULL, "unknown forward engine \"%s\"", fwd_name);
    if (!fwd)
        return;
    double plain[MAX_ENGINES];
    const char *at = line + used;
    for (int i = 0; i < cols->n; i++) {
        char cell[48];
        int n;
        if (sscanf(at, "%47s%n", cell, &n) != 1) {
            EXPECT(0, "%s: %d columns, the header names %d", line, i, cols->n);
            return;
        }
        at += n;
        plain[i] = strcmp(cell, "-") == 0 ? -1.0 : atof(cell);
    }
    prnn_engine_query q;
    memset(&q, 0, sizeof(q));
    q.gs = gs;
    q.key = plan_test_shape(mode, dtype, hidden, batch, 1, 0, PRNN_PASS_FORWARD).key;
    q.pass = PRNN_PASS_FORWARD;
    prnn_engine_config cfg;
    int max_seq = 0;
    const prnn_engine *chosen = prnn_plan_short_engine(&q, fwd, NULL, &cfg, &max_seq);
    if (!chosen)
        chosen = fwd;
    double best = INFINITY, mine = -1;
    for (int i = 0; i < cols->n; i++) {
        if (plain[i] > 0 && plain[i] < best)
            best = plain[i];
        if (cols->engine[i] == chosen)
            mine = plain[i];
    }
    char name[96];
    snprintf(name, sizeof(name), "%s %s H %d B %d", mode_name, dtype_name, hidden, batch);
    EXPECT(mine > 0, "%s: the planner chooses %s, which the table did not time", name,
           chosen->name);
    if (mine <= 0)
        return;
    const double regret = mine / best;
    autotune_regret_add(&tot->r, regret);
    EXPECT(regret <= MAX_SHAPE_REGRET, "%s: the planner chooses %s, %.2fx the fastest engine", name,
           chosen->name, regret);
    if (!tot->verbose)
        return;
    printf("%-28s chooses %-10s %6.1f us, best %6.1f us: %.2fx |", name, chosen->name, mine, best,
           regret);
    char why[256];
    for (int i = 0; i < cols->n; i++) { /* engine: modelled call / measured plain call */
        const prnn_engine *e = cols->engine[i];
        if (e->supports(&q, why, sizeof(why)) == 0)
            printf(" %s %.1f/%.1f", e->name, e->call_setup(&q) + e->estimate(&q), plain[i]);
    }
    printf("\n");
}

/* One table (autotune_file_fn): a header, then a shape a line. */
static void read_table(const char *path, void *ctx)
{
    regret_totals *tot = ctx;
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    table_columns cols = {{0}, 0};
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#') {
            parse_header(line, &cols);
            continue;
        }
        if (line[0] && cols.n)
            score_shape(tot->gs, line, &cols, tot);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    static struct prnn_gpu_state gs;
    gs.info = autotune_log_h100();
    regret_totals tot;
    memset(&tot, 0, sizeof(tot));
    tot.gs = &gs;
    autotune_regret_files(argc, argv, &tot.verbose, read_table, &tot);
    EXPECT(tot.r.keys > 0, "no shape scored");
    autotune_regret_report("short-regret", &tot.r, MAX_GEOMEAN_REGRET, "the planner's T = 1 choice",
                           "the fastest engine", "shapes");
    return autotune_regret_exit("short-regret");
}
