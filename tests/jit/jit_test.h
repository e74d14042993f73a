/* Small helpers shared by the jit tests. */
#ifndef PRNN_JIT_TEST_H
#define PRNN_JIT_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "jit/cubin_batch.h"
#include "jit/cubin_cache.h"
#include "prnn.h"

extern int test_failures;
#include "../test_check.h"

/* Checks a status; on mismatch prints both and the thread's log. */
#define CHECK_STATUS(expr, expected)                                                               \
    do {                                                                                           \
        prnnStatus_t s_ = (expr);                                                                  \
        if (s_ != (expected)) {                                                                    \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\nlog: %s\n", __FILE__, __LINE__,   \
                    #expr, prnnGetErrorString(s_), prnnGetErrorString(expected),                   \
                    prnnGetLastErrorLog());                                                        \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* A fresh directory under /tmp (mkdtemp); exits on failure. */
char *jit_test_tmpdir(const char *tag);

/* rm -rf path (only used on directories this test created). */
void jit_test_rmtree(const char *path);

/* Sets PRNN_CACHE_DIR to dir. */
void jit_test_use_cache_dir(const char *dir);

/* Number of files in dir whose name contains substr ("" for all). */
int jit_test_count_files(const char *dir, const char *substr);

/* The number of "*.cubin" entries in dir; the path of one of them into
 * buf ("" when there is none). */
int jit_test_entries(const char *dir, char *buf, size_t size);

/* A made-up cache key for the tests that need no NVRTC: its text is
 * "made-up key for a jit test", its name the hex digit d 32 times (the name
 * is all a store uses to place it; a load compares the text). */
prnn_cubin_key jit_test_fake_key(char d);

/* 1 if the substring occurs in the calling thread's prnn log. */
int jit_test_log_has(const char *substr);

/* what: the test's name and what it checked, printed with the result
 * ("jit-sha256: ..."). Returns the exit status. */
int jit_test_finish(const char *what);

#endif
