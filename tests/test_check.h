/*
 * The tests' two checks, one definition for every suite: each records a
 * failure in test_failures and goes on, so that one run reports every
 * problem. The suite's own header declares test_failures (static in a
 * one-file test, extern where several files share the count).
 *   CHECK(cond)            prints the condition that failed
 *   EXPECT(cond, fmt, ...) also prints a message (what was got, the log)
 */
#ifndef PRNN_TEST_CHECK_H
#define PRNN_TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);                     \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#endif
