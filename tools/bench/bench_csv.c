/* prnn-bench's CSV (columns: bench_report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

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
        if (bench_result_compared(x) && isnan(x->max_rel_diff))
            fputs("nan", f);
        else
            csv_num(f, x->max_rel_diff);
        fprintf(f, ",%s\n",
                x->reference >= 0 ? bench_impl_name((bench_impl)x->reference)
                                  : "");
    }
    fflush(f);
}

