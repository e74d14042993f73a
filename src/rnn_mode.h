/* The RNN modes (prnnRNNMode_t): their one set of names, gate counts and
 * which have a cell state. Used by the descriptors, the tuning DB, the tools
 * and the tests alike. */
#ifndef PRNN_RNN_MODE_H
#define PRNN_RNN_MODE_H

#include "prnn.h"

/* Gates per mode: 1 (RELU, TANH), 4 (LSTM), 3 (GRU, SRU: f, r and the
 * candidate); 0 if invalid. */
int prnn_mode_gates(prnnRNNMode_t mode);
/* "relu", "tanh", "lstm", "gru", "sru"; "invalid" outside the enum. */
const char *prnn_mode_name(prnnRNNMode_t mode);
/* The mode of one of those names (exactly): 0, or -1 for another text. */
int prnn_mode_from_name(const char *name, prnnRNNMode_t *mode);
/* Modes with a cell state, whose cx, cy, dcx and dcy the calls use. */
static inline int prnn_mode_has_cell(prnnRNNMode_t mode)
{
    return mode == PRNN_LSTM || mode == PRNN_SRU;
}

#endif
