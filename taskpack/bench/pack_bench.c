/* Freed CPUs vs the imbalance metric (paper's eq. 5) for synthetic imbalance patterns, and the
 * packing algorithms compared (CPUs used, time to plan). Pure: no MPI, one node of n ranks.
 *
 *   taskpack_pack_bench [seed]
 *   taskpack_pack_bench --loads N MEAN SPREAD REPS [seed]
 *
 * Prints one table row per (pattern, node size): imbalance I, lower bound ceil(I n), the CPUs used
 * by tp_pack (what the library runs), FFD, the subset-sum DP and the paper's repeated recursive
 * subset-sum (split at 30 items), then freed = n - tp_pack. Times are the mean of 20 random
 * instances per row.
 *
 * --loads packs REPS random nodes of N ranks whose times are MEAN x (1 + SPREAD x (2u - 1)) (u
 * uniform in [0, 1), clipped to [0.001, 1]) into CPUs of capacity 1, the slowest rank's time,
 * which lies on another node (the Task Packing paper's Xeon nodes wait for its Xeon Phi nodes).
 * Prints one line: N, mean eq. 5 I, mean CPUs used by tp_pack, mean freed fraction. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pack.h"
#include "plan.h"

static unsigned long long state;

static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

static void pattern(const char *name, double *t, int n)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(name, "balanced"))
            t[i] = 1.0 - 0.03 * uniform();
        else if (!strcmp(name, "one_heavy"))
            t[i] = i == 0 ? 1.0 : 0.1 + 0.05 * uniform();
        else if (!strcmp(name, "linear"))
            t[i] = (double)(i + 1) / n;
        else if (!strcmp(name, "half_heavy"))
            t[i] = i < n / 2 ? 1.0 : 0.3 + 0.1 * uniform();
        else if (!strcmp(name, "uniform"))
            t[i] = 0.05 + 0.95 * uniform();
        else if (!strcmp(name, "exp_tail"))
            t[i] = fmin(1.0, -0.15 * log(1 - uniform()));
        else
            t[i] = uniform() < 0.1 ? 1.0 : 0.05 + 0.15 * uniform(); /* few_heavy */
    }
    double mx = 0;
    for (int i = 0; i < n; i++)
        mx = fmax(mx, t[i]);
    for (int i = 0; i < n; i++)
        t[i] /= mx;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --loads: the freed fraction of nodes with a given mean load (see the header). */
static int pack_loads(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: taskpack_pack_bench --loads N MEAN SPREAD REPS [seed]\n");
        return 2;
    }
    int n = atoi(argv[2]), reps = atoi(argv[5]);
    double mean = atof(argv[3]), spread = atof(argv[4]);
    if (n < 1 || n > 128 || reps < 1 || !(mean > 0 && mean <= 1) || !(spread >= 0 && spread <= 1)) {
        fprintf(stderr, "taskpack_pack_bench: --loads needs 1 <= N <= 128, 0 < MEAN <= 1, "
                        "0 <= SPREAD <= 1, REPS >= 1\n");
        return 2;
    }
    state = argc > 6 ? strtoull(argv[6], NULL, 10) : 12345;
    if (state == 0) state = 1;
    double t[128], imb = 0, used = 0;
    int64_t w[128];
    int bin[128];
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            t[i] = fmin(1.0, fmax(0.001, mean * (1.0 + spread * (2.0 * uniform() - 1.0))));
            w[i] = (int64_t)ceil(t[i] * TP_PLAN_SCALE);
        }
        imb += tp_imbalance(t, n, 1.0) / reps;
        used += (double)tp_pack(w, n, TP_PLAN_SCALE, 16, bin, NULL) / reps;
    }
    printf("%d %.4f %.3f %.4f\n", n, imb, used, fmax(0.0, (n - used) / n));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--loads")) return pack_loads(argc, argv);
    state = argc > 1 ? strtoull(argv[1], NULL, 10) : 12345;
    if (state == 0) state = 1;
    const char *patterns[] = {"balanced", "linear",    "uniform",  "half_heavy",
                              "exp_tail", "few_heavy", "one_heavy"};
    const int sizes[] = {8, 16, 48, 128};
    enum { REPS = 20, ROWS = 7 * 4 };
    double row_i[ROWS], row_f[ROWS];
    int rows = 0;
    printf("%-10s %4s %6s %6s %7s %7s %7s %7s %7s %9s %9s %9s\n", "pattern", "n", "I", "lb",
           "tp_pack", "ffd", "dp", "paper", "freed/n", "t_tp[ms]", "t_dp[ms]", "t_pap[ms]");
    for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            int n = sizes[s];
            double t[128], imb = 0, lb = 0, used = 0, ffd = 0, dp = 0, paper = 0;
            double t_tp = 0, t_dp = 0, t_paper = 0;
            int64_t w[128];
            int bin[128];
            for (int r = 0; r < REPS; r++) {
                pattern(patterns[p], t, n);
                imb += tp_imbalance(t, n, 1.0) / REPS;
                for (int i = 0; i < n; i++) {
                    double u = ceil(t[i] * TP_PLAN_SCALE);
                    w[i] = u < 1 ? 1 : (int64_t)u;
                }
                lb += (double)tp_pack_lower_bound(w, n, TP_PLAN_SCALE) / REPS;
                double t0 = now();
                used += (double)tp_pack(w, n, TP_PLAN_SCALE, 16, bin, NULL) / REPS;
                double t1 = now();
                ffd += (double)tp_pack_ffd(w, n, TP_PLAN_SCALE, bin) / REPS;
                double t2 = now();
                dp += (double)tp_pack_subset_dp(w, n, TP_PLAN_SCALE, 4096, bin) / REPS;
                double t3 = now();
                paper += (double)tp_pack_paper(w, n, TP_PLAN_SCALE, 30, bin) / REPS;
                double t4 = now();
                t_tp += (t1 - t0) * 1e3 / REPS;
                t_dp += (t3 - t2) * 1e3 / REPS;
                t_paper += (t4 - t3) * 1e3 / REPS;
            }
            printf("%-10s %4d %6.3f %6.2f %7.2f %7.2f %7.2f %7.2f %7.3f %9.3f %9.3f %9.3f\n",
                   patterns[p], n, imb, lb, used, ffd, dp, paper, fmax(0.0, (n - used) / n), t_tp,
                   t_dp, t_paper);
            fflush(stdout);
            row_i[rows] = imb;
            row_f[rows++] = fmax(0.0, (n - used) / n);
        }
    }
    /* How well the imbalance metric predicts the freed fraction (the paper's observation). */
    double mi = 0, mf = 0, sif = 0, sii = 0, sff = 0;
    for (int r = 0; r < rows; r++) {
        mi += row_i[r] / rows;
        mf += row_f[r] / rows;
    }
    for (int r = 0; r < rows; r++) {
        sif += (row_i[r] - mi) * (row_f[r] - mf);
        sii += (row_i[r] - mi) * (row_i[r] - mi);
        sff += (row_f[r] - mf) * (row_f[r] - mf);
    }
    printf("pearson(I, freed/n) over %d rows = %.3f\n", rows, sif / sqrt(sii * sff));
    return 0;
}
