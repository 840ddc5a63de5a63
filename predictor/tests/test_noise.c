/* Robust by default: on seeded series with OS-noise spikes the served prediction's MAPE is at
 * most half of persistence's, on clean series it is no worse than the plain model's (the
 * behaviour before the filter, guard and selection existed: TIDE_PRED_SELECT=model,
 * TIDE_PRED_GUARD=0, TIDE_PRED_SPIKE=0, the rank model). */
#include "series.h"
#include "tide_predictor.h"

enum { RANKS = 8, PHASES = 200 };

typedef struct result {
    double served, persistence, median3;
} result;

static double ape(double pred, double load)
{
    return fabs(pred - load) / fabs(load);
}

static double median3(const double *y)
{
    double a = y[0], b = y[1], c = y[2];
    return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/* MAPE over the phases that had a served prediction, for the model and the two baselines. */
static result run(int kind, const tide_model_params *p)
{
    result r = {0, 0, 0};
    long n = 0;
    for (int rank = 0; rank < RANKS; rank++) {
        double y[PHASES];
        CHECK(series_make(kind, 1000 + (uint64_t)rank, y, PHASES) == 0, "series");
        char err[256];
        tide_model *m = tide_model_create(p, err, sizeof err);
        CHECK(m, "%s", err);
        for (int t = 0; t < PHASES; t++) {
            double pred;
            if (tide_model_predict(m, &pred) == TIDE_PRED_OK && t >= 3) {
                r.served += ape(pred, y[t]);
                r.persistence += ape(y[t - 1], y[t]);
                r.median3 += ape(median3(y + t - 3), y[t]);
                n++;
            }
            CHECK(tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0) == 0, "observe");
        }
        tide_model_destroy(m);
    }
    r.served /= n, r.persistence /= n, r.median3 /= n;
    return r;
}

int main(void)
{
    tide_model_params robust, plain;
    tide_model_params_defaults(&robust);
    plain = robust;
    snprintf(plain.kind, sizeof plain.kind, "rank");
    plain.select = TIDE_SELECT_MODEL, plain.guard = 0, plain.spike = 0;
    printf("%-10s %9s %9s %12s %12s\n", "series", "default", "plain", "persistence", "median-of-3");
    for (int k = 0; k < SERIES_KINDS; k++) {
        result d = run(k, &robust), o = run(k, &plain);
        printf("%-10s %8.2f%% %8.2f%% %11.2f%% %11.2f%%\n", series_kinds[k], 100 * d.served,
               100 * o.served, 100 * d.persistence, 100 * d.median3);
        if (k >= 2)
            CHECK(d.served <= 0.5 * d.persistence, "%s: %g vs persistence %g", series_kinds[k],
                  d.served, d.persistence);
        else
            CHECK(d.served <= 1.05 * o.served + 1e-3, "%s: %g vs plain model %g", series_kinds[k],
                  d.served, o.served);
    }
    return 0;
}
