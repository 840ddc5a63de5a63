/*
 * fixture.h - random instances and the measures the global strategy tests compare.
 */
#ifndef TIDE_GLOBAL_FIXTURE_H
#define TIDE_GLOBAL_FIXTURE_H

#include "../../offload/tests/check.h" /* the planner tests' assertion macros */
#include "tide_global.h"

#include <stdlib.h>
#include <string.h>

/* One owned instance: the input points into the arrays below. */
typedef struct fixture {
    tide_global_input in;
    double *load, *bytes, *speed, *vol;
    int32_t *owner;
    int64_t *off, *adj;
} fixture;

/* np ranks, n objects with loads in [0.1, 10) skewed onto the first ranks (the initial mapping
 * is imbalanced), bytes in [1, 1000); with_graph: a ring plus a few random edges per object. */
static inline void fixture_random(fixture *f, uint64_t *rng, int32_t np, int64_t n, bool with_graph,
                                  bool with_speed)
{
    memset(f, 0, sizeof *f);
    f->load = malloc((size_t)(n + 1) * sizeof *f->load);
    f->bytes = malloc((size_t)(n + 1) * sizeof *f->bytes);
    f->owner = malloc((size_t)(n + 1) * sizeof *f->owner);
    for (int64_t o = 0; o < n; o++) {
        f->load[o] = 0.1 + 9.9 * test_uniform(rng);
        f->bytes[o] = 1.0 + 999.0 * test_uniform(rng);
        double u = test_uniform(rng);
        f->owner[o] = (int32_t)((double)np * u * u); /* skewed towards rank 0 */
    }
    if (with_speed) {
        f->speed = malloc((size_t)np * sizeof *f->speed);
        for (int32_t r = 0; r < np; r++)
            f->speed[r] = 0.5 + 1.5 * test_uniform(rng);
    }
    if (with_graph) {
        enum { EXTRA = 2 };
        f->off = malloc((size_t)(n + 1) * sizeof *f->off);
        f->adj = malloc((size_t)(n * (1 + EXTRA) + 1) * sizeof *f->adj);
        f->vol = malloc((size_t)(n * (1 + EXTRA) + 1) * sizeof *f->vol);
        int64_t e = 0;
        for (int64_t o = 0; o < n; o++) {
            f->off[o] = e;
            f->adj[e] = (o + 1) % n;
            f->vol[e++] = 1e8 * test_uniform(rng);
            for (int k = 0; k < EXTRA; k++) {
                f->adj[e] = (int64_t)(test_rand(rng) % (uint64_t)n);
                f->vol[e++] = 1e8 * test_uniform(rng);
            }
        }
        f->off[n] = e;
    }
    f->in = (tide_global_input){.np = np,
                                .nobj = n,
                                .load = f->load,
                                .owner = f->owner,
                                .bytes = f->bytes,
                                .speed = f->speed,
                                .comm_off = f->off,
                                .comm_adj = f->adj,
                                .comm_vol = f->vol};
}

static inline void fixture_free(fixture *f)
{
    free(f->load);
    free(f->bytes);
    free(f->speed);
    free(f->vol);
    free(f->owner);
    free(f->off);
    free(f->adj);
}

/* Max over ranks of time + alpha x boundary volume (alpha 0: the plain max time). */
static inline double max_cost(const tide_global_input *in, const int32_t *owner, double alpha)
{
    double *c = calloc((size_t)in->np, sizeof *c);
    for (int64_t o = 0; o < in->nobj; o++)
        c[owner[o]] += in->load[o] / (in->speed != NULL ? in->speed[owner[o]] : 1.0);
    if (alpha > 0.0 && in->comm_adj != NULL)
        for (int64_t o = 0; o < in->nobj; o++)
            for (int64_t e = in->comm_off[o]; e < in->comm_off[o + 1]; e++) {
                int64_t v = in->comm_adj[e];
                if (owner[v] == owner[o]) continue;
                /* Both ends pay for the edge. */
                c[owner[o]] += alpha * in->comm_vol[e];
                c[owner[v]] += alpha * in->comm_vol[e];
            }
    double m = 0.0;
    for (int32_t r = 0; r < in->np; r++)
        if (c[r] > m) m = c[r];
    free(c);
    return m;
}

static inline bool mapping_valid(const tide_global_input *in, const int32_t *owner)
{
    for (int64_t o = 0; o < in->nobj; o++)
        if (owner[o] < 0 || owner[o] >= in->np) return false;
    return true;
}

#endif /* TIDE_GLOBAL_FIXTURE_H */
