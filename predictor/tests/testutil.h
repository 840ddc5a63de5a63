/* Small helpers shared by the predictor tests: a seeded normal generator and CHECK. */
#ifndef TIDE_PRED_TESTUTIL_H
#define TIDE_PRED_TESTUTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct rng {
    uint64_t s;
} rng;

static inline double rng_uniform(rng *r) /* (0, 1) */
{
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return ((double)(r->s >> 11) + 0.5) / 9007199254740992.0;
}

static inline double rng_normal(rng *r)
{
    double u = rng_uniform(r), v = rng_uniform(r);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* A stationary AR(4) load with mean 10 and innovations of 1% of the mean: a damped oscillation
 * (roots 0.95 e^{+-i pi/6}) times two real roots (0.5, -0.3), so persistence predicts it badly. */
static const double AR4[4] = {1.8454482671904333, -1.0815896534380869, -0.06631724007856504,
                              0.135375};
#define AR4_MEAN 10.0

static inline void ar4_series(rng *r, double *y, int n, double noise)
{
    double c = AR4_MEAN * (1 - AR4[0] - AR4[1] - AR4[2] - AR4[3]);
    double h[4] = {AR4_MEAN, AR4_MEAN, AR4_MEAN, AR4_MEAN};
    for (int t = -200; t < n; t++) { /* burn-in: forget the start */
        double v = c + noise * AR4_MEAN * rng_normal(r);
        for (int j = 0; j < 4; j++)
            v += AR4[j] * h[j];
        h[3] = h[2], h[2] = h[1], h[1] = h[0], h[0] = v;
        if (t >= 0) y[t] = v;
    }
}

#endif
