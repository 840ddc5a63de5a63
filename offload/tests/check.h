/*
 * check.h - the few assertion macros the planner tests share: a failed check prints where and
 * what, the test keeps going so one run shows every failure, and main returns the count.
 */
#ifndef TIDE_OFFLOAD_CHECK_H
#define TIDE_OFFLOAD_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                         \
    do {                                                                                           \
        int64_t check_a_ = (int64_t)(a), check_b_ = (int64_t)(b);                                  \
        if (check_a_ != check_b_) {                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, (long long)check_a_, (long long)check_b_);                             \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_REPORT(name)                                                                         \
    (check_failures == 0 ? (printf("%s: all checks passed\n", name), 0)                            \
                         : (fprintf(stderr, "%s: %d checks failed\n", name, check_failures), 1))

/* Deterministic generator (splitmix64) so a failing property case can be replayed by seed. */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double test_uniform(uint64_t *state)
{
    return (double)(test_rand(state) >> 11) * (1.0 / 9007199254740992.0);
}

#endif /* TIDE_OFFLOAD_CHECK_H */
