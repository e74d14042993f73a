/*
 * The tiny-h engine (PRNN_PATH_TINY_H, config "tiny-h rows=R per_sm=N"):
 * both passes of layers with a hidden size up to 64. One block of 4 x H
 * threads runs the whole sequence of R batch rows of one direction
 * (rnn_tiny.cu forwards, rnn_tiny_backward.cu backwards): each hidden
 * unit's gates on a quad of lanes, every recurrent weight in registers (a
 * row of R forwards, a column backwards), what the next step needs in
 * shared memory and one barrier per step. Rows are independent, so blocks
 * never wait for one another: several share a multiprocessor where their
 * registers allow, and a batch larger than the device holds at once runs
 * in waves (tiny_layout.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/engines/engine.h"
#include "gpu/engines/tiny/tiny_layout.h"
#include "gpu/run/gpu_run.h"
#include "gpu/run/gpu_state.h"
#include "gpu/run/kernel_request.h"
#include "gpu/run/layered_run.h"
#include "gpu/run/run_kernels.h"
#include "gpu/run/seq_io_plan.h"
#include "prnn_kernel_abi.h"

#define TINY_MAX_HIDDEN 64

/* The forward kernel's variants, [SKIP_INPUT's layer 0][keeps act for
 * training], or the backward-data kernel (fn[0][0]). */
typedef struct {
    CUfunction fn[2][2];
    prnn_tiny_layout layout; /* fixed at prepare: every variant loaded later compiles for it */
    int train_loaded;
} tiny_state;

/* The batch's layout for this call (tiny_layout.c), $PRNN_TINY_ROWS
 * fixing the rows (1-8, for the tests to run the rows' paths at any
 * batch; another value is ignored). */
static prnn_tiny_layout layout_for(const prnn_engine_query *q)
{
    const char *env = getenv("PRNN_TINY_ROWS");
    return prnn_tiny_layout_for(&q->key, &q->gs->info, env ? atoi(env) : 0);
}

static prnnStatus_t request_tiny(const prnn_engine_query *q, const prnn_tiny_layout *l, int skip,
                                 int train, prnn_kernel_request *r)
{
    const int bwd = q->pass == PRNN_PASS_BACKWARD_DATA;
    prnn_request_start(r, bwd ? "rnn_tiny_backward.cu" : "rnn_tiny.cu",
                       bwd ? "prnn_tiny_backward" : "prnn_tiny_forward", q->gs->info.sm);
    prnn_request_define(r, "PRNN_MODE", prnn_cell_traits(q->key.mode)->kernel_mode);
    prnn_request_define(r, "PRNN_DTYPE", prnn_kernel_dtype_code(q->key.dtype));
    prnn_request_define(r, "PRNN_H", q->key.hidden);
    prnn_request_define(r, "PRNN_TINY_ROWS", l->rows);
    prnn_request_define(r, "PRNN_TINY_BLOCKS_PER_SM", l->per_sm);
    prnn_request_define(r, "PRNN_CALLER_ROWS", q->key.caller_rows);
    if (!bwd) {
        prnn_request_define(r, "PRNN_IO_LAYOUTS",
                            prnn_seq_io_kernel_layouts(q->key.caller_rows, q->key.layers));
        prnn_request_define(r, "PRNN_SKIP", skip);
        prnn_request_define(r, "PRNN_TRAIN", train);
    }
    return prnn_request_finish(r);
}

static int supports(const prnn_engine_query *q, char *why, size_t n)
{
    if (prnn_cell_traits(q->key.mode)->scan) {
        snprintf(why, n, "SRU has its own scan");
        return -1;
    }
    if (q->key.algo == PRNN_RNN_ALGO_STANDARD) {
        snprintf(why, n, "the descriptor's algorithm is PRNN_RNN_ALGO_STANDARD");
        return -1;
    }
    if (prnn_engine_refuse_projection(q, why, n))
        return -1;
    if (q->key.clip != PRNN_KCLIP_NONE) {
        snprintf(why, n, "cell clipping (prnnRNNSetClip_v8) is not in the tiny-h kernels");
        return -1;
    }
    if (q->key.hidden > TINY_MAX_HIDDEN) {
        snprintf(why, n, "hidden size %d > %d: a gate's row of R does not fit a lane's registers",
                 q->key.hidden, TINY_MAX_HIDDEN);
        return -1;
    }
    return 0;
}

/*
 * A step's time in microseconds, fitted to the tiny-h kernels measured on
 * an H100 (bench/NOTES.md: seventh session for the backward, tenth for the
 * forward; T 256, H 32 and 64, B 1 to 256, every mode, fp32 and fp16): a
 * fixed part (the barrier, the stores, the loads' issue: 0.18 us in fp32,
 * 0.12 in 16 bits), 4.5 ns per hidden unit (the block's warps), and the
 * cell's chain where it has several gates (prnn_engine_cell_chain_us: 0.15
 * us with fp32's accurate tanh, 0.09 with the hardware one). The forward
 * kernel's lanes activate their own gates at once, so it pays
 * TINY_FORWARD_CELL_SHARE of that chain (the cell state's tanh and the
 * gather are left), and each further batch row of a block costs it about a
 * row's whole step but the barrier (40 ns, the block's 4.5 ns a unit, 2.5
 * ns a multiply-add of a lane, its cell; 0.7 of that in 16 bits). The
 * backward-data kernel measured 1.2 to 1.7 times the forward before that
 * change at the same shape (1.5), 2.6 times with one gate in 16 bits (its
 * two loads a step cost it the shuffles), and a further row 40 ns plus
 * k^2 / 6000 ns for a lane's k multiply-adds. One gate's forward step is
 * 0.17 us (0.13 in 16 bits) and 2.9 ns a unit since its lanes' inputs
 * came in chunks (v0.30's tiny-h runs at H 32/64, B 128-512: the terms
 * above overstated it 1.15-1.44x, 1.03x now). N blocks sharing a
 * multiprocessor (layout_for) each take N^0.4 times a lone block's step
 * forwards, N^0.3 backwards (H 32/64, B 128/256/512, every mode, fp32 and
 * fp16: two blocks 1.13-1.51 and 1.23-1.26, four 1.70-1.77 and 1.45;
 * bench/NOTES.md v0.30); blocks beyond what the device holds at once run
 * in waves.
 */
#define TINY_FORWARD_CELL_SHARE 0.4
#define TINY_SHARED_SM_EXPONENT_FORWARD 0.4
#define TINY_SHARED_SM_EXPONENT_BACKWARD 0.3

static double estimate(const prnn_engine_query *q)
{
    const prnn_tiny_layout l = layout_for(q);
    const int rows = l.rows;
    const int sms = q->gs->info.sm_count > 0 ? q->gs->info.sm_count : 1;
    const int G = prnn_cell_traits(q->key.mode)->gates;
    const int wide = q->key.dtype == PRNN_DATA_FLOAT || q->key.dtype == PRNN_DATA_DOUBLE;
    const double k = G == 1 ? q->key.hidden / 4.0 : q->key.hidden;
    const int bwd = q->pass == PRNN_PASS_BACKWARD_DATA;
    const double cell = prnn_engine_cell_chain_us(&q->key) * (bwd ? 1.0 : TINY_FORWARD_CELL_SHARE);
    double us = G == 1 && !bwd ? (wide ? 0.17 : 0.13) + 0.0029 * q->key.hidden
                               : (wide ? 0.18 : 0.12) + 0.0045 * q->key.hidden + cell;
    if (bwd)
        us = (us + (rows - 1) * (0.04 + k * k / 6000.0)) * (G == 1 && !wide ? 2.6 : 1.5);
    else
        us += (rows - 1) * (0.04 + 0.0045 * q->key.hidden + 0.0025 * k + cell) * (wide ? 1.0 : 0.7);
    const int blocks = prnn_tiny_groups(q->key.mini_batch, rows) * q->key.dirs;
    us *= pow(l.per_sm, bwd ? TINY_SHARED_SM_EXPONENT_BACKWARD : TINY_SHARED_SM_EXPONENT_FORWARD);
    return ceil((double)blocks / ((double)sms * l.per_sm)) * us;
}

/* What a call costs beyond its steps: the layered runner's set-up kernel
 * and input GEMM (launches and the GEMM's time), the launch, and loading R
 * into registers (the persistent engine's model of the same work). */
static double call_setup(const prnn_engine_query *q)
{
    const prnn_rnn_key *k = &q->key;
    const double weights = prnn_engine_r_bytes(k);
    return 7.5 + prnn_engine_input_gemm_us(k) + weights / 2e12 * 1e6;
}

static void format(const prnn_engine_config *c, char *buf, size_t size)
{
    (void)c;
    snprintf(buf, size, "tiny-h");
}

static int requests(const prnn_engine_query *q, const prnn_engine_config *c, int training,
                    prnn_kernel_request *out)
{
    (void)c;
    const prnn_tiny_layout l = layout_for(q);
    if (q->pass == PRNN_PASS_BACKWARD_DATA)
        return training ? (request_tiny(q, &l, 0, 0, &out[0]) ? -1 : 1) : 0;
    const int skips = q->key.input_mode == PRNN_SKIP_INPUT ? 2 : 1;
    int n = 0;
    for (int train = 0; train <= training; train++)
        for (int skip = 0; skip < skips; skip++)
            if (request_tiny(q, &l, skip, train, &out[n++]))
                return -1;
    return n;
}

/* Inference's variants (train 0) or training's (1); the backward-data
 * pass's one kernel. */
static prnnStatus_t load_variants(const prnn_engine_query *q, int train, prnn_pass_plan *pp)
{
    tiny_state *st = pp->state;
    if (q->pass == PRNN_PASS_BACKWARD_DATA) {
        prnn_kernel_request r;
        const prnn_named_fn fn = {"prnn_tiny_backward", &st->fn[0][0]};
        return prnn_load_functions(q->gs, request_tiny(q, &st->layout, 0, 0, &r), &r, &pp->stats,
                                   &fn, 1);
    }
    for (int skip = 0; skip < 2; skip++) {
        if (skip && q->key.input_mode != PRNN_SKIP_INPUT)
            break;
        prnn_kernel_request r;
        const prnn_named_fn fn = {"prnn_tiny_forward", &st->fn[skip][train]};
        PRNN_TRY(prnn_load_functions(q->gs, request_tiny(q, &st->layout, skip, train, &r), &r,
                                     &pp->stats, &fn, 1));
    }
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t prepare(const prnn_engine_query *q, const prnn_engine_choice *choices,
                            int count, prnn_pass_plan *pp)
{
    PRNN_TRY(prnn_engine_take_choice(pp, choices, count, sizeof(tiny_state)));
    tiny_state *st = pp->state;
    /* read once: the training variants and the backward kernel load later,
     * and must match the rows the launches use */
    st->layout = layout_for(q);
    snprintf(pp->config, sizeof(pp->config), "tiny-h rows=%d per_sm=%d", st->layout.rows,
             st->layout.per_sm);
    /* the backward-data pass loads on the first training need */
    if (q->pass == PRNN_PASS_BACKWARD_DATA)
        return PRNN_STATUS_SUCCESS;
    PRNN_TRY(load_variants(q, 0, pp));
    pp->loaded = 1;
    return PRNN_STATUS_SUCCESS;
}

static prnnStatus_t load_training(const prnn_engine_query *q, prnn_pass_plan *pp)
{
    tiny_state *st = pp->state;
    if (st->train_loaded)
        return PRNN_STATUS_SUCCESS;
    PRNN_TRY(load_variants(q, 1, pp));
    st->train_loaded = 1;
    pp->loaded = 1;
    return PRNN_STATUS_SUCCESS;
}

/* Every direction of one layer in one launch. */
static prnnStatus_t forward_layer(const prnn_layer_run *lr)
{
    const prnn_call_plan *c = lr->c;
    const tiny_state *st = c->pass->state;
    prnn_rnn_args a; /* no scratch: the hand-off is the block's own */
    prnn_layered_rnn_args(lr, &a);
    PRNN_TRY(prnn_seq_io_check_kernel_rows(c->caller_rows, c->rnn->layers, &a.x_rows, &a.y_rows));
    const unsigned groups = (unsigned)prnn_tiny_groups(c->p->mini_batch, st->layout.rows);
    CUfunction fn = st->fn[lr->skip][c->training];
    return prnn_run_launch(c, fn, groups, (unsigned)c->dirs, (unsigned)(4 * c->H), &a, sizeof(a),
                           "prnn_tiny_forward");
}

/* Every direction of one layer in one launch, walking time backwards. */
static prnnStatus_t backward_layer(const prnn_layer_run *lr)
{
    const prnn_call_plan *c = lr->c;
    const tiny_state *st = c->pass->state;
    prnn_bwd_args a;
    prnn_layered_bwd_args(lr, &a);
    const unsigned groups = (unsigned)prnn_tiny_groups(c->p->mini_batch, st->layout.rows);
    return prnn_run_launch(c, st->fn[0][0], groups, (unsigned)c->dirs, (unsigned)(4 * c->H), &a,
                           sizeof(a), "prnn_tiny_backward");
}

static void describe(const prnn_pass_plan *pp, const prnn_rnn_key *key, prnn_engine_info *info)
{
    const tiny_state *st = pp->state;
    memset(info, 0, sizeof(*info));
    info->path = PRNN_PATH_TINY_H;
    info->num_blocks = st ? prnn_tiny_groups(key->mini_batch, st->layout.rows) : 0;
    info->threads_per_block = 4 * key->hidden;
    info->units_per_block = key->hidden;
    info->resident_fraction = 1.0;
}

const prnn_engine prnn_tiny_engine = {
    .name = "tiny-h",
    .unpacked_in_place = 1,
    .supports = supports,
    .fits = prnn_engine_fits_any,
    .candidates = prnn_engine_no_config,
    .estimate = estimate,
    .call_setup = call_setup,
    .format = format,
    .prepare = prepare,
    .load_training = load_training,
    .requests = requests,
    .forward_layer = forward_layer,
    .backward_layer = backward_layer,
    .describe = describe,
    .release = prnn_engine_free_state,
};
