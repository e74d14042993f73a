#include "bench_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

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
    if (m->math && strcmp(m->math, "tf32") == 0)
        fprintf(f,
"math: tf32: float data may use TF32 tensor cores in the non-recurrent\n"
"  GEMMs (prnn PRNN_TENSOR_OP_MATH, cuDNN CUDNN_DEFAULT_MATH); half and\n"
"  bfloat16 use tensor cores in both (cuDNN CUDNN_TENSOR_OP_MATH).\n");
    else
        fprintf(f,
"math: strict: float data runs FP32 everywhere in both (prnn\n"
"  PRNN_DEFAULT_MATH, cuDNN CUDNN_FMA_MATH; cuDNN's DEFAULT_MATH would\n"
"  silently run its fp32 input GEMM in TF32, see shared/BASELINES.md); half\n"
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
"  DEFAULT_MATH instead of FMA_MATH; half: mathPrec float instead of half);\n"
"  the CSV/JSON note says which.\n\n");
    fflush(f);
}

typedef struct {
    const char *title;
    int width;
    int right;
} column;

enum {
    C_MODE, C_DTYPE, C_PASS, C_H, C_B, C_T, C_PRNN, C_PATH, C_PGRAPH,
    C_STD, C_STATIC, C_DYN, C_SMALL, C_BEST, C_CUBLAS, C_RATIO, C_DIFF,
    C_COUNT
};

static const column cols[C_COUNT] = {
    {"mode", 5, 0},           {"dtype", 5, 0},
    {"pass", 5, 0},           {"H", 5, 1},
    {"B", 5, 1},              {"T", 5, 1},
    {"prnn", 8, 1},           {"path", 9, 0},
    {"prnn graph", 10, 1},    {"STANDARD", 9, 1},
    {"PERSIST_STATIC", 15, 1}, {"PERSIST_DYNAMIC", 16, 1},
    {"PERSIST_SMALL_H", 16, 1}, {"best cuDNN", 17, 1},
    {"cublasLt-graph", 15, 1}, {"prnn/best", 10, 1},
    {"max rel diff", 13, 1},
};

/* Where the table puts a separator before the column. */
static int bar_before(int c)
{
    return c == C_PRNN || c == C_STD || c == C_BEST || c == C_RATIO;
}

static void row(FILE *f, char cells[C_COUNT][64])
{
    for (int c = 0; c < C_COUNT; c++) {
        if (c)
            fputs(bar_before(c) ? " | " : " ", f);
        cell(f, cells[c], cols[c].width, cols[c].right);
    }
    fputc('\n', f);
    fflush(f);
}

void bench_table_header(FILE *f)
{
    char cells[C_COUNT][64];
    for (int c = 0; c < C_COUNT; c++)
        bench_copy(cells[c], sizeof(cells[c]), cols[c].title);
    row(f, cells);
    int total = 0;
    for (int c = 0; c < C_COUNT; c++)
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

static void fmt_impl(char *buf, size_t n, const bench_impl_result *ir)
{
    switch (ir->state) {
    case BENCH_OK:
        snprintf(buf, n, "%.2f%s", ir->us.median, ir->fallback ? "*" : "");
        break;
    case BENCH_REFUSED: snprintf(buf, n, "—"); break;
    case BENCH_NA: snprintf(buf, n, "n/a"); break;
    case BENCH_FAILED: snprintf(buf, n, "err"); break;
    case BENCH_NOT_RUN: snprintf(buf, n, "off"); break;
    }
}

static int any_compared(const bench_result *r)
{
    int any = 0;
    for (int i = 0; i < BENCH_NUM_IMPLS; i++)
        any |= r->impl[i].compared;
    return any;
}

static void fmt_diff(char *buf, size_t n, const bench_result *r)
{
    if (!any_compared(r))
        snprintf(buf, n, "-");
    else if (isnan(r->max_rel_diff))
        snprintf(buf, n, "NaN!");
    else
        snprintf(buf, n, "%.1e", r->max_rel_diff);
}

void bench_table_row(FILE *f, const bench_result *r)
{
    char c[C_COUNT][64];
    const bench_point *pt = &r->pt;
    snprintf(c[C_MODE], 64, "%s", bench_mode_name(pt->mode));
    snprintf(c[C_DTYPE], 64, "%s", bench_dtype_short(pt->dtype));
    snprintf(c[C_PASS], 64, "%s", pt->pass == BENCH_TRAINING ? "train" : "inf");
    snprintf(c[C_H], 64, "%d", pt->hidden);
    snprintf(c[C_B], 64, "%d", pt->batch);
    snprintf(c[C_T], 64, "%d", pt->seq);
    fmt_impl(c[C_PRNN], 64, &r->impl[BENCH_IMPL_PRNN]);
    snprintf(c[C_PATH], 64, "%s", r->plan.valid ? r->plan.path : "-");
    fmt_impl(c[C_PGRAPH], 64, &r->impl[BENCH_IMPL_PRNN_GRAPH]);
    fmt_impl(c[C_STD], 64, &r->impl[BENCH_IMPL_CUDNN_STANDARD]);
    fmt_impl(c[C_STATIC], 64, &r->impl[BENCH_IMPL_CUDNN_PERSIST_STATIC]);
    fmt_impl(c[C_DYN], 64, &r->impl[BENCH_IMPL_CUDNN_PERSIST_DYNAMIC]);
    fmt_impl(c[C_SMALL], 64, &r->impl[BENCH_IMPL_CUDNN_PERSIST_SMALL_H]);
    if (r->best_cudnn >= 0)
        snprintf(c[C_BEST], 64, "%.2f %s", r->impl[r->best_cudnn].us.median,
                 short_algo(r->best_cudnn));
    else
        snprintf(c[C_BEST], 64, "-");
    fmt_impl(c[C_CUBLAS], 64, &r->impl[BENCH_IMPL_CUBLASLT_GRAPH]);
    if (isnan(r->ratio))
        snprintf(c[C_RATIO], 64, "-");
    else
        snprintf(c[C_RATIO], 64, "%.2f", r->ratio);
    fmt_diff(c[C_DIFF], 64, r);
    row(f, c);
}

int bench_summary(const bench_result *rs, int n, bench_group *groups, int max,
                  double *overall, int *overall_n)
{
    int ng = 0;
    for (int i = 0; i < n; i++) {
        const bench_point *pt = &rs[i].pt;
        int g;
        for (g = 0; g < ng; g++)
            if (groups[g].pass == pt->pass && groups[g].mode == pt->mode &&
                groups[g].dtype == pt->dtype)
                break;
        if (g == ng) {
            if (ng == max)
                continue;
            memset(&groups[ng], 0, sizeof(groups[ng]));
            groups[ng].pass = pt->pass;
            groups[ng].mode = pt->mode;
            groups[ng].dtype = pt->dtype;
            ng++;
        }
        groups[g].points++;
    }
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    for (int g = 0; g < ng; g++) {
        int k = 0;
        for (int i = 0; v && i < n; i++)
            if (rs[i].pt.pass == groups[g].pass &&
                rs[i].pt.mode == groups[g].mode &&
                rs[i].pt.dtype == groups[g].dtype)
                v[k++] = rs[i].ratio;
        groups[g].geomean = v ? bench_geomean(v, k, &groups[g].n) : NAN;
    }
    if (overall) {
        for (int i = 0; v && i < n; i++)
            v[i] = rs[i].ratio;
        int used = 0;
        *overall = v ? bench_geomean(v, n, &used) : NAN;
        if (overall_n)
            *overall_n = used;
    }
    free(v);
    return ng;
}

void bench_table_footer(FILE *f, const bench_result *rs, int n)
{
    int failed = 0, poisoned = 0;
    for (int i = 0; i < n; i++) {
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
        fprintf(f, "%d implementation run(s) failed: see the messages above "
                   "(and the CSV/JSON notes).\n", failed);
    if (poisoned)
        fprintf(f, "%d point(s) with NaN/Inf in an output (NaN!): an "
                   "implementation left outputs unwritten or diverged.\n",
                poisoned);

    bench_group groups[256];
    double overall;
    int overall_n;
    int ng = bench_summary(rs, n, groups, 256, &overall, &overall_n);
    for (int g = 0; g < ng; g++) {
        if (groups[g].n)
            fprintf(f,
                    "geomean prnn/best-cuDNN %-9s %-4s %-4s: %6.3f  (%d of %d "
                    "points)\n",
                    bench_pass_name(groups[g].pass),
                    bench_mode_name(groups[g].mode),
                    bench_dtype_short(groups[g].dtype), groups[g].geomean,
                    groups[g].n, groups[g].points);
        else
            fprintf(f,
                    "geomean prnn/best-cuDNN %-9s %-4s %-4s:    n/a  (0 of %d "
                    "points have both)\n",
                    bench_pass_name(groups[g].pass),
                    bench_mode_name(groups[g].mode),
                    bench_dtype_short(groups[g].dtype), groups[g].points);
    }
    if (overall_n)
        fprintf(f, "geomean prnn/best-cuDNN overall            : %6.3f  (%d "
                   "of %d points)\n",
                overall, overall_n, n);
    else
        fprintf(f, "geomean prnn/best-cuDNN overall            :    n/a  (no "
                   "point has both a prnn and a cuDNN time)\n");
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
    fprintf(f,
"\ncold start: prnn plan time in ms (wall clock of prnnPrepareRNN; plan =\n"
"  planMs, compile = compileMs from prnnGetRNNPlanInfo). empty cache: a fresh\n"
"  process with an empty PRNN_CACHE_DIR; memory: a second handle in that\n"
"  process; disk: another fresh process with the cache the first one filled;\n"
"  process: from that first process's start (cuInit, context) to its plan.\n");
    fprintf(f, "%-5s %-5s %5s %5s | %8s %8s %8s %-9s | %8s %-9s | %8s "
               "%-9s | %8s\n",
            "mode", "dtype", "H", "B", "empty", "plan", "compile", "kernel",
            "memory", "kernel", "disk", "kernel", "process");
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
        fprintf(f, "%-5s %-5s %5d %5d | %8s %8s %8s %-9s | %8s %-9s | %8s "
                   "%-9s | %8s%s%s\n",
                bench_mode_name(r->pt.mode), bench_dtype_short(r->pt.dtype),
                r->pt.hidden, r->pt.batch, a[0], a[1], a[2],
                r->cold.ok ? r->cold.cubin_source : "-", a[3],
                r->memory.ok ? r->memory.cubin_source : "-", a[4],
                r->disk.ok ? r->disk.cubin_source : "-", p,
                r->note[0] ? "  " : "", r->note);
    }
    fflush(f);
}

/* ---- CSV ---- */

static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
    /* NaN: empty field */
}

static const char *const impl_fields[] = {
    "state", "median_us", "min_us", "q1_us", "q3_us", "max_us", "mean_us",
    "repeats", "setup_ms", "first_call_ms", "max_rel_diff", "note"};

static void impl_key(char *buf, size_t n, int impl)
{
    snprintf(buf, n, "%s", bench_impl_name((bench_impl)impl));
    for (char *p = buf; *p; p++)
        if (*p == '-')
            *p = '_';
}

void bench_write_csv(FILE *f, const bench_result *rs, int n)
{
    fputs("pass,mode,dtype,hidden,input,batch,seq,layers,bidirectional,"
          "prnn_path,prnn_config_source,prnn_cubin_source,prnn_blocks,"
          "prnn_threads,prnn_units_per_block,prnn_tensor_cores,"
          "prnn_resident_fraction,prnn_plan_ms,prnn_compile_ms,"
          "prnn_prepare_wall_ms,prnn_config",
          f);
    for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
        char key[64];
        impl_key(key, sizeof(key), i);
        for (size_t k = 0; k < sizeof(impl_fields) / sizeof(impl_fields[0]);
             k++)
            fprintf(f, ",%s_%s", key, impl_fields[k]);
    }
    fputs(",best_cudnn,best_cudnn_us,ratio_prnn_best_cudnn,max_rel_diff,"
          "reference\n",
          f);
    for (int r = 0; r < n; r++) {
        const bench_result *x = &rs[r];
        const bench_point *pt = &x->pt;
        const bench_plan *pl = &x->plan;
        fprintf(f, "%s,%s,%s,%d,%d,%d,%d,%d,%d,", bench_pass_name(pt->pass),
                bench_mode_name(pt->mode), bench_dtype_short(pt->dtype),
                pt->hidden, pt->input, pt->batch, pt->seq, pt->layers,
                pt->bidirectional);
        if (pl->valid) {
            fprintf(f, "%s,%s,%s,%d,%d,%d,%d,", pl->path, pl->config_source,
                    pl->cubin_source, pl->num_blocks, pl->threads_per_block,
                    pl->units_per_block, pl->tensor_cores);
            csv_num(f, pl->resident_fraction);
            fputc(',', f);
            csv_num(f, pl->plan_ms);
            fputc(',', f);
            csv_num(f, pl->compile_ms);
            fputc(',', f);
            csv_num(f, pl->prepare_wall_ms);
            fputc(',', f);
            csv_str(f, pl->config);
        } else {
            fputs(",,,,,,,,,,,", f);
        }
        for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
            const bench_impl_result *ir = &x->impl[i];
            fprintf(f, ",%s,", bench_state_name(ir->state));
            csv_num(f, ir->us.median);
            fputc(',', f);
            csv_num(f, ir->us.min);
            fputc(',', f);
            csv_num(f, ir->us.q1);
            fputc(',', f);
            csv_num(f, ir->us.q3);
            fputc(',', f);
            csv_num(f, ir->us.max);
            fputc(',', f);
            csv_num(f, ir->us.mean);
            fputc(',', f);
            if (ir->state == BENCH_OK)
                fprintf(f, "%d", ir->us.n);
            fputc(',', f);
            csv_num(f, ir->setup_ms);
            fputc(',', f);
            csv_num(f, ir->first_call_ms);
            fputc(',', f);
            if (ir->compared && isnan(ir->max_rel_diff))
                fputs("nan", f);
            else if (ir->compared)
                csv_num(f, ir->max_rel_diff);
            fputc(',', f);
            csv_str(f, ir->note);
        }
        fprintf(f, ",%s,",
                x->best_cudnn >= 0 ? bench_impl_name((bench_impl)x->best_cudnn)
                                   : "");
        csv_num(f, x->best_cudnn >= 0 ? x->impl[x->best_cudnn].us.median : NAN);
        fputc(',', f);
        csv_num(f, x->ratio);
        fputc(',', f);
        if (any_compared(x) && isnan(x->max_rel_diff))
            fputs("nan", f);
        else
            csv_num(f, x->max_rel_diff);
        fprintf(f, ",%s\n",
                x->reference >= 0 ? bench_impl_name((bench_impl)x->reference)
                                  : "");
    }
    fflush(f);
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void json_kv_str(FILE *f, const char *k, const char *v, int comma)
{
    json_str(f, k);
    fputs(": ", f);
    json_str(f, v);
    if (comma)
        fputs(", ", f);
}

static void json_kv_num(FILE *f, const char *k, double v, int comma)
{
    json_str(f, k);
    fputs(": ", f);
    json_num(f, v);
    if (comma)
        fputs(", ", f);
}

static void json_kv_int(FILE *f, const char *k, long v, int comma)
{
    json_str(f, k);
    fprintf(f, ": %ld", v);
    if (comma)
        fputs(", ", f);
}

static void json_cold_phase(FILE *f, const char *k, const bench_cold_phase *p,
                            int comma)
{
    json_str(f, k);
    fputs(": ", f);
    if (!p->ok) {
        fputs("null", f);
    } else {
        fputc('{', f);
        json_kv_num(f, "wall_ms", p->wall_ms, 1);
        json_kv_num(f, "plan_ms", p->plan_ms, 1);
        json_kv_num(f, "compile_ms", p->compile_ms, 1);
        json_kv_str(f, "kernel_from", p->cubin_source, 0);
        fputc('}', f);
    }
    if (comma)
        fputs(", ", f);
}

static void json_point_keys(FILE *f, const bench_point *pt)
{
    json_kv_str(f, "pass", bench_pass_name(pt->pass), 1);
    json_kv_str(f, "mode", bench_mode_name(pt->mode), 1);
    json_kv_str(f, "dtype", bench_dtype_short(pt->dtype), 1);
    json_kv_int(f, "hidden", pt->hidden, 1);
    json_kv_int(f, "input", pt->input, 1);
    json_kv_int(f, "batch", pt->batch, 1);
    json_kv_int(f, "seq", pt->seq, 1);
    json_kv_int(f, "layers", pt->layers, 1);
    json_kv_int(f, "bidirectional", pt->bidirectional, 1);
}

void bench_write_json(FILE *f, const bench_meta *m, const bench_result *rs,
                      int n, const bench_cold_result *cold, int ncold)
{
    fputs("{\n  \"meta\": {", f);
    json_kv_str(f, "tool", "prnn-bench", 1);
    json_kv_str(f, "prnn_version", m->prnn_version, 1);
    json_kv_str(f, "date", m->date, 1);
    json_kv_str(f, "device", m->device, 1);
    json_kv_str(f, "driver", m->driver, 1);
    json_kv_str(f, "cudnn", m->cudnn, 1);
    json_kv_str(f, "math", m->math ? m->math : "", 1);
    json_kv_int(f, "warmup", m->warmup, 1);
    json_kv_int(f, "repeats", m->repeats, 1);
    json_kv_str(f, "unit",
                "microseconds per timestep (median of repeats / seq)", 1);
    json_kv_str(f, "timing",
                "one call (whole sequence; training: forward + backward data "
                "+ backward weights) between two CUDA events on an idle "
                "stream, after one checked call and the warm-ups; plan, "
                "compile and setup excluded",
                1);
    json_kv_str(f, "max_rel_diff",
                "largest over output tensors of max|out - ref| / max|ref|", 0);
    fputs("},\n  \"points\": [", f);
    for (int r = 0; r < n; r++) {
        const bench_result *x = &rs[r];
        const bench_plan *pl = &x->plan;
        fputs(r ? ",\n    {" : "\n    {", f);
        json_point_keys(f, &x->pt);
        fputs("\"prnn_plan\": ", f);
        if (!pl->valid) {
            fputs("null, ", f);
        } else {
            fputc('{', f);
            json_kv_str(f, "path", pl->path, 1);
            json_kv_str(f, "config_source", pl->config_source, 1);
            json_kv_str(f, "kernel_from", pl->cubin_source, 1);
            json_kv_int(f, "blocks", pl->num_blocks, 1);
            json_kv_int(f, "threads_per_block", pl->threads_per_block, 1);
            json_kv_int(f, "units_per_block", pl->units_per_block, 1);
            json_kv_int(f, "tensor_cores", pl->tensor_cores, 1);
            json_kv_num(f, "resident_fraction", pl->resident_fraction, 1);
            json_kv_num(f, "plan_ms", pl->plan_ms, 1);
            json_kv_num(f, "compile_ms", pl->compile_ms, 1);
            json_kv_num(f, "prepare_wall_ms", pl->prepare_wall_ms, 1);
            json_kv_str(f, "config", pl->config, 0);
            fputs("}, ", f);
        }
        fputs("\"impls\": {", f);
        for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
            const bench_impl_result *ir = &x->impl[i];
            fputs(i ? ",\n      " : "\n      ", f);
            json_str(f, bench_impl_name((bench_impl)i));
            fputs(": {", f);
            json_kv_str(f, "state", bench_state_name(ir->state), 1);
            json_kv_num(f, "median_us", ir->us.median, 1);
            json_kv_num(f, "min_us", ir->us.min, 1);
            json_kv_num(f, "q1_us", ir->us.q1, 1);
            json_kv_num(f, "q3_us", ir->us.q3, 1);
            json_kv_num(f, "max_us", ir->us.max, 1);
            json_kv_num(f, "mean_us", ir->us.mean, 1);
            json_kv_int(f, "repeats", ir->state == BENCH_OK ? ir->us.n : 0, 1);
            json_kv_num(f, "setup_ms", ir->setup_ms, 1);
            json_kv_num(f, "first_call_ms", ir->first_call_ms, 1);
            json_str(f, "max_rel_diff");
            fputs(": ", f);
            if (!ir->compared)
                fputs("null", f);
            else if (isnan(ir->max_rel_diff))
                fputs("\"nan\"", f);
            else
                json_num(f, ir->max_rel_diff);
            fputs(", ", f);
            json_kv_int(f, "fallback_math", ir->fallback, 1);
            json_kv_str(f, "note", ir->note, 0);
            fputc('}', f);
        }
        fputs("},\n     ", f);
        json_kv_str(f, "best_cudnn",
                    x->best_cudnn >= 0
                        ? bench_impl_name((bench_impl)x->best_cudnn)
                        : "",
                    1);
        json_kv_num(f, "best_cudnn_us",
                    x->best_cudnn >= 0 ? x->impl[x->best_cudnn].us.median
                                       : NAN,
                    1);
        json_kv_num(f, "ratio", x->ratio, 1);
        if (any_compared(x) && isnan(x->max_rel_diff))
            json_kv_str(f, "max_rel_diff", "nan", 1);
        else
            json_kv_num(f, "max_rel_diff", x->max_rel_diff, 1);
        json_kv_str(f, "reference",
                    x->reference >= 0
                        ? bench_impl_name((bench_impl)x->reference)
                        : "",
                    0);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"summary\": [", f);
    bench_group groups[256];
    double overall;
    int overall_n;
    int ng = bench_summary(rs, n, groups, 256, &overall, &overall_n);
    for (int g = 0; g < ng; g++) {
        fputs(g ? ",\n    {" : "\n    {", f);
        json_kv_str(f, "pass", bench_pass_name(groups[g].pass), 1);
        json_kv_str(f, "mode", bench_mode_name(groups[g].mode), 1);
        json_kv_str(f, "dtype", bench_dtype_short(groups[g].dtype), 1);
        json_kv_num(f, "geomean_ratio", groups[g].geomean, 1);
        json_kv_int(f, "points_with_ratio", groups[g].n, 1);
        json_kv_int(f, "points", groups[g].points, 0);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"overall\": {", f);
    json_kv_num(f, "geomean_ratio", overall, 1);
    json_kv_int(f, "points_with_ratio", overall_n, 1);
    json_kv_int(f, "points", n, 0);
    fputs("},\n  \"cold_start\": [", f);
    for (int i = 0; i < ncold; i++) {
        const bench_cold_result *c = &cold[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        json_point_keys(f, &c->pt);
        json_cold_phase(f, "empty_cache", &c->cold, 1);
        json_cold_phase(f, "memory", &c->memory, 1);
        json_cold_phase(f, "disk_cache", &c->disk, 1);
        json_kv_num(f, "process_to_plan_ms", c->process_to_plan_ms, 1);
        json_kv_str(f, "note", c->note, 0);
        fputc('}', f);
    }
    fputs(ncold ? "\n  ]\n}\n" : "]\n}\n", f);
    fflush(f);
}
