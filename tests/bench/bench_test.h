/* The prnn-bench tests' failure count, EXPECT_NEAR and test_done (CHECK and EXPECT:
 * ../test_check.h). */
#ifndef PRNN_TEST_BENCH_TEST_H
#define PRNN_TEST_BENCH_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_failures;
#include "../test_check.h"

#define EXPECT_NEAR(a, b, tol)                                                                     \
    EXPECT(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.9g, expected %.9g", #a, (double)(a),  \
           (double)(b))

/* what: the test's name and what it checked, printed with the result
 * ("tools-bench-stats: ..."). Returns the exit status. */
static inline int test_done(const char *what)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d failure(s)\n", what, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", what);
    return 0;
}

#endif
