#include "scenario.h"

#include <math.h>
#include <string.h>

void samoa_scenario_init(const samoa_grid *g, const samoa_lake *l, int64_t first, int64_t n,
                         double *state)
{
    for (int64_t c = first; c < first + n; c++) {
        const samoa_cell *k = &g->cells[c];
        double h, u, v, *s = state + SAMOA_NSTATE * c;
        samoa_lake_exact(l, k->cx, k->cy, 0.0, &h, &u, &v);
        s[SAMOA_B] = samoa_lake_bed_mean(l, k->x, k->y);
        /* The plane surface's mean over the cell minus the bed's: where the cell is wet, h + b
         * is the exact surface, flat for a lake at rest. */
        s[SAMOA_H] = fmax(0.0, samoa_lake_surface(l, k->cx, k->cy, 0.0) - s[SAMOA_B]);
        s[SAMOA_HU] = s[SAMOA_H] * u;
        s[SAMOA_HV] = s[SAMOA_H] * v;
    }
}

samoa_sums samoa_scenario_sums(const samoa_grid *g, const samoa_lake *l, double t, int64_t first,
                               int64_t n, const double *state)
{
    samoa_sums s = {0};
    for (int64_t c = first; c < first + n; c++) {
        double h, u, v, hc = state[SAMOA_NSTATE * c + SAMOA_H];
        samoa_lake_exact(l, g->cells[c].cx, g->cells[c].cy, t, &h, &u, &v);
        double area = g->cells[c].area;
        s.mass += hc * area;
        s.err_l1 += fabs(hc - h) * area;
        s.exact_l1 += h * area;
    }
    return s;
}

static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdull;
    x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

uint64_t samoa_state_hash(int64_t first, int64_t n, const double *state)
{
    uint64_t sum = 0;
    for (int64_t c = first; c < first + n; c++) {
        uint64_t h = mix64((uint64_t)c + 0x9e3779b97f4a7c15ull);
        for (int k = 0; k < 3; k++) {
            uint64_t bits;
            memcpy(&bits, &state[SAMOA_NSTATE * c + k], sizeof bits);
            h = mix64(h ^ bits);
        }
        sum += h;
    }
    return sum;
}
