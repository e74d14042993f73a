/*
 * How the GPU backend carves the training reserve: one function sizes it
 * (prnnGetRNNTrainingReserveSize) and addresses it (the three training
 * calls), so the two cannot disagree. It depends on the shape only, never on
 * the tiles. Per layer l and pseudo-layer pl = l * dirs + d:
 *   out[l]  [rows][dirs*P] storage type: layer l's output before
 *           dropout, for l < layers - 1 (the last layer's is y); P is
 *           projSize with an LSTM projection, else hidden;
 *   act[pl] [rows][ACT_COLS][hidden] math type: what the cell keeps
 *           (prnn_kernel_abi.h: LSTM i f g o c, GRU r z n m; none for
 *           RELU/TANH);
 *   dg[pl]  [rows][DG_COLS][hidden] storage type: the gate gradients,
 *           written by BackwardData for dx, dW, dR and the biases;
 * and with an LSTM projection (h = Wp m, m = o * tanh(c)):
 *   m[pl]   [rows][hidden] storage type: m of every row (the forward);
 *   dh[pl]  [rows][P] storage type: the gradient of h of every row
 *           (BackwardData), for dWp = dh^T m.
 * SRU keeps, instead of act and dg, per layer l (prnn_kernel_abi.h,
 * prnn_sru_args, says what the columns are):
 *   sru_u[l]  [rows][dirs*4*hidden] math type: U, and x' where the layer
 *             does not project it;
 *   sru_c[l]  [dirs][rows][hidden] math type: c_t of every row;
 *   sru_du[l] [rows][dirs*m*hidden] storage type: dU (BackwardData writes,
 *             BackwardWeights reads);
 *   sru_v[l]  [dirs][miniBatch][4][hidden] math type: each batch row's sums
 *             for the V block's gradient.
 */
#ifndef PRNN_RESERVE_LAYOUT_H
#define PRNN_RESERVE_LAYOUT_H

#include <stddef.h>

#include "rnn_problem.h"

typedef struct {
    size_t out, out_stride; /* bytes */
    size_t act, act_stride;
    size_t dg, dg_stride;
    int act_cols, dg_cols;
    size_t proj[2], proj_stride[2]; /* m and dh (prnn_proj_part); 0 without a projection */
    size_t sru[4], sru_stride[4];   /* SRU: layer 0's part, and per layer */
    size_t total;                   /* PRNN_SIZE_OVERFLOW (checked_size.h) when the reserve
                                     * does not fit in size_t; the offsets are then
                                     * meaningless */
} prnn_reserve_layout;

void prnn_reserve_layout_compute(const prnn_rnn_problem *p, prnn_reserve_layout *r);

/* Byte offsets inside a reserve. */
static inline size_t prnn_reserve_out_at(const prnn_reserve_layout *r, int layer)
{
    return r->out + (size_t)layer * r->out_stride;
}
static inline size_t prnn_reserve_act_at(const prnn_reserve_layout *r, int pseudo)
{
    return r->act + (size_t)pseudo * r->act_stride;
}
static inline size_t prnn_reserve_dg_at(const prnn_reserve_layout *r, int pseudo)
{
    return r->dg + (size_t)pseudo * r->dg_stride;
}

/* The projection's parts. */
typedef enum { PRNN_PROJ_M = 0, PRNN_PROJ_DH = 1 } prnn_proj_part;

static inline size_t prnn_reserve_proj_at(const prnn_reserve_layout *r, prnn_proj_part part,
                                          int pseudo)
{
    return r->proj[part] + (size_t)pseudo * r->proj_stride[part];
}

/* SRU's parts, in reserve order. */
typedef enum { PRNN_SRU_U = 0, PRNN_SRU_C = 1, PRNN_SRU_DU = 2, PRNN_SRU_V = 3 } prnn_sru_part;

static inline size_t prnn_reserve_sru_at(const prnn_reserve_layout *r, prnn_sru_part part,
                                         int layer)
{
    return r->sru[part] + (size_t)layer * r->sru_stride[part];
}

/* Addresses inside a reserve at base that the call writes (forward
 * training, BackwardData). BackwardWeights only reads its reserve (const in
 * the API): (const char *)base + prnn_reserve_..._at(). */
static inline char *prnn_reserve_out(const prnn_reserve_layout *r, void *base, int layer)
{
    return (char *)base + prnn_reserve_out_at(r, layer);
}
static inline char *prnn_reserve_act(const prnn_reserve_layout *r, void *base, int pseudo)
{
    return (char *)base + prnn_reserve_act_at(r, pseudo);
}
static inline char *prnn_reserve_dg(const prnn_reserve_layout *r, void *base, int pseudo)
{
    return (char *)base + prnn_reserve_dg_at(r, pseudo);
}
static inline char *prnn_reserve_proj(const prnn_reserve_layout *r, void *base, prnn_proj_part part,
                                      int pseudo)
{
    return (char *)base + prnn_reserve_proj_at(r, part, pseudo);
}
static inline char *prnn_reserve_sru(const prnn_reserve_layout *r, void *base, prnn_sru_part part,
                                     int layer)
{
    return (char *)base + prnn_reserve_sru_at(r, part, layer);
}

#endif
