/* prnn-bench's text on the terminal: preamble, table, footer, cold-start
 * table. */
#include "bench_report.h"

#include <math.h>
#include <string.h>

#include "bench_layout.h"

int bench_display_width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80)
            w++;
    return w;
}

/* Writes s padded to width display columns (right-aligned when right). */
static void cell(FILE *f, const char *s, int width, int right)
{
    int pad = width - bench_display_width(s);
    if (pad < 0)
        pad = 0;
    if (right)
        fprintf(f, "%*s%s", pad, "", s);
    else
        fprintf(f, "%s%*s", s, pad, "");
}

void bench_report_preamble(FILE *f, const bench_meta *m)
{
    fprintf(f, "prnn-bench: prnn %s on %s\n", m->prnn_version, m->device);
    fprintf(f, "driver: %s; cuDNN: %s\n", m->driver, m->cudnn);
    fprintf(f, "date: %s\n", m->date);
    /* clang-format off */
    if (m->math && strcmp(m->math, "tf32") == 0)
        fprintf(f,
"math: tf32: float data may use TF32 tensor cores wherever each uses them\n"
"  (prnn PRNN_TF32_RECURRENCE_MATH: its GEMMs, the standard engine's\n"
"  per-step recurrent ones included; cuDNN CUDNN_DEFAULT_MATH); half and\n"
"  bfloat16 use tensor cores in both (cuDNN CUDNN_TENSOR_OP_MATH).\n");
    else
        fprintf(f,
"math: strict: float data runs FP32 everywhere in both (prnn\n"
"  PRNN_DEFAULT_MATH, cuDNN CUDNN_FMA_MATH; cuDNN's DEFAULT_MATH would\n"
"  silently run its fp32 input GEMM in TF32, see docs/ARCHITECTURE.md); half\n"
"  and bfloat16 use tensor cores in both (cuDNN CUDNN_TENSOR_OP_MATH).\n");
    fprintf(f,
"timing: µs per timestep = median over %d calls / T. One call = one forward\n"
"  over the whole sequence (training: forward + backward-data +\n"
"  backward-weights), between two CUDA events on an idle stream, after one\n"
"  checked call and %d warm-up calls; inputs and weights stay the same.\n"
"  Plan, compile and setup are excluded (in the CSV/JSON: prnn's plan =\n"
"  prnnPrepareRNN + prnnGetRNNPlanInfo, cuDNN's setup = its descriptor\n"
"  calls incl. cudnnBuildRNNDynamic; first_call_ms = the checked call).\n",
            m->repeats, m->warmup);
    if (m->workspaces > 1)
        fprintf(f,
"prnn's calls take the next of %d workspaces each time (--workspaces): above\n"
"  64, no call repeats an earlier one's launches soon enough for prnn to\n"
"  replay it from its call graphs.\n",
                m->workspaces);
    fprintf(f,
"columns: prnn = PRNN_RNN_ALGO_AUTO, plain API call on a stream; path = the\n"
"  plan it ran; prnn graph = that call captured into a CUDA graph, replayed;\n"
"  cublasLt-graph = PRNN_RNN_ALGO_STANDARD (one cuBLASLt GEMM + one fused\n"
"  pointwise kernel per step) captured and replayed; max rel diff = the\n"
"  largest max|out - ref| / max|ref| of any implementation's outputs against\n"
"  prnn's (or, without prnn, the first that ran).\n"
"  — cuDNN refused the shape (NOT_SUPPORTED); n/a prnn does not support it\n"
"  (yet); err failed (message on stderr, CSV, JSON); off not run;\n"
"  * cuDNN refused its first math choice and ran its fallback (float:\n"
"  DEFAULT_MATH instead of FMA_MATH; half: mathPrec float instead of half;\n"
"  bfloat16: mathPrec bfloat16 instead of float); the CSV/JSON note says\n"
"  which.\n");
    if (m->training)
        fprintf(f,
"training: the columns above time the whole step. Then each phase is timed\n"
"  alone, in a loop of its own after the step's (per repeat the three calls\n"
"  in order, each between two CUDA events from an idle stream, so each\n"
"  counts its own host-side cost, like an inference call; they add up to a\n"
"  little more than the step): prnn fwd / bwd-data / bwd-wgts = prnn's\n"
"  forward-training, backward-data, backward-weights; fwd-inf = prnn's\n"
"  forward inference of the same shape; bwd-data/inf = the ratio of the\n"
"  two (target <= %.1f); cuDNN fwd / bwd-data / bwd-wgts = the phases of\n"
"  the best cuDNN algorithm (best by whole step). µs per timestep.\n",
                BENCH_BWD_DATA_TARGET);
    if (m->padded)
        fprintf(f,
"layout: packed = time-major, every sequence T long, prnn's v5 calls (v8\n"
"  with a projection) and cuDNN's SEQ_MAJOR_PACKED. seq-padded / batch-padded = SEQ_MAJOR_UNPACKED /\n"
"  BATCH_MAJOR_UNPACKED, room for T steps per sequence (T = maxSeqLength;\n"
"  µs per timestep is still the call / T), through prnn's prnnRNNForward,\n"
"  prnnRNNBackwardData_v8, prnnRNNBackwardWeights_v8 and cuDNN's same calls\n"
"  (prnn graph and cublasLt-graph capture prnn's). %s\n"
"  The padding of x and dy holds %s; y and dx are compared over their\n"
"  valid steps, y's padding with the fill (0) too.\n",
                m->lengths == BENCH_LENGTHS_VARIED
                    ? "Lengths varied: spaced\n"
                      "  evenly from T down to ceil(T/2), sequence 0 T long, the others in a\n"
                      "  fixed shuffled order; about 3/4 of B*T steps hold data."
                    : "Lengths full: every\n"
                      "  sequence T long, the packed point's work.",
                m->pad_input && strcmp(m->pad_input, "finite") == 0 ? "8.0 (--pad-input finite)"
                                                                    : "NaN");
    if (m->proj)
        fprintf(f,
"projection: P = the LSTM projection size (projSize; 0: none): y is\n"
"  directions x P wide, hx / hy P, cx / cy H. A point with one runs prnn's\n"
"  v8 calls (prnnSetRNNDescriptor_v8 with projSize P) and cuDNN's, in its\n"
"  layout (packed too); cuDNN has projections in CUDNN_RNN_ALGO_STANDARD\n"
"  only (its persistent algorithms show as refused there).\n");
    fputc('\n', f);
    /* clang-format on */
    fflush(f);
}

typedef struct {
    const char *title;
    int width;
    int right;
} column;

enum {
    C_MODE,
    C_DTYPE,
    C_PASS,
    C_H,
    C_P, /* BENCH_TABLE_PROJ only */
    C_B,
    C_T,
    C_LAYOUT, /* BENCH_TABLE_LAYOUT only */
    C_PRNN,
    C_PATH,
    C_PGRAPH,
    C_STD,
    C_STATIC,
    C_DYN,
    C_SMALL,
    C_BEST,
    C_CUBLAS,
    C_RATIO,
    C_DIFF,
    C_COUNT, /* the columns of every table; then the training ones */
    C_PRNN_FWD = C_COUNT,
    C_PRNN_BWD_DATA,
    C_PRNN_BWD_WEIGHTS,
    C_FWD_INF,
    C_BWD_RATIO,
    C_CUDNN_FWD,
    C_CUDNN_BWD_DATA,
    C_CUDNN_BWD_WEIGHTS,
    C_ALL
};

static const column cols[C_ALL] = {
    {"mode", 5, 0},
    {"dtype", 5, 0},
    {"pass", 5, 0},
    {"H", 5, 1},
    {"P", 5, 1},
    {"B", 5, 1},
    {"T", 5, 1},
    {"layout", 12, 0},
    {"prnn", 8, 1},
    {"path", 9, 0},
    {"prnn graph", 10, 1},
    {"STANDARD", 9, 1},
    {"PERSIST_STATIC", 15, 1},
    {"PERSIST_DYNAMIC", 16, 1},
    {"PERSIST_SMALL_H", 16, 1},
    {"best cuDNN", 17, 1},
    {"cublasLt-graph", 15, 1},
    {"prnn/best", 10, 1},
    {"max rel diff", 13, 1},
    {"prnn fwd", 8, 1},
    {"bwd-data", 8, 1},
    {"bwd-wgts", 8, 1},
    {"fwd-inf", 8, 1},
    {"bwd-data/inf", 12, 1},
    {"cuDNN fwd", 9, 1},
    {"bwd-data", 8, 1},
    {"bwd-wgts", 8, 1},
};

/* Where the table puts a separator before the column. */
static int bar_before(int c)
{
    return c == C_PRNN || c == C_STD || c == C_BEST || c == C_RATIO || c == C_PRNN_FWD ||
           c == C_CUDNN_FWD;
}

/* 1 when column c is in a table of these cols (bench_report.h). */
static int shown(int c, int flags)
{
    if (c == C_LAYOUT)
        return (flags & BENCH_TABLE_LAYOUT) != 0;
    if (c == C_P)
        return (flags & BENCH_TABLE_PROJ) != 0;
    return c < C_COUNT || (flags & BENCH_TABLE_PHASES);
}

int bench_table_cols(const bench_meta *m)
{
    return (m->training ? BENCH_TABLE_PHASES : 0) | (m->padded ? BENCH_TABLE_LAYOUT : 0) |
           (m->proj ? BENCH_TABLE_PROJ : 0);
}

static void row(FILE *f, char cells[C_ALL][64], int flags)
{
    for (int c = 0; c < C_ALL; c++) {
        if (!shown(c, flags))
            continue;
        if (c)
            fputs(bar_before(c) ? " | " : " ", f);
        cell(f, cells[c], cols[c].width, cols[c].right);
    }
    fputc('\n', f);
    fflush(f);
}

void bench_table_header(FILE *f, int flags)
{
    char cells[C_ALL][64];
    for (int c = 0; c < C_ALL; c++)
        bench_copy(cells[c], sizeof(cells[c]), cols[c].title);
    row(f, cells, flags);
    int total = 0;
    for (int c = 0; c < C_ALL; c++)
        if (shown(c, flags))
            total += cols[c].width + (c ? (bar_before(c) ? 3 : 1) : 0);
    for (int i = 0; i < total; i++)
        fputc('-', f);
    fputc('\n', f);
}

static const char *short_algo(int impl)
{
    switch (impl) {
    case BENCH_IMPL_CUDNN_STANDARD: return "STANDARD";
    case BENCH_IMPL_CUDNN_PERSIST_STATIC: return "STATIC";
    case BENCH_IMPL_CUDNN_PERSIST_DYNAMIC: return "DYNAMIC";
    case BENCH_IMPL_CUDNN_PERSIST_SMALL_H: return "SMALL_H";
    }
    return "?";
}

/* One figure of ir (its whole call, a phase): the number, or what became
 * of the implementation. */
static void fmt_stats(char *buf, size_t n, const bench_impl_result *ir, const bench_stats *s)
{
    switch (ir->state) {
    case BENCH_OK:
        if (isnan(s->median))
            snprintf(buf, n, "-");
        else
            snprintf(buf, n, "%.2f%s", s->median, ir->fallback ? "*" : "");
        break;
    case BENCH_REFUSED: snprintf(buf, n, "—"); break;
    case BENCH_NA: snprintf(buf, n, "n/a"); break;
    case BENCH_FAILED: snprintf(buf, n, "err"); break;
    case BENCH_NOT_RUN: snprintf(buf, n, "off"); break;
    }
}

static void fmt_impl(char *buf, size_t n, const bench_impl_result *ir)
{
    fmt_stats(buf, n, ir, &ir->us);
}

static void fmt_ratio(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2f", v);
}

static void fmt_diff(char *buf, size_t n, const bench_result *r)
{
    if (!bench_result_compared(r))
        snprintf(buf, n, "-");
    else if (isnan(r->max_rel_diff))
        snprintf(buf, n, "NaN!");
    else
        snprintf(buf, n, "%.1e", r->max_rel_diff);
}

/* The training columns of r ("-" on an inference point). */
static void phase_cells(char c[C_ALL][64], const bench_result *r)
{
    for (int k = C_COUNT; k < C_ALL; k++)
        snprintf(c[k], 64, "-");
    if (r->pt.pass != BENCH_TRAINING)
        return;
    const bench_impl_result *p = &r->impl[BENCH_IMPL_PRNN];
    const bench_impl_result *best = bench_best_cudnn(r);
    for (int ph = 0; ph < BENCH_NUM_PHASES; ph++) {
        fmt_stats(c[C_PRNN_FWD + ph], 64, p, &p->phase[ph]);
        if (best)
            fmt_stats(c[C_CUDNN_FWD + ph], 64, best, &best->phase[ph]);
    }
    fmt_impl(c[C_FWD_INF], 64, &r->fwd_inference);
    fmt_ratio(c[C_BWD_RATIO], 64, r->bwd_data_ratio);
}

void bench_table_row(FILE *f, const bench_result *r, int flags)
{
    char c[C_ALL][64];
    const bench_point *pt = &r->pt;
    const bench_impl_result *best = bench_best_cudnn(r);
    snprintf(c[C_MODE], 64, "%s", prnn_mode_name(pt->mode));
    snprintf(c[C_DTYPE], 64, "%s", bench_dtype_short(pt->dtype));
    snprintf(c[C_PASS], 64, "%s", pt->pass == BENCH_TRAINING ? "train" : "inf");
    snprintf(c[C_H], 64, "%d", pt->hidden);
    snprintf(c[C_P], 64, "%d", pt->proj);
    snprintf(c[C_B], 64, "%d", pt->batch);
    snprintf(c[C_T], 64, "%d", pt->seq);
    snprintf(c[C_LAYOUT], 64, "%s", bench_layout_name(pt->layout));
    fmt_impl(c[C_PRNN], 64, &r->impl[BENCH_IMPL_PRNN]);
    snprintf(c[C_PATH], 64, "%s", r->plan.valid ? r->plan.path : "-");
    fmt_impl(c[C_PGRAPH], 64, &r->impl[BENCH_IMPL_PRNN_GRAPH]);
    fmt_impl(c[C_STD], 64, &r->impl[BENCH_IMPL_CUDNN_STANDARD]);
    fmt_impl(c[C_STATIC], 64, &r->impl[BENCH_IMPL_CUDNN_PERSIST_STATIC]);
    fmt_impl(c[C_DYN], 64, &r->impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC]);
    fmt_impl(c[C_SMALL], 64, &r->impl[BENCH_IMPL_CUDNN_PERSIST_SMALL_H]);
    if (best)
        snprintf(c[C_BEST], 64, "%.2f %s", best->us.median, short_algo(r->best_cudnn));
    else
        snprintf(c[C_BEST], 64, "-");
    fmt_impl(c[C_CUBLAS], 64, &r->impl[BENCH_IMPL_CUBLASLT_GRAPH]);
    fmt_ratio(c[C_RATIO], 64, r->ratio);
    fmt_diff(c[C_DIFF], 64, r);
    phase_cells(c, r);
    row(f, c, flags);
}

/* "1.234", or "n/a" without a figure. */
static const char *fmt_geomean(char *buf, size_t n, double v, int used)
{
    if (used)
        snprintf(buf, n, "%.3f", v);
    else
        snprintf(buf, n, "n/a");
    return buf;
}

/* The run's training figures in one line (none without training points). */
static void training_line(FILE *f, const bench_result *rs, int n)
{
    bench_training_summary t;
    bench_summarize_training(rs, n, &t);
    if (!t.points)
        return;
    char a[32], b[32];
    fprintf(f,
            "training: prnn/best-cuDNN whole step geomean %s (%d of %d points; prnn <= cuDNN at "
            "%d); prnn bwd-data/fwd-inference geomean %s (%d of %d points; <= %.1f at %d)\n",
            fmt_geomean(a, sizeof(a), t.geomean_ratio, t.with_ratio), t.with_ratio, t.points,
            t.prnn_le_cudnn, fmt_geomean(b, sizeof(b), t.geomean_bwd_ratio, t.with_bwd_ratio),
            t.with_bwd_ratio, t.points, BENCH_BWD_DATA_TARGET, t.bwd_within_target);
}

/* "1.234 (3.25 / 3.21)": a padded / packed ratio and its medians. */
static void fmt_layout_ratio(char *buf, size_t n, double ratio, const bench_impl_result *padded,
                             const bench_impl_result *packed)
{
    if (isnan(ratio))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.3f (%.2f / %.2f)", ratio, padded->us.median, packed->us.median);
}

/* The padded points with a packed twin: prnn's (and the best cuDNN's)
 * padded / packed, one line each, then one line per layout. */
static void layout_lines(FILE *f, const bench_result *rs, int n)
{
    bench_layout_summary ls[BENCH_NUM_LAYOUTS];
    int nl = bench_summarize_layouts(rs, n, ls);
    int any = 0;
    for (int k = 0; k < nl; k++)
        any |= ls[k].with_ratio || ls[k].cudnn_with_ratio;
    if (!any)
        return;
    fprintf(f,
            "padded / packed, µs per step of the same shape (prnn's plain call; best cuDNN's); "
            "issue 27's target: prnn <= %.2f with --lengths full:\n",
            BENCH_LAYOUT_TARGET);
    for (int i = 0; i < n; i++) {
        const bench_result *r = &rs[i];
        if (isnan(r->layout_ratio) && isnan(r->layout_ratio_cudnn))
            continue;
        const bench_result *p = NULL;
        for (int j = 0; j < n && !p; j++)
            if (rs[j].pt.layout == BENCH_LAYOUT_PACKED && bench_same_shape(&rs[j].pt, &r->pt))
                p = &rs[j];
        if (!p)
            continue;
        char a[64], b[64], proj[24];
        fmt_layout_ratio(a, sizeof(a), r->layout_ratio, &r->impl[BENCH_IMPL_PRNN],
                         &p->impl[BENCH_IMPL_PRNN]);
        fmt_layout_ratio(b, sizeof(b), r->layout_ratio_cudnn, bench_best_cudnn(r),
                         bench_best_cudnn(p));
        bench_proj_suffix(proj, sizeof(proj), r->pt.proj);
        fprintf(f, "  %-9s %-4s %-4s H=%-5d%s B=%-4d T=%-5d %-12s %-6s: prnn %-22s cuDNN %s\n",
                bench_pass_name(r->pt.pass), prnn_mode_name(r->pt.mode),
                bench_dtype_short(r->pt.dtype), r->pt.hidden, proj, r->pt.batch, r->pt.seq,
                bench_layout_name(r->pt.layout), bench_lengths_name(r->pt.lengths), a, b);
    }
    for (int k = 0; k < nl; k++) {
        char a[32], b[32];
        fprintf(f,
                "geomean padded/packed %-12s: prnn %s (%d of %d points; <= %.2f at %d), best "
                "cuDNN %s (%d points)\n",
                bench_layout_name(ls[k].layout),
                fmt_geomean(a, sizeof(a), ls[k].geomean, ls[k].with_ratio), ls[k].with_ratio,
                ls[k].points, BENCH_LAYOUT_TARGET, ls[k].within_target,
                fmt_geomean(b, sizeof(b), ls[k].cudnn_geomean, ls[k].cudnn_with_ratio),
                ls[k].cudnn_with_ratio);
    }
}

void bench_table_footer(FILE *f, const bench_result *rs, int n)
{
    int failed = 0, poisoned = 0;
    for (int i = 0; i < n; i++) {
        failed += rs[i].fwd_inference.state == BENCH_FAILED;
        for (int k = 0; k < BENCH_NUM_IMPLS; k++)
            failed += rs[i].impl[k].state == BENCH_FAILED;
        for (int k = 0; k < BENCH_NUM_IMPLS; k++)
            if (rs[i].impl[k].compared && isnan(rs[i].impl[k].max_rel_diff)) {
                poisoned++;
                break;
            }
    }
    fputc('\n', f);
    if (failed)
        fprintf(
            f,
            "%d implementation run(s) failed: see the messages above (and the CSV/JSON notes).\n",
            failed);
    if (poisoned)
        fprintf(f,
                "%d point(s) with NaN/Inf in an output (NaN!): an implementation left outputs "
                "unwritten or diverged.\n",
                poisoned);

    layout_lines(f, rs, n);

    bench_group groups[256];
    double overall;
    int overall_n;
    int ng = bench_summary(rs, n, groups, 256, &overall, &overall_n);
    for (int g = 0; g < ng; g++) {
        /* packed groups as before the layouts; a padded one says which */
        const bench_group *gr = &groups[g];
        const char *layout = gr->layout == BENCH_LAYOUT_PACKED ? "" : bench_layout_name(gr->layout);
        const char *space = *layout ? " " : "";
        char proj[24];
        bench_proj_suffix(proj, sizeof(proj), gr->proj);
        if (gr->n)
            fprintf(f, "geomean prnn/best-cuDNN %-9s %-4s %-4s%s%s%s: %6.3f  (%d of %d points)\n",
                    bench_pass_name(gr->pass), prnn_mode_name(gr->mode),
                    bench_dtype_short(gr->dtype), space, layout, proj, gr->geomean, gr->n,
                    gr->points);
        else
            fprintf(f,
                    "geomean prnn/best-cuDNN %-9s %-4s %-4s%s%s%s:    n/a  (0 of %d points have "
                    "both)\n",
                    bench_pass_name(gr->pass), prnn_mode_name(gr->mode),
                    bench_dtype_short(gr->dtype), space, layout, proj, gr->points);
    }
    training_line(f, rs, n);
    if (overall_n)
        fprintf(f, "geomean prnn/best-cuDNN overall            : %6.3f  (%d of %d points)\n",
                overall, overall_n, n);
    else
        fprintf(f, "geomean prnn/best-cuDNN overall            :    n/a  (no point has both a prnn "
                   "and a cuDNN time)\n");
    fflush(f);
}

static void fmt_ms(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f", v);
}

void bench_cold_table(FILE *f, const bench_cold_result *c, int n)
{
    /* clang-format off */
    fprintf(f,
"\ncold start: prnn plan time in ms (wall clock of prnnPrepareRNN; plan =\n"
"  planMs, compile = compileMs from prnnGetRNNPlanInfo). empty cache: a fresh\n"
"  process with an empty PRNN_CACHE_DIR; memory: a second handle in that\n"
"  process; disk: another fresh process with the cache the first one filled;\n"
"  process: from that first process's start (cuInit, context) to its plan.\n");
    /* clang-format on */
    fprintf(f, "%-5s %-5s %5s %5s | %8s %8s %8s %-9s | %8s %-9s | %8s %-9s | %8s\n", "mode",
            "dtype", "H", "B", "empty", "plan", "compile", "kernel", "memory", "kernel", "disk",
            "kernel", "process");
    for (int i = 0; i < n; i++) {
        const bench_cold_result *r = &c[i];
        char a[5][32];
        fmt_ms(a[0], 32, r->cold.ok ? r->cold.wall_ms : NAN);
        fmt_ms(a[1], 32, r->cold.ok ? r->cold.plan_ms : NAN);
        fmt_ms(a[2], 32, r->cold.ok ? r->cold.compile_ms : NAN);
        fmt_ms(a[3], 32, r->memory.ok ? r->memory.wall_ms : NAN);
        fmt_ms(a[4], 32, r->disk.ok ? r->disk.wall_ms : NAN);
        char p[32];
        fmt_ms(p, sizeof(p), r->process_to_plan_ms);
        fprintf(f, "%-5s %-5s %5d %5d | %8s %8s %8s %-9s | %8s %-9s | %8s %-9s | %8s%s%s\n",
                prnn_mode_name(r->pt.mode), bench_dtype_short(r->pt.dtype), r->pt.hidden,
                r->pt.batch, a[0], a[1], a[2], r->cold.ok ? r->cold.cubin_source : "-", a[3],
                r->memory.ok ? r->memory.cubin_source : "-", a[4],
                r->disk.ok ? r->disk.cubin_source : "-", p, r->note[0] ? "  " : "", r->note);
    }
    fflush(f);
}
