/* A step change of the load level: the model's recent median error exceeds the threshold, the
 * model retrains on the recent phases, and within 2 x window phases after the step the rolling
 * MAPE of the model's predictions (TIDE_PRED_SELECT=model: no baseline serves in its place) is
 * below 5%. Without retraining the same model stays wrong. */
#include "testutil.h"
#include "tide_predictor.h"

enum { N = 80, STEP = 50 };

static double rolling_after_step(double retrain_err, int *retrains)
{
    double y[N];
    rng r = {4242};
    ar4_series(&r, y, N, 0.01);
    for (int t = STEP; t < N; t++)
        y[t] += AR4_MEAN; /* the level doubles */
    tide_model_params p;
    tide_model_params_defaults(&p);
    p.retrain_err = retrain_err;
    p.select = TIDE_SELECT_MODEL; /* the model's own recovery, not the baselines' */
    /* Without retraining means neither trigger: the error threshold nor a confirmed step. */
    if (retrain_err >= 100) p.spike = 0;
    char err[256];
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    tide_model_stats s = {0};
    for (int t = 0; t < N; t++) {
        tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0);
        tide_model_get_stats(m, &s);
        if (t == STEP - 1) CHECK(s.retrains == 0 || retrain_err < 100, "no retrain before step");
        if (t >= STEP - 2 && t <= STEP + 2 * p.window)
            printf("  retrain-err %g phase %d load %.3f rolling MAPE %.3f%% retrains %d\n",
                   retrain_err, t, y[t], 100 * s.rolling_mape, s.retrains);
        if (t == STEP + 2 * p.window - 1) break; /* the 2*window-th phase after the step */
    }
    *retrains = s.retrains;
    tide_model_destroy(m);
    return s.rolling_mape;
}

int main(void)
{
    int retrains, none;
    double with = rolling_after_step(0.10, &retrains);
    double without = rolling_after_step(100, &none);
    printf("rolling MAPE 2 x window after the step: %.3f%% with retraining (%d retrains), %.3f%% "
           "without\n",
           100 * with, retrains, 100 * without);
    CHECK(retrains >= 1 && none == 0, "retrains %d / %d", retrains, none);
    CHECK(with < 0.05, "rolling MAPE %g not under 5%%", with);
    CHECK(without > with, "retraining must be what helps");
    return 0;
}
