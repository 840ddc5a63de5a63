/* Predictor cost: training the rank model on 100 samples x 8 features (window 8, 108 phases) with
 * each solver, and predicting the next phase. Prints the median over batches of the mean time per
 * call, beside the targets (train <= 1 ms, predict <= 10 us). Then what a phase costs the
 * runtime with the default knobs (a prediction before, an observation after) on loads with
 * +-15% white noise, the fine-grained case where the error never falls under the refit bar, and
 * how many of the phases refit. */
#define _POSIX_C_SOURCE 200809L
#include "tide_predictor.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WINDOW = 8, SAMPLES = 100, BATCHES = 11 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A load that varies (oscillation + pseudo-random noise), so every fit is a real one. */
static double load_at(int t, uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return 10 + 2 * sin(t * 0.5) + 0.1 * ((double)(*s >> 11) / 9007199254740992.0 - 0.5);
}

typedef int (*op_fn)(tide_model *m);

static int op_train(tide_model *m)
{
    return tide_model_train(m);
}

static volatile double sink; /* keeps the compiler from dropping the predictions */

static int op_predict(tide_model *m)
{
    double v;
    int rc = tide_model_predict(m, &v);
    sink = v;
    return rc;
}

static double median_us(tide_model *m, op_fn op, int calls)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now();
        for (int i = 0; i < calls; i++)
            if (op(m) != TIDE_PRED_OK) fprintf(stderr, "bench: call failed\n"), exit(1);
        t[b] = (now() - t0) / calls * 1e6;
    }
    qsort(t, BATCHES, sizeof t[0], cmp);
    return t[BATCHES / 2];
}

/* The default model as libtide runs it, PHASES phases of loads 1 +-15% (uniform). */
static int per_phase(void)
{
    enum { PHASES = 100000 };
    tide_model_params p;
    tide_model_params_defaults(&p);
    char err[256];
    double t[BATCHES];
    int retrains = 0;
    for (int b = 0; b < BATCHES; b++) {
        tide_model *m = tide_model_create(&p, err, sizeof err);
        if (!m) return fprintf(stderr, "bench: %s\n", err), 1;
        uint64_t s = 88172645463325252ull;
        double t0 = now();
        for (int i = 0; i < PHASES; i++) {
            tide_prediction pr;
            if (tide_model_predict_info(m, NULL, &pr) == TIDE_PRED_OK) sink = pr.load;
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            tide_phase_obs o = {.load = 1 + 0.3 * ((double)(s >> 11) / 9007199254740992.0 - 0.5),
                                .tasks = {.ntasks = 1}};
            if (tide_model_observe(m, &o) != TIDE_PRED_OK)
                return fprintf(stderr, "bench: observe\n"), 1;
        }
        t[b] = (now() - t0) / PHASES * 1e6;
        retrains = tide_model_retrains(m);
        tide_model_destroy(m);
    }
    qsort(t, BATCHES, sizeof t[0], cmp);
    printf("# default model, loads 1 +-15%% (white noise), %d phases; median of %d runs\n", PHASES,
           BATCHES);
    printf("per phase (predict + observe) %6.3f us; refits in %.1f%% of the phases\n",
           t[BATCHES / 2], 100.0 * retrains / PHASES);
    return 0;
}

int main(void)
{
    printf("# rank model, window %d, %d samples x %d features (+ intercept); median of %d "
           "batches\n",
           WINDOW, SAMPLES, WINDOW, BATCHES);
    for (int s = TIDE_SOLVER_OLS; s <= TIDE_SOLVER_ROBUST; s++) {
        tide_model_params p;
        tide_model_params_defaults(&p);
        p.window = WINDOW;
        p.train = SAMPLES + WINDOW;
        p.solver = (tide_solver)s;
        char err[256];
        tide_model *m = tide_model_create(&p, err, sizeof err);
        if (!m) return fprintf(stderr, "bench: %s\n", err), 1;
        uint64_t seed = 88172645463325252ull;
        for (int t = 0; t < p.train; t++)
            tide_model_observe_phase(m, load_at(t, &seed), 0, NULL, NULL, 0);
        if (tide_model_fell_back(m))
            return fprintf(stderr, "bench: %s\n", tide_model_fallback_reason(m)), 1;
        double train = median_us(m, op_train, 200);
        double pred = median_us(m, op_predict, 200000);
        printf("solver %-6s  train %8.1f us (target <= 1000)  predict %6.3f us (target <= 10)\n",
               tide_solver_name(p.solver), train, pred);
        tide_model_destroy(m);
    }
    return per_phase();
}
