/* The planner tests' failure count, for ../test_check.h's CHECK. */
#ifndef PRNN_PLAN_CHECK_H
#define PRNN_PLAN_CHECK_H

#include <stdio.h>

static int test_failures;
#include "../test_check.h"

#endif
