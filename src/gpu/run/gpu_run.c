#include "gpu/run/gpu_run.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "gpu/run/gpu_state.h"
#include "prnn_kernel_abi.h"
#include "weights_layout.h"

void prnn_call_plan_fill(prnn_call_plan *c, struct prnn_gpu_state *gs, const prnn_run_kernels *k,
                         const prnn_pass_plan *pp, const prnn_rnn_problem *p, prnn_call_kind call)
{
    memset(c, 0, sizeof(*c));
    c->gs = gs;
    c->kernels = k;
    c->pass = pp;
    c->p = p;
    c->rnn = p->rnn;
    c->kind = call;
    c->training = call != PRNN_CALL_INFERENCE;
    prnn_ws_layout_compute(pp, p, call, &c->l);
    if (c->training)
        prnn_reserve_layout_compute(p, &c->r);
    c->es = prnn_dtype_size(p->rnn->dtype);
    c->acc = prnn_dtype_math_size(p->rnn->dtype);
    c->G = prnn_cell_traits(p->rnn->mode)->gates;
    c->H = p->rnn->hidden;
    c->gh = (size_t)c->G * (size_t)c->H;
    c->dirs = prnn_rnn_dirs(p->rnn);
    c->P = prnn_rnn_out_width(p->rnn);
    c->h_state_stride = (size_t)p->mini_batch * c->P * c->es;
    c->c_state_stride = (size_t)p->mini_batch * c->H * c->es;
}

void *prnn_run_ws(const prnn_call_plan *c, size_t offset)
{
    return offset == (size_t)-1 ? NULL : c->ws + offset;
}

const void *prnn_run_offset(const void *base, size_t bytes)
{
    return base ? (const char *)base + bytes : NULL;
}

void *prnn_run_out_offset(void *base, size_t bytes)
{
    return base ? (char *)base + bytes : NULL;
}

/* Byte offsets of a pseudo-layer's W, R, bW, bR and Wp ((size_t)-1: W of
 * a SKIP_INPUT layer 0, a bias the bias mode drops, Wp without a
 * projection). */
enum { PART_W, PART_R, PART_BW, PART_BR, PART_WP, PARTS };
static void dir_parts(const prnn_call_plan *c, int pseudo, size_t at[PARTS], int *w_cols)
{
    prnn_pseudo_layer_layout pl;
    prnn_weights_pseudo_layer(c->rnn, c->p->input_size, pseudo, &pl);
    const size_t offsets[PARTS] = {pl.w_offset, pl.r_offset, pl.bw_offset, pl.br_offset,
                                   pl.p_offset};
    for (int i = 0; i < PARTS; i++)
        at[i] = offsets[i] == (size_t)-1 ? (size_t)-1 : offsets[i] * c->es;
    *w_cols = pl.w_cols;
}

static const void *part_of(const void *base, size_t at)
{
    return at == (size_t)-1 ? NULL : (const char *)base + at;
}

static void *out_part_of(void *base, size_t at)
{
    return at == (size_t)-1 ? NULL : (char *)base + at;
}

void prnn_run_dir_weights(const prnn_call_plan *c, const void *w, int pseudo, prnn_dir_weights *d)
{
    size_t at[PARTS];
    dir_parts(c, pseudo, at, &d->w_cols);
    d->W = part_of(w, at[PART_W]);
    d->R = part_of(w, at[PART_R]);
    d->Wp = part_of(w, at[PART_WP]);
    /* an absent bias reads as zeros (forward calls have them; the backward
     * reads no bias) */
    const void *zeros = prnn_run_ws(c, c->l.zero_bias);
    d->bW = at[PART_BW] == (size_t)-1 ? zeros : part_of(w, at[PART_BW]);
    d->bR = at[PART_BR] == (size_t)-1 ? zeros : part_of(w, at[PART_BR]);
}

void prnn_run_dir_grads(const prnn_call_plan *c, void *dw, int pseudo, prnn_dir_grads *d)
{
    size_t at[PARTS];
    int w_cols;
    dir_parts(c, pseudo, at, &w_cols);
    d->W = out_part_of(dw, at[PART_W]);
    d->R = out_part_of(dw, at[PART_R]);
    d->Wp = out_part_of(dw, at[PART_WP]);
    d->bW = out_part_of(dw, at[PART_BW]); /* NULL: no gradient to write */
    d->bR = out_part_of(dw, at[PART_BR]);
}

unsigned prnn_run_grid(unsigned long long n, unsigned block)
{
    unsigned long long grid = (n + block - 1) / block;
    if (grid > 4096)
        grid = 4096;
    return grid ? (unsigned)grid : 1;
}

/* Two 64-bit hashes of the bytes, eight at a time (a launch's arguments
 * are a few hundred bytes: signing must cost far less than the launch it
 * stands for), with different multipliers and seeds, so that a replayed
 * graph is the run's own but for a chance far below any hardware
 * error's. */
void prnn_sign_bytes(prnn_launch_signature *s, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    uint64_t h1 = s->h1, h2 = s->h2;
    for (; bytes >= 8; bytes -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h1 = (h1 ^ w) * 0x100000001b3ULL;
        h1 ^= h1 >> 32;
        h2 = (h2 + w) * 0x9e3779b97f4a7c15ULL;
        h2 ^= h2 >> 29;
    }
    for (; bytes; bytes--, p++) {
        h1 = (h1 ^ *p) * 0x100000001b3ULL;
        h2 = (h2 + *p + 1) * 0x9e3779b97f4a7c15ULL;
        h2 ^= h2 >> 29;
    }
    s->h1 = h1;
    s->h2 = h2;
}

static void sign_pointer(prnn_launch_signature *s, const void *p)
{
    prnn_sign_bytes(s, &p, sizeof(p));
}

/* What kind of thing a signature's next bytes are (a launch, a GEMM, ...),
 * so that different sequences of the same bytes differ. */
static void sign_kind(prnn_launch_signature *s, unsigned kind)
{
    prnn_sign_bytes(s, &kind, sizeof(kind));
}

enum { SIGN_LAUNCH = 1, SIGN_GEMM, SIGN_ZERO, SIGN_FORK, SIGN_JOIN };

/* Which stream the signed work goes to: the call's, or the handle's side
 * stream (prnn_run_fork): the same launches on another stream are another
 * graph. */
static void sign_stream(const prnn_call_plan *c)
{
    const unsigned char side = c->gs && c->gs->side && c->stream == c->gs->side;
    prnn_sign_bytes(c->signing, &side, 1);
}

/* Every launch: signed, or enqueued on the call's stream. */
static prnnStatus_t launch(const prnn_call_plan *c, CUfunction fn, const unsigned grid[3],
                           unsigned block, size_t smem, int cooperative, void *arg,
                           size_t arg_bytes, const char *name)
{
    if (c->signing) {
        const unsigned dims[6] = {grid[0], grid[1],        grid[2],
                                  block,   (unsigned)smem, (unsigned)cooperative};
        sign_kind(c->signing, SIGN_LAUNCH);
        sign_stream(c);
        sign_pointer(c->signing, fn);
        prnn_sign_bytes(c->signing, dims, sizeof(dims));
        prnn_sign_bytes(c->signing, arg, arg_bytes);
        return PRNN_STATUS_SUCCESS;
    }
    char what[96];
    void *params[] = {arg};
    const prnn_cuda_driver *cu = c->gs->cu;
    if (!cooperative) {
        snprintf(what, sizeof(what), "cuLaunchKernel(%s)", name);
        return prnn_cu_check(cu->cuLaunchKernel(fn, grid[0], grid[1], grid[2], block, 1, 1,
                                                (unsigned)smem, c->stream, params, NULL),
                             what);
    }
    snprintf(what, sizeof(what), "cuLaunchCooperativeKernel(%s)", name);
    return prnn_cu_check(cu->cuLaunchCooperativeKernel(fn, grid[0], grid[1], grid[2], block, 1, 1,
                                                       (unsigned)smem, c->stream, params),
                         what);
}

prnnStatus_t prnn_run_launch_blocks(const prnn_call_plan *c, CUfunction fn, unsigned grid,
                                    unsigned block, size_t smem, int cooperative, void *arg,
                                    size_t arg_bytes, const char *name)
{
    const unsigned g[3] = {grid, 1, 1};
    return launch(c, fn, g, block, smem, cooperative, arg, arg_bytes, name);
}

prnnStatus_t prnn_run_launch(const prnn_call_plan *c, CUfunction fn, unsigned grid_x,
                             unsigned grid_y, unsigned block, void *arg, size_t arg_bytes,
                             const char *name)
{
    const unsigned g[3] = {grid_x, grid_y, 1};
    return launch(c, fn, g, block, 0, 0, arg, arg_bytes, name);
}

prnnStatus_t prnn_run_launch_3d(const prnn_call_plan *c, CUfunction fn, const unsigned grid[3],
                                unsigned block, void *arg, size_t arg_bytes, const char *name)
{
    return launch(c, fn, grid, block, 0, 0, arg, arg_bytes, name);
}

prnnStatus_t prnn_run_zero(const prnn_call_plan *c, void *ptr, size_t bytes)
{
    if (c->signing) {
        sign_kind(c->signing, SIGN_ZERO);
        sign_stream(c);
        sign_pointer(c->signing, ptr);
        prnn_sign_bytes(c->signing, &bytes, sizeof(bytes));
        return PRNN_STATUS_SUCCESS;
    }
    return prnn_cu_check(
        c->gs->cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)ptr, 0, bytes, c->stream),
        "cuMemsetD8Async");
}

prnnStatus_t prnn_run_setup(const prnn_call_plan *c)
{
    return prnn_run_setup_io(c, NULL);
}

/* The runs (steps of equal batch) travel in the kernel's parameters; a long
 * varying sequence takes several launches, the first of which zeroes and
 * does io's work. */
prnnStatus_t prnn_run_setup_io(const prnn_call_plan *c, const prnn_setup_io_args *io)
{
    if (c->setup_done)
        return PRNN_STATUS_SUCCESS;
    prnn_setup_args a;
    memset(&a, 0, sizeof(a));
    if (io)
        a.io = *io;
    a.batch = (int *)prnn_run_ws(c, c->l.batch);
    a.offset = (int *)prnn_run_ws(c, c->l.offset);
    if (c->l.zero_begin != (size_t)-1) {
        a.zero = (unsigned *)prnn_run_ws(c, c->l.zero_begin);
        a.zero_words = (c->l.zero_end - c->l.zero_begin + 3) / 4;
    }
    const int T = c->p->seq_length;
    long long row = 0;
    int t = 0;
    while (t < T || a.zero) {
        a.t_begin = t;
        a.row_base = row;
        a.num_runs = 0;
        while (t < T && a.num_runs < PRNN_SETUP_MAX_RUNS) {
            int b = c->p->batch[t], t0 = t;
            while (t < T && c->p->batch[t] == b)
                t++;
            a.t_end[a.num_runs] = t;
            a.run_batch[a.num_runs] = b;
            a.num_runs++;
            row += (long long)(t - t0) * b;
        }
        unsigned long long work = (unsigned long long)T;
        if (a.zero_words > work)
            work = a.zero_words;
        unsigned grid = (unsigned)((work + 255) / 256);
        if (a.io.pad) { /* the padding: a warp a (sequence, step) vector, 8 a block */
            const unsigned long long blocks = ((unsigned long long)a.io.seqs * a.io.steps + 7) / 8;
            if (blocks > grid)
                grid = blocks > 1024 ? 1024 : (unsigned)blocks;
        }
        if (grid > 1024)
            grid = 1024;
        if (grid < 1)
            grid = 1;
        prnnStatus_t s =
            prnn_run_launch(c, c->kernels->setup, grid, 1, 256, &a, sizeof(a), "prnn_rnn_setup");
        if (s)
            return s;
        a.zero = NULL; /* only the first launch zeroes and writes io's */
        a.zero_words = 0;
        memset(&a.io, 0, sizeof(a.io));
        if (t >= T)
            break;
    }
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_run_fork(const prnn_call_plan *c, prnn_call_plan *side)
{
    const struct prnn_gpu_state *g = c->gs;
    if (!g->side)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_run_fork: no side stream");
    if (c->signing) {
        sign_kind(c->signing, SIGN_FORK);
    } else {
        PRNN_TRY(prnn_cu_check(g->cu->cuEventRecord(g->fork, c->stream), "cuEventRecord"));
        PRNN_TRY(prnn_cu_check(g->cu->cuStreamWaitEvent(g->side, g->fork, 0), "cuStreamWaitEvent"));
    }
    *side = *c;
    side->stream = g->side;
    side->l.gemm_ws = (size_t)-1; /* one cuBLASLt workspace: the call's stream's */
    return PRNN_STATUS_SUCCESS;
}

prnnStatus_t prnn_run_join(const prnn_call_plan *c)
{
    const struct prnn_gpu_state *g = c->gs;
    if (c->signing) {
        sign_kind(c->signing, SIGN_JOIN);
        return PRNN_STATUS_SUCCESS;
    }
    PRNN_TRY(prnn_cu_check(g->cu->cuEventRecord(g->join, g->side), "cuEventRecord"));
    return prnn_cu_check(g->cu->cuStreamWaitEvent(c->stream, g->join, 0), "cuStreamWaitEvent");
}

void prnn_run_gemm_key(const prnn_call_plan *c, prnn_gemm_key *key)
{
    memset(key, 0, sizeof(*key));
    key->in_type = c->rnn->dtype;
    key->tf32 = prnn_math_tf32_gemms(c->rnn->math);
}

void prnn_run_gemm_key_abt(const prnn_call_plan *c, int m, int n, int k, prnn_gemm_key *key)
{
    prnn_run_gemm_key(c, key);
    key->m = m;
    key->n = n;
    key->k = k;
    key->trans_b = 1;
    key->lda = k;
    key->ldb = k;
    key->ldc = n;
}

void prnn_run_gemm_key_caller_rows(const prnn_call_plan *c, int caller_a, prnn_gemm_key *key)
{
    const prnn_seq_io *io = c->p->io;
    const int batch = io->batch, steps = io->max_seq;
    if (io->layout != PRNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED) { /* the same rows */
        key->m = steps * batch;
        return;
    }
    key->m = steps;
    key->batch = batch;
    if (caller_a) {
        key->stride_a = (long long)steps * key->lda;
        key->stride_c = key->ldc;
        key->ldc *= batch;
    } else {
        key->stride_a = key->lda;
        key->lda *= batch;
        key->stride_c = (long long)steps * key->ldc;
    }
}

prnn_rows prnn_run_xproj_rows(const prnn_call_plan *c, int layer)
{
    prnn_rows r = {0};
    if (layer == 0 && c->x_rows.seq_stride) {
        r.seq_stride = 1;
        r.step_stride = c->p->io->batch;
    }
    return r;
}

prnnStatus_t prnn_run_gemm(const prnn_call_plan *c, const prnn_gemm_key *key, const void *a,
                           const void *b, void *out)
{
    if (c->l.gemm_ws == (size_t)-1)
        return prnn_fail(PRNN_STATUS_INTERNAL_ERROR, "prnn_run_gemm: no GEMM workspace here");
    if (c->signing) {
        sign_kind(c->signing, SIGN_GEMM);
        sign_stream(c);
        prnn_sign_bytes(c->signing, key, sizeof(*key));
        sign_pointer(c->signing, a);
        sign_pointer(c->signing, b);
        sign_pointer(c->signing, out);
        sign_pointer(c->signing, prnn_run_ws(c, c->l.gemm_ws));
        return PRNN_STATUS_SUCCESS;
    }
    prnn_gemm_cache *gemm;
    prnnStatus_t s = prnn_gpu_gemm(c->gs, &gemm);
    if (s)
        return s;
    return prnn_gemm_run(gemm, key, a, b, out, prnn_run_ws(c, c->l.gemm_ws), c->stream);
}
