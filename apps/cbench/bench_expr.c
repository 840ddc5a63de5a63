/* ns per evaluation of compiled cbench expressions (the paper's examples) next to the same
 * expressions compiled by the C compiler: the cost of reading parameters at run time instead of
 * preprocessing them as the original benchmark did. Usage: cbench_expr_bench [evaluations per
 * round]; prints the best of 5 rounds. */
#define _POSIX_C_SOURCE 199309L
#include "expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPS 5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The native versions read their variables through a pointer, as the bytecode does, so that
 * the compiler cannot fold the loop away. */
static int64_t native0(const int64_t *v)
{
    return v[CBENCH_VAR_T] < v[CBENCH_VAR_N] / 2 ? 10 : 50;
}
static int64_t native1(const int64_t *v)
{
    return 10 + ((v[CBENCH_VAR_I] / 10) * 4 * (v[CBENCH_VAR_T] % v[CBENCH_VAR_P]));
}
static int64_t native2(const int64_t *v)
{
    return v[CBENCH_VAR_I] % 5 < 1 ? 10000 : 100;
}
static int64_t native3(const int64_t *v)
{
    return (v[CBENCH_VAR_T] * v[CBENCH_VAR_P]) / v[CBENCH_VAR_N];
}

static const struct {
    const char *src;
    int64_t (*native)(const int64_t *);
} cases[] = {
    {"t < n/2 ? 10 : 50", native0},
    {"10 + ((i/10) * 4 * (t % p))", native1},
    {"i % 5 < 1 ? 10000 : 100", native2},
    {"(t*p)/n", native3},
};

int main(int argc, char **argv)
{
    long evals = argc > 1 ? atol(argv[1]) : 4000000; /* per round */
    if (evals < 1000) {
        fprintf(stderr, "cbench_expr_bench: evaluations must be >= 1000\n");
        return 2;
    }
    const int64_t n = 1000, p = 16;
    int64_t vars[CBENCH_NVARS] = {
        [CBENCH_VAR_N] = n, [CBENCH_VAR_P] = p, [CBENCH_VAR_R] = 1000, [CBENCH_VAR_LBFREQ] = 10};
    printf("%-30s %12s %12s %8s %12s\n", "expression", "bytecode_ns", "native_ns", "ratio",
           "compile_us");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cbench_expr_error err;
        double t0 = now();
        const int reps = 1000;
        for (int r = 0; r < reps; r++)
            cbench_expr_free(cbench_expr_compile(cases[k].src, CBENCH_VARS_ALL, &err));
        double compile_us = (now() - t0) / reps * 1e6;
        cbench_expr *e = cbench_expr_compile(cases[k].src, CBENCH_VARS_ALL, &err);
        if (!e) {
            fprintf(stderr, "cbench_expr_bench: %s: %s\n", cases[k].src, err.msg);
            return 1;
        }
        /* sweep t over the objects and i over iterations, as the benchmark does; the best of
         * REPS rounds, since the machine may be shared */
        int64_t sum_vm = 0, sum_native = 0, v;
        double vm = 1e30, nat = 1e30;
        for (int round = 0; round < REPS; round++) {
            t0 = now();
            for (long j = 0; j < evals; j++) {
                vars[CBENCH_VAR_T] = j % n;
                vars[CBENCH_VAR_I] = 1 + j / n;
                if (cbench_expr_eval(e, vars, &v, NULL)) return 1;
                sum_vm += v;
            }
            double dt = (now() - t0) / (double)evals * 1e9;
            if (dt < vm) vm = dt;
            t0 = now();
            for (long j = 0; j < evals; j++) {
                vars[CBENCH_VAR_T] = j % n;
                vars[CBENCH_VAR_I] = 1 + j / n;
                sum_native += cases[k].native(vars);
            }
            dt = (now() - t0) / (double)evals * 1e9;
            if (dt < nat) nat = dt;
        }
        if (sum_vm != sum_native) {
            fprintf(stderr, "cbench_expr_bench: %s: bytecode and C disagree\n", cases[k].src);
            return 1;
        }
        printf("%-30s %12.2f %12.2f %8.1f %12.2f\n", cases[k].src, vm, nat, vm / nat, compile_us);
        cbench_expr_free(e);
    }
    return 0;
}
