/* Error-triggered refits are judged before the next (docs/predictor.md, "Online adaptivity"):
 * - loads whose noise alone keeps the error above TIDE_PRED_RETRAIN_ERR (white noise of +-15%)
 *   refit rarely, not after every phase: the wait doubles while refits do not help (before this
 *   rule the same series refit 101 of its 400 phases after training, 1.4 us each; now 24);
 * - a change a refit can follow (a flat load starts to alternate) is still followed: from 15
 *   phases after it the model's rolling error stays under 5%, and it took a retrain to get
 *   there. */
#include "testutil.h"
#include "tide_predictor.h"

enum { N = 420, TRAIN = 20, BEND = 200, RECOVER = 15 };

static tide_model *model(void)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    p.select = TIDE_SELECT_MODEL; /* the model's own refits, not a baseline serving instead */
    char err[256];
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    return m;
}

int main(void)
{
    rng r = {777};
    tide_model *m = model();
    tide_model_stats s;
    for (int t = 0; t < N; t++)
        tide_model_observe_phase(m, 1.0 + 0.3 * (rng_uniform(&r) - 0.5), 0, NULL, NULL, 0);
    tide_model_get_stats(m, &s);
    int noisy = tide_model_retrains(m);
    printf("white noise: %d retrains in %d phases after training (rolling MAPE %.1f%%)\n", noisy,
           N - TRAIN, 100 * s.rolling_mape);
    CHECK(noisy <= (N - TRAIN) / 10, "noise refit %d of %d phases", noisy, N - TRAIN);
    tide_model_destroy(m);

    /* A steady load that starts to alternate (+-20% every other phase): no level step (the
     * filter sees none: the median stays), but lags fitted on a flat series predict it flat
     * until a refit; after one, lag 2 predicts it exactly. */
    m = model();
    double worst_late = 0;
    int before = 0;
    for (int t = 0; t < N; t++) {
        double y = t < BEND ? 10 : t % 2 ? 12 : 8;
        y *= 1 + 0.002 * (rng_uniform(&r) - 0.5);
        tide_model_observe_phase(m, y, 0, NULL, NULL, 0);
        if (t == BEND - 1) before = tide_model_retrains(m);
        tide_model_get_stats(m, &s);
        if (t >= BEND + RECOVER && s.rolling_mape > worst_late) worst_late = s.rolling_mape;
    }
    int bend = tide_model_retrains(m) - before;
    printf("alternation: %d retrains after it, worst rolling MAPE from %d phases on %.2f%%\n", bend,
           RECOVER, 100 * worst_late);
    CHECK(bend >= 1, "the alternation was followed without a retrain");
    CHECK(worst_late < 0.05, "rolling MAPE %.2f%% after the alternation began", 100 * worst_late);
    tide_model_destroy(m);
    return 0;
}
