/*
 * Pieces shared by the files of the CPU reference (src/ref/): the resolved
 * shape, the layout of the workspace and the reserve, and the helpers that
 * forward and backward both use.
 *
 * Everything is computed in double. The storage type only matters where data
 * enters (x, hx, cx, w, dy, dhy, dcy) and leaves (y, hy, cy, dx, dhx, dcx,
 * dw); in between, rows of every matrix are contiguous doubles so that the
 * loops stay simple and cache-friendly.
 */
#ifndef PRNN_REF_INTERNAL_H
#define PRNN_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "prnn.h"
#include "rnn_cell_traits.h"
#include "rnn_problem.h"

typedef struct prnn_ref_cell prnn_ref_cell;

/*
 * The problem with every derived size in size_t, so that index arithmetic
 * never overflows int for large shapes.
 */
typedef struct {
    const struct prnnRNNStruct *rnn;
    /* the mode's traits (rnn_cell_traits.h) and its reference math (NULL for
     * SRU, whose scan has its own functions) */
    const prnn_cell_traits_row *traits;
    const prnn_ref_cell *cell;
    prnnDataType_t dtype;
    int skip;      /* SKIP_INPUT: layer 0 has no W */
    size_t hidden; /* H */
    size_t gates;  /* G; SRU 4 (u0..u3, the widest projection) */
    size_t dirs;   /* D */
    size_t layers; /* L */
    size_t steps;  /* T */
    size_t batch0; /* B = batch[0], rows of hx/hy */
    size_t input;  /* X */
    size_t rows;   /* N = sum of batch[t] */
    size_t gh;     /* G * H: one row of the input projection */
    size_t proj;   /* P: width of h (projSize with a projection, else H) */
    int has_proj;  /* LSTM with a projection: h = W_proj (o tanh(c)) */
    size_t dh;     /* D * P: one row of a layer's output */
    /* doubles per row kept for the backward pass per pseudo-layer:
     * LSTM i f g o c, GRU r z n m (m = R_n h + bR_n), SRU f r c' c u0 x'
     * (c' = c_{t-1}: backward weights has no cx to rebuild it from), none
     * for RELU/TANH (their derivative follows from h, which the layer output
     * holds). LSTM with clipping adds c before the clip. */
    size_t act_cols;
    /* doubles per row of gate gradients: the gradients of the pre-activations
     * (G*H), plus for GRU the input-side gradient of n, which differs from
     * the recurrent side (r * dn) because the reset multiplies R_n h only.
     * SRU: du0, the pre-activation gradients of f and r, and dx' (4*H). */
    size_t dg_cols;
    size_t kmax; /* widest layer input: max(X, D*P) */
    /* the bias mode: whether bW and bR exist (absent ones are zero) */
    int has_bw, has_br;
    /* LSTM cell clipping (prnnRNNSetClip_v8) */
    int clip, clip_nan;
    double lclip, rclip;
    /* the unpacked layout of a v8 call, or NULL (rnn_problem.h) */
    const prnn_seq_io *io;
    /* SRU's conventions (prnnSetRNNSRUConvention): g = identity instead of
     * tanh; the factor of x' where x' is the layer input; and whether
     * direction d's x' is columns d*H.. of the input (the sru package's
     * split) rather than all of it */
    int sru_identity;
    double sru_scale;
    int sru_split;
    const int *batch;
    /* dropout between layers (training only); threshold 0 means none */
    uint32_t drop_threshold;
    double drop_scale;
    unsigned long long seed;
} prnn_ref_dims;

void prnn_ref_dims_init(const prnn_rnn_problem *p, prnn_ref_dims *g);

/* Columns of layer l's input. */
static inline size_t prnn_ref_layer_input(const prnn_ref_dims *g, size_t l)
{
    return l == 0 ? g->input : g->dh;
}

/* Column of gate-row i's input-side gradient inside a dg row (see dg_cols):
 * the cell's input-side runs (GRU's n keeps it in the extra block). */
static inline size_t prnn_ref_dg_in_col(const prnn_ref_dims *g, size_t i)
{
    const prnn_cell_traits_row *t = g->traits;
    for (int k = 0; k < t->input_runs; k++) {
        size_t lo = (size_t)t->input_run[k].w_row * g->hidden;
        if (i >= lo && i < lo + (size_t)t->input_run[k].count * g->hidden)
            return i - lo + (size_t)t->input_run[k].dg_col * g->hidden;
    }
    return i;
}

/*
 * Reserve (filled by forward training, read by both backward calls; the dg
 * block is written by backward data and read by backward weights):
 *   out [L][N][D*H]            each layer's output before dropout
 *   act [L*D][N][act_cols*H]   per pseudo-layer, see act_cols
 *   dg  [L*D][N][dg_cols*H]    per pseudo-layer gate gradients
 *   dp  [L*D][N][P]            with a projection: the gradient of each row's
 *                              h_t (written by backward data, for dW_proj)
 * Each block starts on a 64-byte boundary; the base pointer is aligned up
 * first, which is why the size includes 64 bytes of slack.
 */
typedef struct {
    double *out;
    double *act;
    double *dg;
    double *dp;
} prnn_ref_reserve;

/* The layouts below map onto base (NULL: measure only) and return the bytes
 * they need, base's alignment slack included: sizes and addresses come from
 * the same code and cannot disagree. */
size_t prnn_ref_reserve_map(const prnn_ref_dims *g, void *base, prnn_ref_reserve *r);
size_t prnn_ref_reserve_size(const prnn_ref_dims *g);

static inline double *prnn_ref_res_out(const prnn_ref_dims *g, const prnn_ref_reserve *r, size_t l)
{
    return r->out + l * g->rows * g->dh;
}
static inline double *prnn_ref_res_act(const prnn_ref_dims *g, const prnn_ref_reserve *r, size_t pl)
{
    return r->act + pl * g->rows * g->act_cols * g->hidden;
}
static inline double *prnn_ref_res_dg(const prnn_ref_dims *g, const prnn_ref_reserve *r, size_t pl)
{
    return r->dg + pl * g->rows * g->dg_cols * g->hidden;
}
static inline double *prnn_ref_res_dp(const prnn_ref_dims *g, const prnn_ref_reserve *r, size_t pl)
{
    return r->dp + pl * g->rows * g->proj;
}

/*
 * Workspace: each call carves its own regions from the same buffer (its
 * contents do not survive between calls), so the workspace size is the
 * largest of the three layouts. Every layout starts with the row offsets of
 * the steps and the GEMM packing buffers.
 */
typedef struct {
    size_t *off;     /* [T+1] first row of step t; off[T] = N */
    double *pack;    /* PRNN_REF_GEMM_PACK doubles, for prnn_ref_gemm */
    double *in;      /* [N][kmax] layer input: x, or dropout(previous out) */
    double *out[2];  /* [N][D*H] layer outputs, alternating (inference only:
                      * training writes them to the reserve) */
    double *wt;      /* [kmax][G*H] W transposed: x W^T then reads both
                      * operands along rows */
    double *rt;      /* [P][G*H] R transposed */
    double *pt;      /* [H][P] W_proj transposed */
    double *m;       /* [B][H] o tanh(c) before the projection */
    double *bw, *br; /* [G*H] */
    double *vec;     /* [4*H] SRU's b_f b_r v_f v_r */
    double *proj;    /* [N][G*H] W x + bW of every row */
    double *rec;     /* [B][G*H] R h + bR of the current step */
    double *h, *c;   /* [B][H] running state */
} prnn_ref_fwd_ws;

typedef struct {
    size_t *off;
    double *pack;
    double *dout;          /* [N][D*H] gradient of the current layer's output */
    double *din;           /* [N][kmax] gradient of the current layer's input */
    double *w;             /* [G*H][kmax] W as stored (row-major, not transposed) */
    double *r;             /* [G*H][P] */
    double *wp;            /* [P][H] W_proj */
    double *dm;            /* [B][H] gradient of o tanh(c) (projection) */
    double *dz;            /* [B][H] zeros (projection: the cell's dh) */
    double *vec;           /* [4*H] SRU's b_f b_r v_f v_r */
    double *h0, *c0;       /* [B][H] initial state */
    double *hprev, *cprev; /* [B][H] previous state of the current step */
    double *dh, *dc;       /* [B][H] running gradient of the state */
} prnn_ref_bwd_data_ws;

typedef struct {
    size_t *off;
    double *pack;
    double *in;    /* [N][kmax] layer input, as the forward saw it */
    double *hprev; /* [N][P] previous state of every row */
    double *m;     /* [N][H] o tanh(c) of every row (projection) */
    double *h0;    /* [B][H] */
    double *dmat;  /* [G*H][max(kmax, H)] gradient of W or R */
    double *dbias; /* [G*H] */
} prnn_ref_bwd_weights_ws;

size_t prnn_ref_fwd_ws_map(const prnn_ref_dims *g, void *base, prnn_ref_fwd_ws *w);
size_t prnn_ref_bwd_data_ws_map(const prnn_ref_dims *g, void *base, prnn_ref_bwd_data_ws *w);
size_t prnn_ref_bwd_weights_ws_map(const prnn_ref_dims *g, void *base, prnn_ref_bwd_weights_ws *w);
size_t prnn_ref_workspace_size(const prnn_ref_dims *g);

/* Fills off[0..T] from the batch sizes. */
void prnn_ref_step_offsets(const prnn_ref_dims *g, size_t *off);

/* Step number s of direction dir in the forward order of time. */
static inline size_t prnn_ref_step_time(const prnn_ref_dims *g, size_t dir, size_t s)
{
    return dir ? g->steps - 1 - s : s;
}

/*
 * The state each row of step t started from, in direction dir: the same row
 * of the previous step in that direction's order when the sequence had one,
 * else the initial state. src points at the state of row 0 (e.g. a layer's
 * output plus dir * P) with rows lds doubles apart; init is [B][width].
 * Writes batch[t] rows of width doubles to dst.
 */
void prnn_ref_gather_prev(const prnn_ref_dims *g, const size_t *off, size_t dir, size_t t,
                          const double *src, size_t lds, size_t width, const double *init,
                          double *dst);

/* ---- the caller's sequences and states (src/ref/ref_seq_io.c) ---- */

/* The layer-0 input x (or dy) into packed rows [N][cols], from the
 * caller's layout (g->io; packed when NULL). */
void prnn_ref_load_seq(const prnn_ref_dims *g, const void *src, size_t cols, double *dst);
/* Packed rows [N][cols] out to the caller's y (or dx), and the padding
 * fill (one value of the data type, or NULL) to its padding positions. */
void prnn_ref_store_seq(const prnn_ref_dims *g, void *dst, size_t cols, const double *src,
                        const void *fill);
/* Pseudo-layer pl's slice of a state tensor {L*D, B, width} into [B][width]
 * in packed row order (zeros when src is NULL), and back. */
void prnn_ref_load_state(const prnn_ref_dims *g, const void *src, size_t pl, size_t width,
                         double *dst);
void prnn_ref_store_state(const prnn_ref_dims *g, void *dst, size_t pl, size_t width,
                          const double *src);

/* ---- storage conversions ---- */

/* dst[i] = element (offset + i) of src, for i < n. */
void prnn_ref_load(const void *src, prnnDataType_t t, size_t offset, size_t n, double *dst);
/* Loads n values, or zeros when src is NULL. */
void prnn_ref_load_or_zero(const void *src, prnnDataType_t t, size_t offset, size_t n, double *dst);
/* The rows x cols row-major matrix at offset, transposed: dst is
 * [cols][rows]. */
void prnn_ref_load_transposed(const void *src, prnnDataType_t t, size_t offset, size_t rows,
                              size_t cols, double *dst);
/* Element (offset + i) of dst = src[i], rounded to t. */
void prnn_ref_store(void *dst, prnnDataType_t t, size_t offset, size_t n, const double *src);
/* Element (offset + i) of dst += src[i], the sum rounded to t. */
void prnn_ref_accumulate(void *dst, prnnDataType_t t, size_t offset, size_t n, const double *src);

/* ---- dropout ---- */

/*
 * dst = mask(src) * scale for layer l's output [N][D*H], with the mask of
 * src/ref/philox.h. Used forward on the output and backward on its gradient
 * (the same mask is what makes them consistent). dst may equal src.
 */
void prnn_ref_dropout(const prnn_ref_dims *g, size_t layer, const double *src, double *dst);

/* ---- dense products ---- */

/* Blocking of prnn_ref_gemm: an MB x KB block of A and a KB x NC panel of B
 * are packed so that the inner kernel streams both from L1/L2 whatever the
 * leading dimensions (powers of two, typical here, would otherwise map a
 * column strip of B onto a handful of cache sets). */
#define PRNN_REF_GEMM_MB 64
#define PRNN_REF_GEMM_KB 256
#define PRNN_REF_GEMM_NC 256
/* Doubles of packing scratch prnn_ref_gemm needs. */
#define PRNN_REF_GEMM_PACK                                                                         \
    (PRNN_REF_GEMM_MB * PRNN_REF_GEMM_KB + PRNN_REF_GEMM_KB * PRNN_REF_GEMM_NC)

/*
 * C[m][n] += A B, where A(i, k) = a[i * a_rs + k * a_cs] (so A or its
 * transpose may be passed without a copy), B is row-major with ldb, C
 * row-major with ldc; C must not overlap A or B (threads read them while
 * others write C). pack holds PRNN_REF_GEMM_PACK doubles.
 */
void prnn_ref_gemm(size_t m, size_t n, size_t k, const double *a, size_t a_rs, size_t a_cs,
                   const double *b, size_t ldb, double *c, size_t ldc, double *pack);

/* prnn_ref_gemm on at most threads threads (it takes PRNN_REF_THREADS, or
 * the CPUs the process may run on): the caller's and helpers it starts for
 * the call, as far as the process-wide count of running helpers allows;
 * the same bits whatever the number. Exposed for the tests. */
void prnn_ref_gemm_threads(int threads, size_t m, size_t n, size_t k, const double *a, size_t a_rs,
                           size_t a_cs, const double *b, size_t ldb, double *c, size_t ldc,
                           double *pack);
/* Helper threads prnn_ref_gemm_threads has started in this process so far. */
unsigned long prnn_ref_gemm_helpers_started(void);

/* The inner kernels prnn_ref_gemm can use. They give identical bits; AVX2
 * (x86-64 only) is faster and is what prnn_ref_gemm picks when the CPU has
 * it. Exposed so that the tests can compare the two. */
enum { PRNN_REF_GEMM_GENERIC = 0, PRNN_REF_GEMM_AVX2 = 1 };
int prnn_ref_gemm_has_avx2(void);
void prnn_ref_gemm_kernel(int kernel, size_t m, size_t n, size_t k, const double *a, size_t a_rs,
                          size_t a_cs, const double *b, size_t ldb, double *c, size_t ldc,
                          double *pack);

/* ---- cells: one step of one direction, for the batch[t] rows active ---- */

/* LSTM's act columns (each H wide): the gates after their activations, c_t,
 * and with clipping c_t before the clip (the kernels' Cell<LSTM> keeps the
 * same order; its PREV_C_COL is REF_LSTM_C). */
enum { REF_LSTM_I, REF_LSTM_F, REF_LSTM_G, REF_LSTM_O, REF_LSTM_C, REF_LSTM_PRE_CLIP };

/* A cell's reference math (src/ref/ref_cells.c): its forward and backward
 * for one row (as prnn_ref_cell_forward and _backward, which call them for
 * each row), and which state of the step before its backward reads: h_{t-1}
 * (reads_hprev), or c_{t-1} from act column cprev_col of the step before
 * (-1: none). */
struct prnn_ref_cell {
    prnnRNNMode_t mode;
    void (*forward_row)(const prnn_ref_dims *g, const double *proj, const double *rec, double *h,
                        double *c, double *act);
    void (*backward_row)(const prnn_ref_dims *g, const double *act, const double *hout,
                         const double *dout, const double *hprev, const double *cprev, double *dh,
                         double *dc, double *dg);
    int reads_hprev, cprev_col;
};
/* The reference math of mode; NULL for SRU (prnn_ref_sru_cell_*). */
const prnn_ref_cell *prnn_ref_cell_of(prnnRNNMode_t mode);

/*
 * proj: rows of W x + bW (G*H apart); rec: rows of R h + bR (G*H apart);
 * h, c: [nb][H] state, read as h_{t-1}, c_{t-1} and overwritten with h_t, c_t
 * (c for LSTM only); out: where h_t goes, rows ldo apart; act: the values
 * kept for backward (act_cols*H apart), or NULL in inference.
 */
void prnn_ref_cell_forward(const prnn_ref_dims *g, size_t nb, const double *proj, const double *rec,
                           double *h, double *c, double *out, size_t ldo, double *act);

/*
 * The reverse of prnn_ref_cell_forward for the same rows.
 * act: as forward stored it; hout: h_t (rows ldo apart; RELU/TANH use it);
 * dout: gradient of h_t from the layer above or dy (rows ldo apart);
 * hprev, cprev: [nb][H] state the step started from (GRU, LSTM);
 * dh: [nb][H] in: gradient of h_t from later steps; out: the part of the
 *   gradient of h_{t-1} that does not go through R (GRU's z h_{t-1});
 * dc: [nb][H] LSTM only, in: gradient of c_t; out: gradient of c_{t-1};
 * dg: gate gradient rows (dg_cols*H apart), see prnn_ref_dims.dg_cols.
 */
void prnn_ref_cell_backward(const prnn_ref_dims *g, size_t nb, const double *act,
                            const double *hout, const double *dout, size_t ldo, const double *hprev,
                            const double *cprev, double *dh, double *dc, double *dg);

/* ---- SRU (src/ref/ref_sru.c): one direction of one layer ---- */

/*
 * Forward: U = in W^T for every row, then the scan. in: the layer input
 * [N][kin] (x' where no projection); out, act as for the other modes; c0: the
 * pseudo-layer's slice of cx or NULL; hy, cy: where h_T, c_T go or NULL.
 */
void prnn_ref_sru_forward_dir(const prnn_ref_dims *g, prnn_ref_fwd_ws *ws, const void *w,
                              const void *cx, void *hy, void *cy, size_t l, size_t d,
                              const double *in, double *out, double *act);
/* Backward data: dout (ws) to din [N][kin] (added), dcx, and the gate
 * gradients dg left in the reserve; dhx is written as zeros (h has no
 * recurrent role). */
void prnn_ref_sru_backward_dir(const prnn_ref_dims *g, prnn_ref_bwd_data_ws *ws,
                               const prnn_ref_reserve *res, const void *w, const void *dhy,
                               const void *dcy, void *dhx, void *dcx, size_t l, size_t d,
                               double *din);
/* Backward weights: dW from dg and the layer input, and the V block's
 * gradients (b_f, b_r, v_f, v_r) from dg and c_{t-1}, added to dw. */
void prnn_ref_sru_weights_dir(const prnn_ref_dims *g, prnn_ref_bwd_weights_ws *ws,
                              const prnn_ref_reserve *res, size_t l, size_t d, const double *in,
                              void *dw);

/*
 * The SRU cell of one step (src/ref/ref_cells.c): u: rows of u0 u1 u2 (u3)
 * (G*H apart); xp: rows of x' (ldx apart) before xs, its factor (the
 * highway scale where x' is the input, 1 for u3); vec: b_f b_r v_f v_r;
 * c: [nb][H] c_{t-1} in, c_t out; h: [nb][H] h_t out; out: rows ldo apart;
 * act: 6*H per row (see act_cols; x' there is scaled) or NULL.
 */
void prnn_ref_sru_cell_forward(const prnn_ref_dims *g, size_t nb, const double *u, const double *xp,
                               size_t ldx, double xs, const double *vec, double *c, double *h,
                               double *out, size_t ldo, double *act);
/*
 * Its reverse: dout: gradient of h_t (rows ldo apart), plus dh [nb][H] (dhy
 * at a sequence's last step, then zeros); dc [nb][H]: gradient of c_t in, of
 * c_{t-1} out; dg: 4*H per row (see dg_cols).
 */
void prnn_ref_sru_cell_backward(const prnn_ref_dims *g, size_t nb, const double *act,
                                const double *dout, size_t ldo, const double *vec, double *dh,
                                double *dc, double *dg);

#endif
