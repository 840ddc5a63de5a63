/* The core's unit tests: CHECK records a failed condition and goes on; main returns
 * check_result() (1 when any failed). */
#ifndef TIDE_CORE_CHECK_H
#define TIDE_CORE_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                                \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static inline int check_result(const char *test)
{
    if (failures) {
        fprintf(stderr, "%s: %d failure(s)\n", test, failures);
        return 1;
    }
    printf("%s: ok\n", test);
    return 0;
}

#endif
