/* prnn-bench's command line: defaults, lists, errors, point order, --proj
 * against the modes and hidden sizes, and the cold-start child's spec and
 * output lines. */
#include <stdarg.h>
#include <stdlib.h>

#include "bench_args.h"
#include "bench_test.h"
#include "cold_start.h"

static int parse(bench_args *a, char *err, size_t n, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "prnn-bench";
    va_list ap;
    va_start(ap, n);
    for (char *s; (s = va_arg(ap, char *)) && argc < 63;)
        argv[argc++] = s;
    va_end(ap);
    argv[argc] = NULL;
    return bench_args_parse(argc, argv, a, err, n);
}

#define PARSE(a, ...) parse(a, err, sizeof(err), __VA_ARGS__, (char *)NULL)

static void expect_error(const char *contains, int rc, const char *err)
{
    EXPECT(rc == -1, "expected an error containing '%s'", contains);
    EXPECT(strstr(err, contains) != NULL, "message '%s' lacks '%s'", err, contains);
}

static void expect_message(const char *message, int rc, const char *err)
{
    EXPECT(rc == -1, "expected the error '%s'", message);
    EXPECT(strcmp(err, message) == 0, "message '%s', expected '%s'", err, message);
}

/* The training grid of the issue: {tanh, lstm, gru} x H {256, 512, 1024,
 * 2048} x B {1, 4, 8, 16, 64} x {float, half}, T = 256, one layer, every
 * point a training one. */
static void expect_training_grid(const bench_args *a)
{
    static const prnnRNNMode_t modes[] = {PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
    static const int hidden[] = {256, 512, 1024, 2048};
    static const int batch[] = {1, 4, 8, 16, 64};
    EXPECT(a->n_modes == 3 && !memcmp(a->modes, modes, sizeof(modes)), "training modes (%d)",
           a->n_modes);
    EXPECT(a->n_hidden == 4 && !memcmp(a->hidden, hidden, sizeof(hidden)), "training hidden (%d)",
           a->n_hidden);
    EXPECT(a->n_batch == 5 && !memcmp(a->batch, batch, sizeof(batch)), "training batch (%d)",
           a->n_batch);
    EXPECT(a->n_dtypes == 2 && a->dtypes[0] == PRNN_DATA_FLOAT && a->dtypes[1] == PRNN_DATA_HALF,
           "training dtypes");
    EXPECT(a->n_seq == 1 && a->seq[0] == 256 && a->layers == 1 && !a->bidirectional &&
               a->input == 0,
           "training T %d layers %d", a->seq[0], a->layers);
    EXPECT(bench_args_num_points(a) == 120, "training: %ld points", bench_args_num_points(a));
    for (long i = 0; i < bench_args_num_points(a); i++) {
        bench_point pt;
        bench_args_point(a, i, &pt);
        if (pt.pass != BENCH_TRAINING || pt.seq != 256 || pt.layers != 1) {
            EXPECT(0, "training point %ld: pass %d T %d layers %d", i, (int)pt.pass, pt.seq,
                   pt.layers);
            break;
        }
    }
}

/* --quick with a training pass: lstm, gru x H 512, 1024 x B 1, 16 x
 * float, half. */
static void expect_quick_training_grid(const bench_args *a)
{
    EXPECT(a->n_modes == 2 && a->modes[0] == PRNN_LSTM && a->modes[1] == PRNN_GRU,
           "quick training modes (%d)", a->n_modes);
    EXPECT(a->n_hidden == 2 && a->hidden[0] == 512 && a->hidden[1] == 1024,
           "quick training hidden (%d)", a->n_hidden);
    EXPECT(a->n_batch == 2 && a->batch[0] == 1 && a->batch[1] == 16, "quick training batch (%d)",
           a->n_batch);
    EXPECT(a->n_dtypes == 2 && a->dtypes[0] == PRNN_DATA_FLOAT && a->dtypes[1] == PRNN_DATA_HALF,
           "quick training dtypes");
    EXPECT(a->n_seq == 1 && a->seq[0] == 256 && a->layers == 1, "quick training T/layers");
    EXPECT(a->repeats == 10 && a->warmup == 2, "quick training numbers");
}

/* --layout, --lengths, --pad-input: the lists, the point order (layout
 * fastest), the lengths a point gets, and the errors. */
static void test_layouts(void)
{
    bench_args a;
    char err[512];
    bench_point pt;

    /* Default: packed alone, as before the layouts. */
    EXPECT(PARSE(&a, "--quick") == 0, "%s", err);
    EXPECT(a.n_layouts == 1 && a.layouts[0] == BENCH_LAYOUT_PACKED && !bench_args_has_padded(&a),
           "default layouts");
    EXPECT(a.lengths == BENCH_LENGTHS_VARIED && a.pad_input == BENCH_PAD_NAN, "default lengths");
    EXPECT(bench_args_num_points(&a) == 72, "quick: %ld points", bench_args_num_points(&a));
    bench_args_point(&a, 0, &pt);
    EXPECT(pt.layout == BENCH_LAYOUT_PACKED && pt.lengths == BENCH_LENGTHS_FULL, "packed point");

    /* Two layouts: every point twice, the layout varying fastest; the
     * padded one has the --lengths of the run, the packed one full. */
    EXPECT(PARSE(&a, "--layout", "packed,batch-padded", "--modes", "lstm", "--hidden", "256",
                 "--batch", "16,64", "--dtype", "float,half") == 0,
           "%s", err);
    EXPECT(a.n_layouts == 2 && bench_args_has_padded(&a), "two layouts");
    EXPECT(bench_args_num_points(&a) == 8, "%ld points", bench_args_num_points(&a));
    static const struct {
        bench_layout layout;
        int batch;
        prnnDataType_t dtype;
    } order[] = {
        {BENCH_LAYOUT_PACKED, 16, PRNN_DATA_FLOAT},
        {BENCH_LAYOUT_BATCH_PADDED, 16, PRNN_DATA_FLOAT},
        {BENCH_LAYOUT_PACKED, 64, PRNN_DATA_FLOAT},
        {BENCH_LAYOUT_BATCH_PADDED, 64, PRNN_DATA_FLOAT},
        {BENCH_LAYOUT_PACKED, 16, PRNN_DATA_HALF},
    };
    for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++) {
        bench_args_point(&a, i, &pt);
        EXPECT(pt.layout == order[i].layout && pt.batch == order[i].batch &&
                   pt.dtype == order[i].dtype && pt.mode == PRNN_LSTM && pt.hidden == 256,
               "point %d: layout %d B %d dtype %d", i, (int)pt.layout, pt.batch, (int)pt.dtype);
        EXPECT(pt.lengths ==
                   (pt.layout == BENCH_LAYOUT_PACKED ? BENCH_LENGTHS_FULL : BENCH_LENGTHS_VARIED),
               "point %d: lengths %d", i, (int)pt.lengths);
    }
    EXPECT(PARSE(&a, "--layout=seq-padded,BATCH_MAJOR_UNPACKED,packed", "--lengths", "full",
                 "--pad-input", "finite", "--hidden", "64", "--batch", "1", "--modes", "gru",
                 "--dtype", "half") == 0,
           "%s", err);
    EXPECT(a.n_layouts == 3 && a.layouts[0] == BENCH_LAYOUT_SEQ_PADDED &&
               a.layouts[1] == BENCH_LAYOUT_BATCH_PADDED && a.layouts[2] == BENCH_LAYOUT_PACKED &&
               a.lengths == BENCH_LENGTHS_FULL && a.pad_input == BENCH_PAD_FINITE,
           "three layouts, full, finite");
    bench_args_point(&a, 1, &pt);
    EXPECT(bench_args_num_points(&a) == 3 && pt.layout == BENCH_LAYOUT_BATCH_PADDED &&
               pt.lengths == BENCH_LENGTHS_FULL,
           "--lengths full");
    /* --quick's edges run in every layout too. */
    EXPECT(PARSE(&a, "--quick", "--layout", "packed,seq-padded") == 0, "%s", err);
    EXPECT(bench_args_num_points(&a) == 2 * 72, "quick, two layouts: %ld points",
           bench_args_num_points(&a));
    bench_args_point(&a, 2 * 72 - 1, &pt);
    EXPECT(pt.layout == BENCH_LAYOUT_SEQ_PADDED && pt.seq == 16 && pt.hidden == 256,
           "last edge: layout %d T %d H %d", (int)pt.layout, pt.seq, pt.hidden);
    /* --lengths full is what packed does anyway. */
    EXPECT(PARSE(&a, "--lengths", "full") == 0 && a.lengths == BENCH_LENGTHS_FULL, "%s", err);

    expect_message(
        "--layout \"packed,tiled\": \"tiled\" must be one of packed, seq-padded, batch-padded",
        PARSE(&a, "--layout", "packed,tiled"), err);
    expect_message("--layout \"padded\": must be one of packed, seq-padded, batch-padded",
                   PARSE(&a, "--layout", "padded"), err);
    expect_message("--layout \"packed,batch-padded,packed\": \"packed\" is listed twice",
                   PARSE(&a, "--layout", "packed,batch-padded,packed"), err);
    expect_message("--lengths \"random\": must be full or varied",
                   PARSE(&a, "--layout", "seq-padded", "--lengths", "random"), err);
    expect_message("--pad-input \"zero\": must be nan or finite", PARSE(&a, "--pad-input", "zero"),
                   err);
    expect_message("--lengths varied needs a padded layout (--layout seq-padded or "
                   "batch-padded): packed runs every sequence T long",
                   PARSE(&a, "--lengths", "varied"), err);
    expect_message("--lengths varied needs a padded layout (--layout seq-padded or "
                   "batch-padded): packed runs every sequence T long",
                   PARSE(&a, "--layout", "packed", "--lengths=varied"), err);
    expect_message("option --layout needs a value", PARSE(&a, "--layout"), err);
}

/* --proj: the default (none), the list crossed after the hidden sizes,
 * with the layouts, --quick's edges left out, and the rule (LSTM only,
 * below every hidden size) rejected with the rule named. */
static void test_proj(void)
{
    bench_args a;
    char err[512];
    bench_point pt;

    /* Default: no projection at any point, extra ones included. */
    EXPECT(PARSE(&a, "--quick") == 0, "%s", err);
    EXPECT(a.n_proj == 1 && a.proj[0] == 0 && !bench_args_has_proj(&a), "default proj");
    for (long i = 0; i < bench_args_num_points(&a); i++) {
        bench_args_point(&a, i, &pt);
        EXPECT(pt.proj == 0 && bench_out_size(&pt) == pt.hidden, "point %ld: proj %d", i, pt.proj);
    }
    /* 0 is "none": any mode takes it. */
    EXPECT(PARSE(&a, "--proj", "0", "--modes", "gru,tanh,sru") == 0 && !bench_args_has_proj(&a),
           "%s", err);

    /* Crossed like the other lists, right after the hidden size: pass,
     * mode, dtype, hidden, proj, batch, seq. */
    EXPECT(PARSE(&a, "--modes", "lstm", "--hidden", "256,512", "--proj", "0,128", "--batch", "1,8",
                 "--dtype", "float") == 0,
           "%s", err);
    EXPECT(a.n_proj == 2 && a.proj[1] == 128 && bench_args_has_proj(&a), "two projections");
    EXPECT(bench_args_num_points(&a) == 8, "%ld points", bench_args_num_points(&a));
    static const struct {
        int hidden, proj, batch;
    } order[] = {
        {256, 0, 1}, {256, 0, 8}, {256, 128, 1}, {256, 128, 8},
        {512, 0, 1}, {512, 0, 8}, {512, 128, 1}, {512, 128, 8},
    };
    for (int i = 0; i < 8; i++) {
        bench_args_point(&a, i, &pt);
        EXPECT(pt.hidden == order[i].hidden && pt.proj == order[i].proj &&
                   pt.batch == order[i].batch && pt.input == pt.hidden && pt.mode == PRNN_LSTM,
               "point %d: H %d P %d B %d", i, pt.hidden, pt.proj, pt.batch);
        EXPECT(bench_out_size(&pt) == (pt.proj ? pt.proj : pt.hidden), "point %d: out size %d", i,
               bench_out_size(&pt));
    }
    /* Each projected point in every layout, the layout fastest. */
    EXPECT(PARSE(&a, "--modes=lstm", "--hidden", "512", "--proj=256", "--batch", "4", "--dtype",
                 "half", "--layout", "packed,batch-padded", "--training") == 0,
           "%s", err);
    EXPECT(bench_args_num_points(&a) == 2, "%ld points", bench_args_num_points(&a));
    bench_args_point(&a, 1, &pt);
    EXPECT(pt.proj == 256 && pt.layout == BENCH_LAYOUT_BATCH_PADDED && pt.pass == BENCH_TRAINING,
           "projected padded point: P %d layout %d", pt.proj, (int)pt.layout);
    /* A list given with --quick: its lists for the rest, no edges. */
    EXPECT(PARSE(&a, "--quick", "--modes", "lstm", "--proj", "0,64") == 0, "%s", err);
    EXPECT(a.n_extra == 0 && bench_args_num_points(&a) == 2 * 2 * 3 * 2,
           "quick with --proj: %d extra, %ld points", a.n_extra, bench_args_num_points(&a));
    /* A preset's hidden sizes are checked too (engines': 64 and up). */
    EXPECT(PARSE(&a, "--preset", "engines", "--modes", "lstm", "--proj", "32") == 0, "%s", err);

    /* The rule, named; 0 alongside does not excuse a value. */
#define NOT_LSTM(p, mode)                                                                          \
    "--proj " p ": only lstm has a projection, and the sweep's modes include " mode                \
    " (give --modes lstm; 0 means no projection)"
#define NOT_BELOW(p, h)                                                                            \
    "--proj " p ": a projection size must be below the hidden size, and the sweep's hidden "       \
    "sizes include " h
    static const struct {
        char *args[8];
        const char *message;
    } bad[] = {
        {{"--proj", "128"}, NOT_LSTM("128", "tanh")},
        {{"--modes", "lstm,gru", "--hidden", "128", "--proj", "0,64"}, NOT_LSTM("64", "gru")},
        {{"--modes", "sru", "--hidden", "128", "--proj", "64"}, NOT_LSTM("64", "sru")},
        {{"--modes", "lstm", "--hidden", "256,512", "--proj", "0,256"}, NOT_BELOW("256", "256")},
        {{"--preset", "engines", "--modes", "lstm", "--proj", "128"}, NOT_BELOW("128", "64")},
        {{"--modes", "lstm", "--proj", "-1"}, "--proj \"-1\": must be an integer in [0, 65535]"},
        {{"--modes", "lstm", "--proj", "0,x"},
         "--proj \"0,x\": \"x\" must be an integer in [0, 65535]"},
    };
#undef NOT_LSTM
#undef NOT_BELOW
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *argv[10] = {"prnn-bench"};
        int argc = 1;
        for (int k = 0; k < 8 && bad[i].args[k]; k++)
            argv[argc++] = bad[i].args[k];
        expect_message(bad[i].message, bench_args_parse(argc, argv, &a, err, sizeof(err)), err);
    }
    expect_message("option --proj needs a value", PARSE(&a, "--proj"), err);
}

int main(void)
{
    bench_args a;
    char err[512];

    test_layouts();
    test_proj();

    /* Defaults: the full sweep (docs/ARCHITECTURE.md section 8). */
    EXPECT(PARSE(&a, "-v") == 0, "%s", err);
    EXPECT(a.n_modes == 3 && a.modes[0] == PRNN_RNN_TANH && a.modes[1] == PRNN_LSTM &&
               a.modes[2] == PRNN_GRU,
           "modes");
    EXPECT(a.n_hidden == 4 && a.hidden[0] == 256 && a.hidden[3] == 2048, "hidden");
    EXPECT(a.n_batch == 5 && a.batch[0] == 1 && a.batch[4] == 64, "batch");
    EXPECT(a.n_dtypes == 2 && a.dtypes[0] == PRNN_DATA_FLOAT && a.dtypes[1] == PRNN_DATA_HALF,
           "dtypes");
    EXPECT(a.n_seq == 1 && a.seq[0] == 256, "seq");
    EXPECT(a.n_passes == 1 && a.passes[0] == BENCH_INFERENCE, "pass");
    EXPECT(a.repeats == 20 && a.warmup == 3 && a.layers == 1 && a.workspaces == 1, "numbers");
    EXPECT(a.math == BENCH_MATH_STRICT && a.cudnn_algos == 0xF, "math/algos");
    EXPECT(a.verbose == 1 && !a.help && !a.csv && !a.cold_child, "flags");
    EXPECT(bench_args_num_points(&a) == 120, "%ld points", bench_args_num_points(&a));

    /* --quick, with an explicit list overriding one of its lists whatever
     * the order. */
    EXPECT(PARSE(&a, "--quick") == 0, "%s", err);
    /* the 36-point cross product, then its edges: 6 per mode and type */
    EXPECT(bench_args_num_points(&a) == 36 + 36, "quick: %ld points", bench_args_num_points(&a));
    {
        int small_h = 0, b256 = 0, t1 = 0;
        for (long i = 36; i < bench_args_num_points(&a); i++) {
            bench_point pt;
            bench_args_point(&a, i, &pt);
            small_h += pt.hidden == 64 || pt.hidden == 128;
            b256 += pt.batch == 256;
            t1 += pt.seq == 1;
            EXPECT(pt.pass == BENCH_INFERENCE && pt.input == pt.hidden && pt.layers == 1,
                   "edge point %ld", i);
        }
        EXPECT(small_h == 18 && b256 == 12 && t1 == 6, "quick edges %d %d %d", small_h, b256, t1);
    }
    EXPECT(a.modes[0] == PRNN_LSTM && a.hidden[1] == 1024 && a.batch[2] == 64, "quick lists");
    EXPECT(a.repeats == 10 && a.warmup == 2, "quick numbers %d %d", a.repeats, a.warmup);
    EXPECT(PARSE(&a, "--repeats", "30", "--quick", "--warmup=5") == 0 && a.repeats == 30 &&
               a.warmup == 5,
           "--quick must not override given numbers");
    EXPECT(PARSE(&a, "--batch=2,3", "--quick") == 0, "%s", err);
    EXPECT(a.n_batch == 2 && a.batch[0] == 2 && a.batch[1] == 3 && a.n_hidden == 2,
           "--batch with --quick");

    /* --quick with a training pass takes the training subset, for every
     * pass of the sweep; explicit lists still win. */
    EXPECT(PARSE(&a, "--quick", "--training") == 0, "%s", err);
    expect_quick_training_grid(&a);
    EXPECT(bench_args_num_points(&a) == 16 + 16, "quick training: %ld points",
           bench_args_num_points(&a));
    EXPECT(PARSE(&a, "--training", "--quick") == 0, "%s", err);
    expect_quick_training_grid(&a);
    EXPECT(PARSE(&a, "--quick", "--pass", "inference,training") == 0, "%s", err);
    expect_quick_training_grid(&a);
    /* two passes: the cross product only (edges are per pass) */
    EXPECT(bench_args_num_points(&a) == 32, "quick both: %ld points", bench_args_num_points(&a));
    /* the engines preset: issue 22's grid; a list given wins */
    EXPECT(PARSE(&a, "--preset", "engines", "--pass", "inference,training") == 0, "%s", err);
    EXPECT(bench_args_num_points(&a) == 864, "engines preset: %ld points",
           bench_args_num_points(&a));
    EXPECT(PARSE(&a, "--preset=engines", "--hidden", "64") == 0 &&
               bench_args_num_points(&a) == 3 * 2 * 4 * 3,
           "--preset with --hidden: %ld points", bench_args_num_points(&a));
    EXPECT(PARSE(&a, "--preset", "bogus") == -1 && strstr(err, "no such preset"), "%s", err);
    EXPECT(PARSE(&a, "--quick", "--training", "--modes", "tanh") == 0 && a.n_modes == 1 &&
               a.modes[0] == PRNN_RNN_TANH && a.n_hidden == 2 && a.hidden[0] == 512,
           "--modes with --quick --training");

    /* The special point: LSTM H = 768, B = 16, T = 1024, bfloat16,
     * training. */
    EXPECT(PARSE(&a, "--training", "--mode", "lstm", "--hidden", "768", "--batch", "16", "--seq",
                 "1024", "--dtype", "bfloat16") == 0,
           "%s", err);
    EXPECT(bench_args_num_points(&a) == 1, "special: %ld points", bench_args_num_points(&a));
    bench_point sp;
    bench_args_point(&a, 0, &sp);
    EXPECT(sp.pass == BENCH_TRAINING && sp.mode == PRNN_LSTM && sp.hidden == 768 &&
               sp.input == 768 && sp.batch == 16 && sp.seq == 1024 &&
               sp.dtype == PRNN_DATA_BFLOAT16 && sp.layers == 1 && !sp.bidirectional,
           "special point");

    /* Every list, both spellings. */
    EXPECT(PARSE(&a, "--modes", "gru,RELU", "--hidden=64", "--batch", "5", "--dtype",
                 "bf16,double,fp16", "--seq", "10,20", "--layers", "2", "--bidirectional",
                 "--input", "32", "--repeats=7", "--warmup", "0", "--math", "tf32", "--cudnn-algos",
                 "dynamic,small_h", "--device", "1", "--seed", "0x10", "--csv", "a.csv",
                 "--json=b.json", "--plot", "c.png", "--no-cudnn", "--cold-start") == 0,
           "%s", err);
    EXPECT(a.n_modes == 2 && a.modes[0] == PRNN_GRU && a.modes[1] == PRNN_RNN_RELU, "modes");
    EXPECT(a.n_dtypes == 3 && a.dtypes[0] == PRNN_DATA_BFLOAT16 &&
               a.dtypes[1] == PRNN_DATA_DOUBLE && a.dtypes[2] == PRNN_DATA_HALF,
           "dtypes");
    EXPECT(a.n_seq == 2 && a.seq[1] == 20 && a.layers == 2 && a.bidirectional && a.input == 32,
           "seq/layers/input");
    EXPECT(a.repeats == 7 && a.warmup == 0 && a.math == BENCH_MATH_TF32, "repeats/math");
    EXPECT(a.cudnn_algos == ((1u << 2) | (1u << 3)), "algos %#x", a.cudnn_algos);
    EXPECT(a.device == 1 && a.seed == 16, "device %d seed %llu", a.device, a.seed);
    EXPECT(a.csv && !strcmp(a.csv, "a.csv") && a.json && !strcmp(a.json, "b.json") && a.plot &&
               !strcmp(a.plot, "c.png"),
           "files");
    EXPECT(a.no_cudnn && a.cold_start, "flags");

    /* Point order: pass, mode, dtype, hidden, batch, seq (seq fastest). */
    EXPECT(bench_args_num_points(&a) == 2 * 3 * 1 * 1 * 2, "%ld", bench_args_num_points(&a));
    bench_point pt;
    bench_args_point(&a, 0, &pt);
    EXPECT(pt.mode == PRNN_GRU && pt.dtype == PRNN_DATA_BFLOAT16 && pt.seq == 10 &&
               pt.hidden == 64 && pt.input == 32 && pt.batch == 5 && pt.layers == 2 &&
               pt.bidirectional,
           "point 0");
    bench_args_point(&a, 1, &pt);
    EXPECT(pt.seq == 20 && pt.dtype == PRNN_DATA_BFLOAT16, "point 1");
    bench_args_point(&a, 2, &pt);
    EXPECT(pt.seq == 10 && pt.dtype == PRNN_DATA_DOUBLE, "point 2");
    bench_args_point(&a, 6, &pt);
    EXPECT(pt.mode == PRNN_RNN_RELU && pt.dtype == PRNN_DATA_BFLOAT16, "point 6");

    /* Input size defaults to the hidden size of each point. */
    EXPECT(PARSE(&a, "--hidden", "128,256") == 0, "%s", err);
    bench_args_point(&a, 0, &pt);
    EXPECT(pt.input == 128, "input %d", pt.input);

    /* Passes. */
    EXPECT(PARSE(&a, "--training") == 0 && a.n_passes == 1 && a.passes[0] == BENCH_TRAINING,
           "--training");
    EXPECT(bench_args_has_training(&a), "--training has training");
    expect_training_grid(&a);
    EXPECT(PARSE(&a, "--pass", "training") == 0, "%s", err);
    expect_training_grid(&a);
    EXPECT(PARSE(&a, "--pass", "inference") == 0 && !bench_args_has_training(&a),
           "inference has no training");
    EXPECT(PARSE(&a, "--pass", "inference,training") == 0 && a.n_passes == 2, "--pass both");
    EXPECT(PARSE(&a, "--pass", "training,training") == 0 && a.n_passes == 1, "--pass twice");
    EXPECT(PARSE(&a, "--help") == 0 && a.help, "--help");
    EXPECT(PARSE(&a, "--no-prnn") == 0 && a.no_prnn, "--no-prnn");
    EXPECT(PARSE(&a, "--workspaces", "80") == 0 && a.workspaces == 80, "--workspaces");
    EXPECT(PARSE(&a, "--sru-package") == 0 && a.sru_package, "--sru-package");
    EXPECT(PARSE(&a, "--modes", "sru") == 0 && !a.sru_package, "prnn's SRU convention by default");

    /* Errors: the whole message, in the tools' wording (tool_cli.h). */
    expect_message("unknown option --bogus", PARSE(&a, "--bogus"), err);
    expect_message("unknown option --bogus", PARSE(&a, "--bogus=1"), err);
    expect_message("unknown option -x", PARSE(&a, "-x"), err);
    expect_message("option --quick takes no value", PARSE(&a, "--quick=1"), err);
    expect_message("option --hidden needs a value", PARSE(&a, "--hidden"), err);
    expect_message("ambiguous option --no: --no-cudnn or --no-prnn", PARSE(&a, "--no"), err);
    expect_message("--hidden \"0\": must be an integer in [1, 65536]", PARSE(&a, "--hidden", "0"),
                   err);
    expect_message("--batch \"1,12x\": \"12x\" must be an integer in [1, 65536]",
                   PARSE(&a, "--batch", "1,12x"), err);
    expect_message("--modes \"lstm,qrnn\": \"qrnn\" must be one of relu, tanh, lstm, gru, sru",
                   PARSE(&a, "--modes", "lstm,qrnn"), err);
    EXPECT(PARSE(&a, "--modes", "sru,lstm") == 0 && a.n_modes == 2 && a.modes[0] == PRNN_SRU,
           "--modes sru,lstm: %s", err);
    expect_message("--dtype \"int8\": must be one of float, half, bfloat16, double",
                   PARSE(&a, "--dtype", "int8"), err);
    expect_message("--seq \",\": must list at least one value", PARSE(&a, "--seq", ","), err);
    expect_message("--repeats \"0\": must be an integer in [1, 100000]",
                   PARSE(&a, "--repeats", "0"), err);
    expect_message("--warmup \"-1\": must be an integer in [0, 1000]", PARSE(&a, "--warmup", "-1"),
                   err);
    expect_message("--workspaces \"0\": must be an integer in [1, 4096]",
                   PARSE(&a, "--workspaces", "0"), err);
    expect_message("--math \"fast\": must be strict or tf32", PARSE(&a, "--math", "fast"), err);
    expect_message(
        "--cudnn-algos \"static,best\": \"best\" must be one of standard, static, dynamic, small_h",
        PARSE(&a, "--cudnn-algos", "static,best"), err);
    expect_message("--pass \"inference,training,training\": must list at most 2 values",
                   PARSE(&a, "--pass", "inference,training,training"), err);
    expect_message("--no-cudnn and --no-prnn together leave nothing to time",
                   PARSE(&a, "--no-prnn", "--no-cudnn"), err);
    expect_message("unexpected argument \"lstm\": prnn-bench takes options only", PARSE(&a, "lstm"),
                   err);
    expect_message("--seed \"-3\": must be an unsigned integer (decimal, or hexadecimal after 0x)",
                   PARSE(&a, "--seed", "-3"), err);
    expect_message("--csv \"\": must not be empty", PARSE(&a, "--csv="), err);
    expect_error("must list at most 64 values",
                 PARSE(&a, "--batch",
                       "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
                       "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"),
                 err);

    /* getopt_long's conveniences: a flag's unambiguous prefix, options
     * after an operand-free command line in any order, "--" ending them,
     * and --cudnn-algos adding up over several flags. */
    EXPECT(PARSE(&a, "--hid", "64", "--bidir") == 0 && a.n_hidden == 1 && a.hidden[0] == 64 &&
               a.bidirectional,
           "prefixes: %s", err);
    EXPECT(PARSE(&a, "--cudnn-algos", "static", "--cudnn-algos=standard") == 0 &&
               a.cudnn_algos == 3u,
           "--cudnn-algos twice: %#x", a.cudnn_algos);
    expect_message("unexpected argument \"--quick\": prnn-bench takes options only",
                   PARSE(&a, "--", "--quick"), err);
    /* A parse after a failed one starts afresh (getopt's state is reset). */
    EXPECT(PARSE(&a, "-v", "--quick") == 0 && a.verbose && a.quick, "%s", err);
    EXPECT(PARSE(&a, "--version") == 0 && a.version && !a.help, "--version");

    /* The usage names every option. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bench_usage(f, "prnn-bench");
    fclose(f);
    const char *opts[] = {
        "--modes",         "--hidden",   "--batch",   "--dtype",    "--seq",         "--layers",
        "--bidirectional", "--training", "--repeats", "--warmup",   "--math",        "--quick",
        "--csv",           "--json",     "--plot",    "--no-cudnn", "--no-prnn",     "--device",
        "--cold-start",    "--pass",     "--input",   "--seed",     "--cudnn-algos", "--verbose",
        "--help",          "--version",  "--layout",  "--lengths",  "--pad-input",   "--proj",
        "--workspaces",    NULL};
    for (int i = 0; opts[i]; i++)
        EXPECT(strstr(buf, opts[i]) != NULL, "usage lacks %s", opts[i]);
    /* ... and ends with the exit statuses, "no GPU" told apart from bad
     * arguments (tools/main.sh branches on it). */
    const char *status = strstr(buf, "\nExit status:\n");
    EXPECT(status && strstr(status, "\n  0  ") && strstr(status, "\n  1  ") &&
               strstr(status, "\n  2    bad arguments") && strstr(status, "\n  3    no GPU") &&
               !strstr(status, "\n  130"),
           "exit statuses: %s", status ? status : "(none)");
    EXPECT(strstr(buf, "--cold-child") == NULL, "usage shows the internal flag");
    /* --proj says which cuDNN algorithms have projections. */
    EXPECT(
        strstr(buf, "cuDNN has projections in\n                     CUDNN_RNN_ALGO_STANDARD only"),
        "--proj's cuDNN algorithms");
    free(buf);

    /* The cold-start child's spec round-trips. */
    bench_point p0 = {.mode = PRNN_GRU,
                      .dtype = PRNN_DATA_HALF,
                      .hidden = 512,
                      .input = 256,
                      .batch = 8,
                      .seq = 1,
                      .layers = 2,
                      .bidirectional = 1,
                      .pass = BENCH_INFERENCE,
                      .layout = BENCH_LAYOUT_PACKED,
                      .lengths = BENCH_LENGTHS_FULL};
    char spec[256];
    bench_cold_spec_format(spec, sizeof(spec), &p0, BENCH_MATH_TF32, 1234.5);
    bench_point p1;
    bench_math m;
    double t;
    EXPECT(bench_cold_spec_parse(spec, &p1, &m, &t) == 0, "spec '%s'", spec);
    EXPECT(p1.mode == PRNN_GRU && p1.dtype == PRNN_DATA_HALF && p1.hidden == 512 &&
               p1.input == 256 && p1.batch == 8 && p1.layers == 2 && p1.bidirectional == 1 &&
               m == BENCH_MATH_TF32 && fabs(t - 1234.5) < 1e-6,
           "spec '%s' parsed back wrong", spec);
    EXPECT(bench_cold_spec_parse("lstm,f32,0,1,1,1,0,strict,0", &p1, &m, &t) == -1,
           "hidden 0 accepted");
    EXPECT(bench_cold_spec_parse("lstm,f32,8,8,1", &p1, &m, &t) == -1, "short spec accepted");

    /* ... and so do its output lines. */
    bench_cold_result r;
    memset(&r, 0, sizeof(r));
    EXPECT(bench_cold_parse_line("PRNN_BENCH_COLD first 120.5 118.25 101.0 compiled\n", &r, 0) ==
                   0 &&
               r.cold.ok && r.cold.wall_ms == 120.5 && r.cold.compile_ms == 101.0 &&
               !strcmp(r.cold.cubin_source, "compiled"),
           "first line");
    EXPECT(bench_cold_parse_line("PRNN_BENCH_COLD second 0.5 0.25 0 memory", &r, 0) == 0 &&
               r.memory.ok && !strcmp(r.memory.cubin_source, "memory"),
           "second line");
    EXPECT(bench_cold_parse_line("PRNN_BENCH_COLD process 410.5", &r, 0) == 0 &&
               r.process_to_plan_ms == 410.5,
           "process line");
    EXPECT(bench_cold_parse_line("PRNN_BENCH_COLD first 3.5 3.25 0 disk", &r, 1) == 0 &&
               r.disk.ok && r.disk.wall_ms == 3.5 && r.cold.wall_ms == 120.5,
           "disk line");
    EXPECT(bench_cold_parse_line("PRNN_BENCH_COLD error prnnCreate: no\n", &r, 1) == 0 &&
               !strcmp(r.note, "prnnCreate: no"),
           "error line: '%s'", r.note);
    EXPECT(bench_cold_parse_line("something else", &r, 0) == -1, "foreign");
    return test_done("tools-bench-args: prnn-bench's defaults, lists, errors, point order and "
                     "cold-start child lines");
}
