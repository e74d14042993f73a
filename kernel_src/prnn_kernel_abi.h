/*
 * The argument structs of prnn's kernels, shared by the host (C) and the
 * kernels (CUDA C++ under NVRTC). Plain C types only: NVRTC compiles this
 * with no include path, and the layouts must agree bit for bit on both sides
 * (64-bit pointers, natural alignment).
 */
#ifndef PRNN_KERNEL_ABI_H
#define PRNN_KERNEL_ABI_H

/* PRNN_MODE: the cell (the same numbers as prnnRNNMode_t). */
#define PRNN_KMODE_RELU 0
#define PRNN_KMODE_TANH 1
#define PRNN_KMODE_LSTM 2
#define PRNN_KMODE_GRU 3
#define PRNN_KMODE_GATES(m) ((m) == PRNN_KMODE_LSTM ? 4 : (m) == PRNN_KMODE_GRU ? 3 : 1)

/* PRNN_CLIP: LSTM cell clipping (prnnRNNSetClip_v8), the bounds in the
 * arguments' clip_lo and clip_hi: none; c_t clamped to them, a NaN becoming
 * clip_lo (PRNN_NOT_PROPAGATE_NAN, C99's fmin/fmax); or a NaN kept. The
 * other modes ignore it. */
#define PRNN_KCLIP_NONE 0
#define PRNN_KCLIP_MINMAX 1
#define PRNN_KCLIP_MINMAX_NAN 2

/* PRNN_PASS: which recurrence a persistent kernel runs. */
#define PRNN_KPASS_FORWARD 0
#define PRNN_KPASS_BACKWARD_DATA 1

/* Values the forward pass keeps per row and hidden unit for the backward
 * pass ("act", math type): LSTM i f g o c, GRU r z n m (m = R_n h + bR_n);
 * RELU/TANH keep none (their derivative follows from the output h). LSTM
 * with clipping keeps a sixth, c before the clip (PRNN_ACT_COLS_CLIP). */
#define PRNN_ACT_COLS(m) ((m) == PRNN_KMODE_LSTM ? 5 : (m) == PRNN_KMODE_GRU ? 4 : 0)
#define PRNN_ACT_COLS_CLIP(m, clip)                                                                \
    (PRNN_ACT_COLS(m) + ((m) == PRNN_KMODE_LSTM && (clip) != PRNN_KCLIP_NONE ? 1 : 0))

/* Gate gradients per row and hidden unit ("dg", storage type), in gate order;
 * GRU keeps four: r, z, n as seen through R (r * dn), and n as seen through
 * W (dn), because the reset multiplies R_n h only. The first G columns are
 * what R^T multiplies (the "recurrent side"); the input side is columns
 * 0..G-1 with GRU's n taken from column 3. */
#define PRNN_DG_COLS(m) ((m) == PRNN_KMODE_GRU ? 4 : PRNN_KMODE_GATES(m))

/* Where the rows of a tensor the caller passed lie, for a v8 call run in
 * place on an unpacked layout (src/gpu/run/seq_io.h; caller_row in
 * prnn_device.cuh): (step t, packed row b) is the caller's row
 * s * seq_stride + t * step_stride, s the caller's sequence of packed row
 * b (the kernels' `order`: s = order[b], NULL: b; the packed rows are the
 * sequences sorted by decreasing length). seq_stride 0: the tensor's rows
 * are packed, offset[t] + b. A state's row of packed row b is s too. The
 * caller's rows number at most INT_MAX (a call runs in place only then),
 * so the row is an int. */
typedef struct {
    int seq_stride, step_stride;
} prnn_rows;

/* The forward kernels that run every step in one launch (persistent,
 * tiny-h) compile their steps once for each combination of xin's and y's
 * rows (packed, or the caller's) a plan's calls present: PRNN_IO_LAYOUTS,
 * a mask of these bits (src/gpu/run/seq_io_plan.h,
 * prnn_seq_io_kernel_layouts). PRNN_IO_BIT(x_in_place, y_in_place) is a
 * launch's bit. */
#define PRNN_IO_PACKED 1 /* both packed: the layers between, a call not in place */
#define PRNN_IO_X 2      /* x the caller's: layer 0 of several */
#define PRNN_IO_Y 4      /* y the caller's: the top layer of several */
#define PRNN_IO_XY 8     /* both: a one-layer network */
#define PRNN_IO_BIT(x_in_place, y_in_place) (1 << (((x_in_place) ? 1 : 0) + ((y_in_place) ? 2 : 0)))

/* One direction's inputs and outputs for one layer. */
typedef struct {
    const void *R;   /* [gates*hidden][hidden] storage type, gate-major rows */
    const void *bW;  /* [gates*hidden] */
    const void *bR;  /* [gates*hidden] */
    const void *xin; /* LINEAR: projected input [rows][gates*hidden] in the math
                      * type (float, or double); SKIP: x [rows][hidden];
                      * rows as prnn_rnn_args.x_rows */
    const void *hx;  /* [miniBatch][hidden] of this pseudo-layer, or NULL */
    const void *cx;
    void *hy;
    void *cy;
    void *exchange;        /* hand-off words, both parities */
    unsigned int *counter; /* step counters (hand-off 1), one per batch group */
    void *packed;          /* streamed weights, this direction */
    void *act;             /* training (PRNN_TRAIN): [rows][ACT_COLS][hidden]
                            * math type, for the backward pass; else NULL */
} prnn_dir_args;

typedef struct {
    prnn_dir_args dir[2];
    void *y;            /* [rows][y_cols] storage type */
    const int *batch;   /* [seq_length] rows of each step */
    const int *offset;  /* [seq_length] first row of each step */
    int seq_length;
    int y_cols;         /* hidden * directions */
    unsigned int tag_base; /* layer * seq_length: step tags stay unique over
                            * the layers of one call */
    int reserved;
    prnn_rows y_rows;   /* y's rows (the caller's, for the top layer of a
                         * call run in place) */
    prnn_rows x_rows;   /* xin's rows (layer 0 of a call run in place: the
                         * input projection's, written step-major in the
                         * caller's order of sequences, row t * batch + s) */
    const int *order;   /* [batch] the caller's sequence of packed row b
                         * (prnn_rows; every state's row), or NULL: b */
    double clip_lo, clip_hi; /* PRNN_CLIP's bounds */
} prnn_rnn_args;

/* The backward-data kernel, one direction of one layer. Rows are those of
 * the forward pass (time-major, packed); the kernel walks them backwards. */
typedef struct {
    const void *R;    /* [gates*hidden][hidden] storage type (read as R^T) */
    const void *dy;   /* gradient of this layer's output: row r, column
                       * dir*hidden + u, rows dy_cols apart; storage type when
                       * prnn_bwd_args.dy_storage, else math type */
    const void *act;  /* [rows][ACT_COLS][hidden] math type (forward training) */
    const void *hx;   /* [miniBatch][hidden] initial state, or NULL (zeros) */
    const void *cx;
    const void *dhy;  /* gradient of hy, cy, or NULL (zeros) */
    const void *dcy;
    void *dhx;        /* gradient of hx, cx, or NULL (not wanted) */
    void *dcx;
    void *dg;         /* [rows][DG_COLS][hidden] storage type, written */
    void *exchange;
    unsigned int *counter;
    void *packed;
} prnn_bwd_dir_args;

typedef struct {
    prnn_bwd_dir_args dir[2];
    const void *hout;   /* this layer's output [rows][y_cols] storage type:
                         * h_t (RELU, TANH) and h_{t-1} (GRU) */
    const int *batch;
    const int *offset;
    int seq_length;
    int y_cols;
    int dy_cols;
    int dy_storage;
    unsigned int tag_base; /* steps of the layers already run in this call */
    int reserved;
    prnn_rows y_rows;   /* as prnn_rnn_args.y_rows, for hout and dy (the top
                         * layer's, the caller's) */
    const int *order;   /* as prnn_rnn_args.order */
    double clip_lo, clip_hi; /* PRNN_CLIP's bounds */
} prnn_bwd_args;

/* Dropout between layers (rnn_train.cu), with src/ref/philox.h's mask of
 * layer `layer`'s output, n elements [rows][dirs*hidden]. Forward: dst =
 * mask(src) * scale (storage type); backward: data = mask(data) * scale in
 * place (math type). */
typedef struct {
    const void *src;
    void *dst;
    unsigned long long n;
    unsigned long long seed;
    double scale;
    int layer;
    unsigned int threshold;
} prnn_dropout_args;

/* h_{t-1} of every row of one direction, for dR: row r of step t gets the
 * output row its step started from, or hx (zeros when NULL). */
typedef struct {
    const void *out;  /* layer output [rows][ld] storage type */
    const void *hx;   /* [miniBatch][hidden], or NULL */
    void *dst;        /* [rows][hidden] storage type */
    const int *batch; /* the setup kernel's step tables */
    const int *offset;
    prnn_rows out_rows; /* out's rows (the caller's y, read in place) */
    const int *order;   /* as prnn_rnn_args.order (out's and hx's rows) */
    int seq_length, hidden, ld, col0, reverse;
    int reserved;
} prnn_gather_args;

/* Deterministic column sums of gate gradients into one or two bias
 * gradients (blockIdx.y of the finishing launch picks one): every dg column
 * summed once over fixed chunks of rows (prnn_bias_partial), then each
 * bias's columns over the chunks in order, added to the bias (storage
 * type); where the rows are one chunk, one launch sums and adds
 * (prnn_bias_direct), with the same bits. Bias j's column i reads dg column
 * i + (i >= col_split[j] ? col_skip[j] : 0) (GRU's input side skips the
 * recurrent n). */
typedef struct {
    const void *dg;    /* [rows][ld] storage type */
    void *partial;     /* [chunks][ld] math type */
    void *bias[2];     /* [cols] storage type; bias[1] unused with one */
    long long rows;
    int ld, cols;
    int col_split[2], col_skip[2];
    int chunk_rows, chunks;
} prnn_bias_args;

/* SKIP_INPUT's dx: x is added to every gate, so dx[r][j] is the sum over
 * directions and gates of the input-side gate gradients. */
typedef struct {
    const void *dg[2]; /* per direction [rows][dg_cols*hidden] storage type */
    void *dx;          /* [rows][hidden] storage type */
    long long count;   /* rows * hidden */
    int hidden, dirs, dg_cols, gates;
} prnn_skip_dx_args;

/*
 * SRU (sru_scan.cu): one launch runs a layer's scan for both directions, one
 * thread per (direction, batch row, PRNN_SRU_UPT adjacent units), looping
 * over time; one kernel per layer kind (prnn_sru_variant).
 * Column blocks of a U row (u_cols = dirs * 4 * hidden, math type): where the
 * layer projects x' (m = 4), direction d's u0 u1 u2 u3 at d*4*hidden; where
 * it does not (m = 3), u0 u1 u2 at d*3*hidden and, in the reserve, the
 * input x at dirs*3*hidden (prnn_sru_keep_input copies it there in forward
 * training, since BackwardData has no x): hidden columns that both
 * directions read, or with xp_split (the sru package's convention) dirs *
 * hidden columns, direction d's x' at dirs*3*hidden + d*hidden. Where x' is
 * the input, it is xscale * x (the kept columns hold x). SKIP_INPUT's layer
 * 0 has no U: u0 = u1 = u2 = x, read from xin (forward) or from the x'
 * columns (backward).
 */
typedef struct {
    const void *u;      /* [rows][u_cols] math type, or NULL (SKIP layer 0, forward) */
    const void *xin;    /* forward, m = 3: the layer input [rows][x_cols] storage type
                         * (x_cols = hidden, or dirs*hidden with xp_split) */
    const void *v;      /* [dirs][4][hidden] storage type: b_f b_r v_f v_r */
    const void *cx;     /* [dirs][miniBatch][hidden] storage type (this layer's slice), or NULL */
    const void *dhy, *dcy; /* backward: likewise, or NULL (zeros) */
    void *hy, *cy;      /* forward: likewise, or NULL (not wanted) */
    void *dhx, *dcx;    /* backward: likewise, or NULL */
    void *y;            /* forward: [rows][dirs*hidden] storage type */
    const void *dy;     /* backward: gradient of y, rows dirs*hidden apart;
                         * storage type when dy_storage, else math type */
    void *ckeep;        /* [dirs][rows][hidden] math type: c_t of every row
                         * (forward training writes, backward reads), or NULL */
    void *du;           /* backward: [rows][dirs*m*hidden] storage type */
    void *dxp;          /* backward, m = 3: [rows][dirs][hidden] math type, the
                         * gradient of x (xscale * dx') */
    void *vpart;        /* backward: [dirs][miniBatch][4][hidden] math type,
                         * each row's sums for b_f b_r v_f v_r */
    const int *batch;   /* the setup kernel's step tables */
    const int *offset;
    long long rows;
    int seq_length, mini_batch, dirs;
    int u_cols, x_cols, dy_storage;
    int vec;            /* u, ckeep and dxp are aligned to PRNN_SRU_UPT math-type
                         * values: the kernel may move a thread's units as one
                         * vector (it also needs hidden % PRNN_SRU_UPT == 0) */
    int xp_split;       /* direction d's x' is the input's columns d*hidden..
                         * (prnnSRUConvention_t: the sru package's), else all
                         * of them (hidden wide) */
    int identity;       /* h = r c + (1 - r) x' (prnnSRUActivation_t), not
                         * r tanh(c) + ... */
    int reserved;
    double xscale;      /* x' = xscale * x where x' is the input (m = 3, SKIP) */
} prnn_sru_args;

/* The layer kinds of the SRU scan, one kernel each (prnn_sru_forward_m3 ...,
 * prnn_sru_backward_m3 ...): x' projected (m = 4), x' = x (m = 3), and
 * SKIP_INPUT's layer 0 (no W: u0 = u1 = u2 = x' = x). */
enum { PRNN_SRU_VARIANT_M3 = 0, PRNN_SRU_VARIANT_M4 = 1, PRNN_SRU_VARIANT_SKIP = 2,
       PRNN_SRU_VARIANTS = 3 };

/* The scan's ring of steps in flight in shared memory (sm_80 and newer:
 * cp.async; older GPUs keep it in registers and take none). Per slot (one
 * step), each thread's UPT math-type values of every field the step loads
 * (forward: u0 u1 u2 x', SKIP's layer 0 x' alone; backward: those and
 * c_{t-1} and dy), then its step's row (an int); a block holds
 * PRNN_SRU_DEPTH slots. The host sizes the launch's dynamic shared memory
 * with this, the kernel lays the ring out by it. */
#define PRNN_SRU_RING_FIELDS(backward, variant)                                                \
    ((variant) == PRNN_SRU_VARIANT_SKIP ? ((backward) ? 3 : 1) : ((backward) ? 6 : 4))
#define PRNN_SRU_RING_BYTES(threads, upt, depth, acc_bytes, fields)                             \
    ((threads) * (depth) * ((fields) * (upt) * (acc_bytes) + 4))

/* SRU's V-block gradient: dw[d][q][j] += sum over b (in order) of
 * vpart[d][b][q][j]. Deterministic. */
typedef struct {
    const void *vpart;  /* [dirs][miniBatch][4][hidden] math type */
    void *dv;           /* [dirs][4][hidden] storage type, in dw */
    int dirs, mini_batch;
} prnn_sru_vgrad_args;

/* SRU's part of a layer's input gradient that no GEMM gives: din[r][j] =
 * sum over directions of dx' (m = 3), plus du0 + du1 + du2 for SKIP's layer 0
 * (storage type when din_storage, else math type); din is [rows][hidden].
 * With split (prnn_sru_args.xp_split), din is [rows][dirs*hidden] and
 * din[r][d*hidden + j] = dx'[r][d][j]. A GEMM din += dU W follows where the
 * layer has W. */
typedef struct {
    const void *du;     /* [rows][dirs*3*hidden] storage type */
    const void *dxp;    /* [rows][dirs][hidden] math type */
    void *din;
    long long rows;
    int dirs, skip, din_storage;
    int split;
} prnn_sru_input_grad_args;

/* Forward training of a layer whose x' is its input (m = 3, SKIP's layer 0):
 * the input into U's x' columns (dirs*3*hidden .. +cols, math type), for
 * BackwardData, which has no x. */
typedef struct {
    const void *x;      /* [rows][cols] storage type: the layer's input */
    void *u;            /* [rows][u_cols] math type */
    long long rows;
    int u_cols, dirs;
    int cols;           /* hidden, or dirs*hidden (prnn_sru_args.xp_split) */
    int reserved;
} prnn_sru_keep_input_args;

/* batchSize up to this: a call's order of sequences (and their lengths)
 * travel in the launches' parameters (prnn_seq_move_args,
 * prnn_setup_io_args), with no launch writing them to the workspace first */
#define PRNN_SEQ_INLINE_ORDER 128

/* A v8 call run in place on an unpacked layout (src/gpu/run/seq_io.h):
 * what the first setup launch also writes. The order of sequences into
 * order (the kernels' `order`; where batchSize is above
 * PRNN_SEQ_INLINE_ORDER, prnn_seq_order's launches write it, and lengths,
 * before), and y's padding: the vectors of steps t >= lengths[s] of every
 * sequence s, row_bytes each at the row s * seq_stride + t * step_stride,
 * set to fill_bits' element (es bytes), a warp a vector, unit bytes (16, 8,
 * 4 or es, as prnn_seq_move_args.unit) a lane at a time. */
typedef struct {
    int *order;          /* NULL: nothing to write */
    void *pad;           /* NULL: no padding to write */
    const int *lengths;  /* [seqs] in the caller's order; NULL: lengths_v */
    unsigned long long fill_bits;
    long long seq_stride, step_stride;
    long long row_bytes;
    int order_count;     /* order_v's entries (0 where order is written before) */
    int seqs, steps, es, unit;
    int reserved;
    int order_v[PRNN_SEQ_INLINE_ORDER];
    int lengths_v[PRNN_SEQ_INLINE_ORDER];
} prnn_setup_io_args;

/* The per-call setup kernel: expands batch runs into per-step batch sizes and
 * first rows, and zeroes the hand-off area so step tags start afresh. */
#define PRNN_SETUP_MAX_RUNS 200
typedef struct {
    int *batch;
    int *offset;
    unsigned int *zero;         /* words to zero, or NULL */
    unsigned long long zero_words;
    long long row_base;         /* first row of run 0 */
    int t_begin;                /* first step of run 0 */
    int num_runs;
    int t_end[PRNN_SETUP_MAX_RUNS]; /* run i covers [t_end[i-1], t_end[i]) */
    int run_batch[PRNN_SETUP_MAX_RUNS];
    prnn_setup_io_args io; /* zero but in the first launch of such a call */
} prnn_setup_args;

/* The v8 calls' unpacked layouts (rnn_seq_io.cuh, in the setup kernel's
 * module): a call's sequences move between the caller's padded buffers and
 * the packed rows the engines run on (packed rank i of a step is sequence
 * order[i], the sequences sorted by decreasing length). prnn_seq_order
 * writes order[] from its parameters, PRNN_SEQ_ORDER_CHUNK entries a
 * launch (a capture-safe way to the device: the values live in the
 * launch). */
#define PRNN_SEQ_ORDER_CHUNK 900
typedef struct {
    int *order;
    int base, count; /* order[base .. base + count) = v[0 .. count) */
    int v[PRNN_SEQ_ORDER_CHUNK];
} prnn_seq_order_args;

/* prnn_seq_move: up to PRNN_SEQ_MOVES tensors in one launch, all gathered
 * into packed order or all scattered out of it (to_caller), move m in
 * blockIdx.y = m: one vector of cols[m] elements of `es` bytes per (step,
 * rank) of its steps[m], moved in units of unit[m] bytes (16, 8, 4 or es:
 * the largest that divides the vector's bytes and both buffers' addresses,
 * so a thread moves 16 bytes where it can). Data (states[m] 0): caller
 * vector of step t and sequence s at t * seqs + s (batch_major 0) or
 * s * steps + t (1); rank i
 * < batch[t] is packed row offset[t] + i, a rank at or past it (or a step
 * past packed_steps) is padding, which a scatter writes with fill_bits[m]
 * when has_fill[m]. States (states[m] 1): steps[m] slices of `seqs` rows,
 * every rank present, caller row t * seqs + order[i], packed row t * seqs
 * + i. */
#define PRNN_SEQ_MOVES 6
typedef struct {
    const void *src[PRNN_SEQ_MOVES];
    void *dst[PRNN_SEQ_MOVES];
    unsigned long long fill_bits[PRNN_SEQ_MOVES];
    int cols[PRNN_SEQ_MOVES];
    int steps[PRNN_SEQ_MOVES]; /* the caller's steps (maxSeqLength), or state slices */
    int states[PRNN_SEQ_MOVES], has_fill[PRNN_SEQ_MOVES];
    int unit[PRNN_SEQ_MOVES];  /* bytes a thread moves at once */
    const int *order;          /* [seqs], where inline_order is 0 */
    const int *batch, *offset; /* the call's step tables (prnn_rnn_setup) */
    int inline_order;          /* 1: the order is order_v[0 .. seqs) */
    int order_v[PRNN_SEQ_INLINE_ORDER];
    int count;                 /* moves */
    int packed_steps;          /* the call's seq_length */
    int seqs;                  /* batchSize */
    int es, batch_major, to_caller;
} prnn_seq_move_args;

/* The standard path: one pointwise kernel per step after a cuBLASLt GEMM
 * rec = h_{t-1} R^T over the step's active rows. With an LSTM projection
 * (PRNN_PROJ = projSize), the cell writes m = o * tanh(c) to m and a GEMM
 * after it writes h = m Wp^T into y; hstate, y and hy are then not the
 * cell's (prnn_step_proj_hy writes hy). */
typedef struct {
    const void *rec;  /* [batch][gates*hidden] math type */
    const void *xin;  /* as prnn_dir_args.xin */
    const void *bW, *bR;
    void *hstate;     /* [miniBatch][hidden] storage type: h_{t-1} in, h_t out */
    void *cstate;     /* [miniBatch][hidden] math type (LSTM) */
    void *y;
    void *hy, *cy;    /* this pseudo-layer's slice, or NULL */
    void *m;          /* PRNN_PROJ: [batch][hidden] storage type, the step's rows */
    long long row0;   /* first row of the step */
    int batch;        /* rows of this step */
    int next_batch;   /* rows of the next step in processing order (0: none) */
    int y_cols;
    int y_offset;     /* direction * hidden */
    int final_step;   /* 1 for the direction's last processed step */
    int reverse;
    int t;            /* the step's time index */
    int reserved;
    prnn_rows y_rows; /* as prnn_rnn_args.y_rows */
    prnn_rows x_rows; /* as prnn_rnn_args.x_rows, for xin */
    const int *order; /* as prnn_rnn_args.order */
    void *act;        /* training: [rows][ACT_COLS][hidden] math type; else NULL */
    double clip_lo, clip_hi; /* PRNN_CLIP's bounds */
} prnn_step_args;

/* The standard path's backward step: after a cuBLASLt GEMM has computed
 * rec = dg_prev R (the gradient of h through R) for the rows the step
 * processed before ran, one thread per (row, unit) runs the cell backward
 * (prnn_bwd_args has the buffers' layouts). With an LSTM projection
 * (PRNN_PROJ), rec is instead the gradient of m = o * tanh(c) of the
 * step's rows, dm = dh Wp (prnn_step_dh_proj made dh, dy and dhy in it),
 * and dy, dhy and dhx are not the cell's. */
typedef struct {
    const void *rec;   /* [prev_b][hidden] math type, or NULL when prev_b = 0;
                        * PRNN_PROJ: [cur_b][hidden] */
    const void *dy;
    const void *act;
    const void *hout;
    const void *hx, *cx, *dhy, *dcy;
    void *dhx, *dcx;
    void *dg;
    void *carry;       /* [miniBatch][hidden] math type, kept between steps */
    long long row0;    /* first row of this step (unused when cur_b = 0) */
    long long tp_row0; /* first row of the forward-order previous step */
    int cur_b;         /* rows of this step (0: the walk's final phase) */
    int prev_b;        /* rows of the step processed before (0: none) */
    int tp_b;          /* rows of the forward-order previous step (0: none) */
    int y_cols, y_offset, dy_cols, dy_storage;
    int t, tp;         /* the step's time index, the forward-order previous one's */
    prnn_rows y_rows;  /* as prnn_rnn_args.y_rows, for hout and dy */
    const int *order;  /* as prnn_rnn_args.order */
    double clip_lo, clip_hi; /* PRNN_CLIP's bounds */
} prnn_step_bwd_args;

/*
 * The step engine (rnn_fused_step.cu): one step of one layer, both
 * directions (blockIdx.y), the input projection, the recurrence and the
 * cell in one launch. Per direction d (the arrays' index): the weights,
 * the running state and the rows of the step; h_{t-1} of a row comes from
 * hprev (the previous step's h_t), or, for a row that starts here (b >=
 * prev_batch[d]), from hx (zeros when NULL); likewise c.
 */
typedef struct {
    const void *W[2], *R[2], *bW[2], *bR[2]; /* W NULL: SKIP_INPUT's layer 0 */
    const void *hx[2], *cx[2];   /* this pseudo-layer's slices, or NULL */
    const void *hprev[2];        /* [miniBatch][hidden] storage type, or NULL at the first step */
    void *hnext[2];              /* [miniBatch][hidden] storage type: h_t of this step */
    void *cstate[2];             /* [miniBatch][hidden] math type (LSTM): c in place */
    void *hy[2], *cy[2];         /* final state slices, or NULL */
    void *act[2];                /* training: [rows][ACT_COLS][hidden] math type; else NULL */
    const void *x;               /* the layer's input, [rows][x_cols] storage type */
    void *y;                     /* the layer's output, [rows][y_cols] */
    long long row0[2];           /* first row of each direction's step */
    int batch[2];                /* rows of each direction's step */
    int prev_batch[2];           /* rows that continue from hprev (the rest start here) */
    int next_batch[2];           /* rows that continue after this step (the rest end here) */
    int x_cols;                  /* input width (K of W) */
    int y_cols;                  /* dirs * hidden */
    int t[2];                    /* each direction's time index */
    int vec;                     /* PRNN_STEP_VEC_* bits: operands read in 16-byte vectors */
    prnn_rows x_rows;            /* x's rows (the caller's: layer 0 of a call
                                  * run in place) */
    prnn_rows y_rows;            /* as prnn_rnn_args.y_rows */
    const int *order;            /* as prnn_rnn_args.order */
    double clip_lo, clip_hi;     /* PRNN_CLIP's bounds */
} prnn_fused_step_args;

/* prnn_fused_step_args.vec: x and W's rows, or R's and the h rows, read 16
 * bytes at a time (whole rows of vectors from aligned bases). */
#define PRNN_STEP_VEC_X 1
#define PRNN_STEP_VEC_H 2

/* Start of a standard-path layer: hstate = hx (or 0), cstate = cx (or 0). */
typedef struct {
    const void *hx, *cx;
    void *hstate, *cstate;
    int h_count; /* miniBatch * P (the width of h: projSize or hidden) */
    int c_count; /* miniBatch * hidden */
    int h_width, c_width;   /* P and hidden */
    const int *order;       /* as prnn_rnn_args.order (hx's and cx's rows) */
} prnn_step_init_args;

/* The standard path with an LSTM projection, backward (a projection never
 * runs in place: its buffers are packed, seq_io.h): dh of the step's
 * rows (P = PRNN_PROJ wide) before the GEMM dm = dh Wp, one thread per
 * (row, unit) of max(cur_b, prev_b) rows: a row the step processed before
 * ran takes rec, one that ends here dhy (or 0); an active row adds dy and
 * writes dh, one that started after this step (b >= cur_b) leaves dhx. */
typedef struct {
    const void *rec; /* [prev_b][P] math type: dg_prev R, or NULL when prev_b = 0 */
    const void *dy;  /* [rows][dy_cols], storage type when dy_storage, else math */
    const void *dhy; /* [miniBatch][P] storage type, or NULL */
    void *dhx;       /* [miniBatch][P] storage type, or NULL */
    void *dh;        /* [rows][P] storage type: the reserve's dh */
    long long row0;  /* first row of this step (unused when cur_b = 0) */
    int cur_b, prev_b;
    int dy_cols, y_offset, dy_storage;
    int reserved;
} prnn_step_dh_args;

/* The standard path with an LSTM projection, forward: hy of a direction
 * from y once its steps ran, one thread per (row, unit) of miniBatch rows:
 * row b's h of its last step (forward: the last step with more than b rows;
 * reverse: step 0). */
typedef struct {
    const void *y;
    void *hy;                  /* [miniBatch][P] storage type */
    const int *batch, *offset; /* the call's step tables (prnn_rnn_setup) */
    int seq_length, rows;      /* steps, and miniBatch */
    int y_cols, y_offset;      /* dirs * P, direction * P */
    int reverse;
    int reserved;
} prnn_step_proj_hy_args;

#endif
