/* prnn-bench's CSV (columns: bench_report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_layout.h"
#include "bench_report.h"

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

/* ",v" for each phase median of r (empty fields without one). */
static void csv_phases(FILE *f, const bench_impl_result *r)
{
    for (int p = 0; p < BENCH_NUM_PHASES; p++) {
        fputc(',', f);
        csv_num(f, r ? r->phase[p].median : NAN);
    }
}

static const char *const impl_fields[] = {"state",    "median_us",     "min_us",       "q1_us",
                                          "q3_us",    "max_us",        "mean_us",      "repeats",
                                          "setup_ms", "first_call_ms", "max_rel_diff", "note"};

static void impl_key(char *buf, size_t n, int impl)
{
    snprintf(buf, n, "%s", bench_impl_name((bench_impl)impl));
    for (char *p = buf; *p; p++)
        if (*p == '-')
            *p = '_';
}

/* ",K_fwd_training_us,K_bwd_data_us,K_bwd_weights_us". */
static void phase_header(FILE *f, const char *key)
{
    for (int p = 0; p < BENCH_NUM_PHASES; p++)
        fprintf(f, ",%s_%s_us", key, bench_phase_key((bench_phase)p));
}

static void write_header(FILE *f)
{
    fputs(
        "pass,mode,dtype,hidden,input,batch,seq,layers,bidirectional,prnn_path,prnn_config_source,"
        "prnn_cubin_source,prnn_blocks,prnn_threads,prnn_units_per_block,prnn_tensor_cores,prnn_"
        "resident_fraction,prnn_plan_ms,prnn_compile_ms,prnn_prepare_wall_ms,prnn_config",
        f);
    char key[64];
    for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
        impl_key(key, sizeof(key), i);
        for (size_t k = 0; k < sizeof(impl_fields) / sizeof(impl_fields[0]); k++)
            fprintf(f, ",%s_%s", key, impl_fields[k]);
    }
    fputs(",best_cudnn,best_cudnn_us,ratio_prnn_best_cudnn,max_rel_diff,reference", f);
    for (int i = 0; i < BENCH_NUM_IMPLS; i++) {
        impl_key(key, sizeof(key), i);
        phase_header(f, key);
    }
    fputs(",prnn_fwd_inference_state,prnn_fwd_inference_us,prnn_fwd_inference_note,ratio_bwd_data_"
          "fwd_inference",
          f);
    phase_header(f, "best_cudnn");
    fputs(",prnn_engine,prnn_backward_engine", f);
    fputs(",layout,lengths,lengths_sum,ratio_prnn_padded_packed,ratio_best_cudnn_padded_packed", f);
    fputs(",proj", f);
    fputc('\n', f);
}

static void write_plan(FILE *f, const bench_plan *pl)
{
    if (!pl->valid) {
        fputs(",,,,,,,,,,,", f);
        return;
    }
    fprintf(f, "%s,%s,%s,%d,%d,%d,%d,", pl->path, pl->config_source, pl->cubin_source,
            pl->num_blocks, pl->threads_per_block, pl->units_per_block, pl->tensor_cores);
    const double v[] = {pl->resident_fraction, pl->plan_ms, pl->compile_ms, pl->prepare_wall_ms};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
        csv_num(f, v[k]);
        fputc(',', f);
    }
    csv_str(f, pl->config);
}

static void write_impl(FILE *f, const bench_impl_result *ir)
{
    fprintf(f, ",%s,", bench_state_name(ir->state));
    const double us[] = {ir->us.median, ir->us.min, ir->us.q1, ir->us.q3, ir->us.max, ir->us.mean};
    for (size_t k = 0; k < sizeof(us) / sizeof(us[0]); k++) {
        csv_num(f, us[k]);
        fputc(',', f);
    }
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

void bench_write_csv(FILE *f, const bench_result *rs, int n)
{
    write_header(f);
    for (int r = 0; r < n; r++) {
        const bench_result *x = &rs[r];
        const bench_point *pt = &x->pt;
        const bench_impl_result *best = bench_best_cudnn(x);
        fprintf(f, "%s,%s,%s,%d,%d,%d,%d,%d,%d,", bench_pass_name(pt->pass),
                prnn_mode_name(pt->mode), bench_dtype_short(pt->dtype), pt->hidden, pt->input,
                pt->batch, pt->seq, pt->layers, pt->bidirectional);
        write_plan(f, &x->plan);
        for (int i = 0; i < BENCH_NUM_IMPLS; i++)
            write_impl(f, &x->impl[i]);
        fprintf(f, ",%s,", best ? bench_impl_name((bench_impl)x->best_cudnn) : "");
        csv_num(f, best ? best->us.median : NAN);
        fputc(',', f);
        csv_num(f, x->ratio);
        fputc(',', f);
        if (bench_result_compared(x) && isnan(x->max_rel_diff))
            fputs("nan", f);
        else
            csv_num(f, x->max_rel_diff);
        fprintf(f, ",%s", x->reference >= 0 ? bench_impl_name((bench_impl)x->reference) : "");
        for (int i = 0; i < BENCH_NUM_IMPLS; i++)
            csv_phases(f, &x->impl[i]);
        const bench_impl_result *inf = &x->fwd_inference;
        fprintf(f, ",%s,", bench_state_name(inf->state));
        csv_num(f, inf->us.median);
        fputc(',', f);
        csv_str(f, inf->note);
        fputc(',', f);
        csv_num(f, x->bwd_data_ratio);
        csv_phases(f, best);
        fputc(',', f);
        csv_str(f, x->plan.valid ? x->plan.engine : "");
        fputc(',', f);
        csv_str(f, x->plan.valid ? x->plan.backward_engine : "");
        fprintf(f, ",%s,%s,%lld,", bench_layout_name(pt->layout), bench_lengths_name(pt->lengths),
                bench_lengths_sum(pt));
        csv_num(f, x->layout_ratio);
        fputc(',', f);
        csv_num(f, x->layout_ratio_cudnn);
        fprintf(f, ",%d\n", pt->proj);
    }
    fflush(f);
}
