#include "rnn_pass.h"

#include <string.h>

static const char *const pass_names[PRNN_PASS_COUNT] = {"forward", "backward-data"};

const char *prnn_pass_name(prnn_pass pass)
{
    return (unsigned)pass < PRNN_PASS_COUNT ? pass_names[pass] : NULL;
}

int prnn_pass_from_name(const char *name, prnn_pass *pass)
{
    for (int i = 0; name && i < PRNN_PASS_COUNT; i++) {
        if (strcmp(name, pass_names[i]) == 0) {
            *pass = (prnn_pass)i;
            return 0;
        }
    }
    return -1;
}
