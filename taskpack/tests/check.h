/* Minimal assertion helper for the Task Packing unit tests: report and count, never abort, so
 * one run lists every failure. */
#ifndef TASKPACK_CHECK_H
#define TASKPACK_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_DONE(name)                                                                           \
    (check_failures ? (fprintf(stderr, "%s: %d failures\n", name, check_failures), 1)              \
                    : (printf("%s: ok\n", name), 0))

#endif
