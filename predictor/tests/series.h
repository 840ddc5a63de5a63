/* Seeded load series with the kinds of noise real nodes add, shared by the robustness test
 * (test_noise.c) and the CLI that writes them as CSV for tide-predict (bench/series_gen.c).
 *   clean-ar2   an AR(2) load around 10 with 1% innovations
 *   periodic    a smooth period-20 oscillation of +-30% with 0.5% noise
 *   spikes      clean-ar2 with 3% of the phases multiplied by 3..12 (OS noise, I/O)
 *   noisy       clean-ar2 times (1 + 5% noise) and 1% of the phases multiplied by 3..12 */
#ifndef TIDE_PRED_SERIES_H
#define TIDE_PRED_SERIES_H

#include "testutil.h"

#include <string.h>

static const char *const series_kinds[] = {"clean-ar2", "periodic", "spikes", "noisy"};
#define SERIES_KINDS 4

static inline void series_ar2(rng *r, double *y, int n, double noise)
{
    const double a1 = 1.2, a2 = -0.5, mean = 10.0;
    double c = mean * (1 - a1 - a2), h1 = mean, h2 = mean;
    for (int t = -100; t < n; t++) {
        double v = c + a1 * h1 + a2 * h2 + noise * mean * rng_normal(r);
        h2 = h1, h1 = v;
        if (t >= 0) y[t] = v;
    }
}

static inline void series_spike(rng *r, double *y, int n, double rate)
{
    for (int t = 0; t < n; t++)
        if (rng_uniform(r) < rate) y[t] *= 3 + 9 * rng_uniform(r);
}

/* Fills y[0..n) with the series `kind` (an index into series_kinds); 0 on success. */
static inline int series_make(int kind, uint64_t seed, double *y, int n)
{
    rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
    switch (kind) {
    case 0:
        series_ar2(&r, y, n, 0.01);
        return 0;
    case 1:
        for (int t = 0; t < n; t++)
            y[t] = 10 * (1 + 0.3 * sin(6.283185307179586 * t / 20)) * (1 + 0.005 * rng_normal(&r));
        return 0;
    case 2:
        series_ar2(&r, y, n, 0.01);
        series_spike(&r, y, n, 0.03);
        return 0;
    case 3:
        series_ar2(&r, y, n, 0.01);
        for (int t = 0; t < n; t++)
            y[t] *= 1 + 0.05 * rng_normal(&r);
        series_spike(&r, y, n, 0.01);
        return 0;
    default:
        return -1;
    }
}

static inline int series_kind(const char *name)
{
    for (int k = 0; k < SERIES_KINDS; k++)
        if (strcmp(series_kinds[k], name) == 0) return k;
    return -1;
}

#endif
