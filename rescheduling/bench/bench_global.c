/*
 * bench_global.c - decision time of every global strategy against the number of ranks and of
 * objects, and the balance each one reaches.
 *
 * Input per (np, objects per rank): object loads uniform in [0.5, 1.5) times a rank factor
 * uniform in [1, 4) (an Imb.3-like spread, so every strategy has work to do), each object on
 * its rank, states of 1 KiB to 64 KiB, and a communication graph (a ring over the objects plus
 * two random edges per object). Each time is the median of `reps` calls, in microseconds,
 * including the strategy's own allocations; for packdrop and distributed it is the sequential
 * simulation of the whole round over all ranks (every rank's work added up).
 * Usage: global_bench [reps] [objects-per-rank ...]   (defaults: 5, then 16 and 128)
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "tide_global.h"

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

static uint64_t rng = 12345;
static double uniform(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

enum { EDGES = 3 };

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1) {
        fprintf(stderr, "usage: %s [reps >= 1] [objects-per-rank ...]\n", argv[0]);
        return 2;
    }
    int64_t per_default[] = {16, 128};
    int nper = argc > 2 ? argc - 2 : 2;
    const int32_t sizes[] = {8, 32, 128, 512, 2048, 4096};
    size_t ns;
    const tide_global_strategy *const *st = tide_global_strategies(&ns);
    double *t = malloc((size_t)reps * sizeof *t);
    printf("%5s %7s %8s", "np", "per", "objects");
    for (size_t s = 1; s < ns; s++)
        printf(" %12s", st[s]->name);
    printf("   (median us per decision; max/avg after below)\n");
    for (int ip = 0; ip < nper; ip++) {
        int64_t per = argc > 2 ? atoll(argv[2 + ip]) : per_default[ip];
        if (per < 1) {
            fprintf(stderr, "objects per rank must be >= 1\n");
            return 2;
        }
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            int32_t np = sizes[z];
            int64_t n = per * np;
            double *load = malloc((size_t)n * sizeof *load);
            double *bytes = malloc((size_t)n * sizeof *bytes);
            int32_t *owner = malloc((size_t)n * sizeof *owner);
            int32_t *out = malloc((size_t)n * sizeof *out);
            int64_t *off = malloc((size_t)(n + 1) * sizeof *off);
            int64_t *adj = malloc((size_t)n * EDGES * sizeof *adj);
            double *vol = malloc((size_t)n * EDGES * sizeof *vol);
            for (int32_t r = 0; r < np; r++) {
                double factor = 1.0 + 3.0 * uniform();
                for (int64_t k = 0; k < per; k++) {
                    int64_t o = (int64_t)r * per + k;
                    load[o] = factor * (0.5 + uniform());
                    bytes[o] = 1024.0 * (1.0 + 63.0 * uniform());
                    owner[o] = r;
                }
            }
            for (int64_t o = 0; o < n; o++) {
                off[o] = o * EDGES;
                adj[o * EDGES] = (o + 1) % n;
                for (int e = 1; e < EDGES; e++)
                    adj[o * EDGES + e] = (int64_t)(uniform() * (double)n);
                for (int e = 0; e < EDGES; e++)
                    vol[o * EDGES + e] = 1e6 * uniform();
            }
            off[n] = n * EDGES;
            tide_global_input in = {.np = np,
                                    .nobj = n,
                                    .load = load,
                                    .owner = owner,
                                    .bytes = bytes,
                                    .comm_off = off,
                                    .comm_adj = adj,
                                    .comm_vol = vol};
            tide_global_params p;
            tide_global_params_default(&p);
            double ratio[16];
            printf("%5d %7lld %8lld", np, (long long)per, (long long)n);
            for (size_t s = 1; s < ns; s++) {
                for (int k = 0; k < reps; k++) {
                    double t0 = now_us();
                    if (st[s]->plan(&in, &p, out) != TIDE_PLAN_OK) {
                        fprintf(stderr, "%s failed at np %d\n", st[s]->name, np);
                        return 1;
                    }
                    t[k] = now_us() - t0;
                }
                qsort(t, (size_t)reps, sizeof *t, compare_double);
                tide_global_summary sum;
                tide_global_summarize(&in, out, &sum);
                ratio[s] = sum.max_after / sum.avg;
                printf(" %12.1f", t[reps / 2]);
            }
            printf("\n%5s %7s %8s", "", "max/avg", "");
            for (size_t s = 1; s < ns; s++)
                printf(" %12.3f", ratio[s]);
            tide_global_summary none;
            tide_global_summarize(&in, owner, &none);
            tide_global_dist_report rep;
            tide_global_packdrop_sim(&in, &p, out, &rep);
            printf("   none %.3f, packdrop gossip rounds %d\n", none.max_before / none.avg,
                   rep.gossip_rounds);
            free(load);
            free(bytes);
            free(owner);
            free(out);
            free(off);
            free(adj);
            free(vol);
        }
    }
    free(t);
    return 0;
}
