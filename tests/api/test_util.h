/* Small helpers shared by the API tests. */
#ifndef PRNN_TEST_UTIL_H
#define PRNN_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prnn.h"

static int test_failures;
#include "../test_check.h"

#define EXPECT_OK(call)                                                                            \
    do {                                                                                           \
        prnnStatus_t expect_ok_s_ = (call);                                                        \
        EXPECT(expect_ok_s_ == PRNN_STATUS_SUCCESS, "%s -> %s; log: %s", #call,                    \
               prnnGetErrorString(expect_ok_s_), prnnGetLastErrorLog());                           \
    } while (0)

/* call must fail with status, its log naming needle. */
#define EXPECT_FAIL(call, status, needle)                                                          \
    do {                                                                                           \
        prnnStatus_t expect_fail_s_ = (call);                                                      \
        const char *expect_fail_log_ = prnnGetLastErrorLog();                                      \
        EXPECT(expect_fail_s_ == (status) && strstr(expect_fail_log_, (needle)) != NULL,           \
               "%s -> %s, expected %s and \"%s\" in the log; log: %s", #call,                      \
               prnnGetErrorString(expect_fail_s_), prnnGetErrorString(status), (needle),           \
               expect_fail_log_);                                                                  \
    } while (0)

/* Sets a packed 3-d tensor descriptor. */
static inline prnnStatus_t set_tensor3(prnnTensorDescriptor_t d, prnnDataType_t t, int a, int b,
                                       int c)
{
    int dims[3] = {a, b, c};
    int strides[3] = {b * c, c, 1};
    return prnnSetTensorNdDescriptor(d, t, 3, dims, strides);
}

#endif
