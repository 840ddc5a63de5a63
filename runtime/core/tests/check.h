/* The core's unit tests: the planner tests' assertion macros (strategies/task/tests/check.h:
 * CHECK, CHECK_EQ_I64, CHECK_REPORT record a failure and go on), and check_result(), which main
 * returns (1 when any check failed). */
#ifndef TIDE_CORE_CHECK_H
#define TIDE_CORE_CHECK_H

#include "../../../strategies/task/tests/check.h"

static inline int check_result(const char *test)
{
    return CHECK_REPORT(test);
}

#endif
