#include "bench_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rnn_cell_traits.h"
#include "tool_cli.h"

void bench_usage(FILE *f, const char *prog)
{
    /* clang-format off */
    fprintf(f,
"usage: %s [options]\n"
"\n"
"Times prnn against cuDNN 9 (every RNN algorithm) and a per-step cuBLASLt\n"
"loop captured in a CUDA graph, on the same shapes, weights and inputs.\n"
"Prints a table (µs per timestep, median of the repeats) and, last, the\n"
"geometric mean of prnn / best cuDNN per mode and data type.\n"
"\n"
"Sweep (comma-separated lists):\n"
"  --modes LIST       relu,tanh,lstm,gru,sru          [tanh,lstm,gru]\n"
"                     (cuDNN has no SRU: at an sru point its columns time\n"
"                     cuDNN's LSTM of the same shape, and prnn's per-step\n"
"                     cuBLASLt baseline is not run)\n"
"  --hidden LIST      hidden sizes                    [256,512,1024,2048]\n"
"  --proj LIST        LSTM projection sizes, 0: none  [0]\n"
"                     (cuDNN's projSize, torch.nn's proj_size): P > 0\n"
"                     adds W_proj (P x hidden, no bias) after each step;\n"
"                     y is directions x P wide, hx/hy P, cx/cy hidden.\n"
"                     Only lstm has one and P must be below every hidden\n"
"                     size: a sweep with other modes or hidden <= P is an\n"
"                     error. A projected point runs prnn's v8 calls\n"
"                     (prnnSetRNNDescriptor_v8 with projSize P) and cuDNN's\n"
"                     in its layout, packed too; cuDNN has projections in\n"
"                     CUDNN_RNN_ALGO_STANDARD only (its persistent\n"
"                     algorithms show as refused there)\n"
"  --batch LIST       batch sizes                     [1,4,8,16,64]\n"
"  --dtype LIST       float,half,bfloat16,double      [float,half]\n"
"  --seq LIST         sequence lengths T              [256]\n"
"  --input N          input size (default: = hidden size)\n"
"  --layers N         layers                          [1]\n"
"  --bidirectional    two directions\n"
"  --pass LIST        inference,training              [inference]\n"
"  --training         same as --pass training: forward-training, backward-\n"
"                     data and backward-weights timed as one step, then\n"
"                     each on its own, and prnn's forward inference of the\n"
"                     same shape (the table adds these columns); the\n"
"                     default lists above are the training grid too\n"
"  --quick            small sweep, a minute or two on an H100: lstm,gru,tanh x\n"
"                     hidden 256,1024 x batch 1,8,64 x float,half; with a\n"
"                     training pass lstm,gru x hidden 512,1024 x batch 1,16\n"
"                     x float,half; then the grid's edges for the same modes\n"
"                     and types: hidden 64 and 128, batch 256, T = 1 and 16\n"
"                     (inference), batch 128 and 256 at T = 128 and hidden\n"
"                     64 (training); 10 repeats after 2 warm-ups (flags given\n"
"                     as well override its lists and numbers, and then no\n"
"                     edges are added)\n"
"  --preset NAME      a named sweep: 'engines', the grid every engine is\n"
"                     chosen on: tanh,lstm,gru x hidden 64..2048 x batch\n"
"                     1,8,64,256 x float,half x T 1,16,256 (864 points with\n"
"                     --pass inference,training)\n"
"  --layout LIST      packed,seq-padded,batch-padded  [packed]\n"
"                     each point runs in each layout listed, one row each.\n"
"                     packed: time-major, every sequence T long, prnn's v5\n"
"                     calls (v8 at a --proj point) and cuDNN's\n"
"                     SEQ_MAJOR_PACKED (the figures of runs before\n"
"                     --layout). seq-padded, batch-padded:\n"
"                     SEQ_MAJOR_UNPACKED, BATCH_MAJOR_UNPACKED (room for T\n"
"                     steps per sequence, a length each, padding fill 0)\n"
"                     through prnn's v8 calls (prnnRNNForward,\n"
"                     prnnRNNBackwardData_v8, prnnRNNBackwardWeights_v8)\n"
"                     and cuDNN's, with data descriptors of that layout;\n"
"                     prnn graph and cublasLt-graph replay them too. T is\n"
"                     maxSeqLength there: µs per timestep is still the\n"
"                     call / T, though with varied lengths fewer than B*T\n"
"                     steps hold data. With packed listed too, the run\n"
"                     ends with padded / packed per point (issue 27's\n"
"                     target: prnn within 3 %% with --lengths full)\n"
"  --lengths full|varied\n"
"                     the padded layouts' sequence lengths      [varied]\n"
"                     varied: B lengths spaced evenly from T down to\n"
"                     ceil(T/2), sequence 0 T long, the others in a fixed\n"
"                     shuffled order, the same for every seed (their sum\n"
"                     about 3/4 of B*T); full: every sequence T long, the\n"
"                     packed point's work (padded / packed like with like)\n"
"  --pad-input nan|finite\n"
"                     what the padding of x and dy holds        [nan]\n"
"                     neither library may read it, so a NaN there shows in\n"
"                     the outputs if one does; finite: 8.0, for a library\n"
"                     that multiplies it by 0 (NaN * 0 is NaN)\n"
"\n"
"Measurement:\n"
"  --repeats N        timed calls per implementation and point   [20]\n"
"  --warmup N         untimed calls before them                  [3]\n"
"  --math strict|tf32 strict: FP32 everywhere for float data (prnn\n"
"                     DEFAULT_MATH, cuDNN FMA_MATH); tf32: TF32 allowed\n"
"                     wherever each uses it (prnn TF32_RECURRENCE_MATH: its\n"
"                     GEMMs, the standard engine's per-step ones included;\n"
"                     cuDNN DEFAULT_MATH). Half/bfloat16 use tensor cores in\n"
"                     both.\n"
"                     [strict]\n"
"  --cudnn-algos LIST standard,static,dynamic,small_h          [all four]\n"
"  --no-cudnn         time prnn only\n"
"  --no-prnn          time cuDNN only\n"
"  --workspaces N     prnn's calls take the next of N workspaces each time\n"
"                     (N > 64: no call repeats an earlier one's launches\n"
"                     soon enough for prnn to replay it from its call\n"
"                     graphs, as for calls whose buffers change every time;\n"
"                     N x the workspace at most 4 GiB)            [1]\n"
"  --sru-package      SRU in the sru package's conventions, as its SRU's\n"
"                     defaults compute (prnnSetRNNSRUConvention: x' split\n"
"                     across directions, identity activation, scale 1)\n"
"  --device N         CUDA device ordinal                        [0]\n"
"  --seed N           seed of the random weights and inputs     [1]\n"
"  --cold-start       also measure prnn's plan time with an empty kernel\n"
"                     cache (NVRTC compile), a warm disk cache and in memory,\n"
"                     each shape in fresh processes (shapes without a\n"
"                     projection: --proj points are left out)\n"
"\n"
"Output:\n"
"  --csv FILE         every number, one row per point (of each training\n"
"                     phase: the median)\n"
"  --json FILE        every number, and the run's device and date\n"
"                     (tools/plot_bench.py --csv or --json plots either)\n"
"  --plot FILE.png    runs tools/plot_bench.py (python3 + matplotlib)\n"
"  -v, --verbose      say why each algorithm was refused, and progress\n"
"  -h, --help         this text\n"
"  --version          prnn-bench's version (and the loaded library's)\n",
            prog);
    /* clang-format on */
    tool_help_exit_status(f,
                          "the sweep ran (an implementation that failed at a point is shown in the "
                          "table; a plot that could not be drawn is reported)",
                          "the device failed (the sweep stopped there), nothing could be timed, or "
                          "--csv or --json could not be written",
                          TOOL_USES_GPU);
}

int bench_parse_mode(const char *s, prnnRNNMode_t *m)
{
    /* the library's names, in any case ("LSTM" too) */
    char lower[16];
    size_t n = strlen(s);
    if (n >= sizeof(lower))
        return -1;
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)s[i]);
    return prnn_mode_from_name(lower, m);
}

int bench_parse_dtype(const char *s, prnnDataType_t *d)
{
    static const struct {
        const char *name;
        prnnDataType_t t;
    } t[] = {
        {"float", PRNN_DATA_FLOAT},       {"f32", PRNN_DATA_FLOAT},
        {"fp32", PRNN_DATA_FLOAT},        {"half", PRNN_DATA_HALF},
        {"f16", PRNN_DATA_HALF},          {"fp16", PRNN_DATA_HALF},
        {"bfloat16", PRNN_DATA_BFLOAT16}, {"bf16", PRNN_DATA_BFLOAT16},
        {"double", PRNN_DATA_DOUBLE},     {"f64", PRNN_DATA_DOUBLE},
        {"fp64", PRNN_DATA_DOUBLE},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcasecmp(s, t[i].name) == 0) {
            *d = t[i].t;
            return 0;
        }
    return -1;
}

static int parse_cudnn_algo(const char *s, unsigned *bit)
{
    static const struct {
        const char *name;
        unsigned algo;
    } t[] = {
        {"standard", 0},
        {"static", 1},
        {"persist_static", 1},
        {"dynamic", 2},
        {"persist_dynamic", 2},
        {"small_h", 3},
        {"persist_static_small_h", 3},
        {"persist_small_h", 3},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcasecmp(s, t[i].name) == 0) {
            *bit = 1u << t[i].algo;
            return 0;
        }
    return -1;
}

/* The items of the list options (tool_item_fn): each fills ctx[index]. */

static int item_rule(char *rule, size_t n, const char *text)
{
    snprintf(rule, n, "%s", text);
    return -1;
}

static int item_mode(void *ctx, int index, const char *s, char *rule, size_t n)
{
    if (bench_parse_mode(s, &((prnnRNNMode_t *)ctx)[index]))
        return item_rule(rule, n, "must be one of relu, tanh, lstm, gru, sru");
    return 0;
}

static int item_dtype(void *ctx, int index, const char *s, char *rule, size_t n)
{
    if (bench_parse_dtype(s, &((prnnDataType_t *)ctx)[index]))
        return item_rule(rule, n, "must be one of float, half, bfloat16, double");
    return 0;
}

/* ctx: the layouts; each may be listed once. */
static int item_layout(void *ctx, int index, const char *s, char *rule, size_t n)
{
    bench_layout *l = ctx;
    if (bench_layout_parse(s, &l[index]))
        return item_rule(rule, n, "must be one of packed, seq-padded, batch-padded");
    for (int i = 0; i < index; i++)
        if (l[i] == l[index])
            return item_rule(rule, n, "is listed twice");
    return 0;
}

static int item_pass(void *ctx, int index, const char *s, char *rule, size_t n)
{
    bench_pass *p = &((bench_pass *)ctx)[index];
    if (strcasecmp(s, "inference") == 0 || strcasecmp(s, "forward") == 0)
        *p = BENCH_INFERENCE;
    else if (strcasecmp(s, "training") == 0)
        *p = BENCH_TRAINING;
    else
        return item_rule(rule, n, "must be inference or training");
    return 0;
}

/* ctx: the algorithm bit set, each item adds its bit. */
static int item_algo(void *ctx, int index, const char *s, char *rule, size_t n)
{
    (void)index;
    unsigned bit;
    if (parse_cudnn_algo(s, &bit))
        return item_rule(rule, n, "must be one of standard, static, dynamic, small_h");
    *(unsigned *)ctx |= bit;
    return 0;
}

static void set_defaults(bench_args *a)
{
    memset(a, 0, sizeof(*a));
    a->layers = 1;
    a->repeats = 20;
    a->warmup = 3;
    a->workspaces = 1;
    a->math = BENCH_MATH_STRICT;
    a->cudnn_algos = 0xF;
    a->seed = 1;
    a->lengths = BENCH_LENGTHS_VARIED;
    a->pad_input = BENCH_PAD_NAN;
}

/* The lists a sweep takes when none are given. */
typedef struct {
    const prnnRNNMode_t *modes;
    int n_modes;
    const int *hidden;
    int n_hidden;
    const int *batch;
    int n_batch;
} default_grid;

#define COUNT(x) (int)(sizeof(x) / sizeof((x)[0]))
#define LIST(x) (x), COUNT(x)

static const prnnRNNMode_t full_modes[] = {PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
static const int full_hidden[] = {256, 512, 1024, 2048};
static const int full_batch[] = {1, 4, 8, 16, 64};
/* The default sweep (docs/ARCHITECTURE.md section 8), for both passes: for training it is also
 * the grid the training-step issue names (T = 256, one layer, float and
 * half). */
static const default_grid full_grid = {LIST(full_modes), LIST(full_hidden), LIST(full_batch)};

static const prnnRNNMode_t quick_modes[] = {PRNN_LSTM, PRNN_GRU, PRNN_RNN_TANH};
static const int quick_hidden[] = {256, 1024};
static const int quick_batch[] = {1, 8, 64};
static const default_grid quick_grid = {LIST(quick_modes), LIST(quick_hidden), LIST(quick_batch)};

/* A training point costs several inference points (three calls, timed as
 * a step and again one by one, and prnn's forward inference beside them):
 * fewer points keep --quick near its minute (16 instead of 36). */
static const prnnRNNMode_t quick_training_modes[] = {PRNN_LSTM, PRNN_GRU};
static const int quick_training_hidden[] = {512, 1024};
static const int quick_training_batch[] = {1, 16};
static const default_grid quick_training_grid = {
    LIST(quick_training_modes), LIST(quick_training_hidden), LIST(quick_training_batch)};

static const prnnDataType_t default_dtypes[] = {PRNN_DATA_FLOAT, PRNN_DATA_HALF};

/* --quick's edges, per mode and data type: (hidden, batch, T). */
typedef struct {
    int hidden, batch, seq;
} edge_point;
static const edge_point quick_edges[] = {
    {64, 1, 256}, {64, 256, 256}, {128, 8, 256}, {256, 256, 256}, {256, 1, 1}, {256, 1, 16},
};
static const edge_point quick_training_edges[] = {
    {64, 8, 128},
    {512, 128, 128},
    {1024, 256, 128},
    {256, 1, 16},
};

/* The 'engines' preset (issue 22's grid). */
static const int engines_hidden[] = {64, 128, 256, 512, 1024, 2048};
static const int engines_batch[] = {1, 8, 64, 256};
static const int engines_seq[] = {1, 16, 256};

int bench_args_has_padded(const bench_args *a)
{
    for (int i = 0; i < a->n_layouts; i++)
        if (a->layouts[i] != BENCH_LAYOUT_PACKED)
            return 1;
    return 0;
}

int bench_args_has_training(const bench_args *a)
{
    for (int i = 0; i < a->n_passes; i++)
        if (a->passes[i] == BENCH_TRAINING)
            return 1;
    return 0;
}

int bench_args_has_proj(const bench_args *a)
{
    for (int i = 0; i < a->n_proj; i++)
        if (a->proj[i] > 0)
            return 1;
    return 0;
}

/* --proj against the sweep's modes and hidden sizes, the libraries' rule:
 * only an LSTM has a projection, and it is narrower than the cell. */
static int check_proj(const bench_args *a, char *err, size_t n)
{
    for (int i = 0; i < a->n_proj; i++) {
        const int p = a->proj[i];
        for (int m = 0; p && m < a->n_modes; m++)
            if (a->modes[m] != PRNN_LSTM) {
                snprintf(err, n,
                         "--proj %d: only lstm has a projection, and the sweep's modes include %s "
                         "(give --modes lstm; 0 means no projection)",
                         p, prnn_mode_name(a->modes[m]));
                return -1;
            }
        for (int h = 0; p && h < a->n_hidden; h++)
            if (p >= a->hidden[h]) {
                snprintf(err, n,
                         "--proj %d: a projection size must be below the hidden size, and the "
                         "sweep's hidden sizes include %d",
                         p, a->hidden[h]);
                return -1;
            }
    }
    return 0;
}

/* --quick's edges for every mode and data type of the sweep, when every
 * list came from --quick (a given list means the user chose the points). */
static void add_quick_edges(bench_args *a)
{
    const int training = bench_args_has_training(a);
    const edge_point *e = training ? quick_training_edges : quick_edges;
    const int ne = training ? COUNT(quick_training_edges) : COUNT(quick_edges);
    for (int m = 0; m < a->n_modes; m++)
        for (int d = 0; d < a->n_dtypes; d++)
            for (int i = 0; i < ne && a->n_extra < BENCH_MAX_EXTRA; i++) {
                bench_point *pt = &a->extra[a->n_extra++];
                memset(pt, 0, sizeof(*pt));
                pt->pass = a->passes[0];
                pt->mode = a->modes[m];
                pt->dtype = a->dtypes[d];
                pt->hidden = e[i].hidden;
                pt->input = a->input ? a->input : e[i].hidden;
                pt->batch = e[i].batch;
                pt->seq = e[i].seq;
                pt->layers = a->layers;
                pt->bidirectional = a->bidirectional;
            }
}

static void fill_unset_lists(bench_args *a)
{
    if (!a->n_passes) {
        a->passes[0] = BENCH_INFERENCE;
        a->n_passes = 1;
    }
    const int quick_edges_wanted = a->quick && !a->n_modes && !a->n_hidden && !a->n_proj &&
                                   !a->n_batch && !a->n_dtypes && !a->n_seq && a->n_passes == 1;
    const default_grid *g = &full_grid;
    if (a->quick)
        g = bench_args_has_training(a) ? &quick_training_grid : &quick_grid;
#define FILL(dst, cnt, src, src_cnt)                                                               \
    do {                                                                                           \
        if (!(cnt)) {                                                                              \
            (cnt) = (src_cnt);                                                                     \
            memcpy((dst), (src), (size_t)(src_cnt) * sizeof((dst)[0]));                            \
        }                                                                                          \
    } while (0)
    FILL(a->modes, a->n_modes, g->modes, g->n_modes);
    FILL(a->hidden, a->n_hidden, g->hidden, g->n_hidden);
    FILL(a->batch, a->n_batch, g->batch, g->n_batch);
    FILL(a->dtypes, a->n_dtypes, default_dtypes, COUNT(default_dtypes));
#undef FILL
    if (!a->n_seq) {
        a->seq[0] = 256;
        a->n_seq = 1;
    }
    if (!a->n_proj) {
        a->proj[0] = 0;
        a->n_proj = 1;
    }
    if (quick_edges_wanted)
        add_quick_edges(a);
}

/* --preset NAME: its lists (a list given as well overrides the preset's). */
static int apply_preset(bench_args *a, const char *name, char *err, size_t n)
{
    if (strcmp(name, "engines") != 0) {
        snprintf(err, n, "--preset %s: no such preset (engines)", name);
        return -1;
    }
    static const prnnRNNMode_t modes[] = {PRNN_RNN_TANH, PRNN_LSTM, PRNN_GRU};
    if (!a->n_modes) {
        memcpy(a->modes, modes, sizeof(modes));
        a->n_modes = COUNT(modes);
    }
    if (!a->n_hidden) {
        memcpy(a->hidden, engines_hidden, sizeof(engines_hidden));
        a->n_hidden = COUNT(engines_hidden);
    }
    if (!a->n_batch) {
        memcpy(a->batch, engines_batch, sizeof(engines_batch));
        a->n_batch = COUNT(engines_batch);
    }
    if (!a->n_seq) {
        memcpy(a->seq, engines_seq, sizeof(engines_seq));
        a->n_seq = COUNT(engines_seq);
    }
    return 0;
}

/* getopt_long's values of the long-only options. */
enum {
    OPT_MODES = 256,
    OPT_HIDDEN,
    OPT_BATCH,
    OPT_DTYPE,
    OPT_SEQ,
    OPT_INPUT,
    OPT_LAYERS,
    OPT_BIDIRECTIONAL,
    OPT_PASS,
    OPT_TRAINING,
    OPT_QUICK,
    OPT_REPEATS,
    OPT_WARMUP,
    OPT_MATH,
    OPT_CUDNN_ALGOS,
    OPT_NO_CUDNN,
    OPT_NO_PRNN,
    OPT_WORKSPACES,
    OPT_DEVICE,
    OPT_SEED,
    OPT_COLD_START,
    OPT_CSV,
    OPT_JSON,
    OPT_PLOT,
    OPT_VERSION,
    OPT_COLD_CHILD,
    OPT_PRESET,
    OPT_SRU_PACKAGE,
    OPT_LAYOUT,
    OPT_LENGTHS,
    OPT_PAD_INPUT,
    OPT_PROJ,
};

static const struct option long_options[] = {
    {"modes", required_argument, NULL, OPT_MODES},
    {"mode", required_argument, NULL, OPT_MODES},
    {"hidden", required_argument, NULL, OPT_HIDDEN},
    {"proj", required_argument, NULL, OPT_PROJ},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"dtype", required_argument, NULL, OPT_DTYPE},
    {"dtypes", required_argument, NULL, OPT_DTYPE},
    {"seq", required_argument, NULL, OPT_SEQ},
    {"input", required_argument, NULL, OPT_INPUT},
    {"layers", required_argument, NULL, OPT_LAYERS},
    {"bidirectional", no_argument, NULL, OPT_BIDIRECTIONAL},
    {"pass", required_argument, NULL, OPT_PASS},
    {"training", no_argument, NULL, OPT_TRAINING},
    {"layout", required_argument, NULL, OPT_LAYOUT},
    {"layouts", required_argument, NULL, OPT_LAYOUT},
    {"lengths", required_argument, NULL, OPT_LENGTHS},
    {"pad-input", required_argument, NULL, OPT_PAD_INPUT},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"repeats", required_argument, NULL, OPT_REPEATS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"math", required_argument, NULL, OPT_MATH},
    {"cudnn-algos", required_argument, NULL, OPT_CUDNN_ALGOS},
    {"no-cudnn", no_argument, NULL, OPT_NO_CUDNN},
    {"no-prnn", no_argument, NULL, OPT_NO_PRNN},
    {"workspaces", required_argument, NULL, OPT_WORKSPACES},
    {"sru-package", no_argument, NULL, OPT_SRU_PACKAGE},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"cold-start", no_argument, NULL, OPT_COLD_START},
    {"csv", required_argument, NULL, OPT_CSV},
    {"json", required_argument, NULL, OPT_JSON},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"cold-child", required_argument, NULL, OPT_COLD_CHILD},
    {NULL, 0, NULL, 0},
};

/* The parse in progress: the arguments, and what the options given say
 * beyond them: which of the numbers --quick also sets were given, and the
 * cuDNN algorithms (each --cudnn-algos adds to the set, which then
 * replaces the default). */
typedef struct {
    bench_args *a;
    int repeats_given, warmup_given;
    int algos_given;
    unsigned algos;
    const char *preset; /* --preset's name, applied once every list is known */
    int lengths_given;
} parse_state;

/* One option (tool_option_fn). */
static int apply(void *ctx, int c, const char *name, const char *value, char *err, size_t n)
{
    parse_state *ps = ctx;
    bench_args *a = ps->a;
    long v;
    int k;
    switch (c) {
    case 'h': a->help = 1; return 0;
    case OPT_VERSION: a->version = 1; return 0;
    case 'v': a->verbose = 1; return 0;
    case OPT_MODES:
        return tool_parse_list(name, value, BENCH_MAX_LIST, item_mode, a->modes, &a->n_modes, err,
                               n);
    case OPT_HIDDEN:
        return tool_parse_ints(name, value, 1, 65536, a->hidden, BENCH_MAX_LIST, &a->n_hidden, err,
                               n);
    case OPT_PROJ:
        return tool_parse_ints(name, value, 0, 65535, a->proj, BENCH_MAX_LIST, &a->n_proj, err, n);
    case OPT_BATCH:
        return tool_parse_ints(name, value, 1, 65536, a->batch, BENCH_MAX_LIST, &a->n_batch, err,
                               n);
    case OPT_DTYPE:
        return tool_parse_list(name, value, BENCH_MAX_LIST, item_dtype, a->dtypes, &a->n_dtypes,
                               err, n);
    case OPT_SEQ:
        return tool_parse_ints(name, value, 1, 1000000, a->seq, BENCH_MAX_LIST, &a->n_seq, err, n);
    case OPT_PASS:
        if (tool_parse_list(name, value, 2, item_pass, a->passes, &k, err, n))
            return -1;
        a->n_passes = k == 2 && a->passes[0] == a->passes[1] ? 1 : k;
        return 0;
    case OPT_TRAINING:
        a->passes[0] = BENCH_TRAINING;
        a->n_passes = 1;
        return 0;
    case OPT_LAYOUT:
        return tool_parse_list(name, value, BENCH_NUM_LAYOUTS, item_layout, a->layouts,
                               &a->n_layouts, err, n);
    case OPT_LENGTHS:
        if (bench_lengths_parse(value, &a->lengths))
            return tool_bad_value(err, n, name, value, "must be full or varied");
        ps->lengths_given = 1;
        return 0;
    case OPT_PAD_INPUT:
        if (!strcasecmp(value, "nan"))
            a->pad_input = BENCH_PAD_NAN;
        else if (!strcasecmp(value, "finite"))
            a->pad_input = BENCH_PAD_FINITE;
        else
            return tool_bad_value(err, n, name, value, "must be nan or finite");
        return 0;
    case OPT_INPUT:
        if (tool_parse_long(name, value, 1, 65536, &v, err, n))
            return -1;
        a->input = (int)v;
        return 0;
    case OPT_LAYERS:
        if (tool_parse_long(name, value, 1, 256, &v, err, n))
            return -1;
        a->layers = (int)v;
        return 0;
    case OPT_BIDIRECTIONAL: a->bidirectional = 1; return 0;
    case OPT_REPEATS:
        if (tool_parse_long(name, value, 1, 100000, &v, err, n))
            return -1;
        a->repeats = (int)v;
        ps->repeats_given = 1;
        return 0;
    case OPT_WARMUP:
        if (tool_parse_long(name, value, 0, 1000, &v, err, n))
            return -1;
        a->warmup = (int)v;
        ps->warmup_given = 1;
        return 0;
    case OPT_MATH:
        if (!strcasecmp(value, "strict"))
            a->math = BENCH_MATH_STRICT;
        else if (!strcasecmp(value, "tf32"))
            a->math = BENCH_MATH_TF32;
        else
            return tool_bad_value(err, n, name, value, "must be strict or tf32");
        return 0;
    case OPT_CUDNN_ALGOS:
        ps->algos_given = 1;
        return tool_parse_list(name, value, BENCH_MAX_LIST, item_algo, &ps->algos, &k, err, n);
    case OPT_QUICK: a->quick = 1; return 0;
    case OPT_PRESET: ps->preset = value; return 0;
    case OPT_NO_CUDNN: a->no_cudnn = 1; return 0;
    case OPT_NO_PRNN: a->no_prnn = 1; return 0;
    case OPT_WORKSPACES:
        if (tool_parse_long(name, value, 1, 4096, &v, err, n))
            return -1;
        a->workspaces = (int)v;
        return 0;
    case OPT_SRU_PACKAGE: a->sru_package = 1; return 0;
    case OPT_DEVICE:
        if (tool_parse_long(name, value, 0, 1024, &v, err, n))
            return -1;
        a->device = (int)v;
        return 0;
    case OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(value, &end, 0);
        if (errno || !*value || *end || *value == '-')
            return tool_bad_value(err, n, name, value,
                                  "must be an unsigned integer (decimal, or hexadecimal after 0x)");
        a->seed = s;
        return 0;
    }
    case OPT_COLD_START: a->cold_start = 1; return 0;
    case OPT_CSV:
    case OPT_JSON:
    case OPT_PLOT:
        if (tool_parse_path(name, value, err, n))
            return -1;
        *(c == OPT_CSV ? &a->csv : c == OPT_JSON ? &a->json : &a->plot) = value;
        return 0;
    case OPT_COLD_CHILD: a->cold_child = value; return 0;
    }
    snprintf(err, n, "option %d is not handled", c); /* a bug, not input */
    return -1;
}

int bench_args_parse(int argc, char **argv, bench_args *a, char *err, size_t n)
{
    set_defaults(a);
    parse_state ps = {a, 0, 0, 0, 0, NULL, 0};
    int first = tool_getopt(argc, argv, "hv", long_options, apply, &ps, err, n);
    if (first < 0 || tool_no_operands("prnn-bench", argc, argv, first, err, n))
        return -1;
    if (ps.algos_given)
        a->cudnn_algos = ps.algos;
    /* --quick keeps to its minute: fewer repeats unless asked for. */
    if (a->quick && !ps.repeats_given)
        a->repeats = 10;
    if (a->quick && !ps.warmup_given)
        a->warmup = 2;
    if (a->no_cudnn && a->no_prnn) {
        snprintf(err, n, "--no-cudnn and --no-prnn together leave nothing to time");
        return -1;
    }
    if (!a->n_layouts) {
        a->layouts[0] = BENCH_LAYOUT_PACKED;
        a->n_layouts = 1;
    }
    /* packed has no lengths to vary: asking for it there is a mistake */
    if (ps.lengths_given && a->lengths == BENCH_LENGTHS_VARIED && !bench_args_has_padded(a)) {
        snprintf(err, n,
                 "--lengths varied needs a padded layout (--layout seq-padded or batch-padded): "
                 "packed runs every sequence T long");
        return -1;
    }
    if (ps.preset && apply_preset(a, ps.preset, err, n))
        return -1;
    fill_unset_lists(a);
    return check_proj(a, err, n);
}

static long cross_points(const bench_args *a)
{
    return (long)a->n_passes * a->n_modes * a->n_dtypes * a->n_hidden * a->n_proj * a->n_batch *
           a->n_seq;
}

long bench_args_num_points(const bench_args *a)
{
    return (cross_points(a) + a->n_extra) * a->n_layouts;
}

/* The point's layout: number il of --layout. */
static void set_layout(const bench_args *a, int il, bench_point *pt)
{
    pt->layout = a->layouts[il];
    pt->lengths = pt->layout == BENCH_LAYOUT_PACKED ? BENCH_LENGTHS_FULL : a->lengths;
}

void bench_args_point(const bench_args *a, long idx, bench_point *pt)
{
    memset(pt, 0, sizeof(*pt));
    int il = (int)(idx % a->n_layouts);
    idx /= a->n_layouts;
    if (idx >= cross_points(a)) {
        *pt = a->extra[idx - cross_points(a)];
        set_layout(a, il, pt);
        return;
    }
    set_layout(a, il, pt);
    long i = idx;
    int s = (int)(i % a->n_seq);
    i /= a->n_seq;
    int b = (int)(i % a->n_batch);
    i /= a->n_batch;
    int j = (int)(i % a->n_proj);
    i /= a->n_proj;
    int h = (int)(i % a->n_hidden);
    i /= a->n_hidden;
    int d = (int)(i % a->n_dtypes);
    i /= a->n_dtypes;
    int m = (int)(i % a->n_modes);
    i /= a->n_modes;
    int p = (int)(i % a->n_passes);
    pt->pass = a->passes[p];
    pt->mode = a->modes[m];
    pt->dtype = a->dtypes[d];
    pt->hidden = a->hidden[h];
    pt->proj = a->proj[j];
    pt->input = a->input ? a->input : a->hidden[h];
    pt->batch = a->batch[b];
    pt->seq = a->seq[s];
    pt->layers = a->layers;
    pt->bidirectional = a->bidirectional;
}
