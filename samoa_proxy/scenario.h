/* The oscillating lake on the proxy's grid: initial state, and what the run reports (mass and
 * the error against the exact solution), as partial sums over a range of cells so that ranks
 * can add theirs. */
#ifndef SAMOA_SCENARIO_H
#define SAMOA_SCENARIO_H

#include "grid.h"
#include "swe.h"

/* Fills state (SAMOA_NSTATE doubles per cell) for cells [first, first + n) with the exact
 * solution at time 0 sampled at the centroids; the bed is sampled there too. */
void samoa_scenario_init(const samoa_grid *g, const samoa_lake *l, int64_t first, int64_t n,
                         double *state);

typedef struct samoa_sums {
    double mass;     /* sum of h * area */
    double err_l1;   /* sum of |h - h_exact| * area */
    double exact_l1; /* sum of h_exact * area */
} samoa_sums;

samoa_sums samoa_scenario_sums(const samoa_grid *g, const samoa_lake *l, double t, int64_t first,
                               int64_t n, const double *state);

/* Order-independent 64-bit hash of the states of cells [first, first + n), combinable by
 * addition across ranks: equal grids give equal sums whatever the partition. */
uint64_t samoa_state_hash(int64_t first, int64_t n, const double *state);

#endif
