/* Data that cannot support a fit gives persistence with a recorded reason, never NaN or a
 * crash: constant loads, NaN/Inf loads, too few finite samples, singular systems, negative
 * extrapolation, no task data; and bad knob values give one clear error line. */
#include "testutil.h"
#include "tide_predictor.h"

#include <string.h>

static tide_model *make(const char *kind, tide_solver solver)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    snprintf(p.kind, sizeof p.kind, "%s", kind);
    p.solver = solver;
    p.select = TIDE_SELECT_MODEL; /* the model's own fallback, not the selection's baselines */
    char err[256];
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    return m;
}

static void feed(tide_model *m, const double *y, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(tide_model_observe_phase(m, y[i], 0, NULL, NULL, 0) >= 0, "observe %d", i);
}

static void expect_persistence(tide_model *m, double want, const char *reason_part)
{
    double out, ahead[3];
    CHECK(tide_model_predict(m, &out) == TIDE_PRED_OK, "predict");
    CHECK(out == want, "persistence %g, want %g", out, want);
    CHECK(tide_model_fell_back(m), "fell back");
    CHECK(strstr(tide_model_fallback_reason(m), reason_part), "reason '%s' lacks '%s'",
          tide_model_fallback_reason(m), reason_part);
    CHECK(tide_model_predict_ahead(m, 3, ahead) == TIDE_PRED_OK, "ahead");
    for (int s = 0; s < 3; s++)
        CHECK(ahead[s] == want, "ahead[%d] = %g", s, ahead[s]);
    printf("ok: %s\n", tide_model_fallback_reason(m));
}

static void constant_loads(tide_solver solver)
{
    double y[30];
    for (int i = 0; i < 30; i++)
        y[i] = 5.0;
    tide_model *m = make("rank", solver);
    double out;
    /* The default window 4: 5 coefficients need 6 samples, i.e. 10 phases. */
    feed(m, y, 9);
    CHECK(tide_model_predict(m, &out) == TIDE_PRED_NOT_READY, "not ready before 10 phases");
    feed(m, y + 9, 21);
    expect_persistence(m, 5.0, "constant");
    tide_model_stats s;
    tide_model_get_stats(m, &s);
    CHECK(s.fallbacks == 20 && s.sum_sq_err == 0, "fallbacks %ld", s.fallbacks);
    tide_model_destroy(m);
}

static void nan_and_inf_loads(void)
{
    /* Every other load NaN: every sample has a NaN among its 4 lags + label. */
    double y[20];
    for (int i = 0; i < 20; i++)
        y[i] = i % 2 ? NAN : 3.0 + i;
    tide_model *m = make("rank", TIDE_SOLVER_OLS);
    feed(m, y, 20);
    expect_persistence(m, 21.0, "no finite samples");
    tide_model_destroy(m);

    /* A good fit, then an Inf measurement: the lags are broken, the last finite load serves. */
    rng r = {9};
    double z[30];
    ar4_series(&r, z, 30, 0.01);
    m = make("rank", TIDE_SOLVER_OLS);
    feed(m, z, 25);
    CHECK(!tide_model_fell_back(m), "a good fit");
    double inf = INFINITY;
    feed(m, &inf, 1);
    expect_persistence(m, z[24], "not finite");
    tide_model_destroy(m);

    /* Only NaN: nothing to persist, so no prediction at all rather than NaN. */
    double nan[20];
    for (int i = 0; i < 20; i++)
        nan[i] = NAN;
    m = make("rank", TIDE_SOLVER_OLS);
    feed(m, nan, 20);
    double out = 1;
    CHECK(tide_model_predict(m, &out) == TIDE_PRED_NOT_READY && out == 1, "no NaN");
    tide_model_destroy(m);
}

static void singular_system(void)
{
    /* Period 2: lag 1 == lag 3 and lag 2 == lag 4 exactly. Truncated SVD still predicts the
     * alternation exactly; the robust solver refuses the singular system and persists. */
    double y[24];
    for (int i = 0; i < 24; i++)
        y[i] = i % 2 ? 2.0 : 1.0;
    tide_model *m = make("rank", TIDE_SOLVER_OLS);
    feed(m, y, 20);
    double ahead[4];
    CHECK(tide_model_predict_ahead(m, 4, ahead) == TIDE_PRED_OK, "ahead");
    for (int s = 0; s < 4; s++)
        CHECK(fabs(ahead[s] - y[20 + s]) < 1e-9, "ols step %d: %g vs %g", s, ahead[s], y[20 + s]);
    CHECK(!tide_model_fell_back(m), "ols handles it");
    tide_model_destroy(m);

    m = make("rank", TIDE_SOLVER_ROBUST);
    feed(m, y, 20);
    expect_persistence(m, 2.0, "singular");
    tide_model_destroy(m);
}

static void negative_extrapolation(void)
{
    /* A falling line: recursive prediction reaches zero and would go below; loads cannot. */
    double y[20];
    for (int i = 0; i < 20; i++)
        y[i] = 100 - 5.0 * i;
    tide_model *m = make("rank", TIDE_SOLVER_OLS);
    feed(m, y, 20);
    double ahead[6];
    CHECK(tide_model_predict_ahead(m, 6, ahead) == TIDE_PRED_OK, "ahead");
    for (int s = 0; s < 6; s++) {
        CHECK(isfinite(ahead[s]) && ahead[s] >= 0, "step %d: %g", s, ahead[s]);
        printf("  ahead[%d] = %g\n", s, ahead[s]);
    }
    CHECK(tide_model_fell_back(m), "the negative step fell back");
    CHECK(strstr(tide_model_fallback_reason(m), "the model predicted -"), "%s",
          tide_model_fallback_reason(m));
    tide_model_destroy(m);
}

static void task_model_without_tasks(void)
{
    double y[20];
    for (int i = 0; i < 20; i++)
        y[i] = 1.0 + 0.1 * i;
    tide_model *m = make("task", TIDE_SOLVER_OLS);
    feed(m, y, 20);
    expect_persistence(m, y[19], "0 task samples");
    double t;
    tide_task_set ts = {0, 0, NULL};
    CHECK(tide_model_predict_tasks(m, &ts, &t, NULL) == TIDE_PRED_NOT_READY, "no task model");
    tide_model_destroy(m);
}

static void bad_knobs(void)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    char err[256];
    struct {
        const char *name, *value;
    } bad[] = {{"TIDE_PRED_WINDOW", "0"},       {"TIDE_PRED_WINDOW", "4x"},
               {"TIDE_PRED_TRAIN", "-3"},       {"TIDE_PRED_RETRAIN_ERR", "nan"},
               {"TIDE_PRED_RETRAIN_ERR", "-1"}, {"TIDE_PRED_SOLVER", "qr"},
               {"TIDE_PRED_MODEL", "neural"},   {"TIDE_PRED_TASK_DEGREE", "9"},
               {"TIDE_PRED_WINDOWS", "4"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(tide_model_params_set(&p, bad[i].name, bad[i].value, err, sizeof err) ==
                  TIDE_PRED_ERR_CONFIG,
              "%s=%s accepted", bad[i].name, bad[i].value);
        CHECK(strstr(err, bad[i].name) && !strchr(err, '\n'), "error line: %s", err);
        printf("ok: %s\n", err);
    }
    CHECK(tide_model_params_set(&p, "TIDE_PRED_WINDOW", "8", err, sizeof err) == 0, "8");
    CHECK(tide_model_params_set(&p, "TIDE_PRED_SOLVER", "robust", err, sizeof err) == 0, "robust");
    CHECK(p.window == 8 && p.solver == TIDE_SOLVER_ROBUST, "values stored");
    /* 20 phases leave 12 samples for 9 coefficients... but 2*8+2 = 18 <= 20 is fine; 10 is not. */
    CHECK(tide_model_params_set(&p, "TIDE_PRED_TRAIN", "10", err, sizeof err) == 0, "10 parses");
    CHECK(tide_model_params_validate(&p, err, sizeof err) == TIDE_PRED_ERR_CONFIG, "10 < 18");
    CHECK(!tide_model_create(&p, err, sizeof err), "create refuses");
    CHECK(strstr(err, "TIDE_PRED_TRAIN='10'"), "%s", err);
    printf("ok: %s\n", err);
}

int main(void)
{
    constant_loads(TIDE_SOLVER_OLS);
    constant_loads(TIDE_SOLVER_RIDGE);
    constant_loads(TIDE_SOLVER_ROBUST);
    nan_and_inf_loads();
    singular_system();
    negative_extrapolation();
    task_model_without_tasks();
    bad_knobs();
    return 0;
}
