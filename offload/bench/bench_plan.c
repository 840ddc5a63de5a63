/*
 * bench_plan.c - wall time of the planning cores at growing rank counts.
 *
 * For each np it times, on one random input per np (Imb.3-like spread: loads 1x to 4x, 10 to
 * 200 tasks per rank): the uniform proactive planner (what every rank runs at phase start), the
 * same plus expanding this rank's row, plus the dense np x np table, the weighted planner
 * (16 tasks per rank) and the reactive pairing of all ranks. Each figure is the median of
 * `reps` calls with preallocated scratch, in microseconds.
 * Usage: task_bench_plan [reps]   (default 201)
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "tide_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return v[n / 2];
}

static uint64_t rng = 12345;
static double uniform(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

enum { TASKS_PER_RANK_WEIGHTED = 16 };

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 201;
    if (reps < 1) {
        fprintf(stderr, "usage: %s [reps >= 1]\n", argv[0]);
        return 2;
    }
    const int32_t sizes[] = {64, 256, 1024, 4096};
    double *t = malloc((size_t)reps * sizeof *t);
    printf("%6s %12s %12s %12s %14s %12s %8s\n", "np", "proact_us", "+row_us", "+table_us",
           "weighted_us", "react_us", "moves");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int32_t np = sizes[s];
        int64_t ntot = (int64_t)np * TASKS_PER_RANK_WEIGHTED;
        double *load = malloc((size_t)np * sizeof *load);
        double *wload = malloc((size_t)np * sizeof *wload);
        int64_t *n = malloc((size_t)np * sizeof *n);
        int64_t *off = malloc((size_t)(np + 1) * sizeof *off);
        double *w = malloc((size_t)ntot * sizeof *w);
        int32_t *dest = malloc((size_t)ntot * sizeof *dest);
        int64_t *row = malloc((size_t)np * sizeof *row);
        int64_t *tb = malloc((size_t)np * (size_t)np * sizeof *tb);
        tide_move *moves = malloc((size_t)np * sizeof *moves);
        tide_react_decision *dec = malloc((size_t)np * sizeof *dec);
        void *scratch = malloc(tide_plan_proact_weighted_scratch_bytes(np, ntot));
        if (!load || !wload || !n || !off || !w || !dest || !row || !tb || !moves || !dec ||
            !scratch) {
            fprintf(stderr, "bench_plan: out of memory at np=%d\n", np);
            return 1;
        }
        off[0] = 0;
        for (int32_t i = 0; i < np; i++) {
            n[i] = 10 + (int64_t)(uniform() * 190.0);
            load[i] = (double)n[i] * (1.0 + 3.0 * uniform());
            off[i + 1] = off[i] + TASKS_PER_RANK_WEIGHTED;
            wload[i] = 0.0;
            for (int64_t k = off[i]; k < off[i + 1]; k++) {
                w[k] = 0.5 + 4.0 * uniform() * (1.0 + (double)(i % 4));
                wload[i] += w[k];
            }
        }
        tide_move_plan plan = {.np = np, .moves = moves, .capacity = (size_t)np};
        tide_react_params rp = {0.05, 2.0, 4};
        double med[5];
        for (int what = 0; what < 5; what++) {
            for (int r = 0; r < reps; r++) {
                double t0 = now_us();
                int rc = 0;
                if (what <= 2) rc = tide_plan_proact(np, load, n, scratch, &plan);
                if (what == 1) rc |= tide_plan_row(&plan, n, np / 2, row);
                if (what == 2) rc |= tide_plan_table(&plan, n, tb);
                if (what == 3)
                    rc = tide_plan_proact_weighted(np, wload, off, w, scratch, dest, &plan);
                if (what == 4) rc = tide_plan_react_all(np, load, n, &rp, scratch, dec);
                t[r] = now_us() - t0;
                if (rc != TIDE_PLAN_OK) {
                    fprintf(stderr, "bench_plan: planner failed (%d)\n", rc);
                    return 1;
                }
            }
            med[what] = median(t, reps);
        }
        tide_plan_proact(np, load, n, scratch, &plan);
        printf("%6d %12.1f %12.1f %12.1f %14.1f %12.1f %8zu\n", np, med[0], med[1], med[2], med[3],
               med[4], plan.nmoves);
        free(load), free(wload), free(n), free(off), free(w), free(dest), free(row), free(tb);
        free(moves), free(dec), free(scratch);
    }
    free(t);
    return 0;
}
