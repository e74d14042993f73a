/*
 * The passes a persistent kernel runs: the forward recurrence (inference and
 * training share its tiles) and the backward-data recurrence (R^T, time
 * walked backwards). Tiles are chosen, tuned and stored per pass.
 */
#ifndef PRNN_RNN_PASS_H
#define PRNN_RNN_PASS_H

typedef enum { PRNN_PASS_FORWARD = 0, PRNN_PASS_BACKWARD_DATA = 1 } prnn_pass;

#define PRNN_PASS_COUNT 2

/* "forward", "backward-data"; NULL for a value outside the enum. */
const char *prnn_pass_name(prnn_pass pass);

/* 0 and *pass set for a known name, -1 otherwise. */
int prnn_pass_from_name(const char *name, prnn_pass *pass);

#endif
