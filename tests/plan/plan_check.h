/* The planner tests' CHECK: records a failure and goes on. */
#ifndef PRNN_PLAN_CHECK_H
#define PRNN_PLAN_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#endif
