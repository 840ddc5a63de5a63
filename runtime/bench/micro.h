/* Shared pieces of the microbenchmarks: a result check that ends the run with a nonzero exit
 * (a benchmark that computes wrong results must not report a time), a clock, medians, and the
 * table row format that scripts/bench-micro collects. */
#ifndef TIDE_BENCH_MICRO_H
#define TIDE_BENCH_MICRO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MICRO_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: wrong result: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define MICRO_CHECK_OK(call) MICRO_CHECK((call) == 0, "%s", tide_last_error_message())

static inline double micro_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int micro_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1]; sorts v. Medians, not means: on a shared machine a few repetitions are
 * hit by other processes, and one such outlier should not move the reported figure. */
static inline double micro_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, micro_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One table row: what was measured, its reference (none when negative), measured/reference, the
 * target and whether it is met (negative: information only). scripts/bench-micro selects the
 * lines that start with "ROW|". */
static inline void micro_row(const char *what, double measured, double reference, const char *unit,
                             const char *target, int met)
{
    char ref[64] = "-", ratio[32] = "-";
    if (reference >= 0) {
        snprintf(ref, sizeof ref, "%.3f %s", reference, unit);
        if (reference > 0) snprintf(ratio, sizeof ratio, "%.2f", measured / reference);
    }
    printf("ROW|%s|%.3f %s|%s|%s|%s|%s\n", what, measured, unit, ref, ratio, target,
           met < 0 ? "info"
           : met   ? "met"
                   : "MISSED");
    fflush(stdout);
}

/* An integer command-line argument with a default and a lower bound. */
static inline long micro_arg(int argc, char **argv, int i, long dflt, long min)
{
    if (argc <= i) return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v < min) {
        fprintf(stderr, "argument %d ('%s') must be an integer >= %ld\n", i, argv[i], min);
        exit(2);
    }
    return v;
}

#endif
