#include <stdio.h>
#include <string.h>

#include "gpu/engines/engine.h"

extern const prnn_engine prnn_sru_engine;
extern const prnn_engine prnn_persistent_engine;
extern const prnn_engine prnn_small_h_engine;
extern const prnn_engine prnn_standard_engine;
extern const prnn_engine prnn_step_engine;
extern const prnn_engine prnn_tiny_engine;

/* The order the planner tries them in, where no tuning database entry or
 * forcing says otherwise. */
static const prnn_engine *const table[] = {
    &prnn_sru_engine,        &prnn_tiny_engine,     &prnn_small_h_engine,
    &prnn_persistent_engine, &prnn_standard_engine, &prnn_step_engine,
};

enum { COUNT = sizeof(table) / sizeof(table[0]) };

const prnn_engine *prnn_engine_at(int i)
{
    return i >= 0 && i < COUNT ? table[i] : NULL;
}

int prnn_engine_count(void)
{
    return COUNT;
}

const prnn_engine *prnn_engine_find(const char *name)
{
    for (int i = 0; name && i < COUNT; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

void prnn_engine_names(char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < COUNT && at < size; i++) {
        int n = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", table[i]->name);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

void prnn_engine_sort_by_call_cost(const prnn_engine_query *q, const prnn_engine **order, int n,
                                   int seq_length)
{
    double est[16];
    for (int i = 0; i < n; i++)
        est[i] = seq_length ? order[i]->call_setup(q) + seq_length * order[i]->estimate(q)
                            : order[i]->estimate(q);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && est[j] < est[j - 1]; j--) {
            const prnn_engine *e = order[j];
            order[j] = order[j - 1];
            order[j - 1] = e;
            double t = est[j];
            est[j] = est[j - 1];
            est[j - 1] = t;
        }
}

void prnn_engine_sort_by_estimate(const prnn_engine_query *q, const prnn_engine **order, int n)
{
    prnn_engine_sort_by_call_cost(q, order, n, 0);
}
