/* The RNN modes' names and gate counts: one table. */
#include "rnn_mode.h"

#include <string.h>

/* Every mode's one name (tuning DB, tools, messages) and gate count. */
static const struct {
    prnnRNNMode_t mode;
    const char *name;
    int gates;
} modes[] = {
    {PRNN_RNN_RELU, "relu", 1}, {PRNN_RNN_TANH, "tanh", 1}, {PRNN_LSTM, "lstm", 4},
    {PRNN_GRU, "gru", 3},       {PRNN_SRU, "sru", 3},
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

int prnn_mode_gates(prnnRNNMode_t mode)
{
    for (size_t i = 0; i < N_MODES; i++)
        if (modes[i].mode == mode)
            return modes[i].gates;
    return 0;
}

const char *prnn_mode_name(prnnRNNMode_t mode)
{
    for (size_t i = 0; i < N_MODES; i++)
        if (modes[i].mode == mode)
            return modes[i].name;
    return "invalid";
}

int prnn_mode_from_name(const char *name, prnnRNNMode_t *mode)
{
    for (size_t i = 0; name && i < N_MODES; i++)
        if (strcmp(name, modes[i].name) == 0) {
            *mode = modes[i].mode;
            return 0;
        }
    return -1;
}
