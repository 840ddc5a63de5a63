/* The task model learns an n^3 task time from the feature n through its polynomial terms, and
 * predicts a phase's load as the sum over that phase's tasks, also for unseen task mixes. */
#include "testutil.h"
#include "tide_predictor.h"

enum { TASKS = 12 };

static double task_time(double n)
{
    return 2e-6 * n * n * n + 1e-3;
}

int main(void)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    char err[256];
    CHECK(tide_model_params_set(&p, "TIDE_PRED_MODEL", "task", err, sizeof err) == 0, "%s", err);
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    rng r = {31};
    double feat[TASKS], times[TASKS], ape = 0;
    int served = 0;
    for (int ph = 0; ph < 40; ph++) {
        double load = 0;
        for (int i = 0; i < TASKS; i++) {
            feat[i] = 10 + (int)(40 * rng_uniform(&r)); /* matrix sizes 10..49 */
            times[i] = task_time(feat[i]) * (1 + 0.01 * rng_normal(&r));
            load += times[i];
        }
        tide_task_set phase = {TASKS, 1, feat};
        tide_prediction p;
        if (tide_model_predict_info(m, &phase, &p) == 0 && p.source == TIDE_SRC_MODEL)
            ape += fabs(p.load - load) / load, served++;
        CHECK(tide_model_observe_phase(m, load, TASKS, feat, times, 1) == 0, "observe");
    }
    CHECK(tide_model_is_trained(m) && !tide_model_fell_back(m), "%s",
          tide_model_fallback_reason(m));
    /* The baselines serve until the model has been scored on 3 phases (docs/predictor.md):
     * its accuracy is that of the phases it served, and it must serve nearly all of them. */
    printf("task model: MAPE %.3f%% over the %d phases it served\n", 100 * ape / served, served);
    CHECK(served >= 30 && ape / served < 0.02, "served %d, MAPE %g", served, ape / served);

    /* A new mix: sizes 15..55 (slight extrapolation). */
    double next[TASKS], pt[TASKS], sum, want = 0;
    for (int i = 0; i < TASKS; i++)
        next[i] = 15 + 40.0 * i / (TASKS - 1), want += task_time(next[i]);
    tide_task_set ts = {TASKS, 1, next};
    CHECK(tide_model_predict_tasks(m, &ts, pt, &sum) == 0, "predict tasks");
    for (int i = 0; i < TASKS; i++)
        CHECK(fabs(pt[i] - task_time(next[i])) < 0.05 * task_time(next[i]) + 2e-3,
              "task %d: %g vs %g", i, pt[i], task_time(next[i]));
    double phase_pred;
    CHECK(tide_model_predict_phase(m, &ts, &phase_pred) == 0 && phase_pred == sum, "same sum");
    printf("new mix: predicted %.5f, true %.5f\n", sum, want);
    CHECK(fabs(sum - want) < 0.03 * want, "phase load %g vs %g", sum, want);
    tide_task_set wrong = {TASKS, 2, next};
    CHECK(tide_model_predict_tasks(m, &wrong, pt, &sum) == TIDE_PRED_ERR_INVALID, "nfeat checked");
    tide_model_destroy(m);
    return 0;
}
