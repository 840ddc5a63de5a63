/* The samoa_proxy unit tests' assertion: reports and counts a failure, and goes on. */
#ifndef SAMOA_TEST_CHECK_H
#define SAMOA_TEST_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
