#include "bench_args.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void bench_usage(FILE *f, const char *prog)
{
    fprintf(f,
"usage: %s [options]\n"
"\n"
"Times prnn against cuDNN 9 (every RNN algorithm) and a per-step cuBLASLt\n"
"loop captured in a CUDA graph, on the same shapes, weights and inputs.\n"
"Prints a table (µs per timestep, median of the repeats) and, last, the\n"
"geometric mean of prnn / best cuDNN per mode and data type.\n"
"\n"
"Sweep (comma-separated lists):\n"
"  --modes LIST       relu,tanh,lstm,gru              [tanh,lstm,gru]\n"
"  --hidden LIST      hidden sizes                    [256,512,1024,2048]\n"
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
"  --quick            small sweep, under a minute on an H100: lstm,gru,tanh x\n"
"                     hidden 256,1024 x batch 1,8,64 x float,half; with a\n"
"                     training pass lstm,gru x hidden 512,1024 x batch 1,16\n"
"                     x float,half; 10 repeats after 2 warm-ups (flags given\n"
"                     as well override its lists and numbers)\n"
"\n"
"Measurement:\n"
"  --repeats N        timed calls per implementation and point   [20]\n"
"  --warmup N         untimed calls before them                  [3]\n"
"  --math strict|tf32 strict: FP32 everywhere for float data (prnn\n"
"                     DEFAULT_MATH, cuDNN FMA_MATH); tf32: TF32 allowed in\n"
"                     the non-recurrent GEMMs (prnn TENSOR_OP_MATH, cuDNN\n"
"                     DEFAULT_MATH). Half/bfloat16 use tensor cores in both.\n"
"                     [strict]\n"
"  --cudnn-algos LIST standard,static,dynamic,small_h          [all four]\n"
"  --no-cudnn         time prnn only\n"
"  --no-prnn          time cuDNN only\n"
"  --device N         CUDA device ordinal                        [0]\n"
"  --seed N           seed of the random weights and inputs     [1]\n"
"  --cold-start       also measure prnn's plan time with an empty kernel\n"
"                     cache (NVRTC compile), a warm disk cache and in memory,\n"
"                     each shape in fresh processes\n"
"\n"
"Output:\n"
"  --csv FILE         every number, one row per point (of each training\n"
"                     phase: the median)\n"
"  --json FILE        every number, for tools/plot_bench.py\n"
"  --plot FILE.png    runs tools/plot_bench.py (python3 + matplotlib)\n"
"  -v, --verbose      say why each algorithm was refused, and progress\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 when the sweep ran (individual failures are shown in the\n"
"table), 1 when the device failed, 2 for bad arguments or no GPU.\n",
            prog);
}

static int fail(char *err, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int bench_parse_mode(const char *s, prnnRNNMode_t *m)
{
    static const struct { const char *name; prnnRNNMode_t mode; } t[] = {
        {"relu", PRNN_RNN_RELU}, {"tanh", PRNN_RNN_TANH},
        {"lstm", PRNN_LSTM},     {"gru", PRNN_GRU},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcasecmp(s, t[i].name) == 0) {
            *m = t[i].mode;
            return 0;
        }
    return -1;
}

int bench_parse_dtype(const char *s, prnnDataType_t *d)
{
    static const struct { const char *name; prnnDataType_t t; } t[] = {
        {"float", PRNN_DATA_FLOAT},   {"f32", PRNN_DATA_FLOAT},
        {"fp32", PRNN_DATA_FLOAT},    {"half", PRNN_DATA_HALF},
        {"f16", PRNN_DATA_HALF},      {"fp16", PRNN_DATA_HALF},
        {"bfloat16", PRNN_DATA_BFLOAT16}, {"bf16", PRNN_DATA_BFLOAT16},
        {"double", PRNN_DATA_DOUBLE}, {"f64", PRNN_DATA_DOUBLE},
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
    static const struct { const char *name; unsigned algo; } t[] = {
        {"standard", 0},       {"static", 1},
        {"persist_static", 1}, {"dynamic", 2},
        {"persist_dynamic", 2}, {"small_h", 3},
        {"persist_static_small_h", 3}, {"persist_small_h", 3},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strcasecmp(s, t[i].name) == 0) {
            *bit = 1u << t[i].algo;
            return 0;
        }
    return -1;
}

typedef int (*item_fn)(const char *item, void *list, int idx, char *err,
                       size_t n, const char *flag);

/* Splits a comma-separated value and hands each item to fn. */
static int parse_list(const char *flag, const char *value, item_fn fn,
                      void *list, int *count, char *err, size_t n)
{
    char buf[1024];
    if (strlen(value) >= sizeof(buf))
        return fail(err, n, "%s: list too long", flag);
    strcpy(buf, value);
    int k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        if (k >= BENCH_MAX_LIST)
            return fail(err, n, "%s: more than %d values", flag,
                        BENCH_MAX_LIST);
        if (fn(tok, list, k, err, n, flag))
            return -1;
        k++;
    }
    if (k == 0)
        return fail(err, n, "%s: empty list", flag);
    *count = k;
    return 0;
}

static int item_mode(const char *s, void *list, int idx, char *err, size_t n,
                     const char *flag)
{
    prnnRNNMode_t m;
    if (bench_parse_mode(s, &m))
        return fail(err, n, "%s: '%s' is not a mode (relu, tanh, lstm, gru)",
                    flag, s);
    ((prnnRNNMode_t *)list)[idx] = m;
    return 0;
}

static int item_dtype(const char *s, void *list, int idx, char *err, size_t n,
                      const char *flag)
{
    prnnDataType_t t;
    if (bench_parse_dtype(s, &t))
        return fail(err, n,
                    "%s: '%s' is not a data type (float, half, bfloat16, "
                    "double)",
                    flag, s);
    ((prnnDataType_t *)list)[idx] = t;
    return 0;
}

static int item_hidden(const char *s, void *list, int idx, char *err,
                       size_t n, const char *flag)
{
    long v;
    if (parse_long(s, 1, 65536, &v))
        return fail(err, n, "%s: '%s' is not a size from 1 to 65536", flag, s);
    ((int *)list)[idx] = (int)v;
    return 0;
}

static int item_seq(const char *s, void *list, int idx, char *err, size_t n,
                    const char *flag)
{
    long v;
    if (parse_long(s, 1, 1000000, &v))
        return fail(err, n, "%s: '%s' is not a length from 1 to 1000000",
                    flag, s);
    ((int *)list)[idx] = (int)v;
    return 0;
}

static int item_pass(const char *s, void *list, int idx, char *err, size_t n,
                     const char *flag)
{
    bench_pass p;
    if (strcasecmp(s, "inference") == 0 || strcasecmp(s, "forward") == 0)
        p = BENCH_INFERENCE;
    else if (strcasecmp(s, "training") == 0)
        p = BENCH_TRAINING;
    else
        return fail(err, n, "%s: '%s' is not inference or training", flag, s);
    if (idx >= 2)
        return fail(err, n, "%s: at most two passes", flag);
    ((bench_pass *)list)[idx] = p;
    return 0;
}

static int item_algo(const char *s, void *list, int idx, char *err, size_t n,
                     const char *flag)
{
    (void)idx;
    unsigned bit;
    if (parse_cudnn_algo(s, &bit))
        return fail(err, n,
                    "%s: '%s' is not a cuDNN algorithm (standard, static, "
                    "dynamic, small_h)",
                    flag, s);
    *(unsigned *)list |= bit;
    return 0;
}

static void set_defaults(bench_args *a)
{
    memset(a, 0, sizeof(*a));
    a->layers = 1;
    a->repeats = 20;
    a->warmup = 3;
    a->math = BENCH_MATH_STRICT;
    a->cudnn_algos = 0xF;
    a->seed = 1;
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
/* DESIGN.md section 8's sweep, for both passes: for training it is also
 * the grid the training-step issue names (T = 256, one layer, float and
 * half). */
static const default_grid full_grid = {LIST(full_modes), LIST(full_hidden),
                                       LIST(full_batch)};

static const prnnRNNMode_t quick_modes[] = {PRNN_LSTM, PRNN_GRU,
                                            PRNN_RNN_TANH};
static const int quick_hidden[] = {256, 1024};
static const int quick_batch[] = {1, 8, 64};
static const default_grid quick_grid = {LIST(quick_modes),
                                        LIST(quick_hidden),
                                        LIST(quick_batch)};

/* A training point costs several inference points (three calls, timed as
 * a step and again one by one, and prnn's forward inference beside them):
 * fewer points keep --quick near its minute (16 instead of 36). */
static const prnnRNNMode_t quick_training_modes[] = {PRNN_LSTM, PRNN_GRU};
static const int quick_training_hidden[] = {512, 1024};
static const int quick_training_batch[] = {1, 16};
static const default_grid quick_training_grid = {
    LIST(quick_training_modes), LIST(quick_training_hidden),
    LIST(quick_training_batch)};

static const prnnDataType_t default_dtypes[] = {PRNN_DATA_FLOAT,
                                                PRNN_DATA_HALF};

int bench_args_has_training(const bench_args *a)
{
    for (int i = 0; i < a->n_passes; i++)
        if (a->passes[i] == BENCH_TRAINING)
            return 1;
    return 0;
}

static void fill_unset_lists(bench_args *a)
{
    if (!a->n_passes) {
        a->passes[0] = BENCH_INFERENCE;
        a->n_passes = 1;
    }
    const default_grid *g = &full_grid;
    if (a->quick)
        g = bench_args_has_training(a) ? &quick_training_grid : &quick_grid;
#define FILL(dst, cnt, src, src_cnt)                                          \
    do {                                                                      \
        if (!(cnt)) {                                                         \
            (cnt) = (src_cnt);                                                \
            memcpy((dst), (src), (size_t)(src_cnt) * sizeof((dst)[0]));       \
        }                                                                     \
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
}

/* Options that take a value. */
static const char *const valued[] = {
    "--modes", "--mode",  "--hidden", "--batch", "--dtype",  "--dtypes",
    "--seq",   "--input", "--layers", "--pass",  "--repeats", "--warmup",
    "--math",  "--csv",   "--json",   "--plot",  "--device", "--seed",
    "--cudnn-algos", "--cold-child", NULL,
};

static int takes_value(const char *name)
{
    for (const char *const *v = valued; *v; v++)
        if (strcmp(*v, name) == 0)
            return 1;
    return 0;
}

int bench_args_parse(int argc, char **argv, bench_args *a, char *err,
                     size_t n)
{
    set_defaults(a);
    err[0] = '\0';
    int algos_given = 0, repeats_given = 0, warmup_given = 0;
    unsigned algos = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq) {
            size_t len = (size_t)(eq - arg);
            if (len >= sizeof(name))
                return fail(err, n, "unknown option '%s'", arg);
            memcpy(name, arg, len);
            name[len] = '\0';
            value = eq + 1;
        } else {
            bench_copy(name, sizeof(name), arg);
        }
        if (takes_value(name)) {
            if (!value) {
                if (i + 1 >= argc)
                    return fail(err, n, "%s needs a value", name);
                value = argv[++i];
            }
        } else if (value) {
            return fail(err, n, "%s takes no value", name);
        }

        long v;
        if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
            a->help = 1;
        } else if (!strcmp(name, "-v") || !strcmp(name, "--verbose")) {
            a->verbose = 1;
        } else if (!strcmp(name, "--modes") || !strcmp(name, "--mode")) {
            if (parse_list(name, value, item_mode, a->modes, &a->n_modes, err,
                           n))
                return -1;
        } else if (!strcmp(name, "--hidden")) {
            if (parse_list(name, value, item_hidden, a->hidden, &a->n_hidden,
                           err, n))
                return -1;
        } else if (!strcmp(name, "--batch")) {
            if (parse_list(name, value, item_hidden, a->batch, &a->n_batch,
                           err, n))
                return -1;
        } else if (!strcmp(name, "--dtype") || !strcmp(name, "--dtypes")) {
            if (parse_list(name, value, item_dtype, a->dtypes, &a->n_dtypes,
                           err, n))
                return -1;
        } else if (!strcmp(name, "--seq")) {
            if (parse_list(name, value, item_seq, a->seq, &a->n_seq, err, n))
                return -1;
        } else if (!strcmp(name, "--pass")) {
            bench_pass p[BENCH_MAX_LIST];
            int k = 0;
            if (parse_list(name, value, item_pass, p, &k, err, n))
                return -1;
            if (k == 2 && p[0] == p[1])
                k = 1;
            memcpy(a->passes, p, (size_t)k * sizeof(p[0]));
            a->n_passes = k;
        } else if (!strcmp(name, "--training")) {
            a->passes[0] = BENCH_TRAINING;
            a->n_passes = 1;
        } else if (!strcmp(name, "--input")) {
            if (parse_long(value, 1, 65536, &v))
                return fail(err, n, "--input: '%s' is not a size from 1 to "
                            "65536", value);
            a->input = (int)v;
        } else if (!strcmp(name, "--layers")) {
            if (parse_long(value, 1, 256, &v))
                return fail(err, n, "--layers: '%s' is not from 1 to 256",
                            value);
            a->layers = (int)v;
        } else if (!strcmp(name, "--bidirectional")) {
            a->bidirectional = 1;
        } else if (!strcmp(name, "--repeats")) {
            if (parse_long(value, 1, 100000, &v))
                return fail(err, n, "--repeats: '%s' is not from 1 to 100000",
                            value);
            a->repeats = (int)v;
            repeats_given = 1;
        } else if (!strcmp(name, "--warmup")) {
            if (parse_long(value, 0, 1000, &v))
                return fail(err, n, "--warmup: '%s' is not from 0 to 1000",
                            value);
            a->warmup = (int)v;
            warmup_given = 1;
        } else if (!strcmp(name, "--math")) {
            if (!strcasecmp(value, "strict"))
                a->math = BENCH_MATH_STRICT;
            else if (!strcasecmp(value, "tf32"))
                a->math = BENCH_MATH_TF32;
            else
                return fail(err, n, "--math: '%s' is not strict or tf32",
                            value);
        } else if (!strcmp(name, "--cudnn-algos")) {
            int k;
            if (parse_list(name, value, item_algo, &algos, &k, err, n))
                return -1;
            algos_given = 1;
        } else if (!strcmp(name, "--quick")) {
            a->quick = 1;
        } else if (!strcmp(name, "--no-cudnn")) {
            a->no_cudnn = 1;
        } else if (!strcmp(name, "--no-prnn")) {
            a->no_prnn = 1;
        } else if (!strcmp(name, "--device")) {
            if (parse_long(value, 0, 1024, &v))
                return fail(err, n, "--device: '%s' is not a device ordinal",
                            value);
            a->device = (int)v;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(value, &end, 0);
            if (errno || !*value || *end || *value == '-')
                return fail(err, n, "--seed: '%s' is not a number", value);
            a->seed = s;
        } else if (!strcmp(name, "--cold-start")) {
            a->cold_start = 1;
        } else if (!strcmp(name, "--csv")) {
            if (!*value)
                return fail(err, n, "--csv: empty file name");
            a->csv = value;
        } else if (!strcmp(name, "--json")) {
            if (!*value)
                return fail(err, n, "--json: empty file name");
            a->json = value;
        } else if (!strcmp(name, "--plot")) {
            if (!*value)
                return fail(err, n, "--plot: empty file name");
            a->plot = value;
        } else if (!strcmp(name, "--cold-child")) {
            a->cold_child = value;
        } else if (arg[0] == '-') {
            return fail(err, n, "unknown option '%s'", arg);
        } else {
            return fail(err, n, "unexpected argument '%s'", arg);
        }
    }
    if (algos_given)
        a->cudnn_algos = algos;
    /* --quick keeps to its minute: fewer repeats unless asked for. */
    if (a->quick && !repeats_given)
        a->repeats = 10;
    if (a->quick && !warmup_given)
        a->warmup = 2;
    if (a->no_cudnn && a->no_prnn)
        return fail(err, n, "--no-cudnn and --no-prnn together leave nothing "
                    "to time");
    fill_unset_lists(a);
    return 0;
}

long bench_args_num_points(const bench_args *a)
{
    return (long)a->n_passes * a->n_modes * a->n_dtypes * a->n_hidden *
           a->n_batch * a->n_seq;
}

void bench_args_point(const bench_args *a, long idx, bench_point *pt)
{
    memset(pt, 0, sizeof(*pt));
    long i = idx;
    int s = (int)(i % a->n_seq);
    i /= a->n_seq;
    int b = (int)(i % a->n_batch);
    i /= a->n_batch;
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
    pt->input = a->input ? a->input : a->hidden[h];
    pt->batch = a->batch[b];
    pt->seq = a->seq[s];
    pt->layers = a->layers;
    pt->bidirectional = a->bidirectional;
}
