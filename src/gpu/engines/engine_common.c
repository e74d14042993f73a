/* What several engines share: the callbacks of an engine without a
 * configuration and the start of its prepare(), the release of a state that
 * is one heap block, the record of a chosen configuration's origin, a
 * configuration's defines, and the estimates' shared terms (the cell's
 * chain, a GEMM's time, a short call's input projection). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/engines/engine.h"
#include "gpu/run/kernel_request.h"
#include "rnn_cell_traits.h"

int prnn_engine_fits_any(const prnn_engine_query *q, const prnn_engine_config *c, char *why,
                         size_t n)
{
    (void)q;
    (void)c;
    (void)why;
    (void)n;
    return 0;
}

int prnn_engine_no_config(const prnn_engine_query *q, int search, size_t max_scratch,
                          prnn_engine_config *out, int max)
{
    (void)q;
    (void)search;
    (void)max_scratch;
    if (max < 1)
        return 0;
    memset(out, 0, sizeof(*out));
    return 1;
}

int prnn_engine_refuse_projection(const prnn_engine_query *q, char *why, size_t n)
{
    if (!q->key.proj)
        return 0;
    snprintf(why, n,
             "an LSTM projection (projSize %d < hiddenSize %d) runs on the standard engine only",
             q->key.proj, q->key.hidden);
    return -1;
}

double prnn_engine_gemm_us(const prnn_rnn_key *key, double m, double n, double k, int tf32)
{
    const int half = key->dtype == PRNN_DATA_HALF || key->dtype == PRNN_DATA_BFLOAT16;
    /* cuBLASLt's FP32 SIMT rate by rows: near flat from 64 rows (with the
     * 32 MiB workspace its split-K kernels reduce through, 21-24 TFLOP/s on
     * an H100 at 64-256 rows, bench/NOTES.md v0.29), falling fast below */
    const double rows = m >= 256 ? 1.0 : pow(fmax(m, 64.0) / 256.0, 0.07);
    const double few_rows = m >= 64 ? 1.0 : pow(m / 64.0, 0.6);
    const double simt = (key->dtype == PRNN_DATA_DOUBLE ? 46e12 : 23e12) * rows * few_rows;
    const double rate = half ? 250e12 : tf32 ? 125e12 : simt;
    const double flops = 2.0 * m * n * k;
    const double bytes = n * k * (double)prnn_dtype_size(key->dtype);
    return fmax(flops / rate, bytes / 4e12) * 1e6;
}

double prnn_engine_input_gemm_us(const prnn_rnn_key *key)
{
    return prnn_engine_gemm_us(key, (double)key->mini_batch,
                               (double)prnn_cell_traits(key->mode)->gates * key->hidden * key->dirs,
                               key->hidden, 0);
}

double prnn_engine_r_bytes(const prnn_rnn_key *key)
{
    return (double)prnn_cell_traits(key->mode)->gates * key->hidden * key->hidden *
           (double)prnn_dtype_size(key->dtype);
}

double prnn_engine_cell_chain_us(const prnn_rnn_key *key)
{
    if (prnn_cell_traits(key->mode)->gates < 2)
        return 0.0;
    return key->dtype == PRNN_DATA_FLOAT || key->dtype == PRNN_DATA_DOUBLE ? 0.15 : 0.09;
}

void prnn_engine_free_state(prnn_pass_plan *pp)
{
    free(pp->state);
    pp->state = NULL;
}

prnnStatus_t prnn_engine_take_choice(prnn_pass_plan *pp, const prnn_engine_choice *choices,
                                     int count, size_t state_bytes)
{
    if (count < 1)
        return prnn_fail(PRNN_STATUS_NOT_SUPPORTED, "%s engine: no configuration",
                         pp->engine->name);
    pp->state = calloc(1, state_bytes);
    if (!pp->state)
        return prnn_fail(PRNN_STATUS_ALLOC_FAILED, "out of host memory");
    pp->engine->format(&choices[0].config, pp->config, sizeof(pp->config));
    prnn_engine_note_choice(pp, &choices[0]);
    return PRNN_STATUS_SUCCESS;
}

void prnn_engine_note_choice(prnn_pass_plan *pp, const prnn_engine_choice *c)
{
    pp->source = c->source;
    pp->forced_by = c->forced_by;
    pp->chosen = c->config;
    snprintf(pp->tuned_on, sizeof(pp->tuned_on), "%s", c->tuned_on);
}

void prnn_request_config_defines(prnn_kernel_request *r, const prnn_tile_field *fields,
                                 const void *c)
{
    for (const prnn_tile_field *f = fields; f->name; f++)
        if (f->define)
            prnn_request_define(r, f->define, prnn_config_field_get(c, f));
}
