/*
 * The plain-C reference implementation: every mode, forward (inference and
 * training), backward data and backward weights, any number of layers, uni-
 * and bidirectional, LINEAR and SKIP input, variable lengths, NULL hx/cx
 * (zeros) and hy/cy (not wanted), dropout between layers (training only).
 *
 * All buffers are host memory in the storage type p->rnn->dtype, laid out as
 * the public API documents (include/prnn.h) and the weights as
 * src/weights_layout.h documents. The math runs in double whatever the
 * storage type, so the reference is the most accurate result available for
 * every type; 16-bit storage is converted to float on load (exactly) and
 * rounded to nearest even on store.
 *
 * The equations are docs/ARCHITECTURE.md section 5 (cuDNN / PyTorch):
 *   RELU/TANH h = f(W x + R h' + bW + bR)
 *   LSTM  i,f,o = sigmoid(W_* x + R_* h' + bW_* + bR_*),
 *         g = tanh(W_g x + R_g h' + bW_g + bR_g), c = f c' + i g, h = o tanh(c)
 *   GRU   r = sigmoid(W_r x + R_r h' + bW_r + bR_r), z likewise,
 *         n = tanh(W_n x + bW_n + r (R_n h' + bR_n)), h = (1 - z) n + z h'
 *   SRU   U = W in for u0, u1, u2 (and u3 when the layer's input width
 *         differs from H), f = sigmoid(u1 + v_f c' + b_f),
 *         r = sigmoid(u2 + v_r c' + b_r), c = f c' + (1 - f) u0,
 *         h = r tanh(c) + (1 - r) x', x' = u3 or the layer input; hx is
 *         not used (dhx is zeros), cx/cy are c_0/c_T.
 *   SKIP_INPUT (layer 0): W_* x replaced by x for every gate.
 * Layer l > 0 takes layer l-1's output (both directions concatenated) as
 * input; in training, that input is dropout(output) as prnn_dropout_keep
 * defines.
 *
 * The functions do not validate (the API layer has): p is consistent and all
 * required pointers are non-NULL. They use only the caller's workspace and
 * reserve (no allocation), which need no particular alignment (the sizes
 * include the slack to align them). Both hold doubles whatever the storage
 * type; src/ref/ref_internal.h documents their layout. Every sum runs in an
 * order fixed by the shapes alone (whether or not the CPU has AVX2), so
 * results are reproducible up to the host's libm (exp, tanh).
 */
#ifndef PRNN_REF_RNN_H
#define PRNN_REF_RNN_H

#include <stddef.h>

#include "prnn.h"
#include "rnn_problem.h"

/* Scratch the reference needs for any of its calls on this problem;
 * PRNN_SIZE_OVERFLOW (checked_size.h) when it does not fit in size_t. */
size_t prnn_ref_workspace_bytes(const prnn_rnn_problem *p);

/* Reserve space ForwardTraining fills for the backward calls;
 * PRNN_SIZE_OVERFLOW when it does not fit in size_t. */
size_t prnn_ref_reserve_bytes(const prnn_rnn_problem *p);

/* training: 0 = inference (no dropout, reserve unused and may be NULL),
 * 1 = training (dropout, fills reserve). hx, cx may be NULL (zeros); hy, cy
 * may be NULL (not written). cx, cy are ignored unless LSTM or SRU. */
prnnStatus_t prnn_ref_forward(const prnn_rnn_problem *p, int training, const void *x,
                              const void *hx, const void *cx, const void *w, void *y, void *hy,
                              void *cy, void *workspace, void *reserve);

/* dhy, dcy may be NULL (zeros); dhx, dcx may be NULL (not written). Writes
 * dx, and the gate gradients into reserve for prnn_ref_backward_weights
 * (calling it again gives the same results). y is not read: the reserve holds
 * the same values unrounded. */
prnnStatus_t prnn_ref_backward_data(const prnn_rnn_problem *p, const void *y, const void *dy,
                                    const void *dhy, const void *dcy, const void *w, const void *hx,
                                    const void *cx, void *dx, void *dhx, void *dcx, void *workspace,
                                    void *reserve);

/* Adds the weight gradients to dw (same layout as w; padding between its
 * blocks is not touched), after prnn_ref_backward_data. hx may be NULL. y
 * is not read (see above). */
prnnStatus_t prnn_ref_backward_weights(const prnn_rnn_problem *p, const void *x, const void *hx,
                                       const void *y, void *workspace, void *dw,
                                       const void *reserve);

#endif
