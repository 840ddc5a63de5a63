/* The task model where a phase's tasks leave what it was trained on, as a region of an AMR code
 * that the water reaches: (1) a feature column that never varied in training (coast cells,
 * always 0) now varies: the model refuses rather than weigh it at 0, its coefficients for that
 * column are unknown (NaN), and another fit's coefficients weigh those tasks instead
 * (tide_model_predict_tasks_coef); (2) a phase of light tasks after heavy phases: the task
 * model's envelope is the single task times it was trained on, not the recent loads, so its
 * exact prediction of the drop is served instead of the guard's baseline. */
#include "testutil.h"
#include "tide_predictor.h"

#include <string.h>

enum { TASKS = 12 };

static double cost(double dry, double coast)
{
    return 4e-6 * dry + 200e-6 * coast;
}

static tide_model *task_model(void)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    char err[256];
    CHECK(tide_model_params_set(&p, "TIDE_PRED_MODEL", "task", err, sizeof err) == 0, "%s", err);
    CHECK(tide_model_params_set(&p, "TIDE_PRED_TASK_DEGREE", "1", err, sizeof err) == 0, "%s", err);
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    return m;
}

/* A phase of TASKS sections of 8..12 cells, `wet` of them with coast cells (the rest dry). */
static void phase(tide_model *m, rng *r, int wet)
{
    double feat[2 * TASKS], times[TASKS], load = 0;
    for (int i = 0; i < TASKS; i++) {
        double cells = 8 + (int)(5 * rng_uniform(r)),
               coast = i < wet ? 1 + (int)(4 * rng_uniform(r)) : 0;
        feat[2 * i] = cells - coast, feat[2 * i + 1] = coast;
        load += times[i] = cost(feat[2 * i], coast);
    }
    CHECK(tide_model_observe_phase(m, load, TASKS, feat, times, 2) == 0, "observe");
}

int main(void)
{
    rng r = {7};
    /* (1) A dry region, then the water. */
    tide_model *dry = task_model(), *mixed = task_model();
    for (int ph = 0; ph < 8; ph++) {
        phase(dry, &r, 0);
        phase(mixed, &r, 3 + ph % 4);
    }
    double next[2 * TASKS], pt[TASKS], sum, want = 0;
    for (int i = 0; i < TASKS; i++) {
        next[2 * i] = 9 - (i % 3), next[2 * i + 1] = i % 3;
        want += cost(next[2 * i], next[2 * i + 1]);
    }
    tide_task_set wet = {TASKS, 2, next};
    CHECK(tide_model_predict_tasks(dry, &wet, pt, &sum) == TIDE_PRED_DEGENERATE,
          "the dry fit weighed coast cells it never saw");
    tide_prediction pred;
    CHECK(tide_model_predict_info(dry, &wet, &pred) == 0, "a served prediction");
    CHECK(pred.source != TIDE_SRC_MODEL, "the task model served an extrapolation");
    double c_dry[8], c_mix[8];
    CHECK(tide_model_task_coefficients(dry, c_dry, 8) == 3, "intercept + 2 columns");
    CHECK(tide_model_task_coefficients(mixed, c_mix, 8) == 3, "intercept + 2 columns");
    CHECK(isnan(c_dry[2]) && isfinite(c_dry[1]), "coast unknown (%g), dry known (%g)", c_dry[2],
          c_dry[1]);
    CHECK(isfinite(c_mix[1]) && isfinite(c_mix[2]), "the mixed fit knows both");
    /* The mixed fit's vector weighs the dry rank's wet tasks. */
    CHECK(tide_model_predict_tasks_coef(dry, c_mix, 3, &wet, pt, &sum) == 0, "borrowed weights");
    printf("borrowed: %.6f s, true %.6f s\n", sum, want);
    CHECK(fabs(sum - want) < 1e-3 * want, "borrowed sum %g vs %g", sum, want);
    CHECK(tide_model_predict_tasks_coef(dry, c_dry, 3, &wet, pt, &sum) == TIDE_PRED_ERR_INVALID,
          "a NaN coefficient weighed a non-zero column");
    for (int i = 0; i < TASKS; i++)
        next[2 * i + 1] = 0;
    CHECK(tide_model_predict_tasks_coef(dry, c_dry, 3, &wet, pt, &sum) == 0,
          "a NaN coefficient of a zero column counts nothing");
    CHECK(tide_model_predict_tasks_coef(dry, c_mix, 2, &wet, pt, &sum) == TIDE_PRED_ERR_INVALID,
          "a vector of the wrong length");

    /* (2) Heavy phases (10 of 12 sections with coast), then a dry one: 10-20x lighter. */
    tide_model *m = task_model();
    for (int ph = 0; ph < 10; ph++)
        phase(m, &r, 10);
    want = 0;
    for (int i = 0; i < TASKS; i++) {
        next[2 * i] = 8 + i % 5, next[2 * i + 1] = 0;
        want += cost(next[2 * i], 0);
    }
    CHECK(tide_model_predict_info(m, &wet, &pred) == 0, "a served prediction");
    printf("drop: served %.6f s (%s), true %.6f s\n", pred.load,
           pred.source == TIDE_SRC_MODEL ? "model" : "not the model", want);
    CHECK(pred.source == TIDE_SRC_MODEL, "the guard replaced the task model's drop");
    CHECK(fabs(pred.load - want) < 0.01 * want, "%g vs %g", pred.load, want);
    tide_model_destroy(dry), tide_model_destroy(mixed), tide_model_destroy(m);
    return 0;
}
