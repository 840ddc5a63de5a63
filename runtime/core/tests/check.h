/* The core's unit tests: a failed CHECK prints where and what and the test goes on, so one run
 * shows every failure; main returns check_result() or CHECK_REPORT() (1 when any failed). */
#ifndef TIDE_CORE_CHECK_H
#define TIDE_CORE_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int check_failures;

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                                \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                         \
    do {                                                                                           \
        int64_t check_a_ = (int64_t)(a), check_b_ = (int64_t)(b);                                  \
        if (check_a_ != check_b_) {                                                                \
            fprintf(stderr, "%s:%d: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, #a, #b,        \
                    (long long)check_a_, (long long)check_b_);                                     \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

static inline int check_result(const char *test)
{
    if (check_failures) {
        fprintf(stderr, "%s: %d failure(s)\n", test, check_failures);
        return 1;
    }
    printf("%s: ok\n", test);
    return 0;
}

#define CHECK_REPORT(test) check_result(test)

/* Deterministic generator (splitmix64) so a failing property case can be replayed by seed. */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
