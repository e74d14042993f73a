/* prnn-bench's JSON (keys: bench_report.h). */
#include <math.h>
#include <stdio.h>

#include "bench_layout.h"
#include "bench_report.h"

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

/* "k": and, after the value, ", " when comma. */
static void json_key(FILE *f, const char *k)
{
    json_str(f, k);
    fputs(": ", f);
}

static void json_sep(FILE *f, int comma)
{
    if (comma)
        fputs(", ", f);
}

static void json_kv_str(FILE *f, const char *k, const char *v, int comma)
{
    json_key(f, k);
    json_str(f, v);
    json_sep(f, comma);
}

static void json_kv_num(FILE *f, const char *k, double v, int comma)
{
    json_key(f, k);
    json_num(f, v);
    json_sep(f, comma);
}

static void json_kv_int(FILE *f, const char *k, long v, int comma)
{
    json_key(f, k);
    fprintf(f, "%ld", v);
    json_sep(f, comma);
}

/* "k": and then, when present, the opening brace of its object (1), the
 * caller's keys and json_close; else null and, when comma, ", " (0). */
static int json_open(FILE *f, const char *k, int present, int comma)
{
    json_key(f, k);
    if (present) {
        fputc('{', f);
        return 1;
    }
    fputs("null", f);
    json_sep(f, comma);
    return 0;
}

/* The object's closing brace and, when comma, ", ". */
static void json_close(FILE *f, int comma)
{
    fputc('}', f);
    json_sep(f, comma);
}

/* "median_us" ... "mean_us", "repeats" of s (repeats 0 unless valid);
 * comma: one after repeats too. */
static void json_stats_keys(FILE *f, const bench_stats *s, int valid, int comma)
{
    json_kv_num(f, "median_us", s->median, 1);
    json_kv_num(f, "min_us", s->min, 1);
    json_kv_num(f, "q1_us", s->q1, 1);
    json_kv_num(f, "q3_us", s->q3, 1);
    json_kv_num(f, "max_us", s->max, 1);
    json_kv_num(f, "mean_us", s->mean, 1);
    json_kv_int(f, "repeats", valid ? s->n : 0, comma);
}

/* "phases": {...} of r, or null when none was timed; then ", ". */
static void json_phases(FILE *f, const bench_impl_result *r)
{
    int any = 0;
    for (int p = 0; p < BENCH_NUM_PHASES; p++)
        any |= r->phase[p].n > 0;
    if (!json_open(f, "phases", any, 1))
        return;
    for (int p = 0; p < BENCH_NUM_PHASES; p++) {
        if (p)
            fputs(", ", f);
        json_key(f, bench_phase_key((bench_phase)p));
        fputc('{', f);
        json_stats_keys(f, &r->phase[p], r->phase[p].n > 0, 0);
        fputc('}', f);
    }
    json_close(f, 1);
}

static void json_cold_phase(FILE *f, const char *k, const bench_cold_phase *p, int comma)
{
    if (!json_open(f, k, p->ok, comma))
        return;
    json_kv_num(f, "wall_ms", p->wall_ms, 1);
    json_kv_num(f, "plan_ms", p->plan_ms, 1);
    json_kv_num(f, "compile_ms", p->compile_ms, 1);
    json_kv_str(f, "kernel_from", p->cubin_source, 0);
    json_close(f, comma);
}

static void json_point_keys(FILE *f, const bench_point *pt)
{
    json_kv_str(f, "pass", bench_pass_name(pt->pass), 1);
    json_kv_str(f, "mode", prnn_mode_name(pt->mode), 1);
    json_kv_str(f, "dtype", bench_dtype_short(pt->dtype), 1);
    json_kv_int(f, "hidden", pt->hidden, 1);
    json_kv_int(f, "proj", pt->proj, 1);
    json_kv_int(f, "input", pt->input, 1);
    json_kv_int(f, "batch", pt->batch, 1);
    json_kv_int(f, "seq", pt->seq, 1);
    json_kv_int(f, "layers", pt->layers, 1);
    json_kv_int(f, "bidirectional", pt->bidirectional, 1);
}

/* The layout keys of a point, ", " after them. */
static void json_layout_keys(FILE *f, const bench_result *x)
{
    json_kv_str(f, "layout", bench_layout_name(x->pt.layout), 1);
    json_kv_str(f, "lengths", bench_lengths_name(x->pt.lengths), 1);
    json_kv_int(f, "lengths_sum", (long)bench_lengths_sum(&x->pt), 1);
    json_kv_num(f, "ratio_prnn_padded_packed", x->layout_ratio, 1);
    json_kv_num(f, "ratio_best_cudnn_padded_packed", x->layout_ratio_cudnn, 1);
}

/* The training keys of a point, on every point (null where they do not
 * apply), the last of the object. */
static void json_training_keys(FILE *f, const bench_result *x)
{
    fputs("\n     ", f);
    const bench_impl_result *inf = &x->fwd_inference;
    if (json_open(f, "prnn_fwd_inference", x->pt.pass == BENCH_TRAINING, 1)) {
        json_kv_str(f, "state", bench_state_name(inf->state), 1);
        json_stats_keys(f, &inf->us, inf->state == BENCH_OK, 1);
        json_kv_num(f, "first_call_ms", inf->first_call_ms, 1);
        json_kv_str(f, "note", inf->note, 0);
        json_close(f, 1);
    }
    json_kv_num(f, "ratio_bwd_data_fwd_inference", x->bwd_data_ratio, 1);
    const bench_impl_result *best = bench_best_cudnn(x);
    for (int p = 0; p < BENCH_NUM_PHASES; p++) {
        char key[64];
        snprintf(key, sizeof(key), "best_cudnn_%s_us", bench_phase_key((bench_phase)p));
        json_kv_num(f, key, best ? best->phase[p].median : NAN, p + 1 < BENCH_NUM_PHASES);
    }
}

static void json_training_summary(FILE *f, const bench_result *rs, int n)
{
    bench_training_summary t;
    bench_summarize_training(rs, n, &t);
    if (!t.points) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    json_kv_int(f, "points", t.points, 1);
    json_kv_int(f, "points_with_ratio", t.with_ratio, 1);
    json_kv_num(f, "geomean_ratio", t.geomean_ratio, 1);
    json_kv_int(f, "points_prnn_le_cudnn", t.prnn_le_cudnn, 1);
    json_kv_int(f, "points_with_bwd_data_ratio", t.with_bwd_ratio, 1);
    json_kv_num(f, "geomean_bwd_data_fwd_inference", t.geomean_bwd_ratio, 1);
    json_kv_num(f, "bwd_data_target", BENCH_BWD_DATA_TARGET, 1);
    json_kv_int(f, "points_bwd_data_within_target", t.bwd_within_target, 0);
    fputc('}', f);
}

void bench_write_json(FILE *f, const bench_meta *m, const bench_result *rs, int n,
                      const bench_cold_result *cold, int ncold)
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
    json_kv_int(f, "prnn_workspaces", m->workspaces, 1);
    json_kv_int(f, "training", m->training, 1);
    json_kv_int(f, "padded", m->padded, 1);
    json_kv_str(f, "lengths", bench_lengths_rule(m->lengths), 1);
    json_kv_str(f, "pad_input", m->pad_input ? m->pad_input : "nan", 1);
    json_kv_str(f, "unit", "microseconds per timestep (median of repeats / seq)", 1);
    json_kv_str(f, "timing",
                "one call (whole sequence; training: forward + backward data + backward weights) "
                "between two CUDA events on an idle stream, after one checked call and the "
                "warm-ups; plan, compile and setup excluded",
                1);
    json_kv_str(
        f, "phases",
        "training points, plain calls: forward-training, backward-data and backward-weights each "
        "timed alone, in a loop after the whole-step one (per repeat the three in order, each "
        "between two CUDA events from an idle stream); prnn_fwd_inference: prnn's forward "
        "inference of the same shape, timed like an inference point",
        1);
    json_kv_str(f, "max_rel_diff", "largest over output tensors of max|out - ref| / max|ref|", 0);
    fputs("},\n  \"points\": [", f);
    for (int r = 0; r < n; r++) {
        const bench_result *x = &rs[r];
        const bench_plan *pl = &x->plan;
        fputs(r ? ",\n    {" : "\n    {", f);
        json_point_keys(f, &x->pt);
        if (json_open(f, "prnn_plan", pl->valid, 1)) {
            json_kv_str(f, "path", pl->path, 1);
            json_kv_str(f, "engine", pl->engine, 1);
            json_kv_str(f, "backward_engine", pl->backward_engine, 1);
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
            json_close(f, 1);
        }
        fputs("\"impls\": {", f);
        for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
            const bench_impl_result *ir = &x->impl[i];
            fputs(i ? ",\n      " : "\n      ", f);
            json_str(f, bench_impl_name((bench_impl)i));
            fputs(": {", f);
            json_kv_str(f, "state", bench_state_name(ir->state), 1);
            json_stats_keys(f, &ir->us, ir->state == BENCH_OK, 1);
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
            json_phases(f, ir);
            json_kv_str(f, "note", ir->note, 0);
            fputc('}', f);
        }
        fputs("},\n     ", f);
        const bench_impl_result *best = bench_best_cudnn(x);
        json_kv_str(f, "best_cudnn", best ? bench_impl_name((bench_impl)x->best_cudnn) : "", 1);
        json_kv_num(f, "best_cudnn_us", best ? best->us.median : NAN, 1);
        json_kv_num(f, "ratio", x->ratio, 1);
        if (bench_result_compared(x) && isnan(x->max_rel_diff))
            json_kv_str(f, "max_rel_diff", "nan", 1);
        else
            json_kv_num(f, "max_rel_diff", x->max_rel_diff, 1);
        json_kv_str(f, "reference",
                    x->reference >= 0 ? bench_impl_name((bench_impl)x->reference) : "", 1);
        json_layout_keys(f, x);
        json_training_keys(f, x);
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
        json_kv_str(f, "mode", prnn_mode_name(groups[g].mode), 1);
        json_kv_str(f, "dtype", bench_dtype_short(groups[g].dtype), 1);
        json_kv_str(f, "layout", bench_layout_name(groups[g].layout), 1);
        json_kv_int(f, "proj", groups[g].proj, 1);
        json_kv_num(f, "geomean_ratio", groups[g].geomean, 1);
        json_kv_int(f, "points_with_ratio", groups[g].n, 1);
        json_kv_int(f, "points", groups[g].points, 0);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"overall\": {", f);
    json_kv_num(f, "geomean_ratio", overall, 1);
    json_kv_int(f, "points_with_ratio", overall_n, 1);
    json_kv_int(f, "points", n, 0);
    fputs("},\n  \"training_summary\": ", f);
    json_training_summary(f, rs, n);
    fputs(",\n  \"layout_summary\": [", f);
    bench_layout_summary ls[BENCH_NUM_LAYOUTS];
    int nls = bench_summarize_layouts(rs, n, ls);
    for (int k = 0; k < nls; k++) {
        fputs(k ? ", {" : "{", f);
        json_kv_str(f, "layout", bench_layout_name(ls[k].layout), 1);
        json_kv_int(f, "points", ls[k].points, 1);
        json_kv_int(f, "points_with_ratio", ls[k].with_ratio, 1);
        json_kv_num(f, "geomean_prnn_padded_packed", ls[k].geomean, 1);
        json_kv_int(f, "points_within_target", ls[k].within_target, 1);
        json_kv_num(f, "target", BENCH_LAYOUT_TARGET, 1);
        json_kv_int(f, "points_with_cudnn_ratio", ls[k].cudnn_with_ratio, 1);
        json_kv_num(f, "geomean_best_cudnn_padded_packed", ls[k].cudnn_geomean, 0);
        fputc('}', f);
    }
    fputc(']', f);
    fputs(",\n  \"cold_start\": [", f);
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
