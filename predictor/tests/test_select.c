/* The guards around a prediction, one behaviour each: a spike neither retrains the model nor
 * moves the next prediction, which says how far the suspect load is until the next decides; a level
 * step is followed within 2 x window phases; a model that loses to the baselines is not served, one
 * that beats them serves once it has been scored on 3 phases (a task model's fresh fit at once); a
 * wild prediction is replaced and counted; auto serves the task model when the tasks' features
 * predict their times, and the rank model otherwise. */
#include "testutil.h"
#include "tide_predictor.h"

#include <string.h>

static tide_model *make(const char *kind)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    snprintf(p.kind, sizeof p.kind, "%s", kind);
    char err[256];
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    return m;
}

static void spike_is_ignored(void)
{
    double y[60];
    rng r = {77};
    ar4_series(&r, y, 60, 0.01);
    tide_model *m = make("rank");
    for (int t = 0; t < 40; t++)
        tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0);
    double before;
    CHECK(tide_model_predict(m, &before) == 0, "trained");
    int retrains = tide_model_retrains(m);
    tide_model_observe_phase(m, 10 * y[40], 0, NULL, NULL, 0); /* one disturbed phase */
    tide_prediction p;
    CHECK(tide_model_predict_info(m, NULL, &p) == 0, "predict");
    printf("spike: load %.3f measured %.3f, next predicted %.3f (%s), true %.3f\n", y[40],
           10 * y[40], p.load, tide_pred_source_name(p.source), y[41]);
    CHECK(fabs(p.load - y[41]) < 0.05 * y[41], "the spike moved the prediction to %g", p.load);
    /* Undecided until the next load: a spike or a step, so the prediction says how far the
     * suspect value is (a planner widens its margin to it), and stops once it is decided. */
    CHECK(fabs(p.suspect - (10 * y[40] - p.load)) < 1e-9, "suspect %g after a suspect load %g",
          p.suspect, 10 * y[40]);
    tide_model_observe_phase(m, y[41], 0, NULL, NULL, 0);
    CHECK(tide_model_predict_info(m, NULL, &p) == 0 && p.suspect == 0,
          "suspect %g once the spike is decided", p.suspect);
    for (int t = 42; t < 45; t++)
        tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0);
    tide_model_stats s;
    tide_model_get_stats(m, &s);
    CHECK(s.spikes == 1 && s.steps == 0, "spikes %ld steps %ld", s.spikes, s.steps);
    CHECK(tide_model_retrains(m) == retrains, "a spike retrained the model");
    tide_model_destroy(m);
}

static void step_is_followed(void)
{
    enum { N = 70, STEP = 40 };
    double y[N];
    rng r = {78};
    ar4_series(&r, y, N, 0.01);
    for (int t = STEP; t < N; t++)
        y[t] += 1.5 * AR4_MEAN; /* the level steps from 10 to 25 */
    tide_model *m = make("rank");
    tide_model_params p;
    tide_model_params_defaults(&p);
    double worst_late = 0;
    for (int t = 0; t < N; t++) {
        double pred;
        if (t == STEP + 1) { /* the first stepped load is suspect: it may have been a spike */
            tide_prediction info;
            CHECK(tide_model_predict_info(m, NULL, &info) == 0 &&
                      fabs(info.suspect - (y[STEP] - info.load)) < 1e-9,
                  "after the step's first load %g: %g, suspect %g", y[STEP], info.load,
                  info.suspect);
        }
        if (tide_model_predict(m, &pred) == 0 && t >= STEP + 2 * p.window) {
            double e = fabs(pred - y[t]) / y[t];
            if (e > worst_late) worst_late = e;
        }
        tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0);
    }
    tide_model_stats s;
    tide_model_get_stats(m, &s);
    printf("step 10 -> 25: worst error from 2 x window phases after it %.2f%%, %d retrains, %ld "
           "steps\n",
           100 * worst_late, s.retrains, s.steps);
    CHECK(worst_late < 0.05, "step not followed: %g", worst_late);
    CHECK(s.retrains >= 1 && s.steps == 1, "retrains %d steps %ld", s.retrains, s.steps);
    tide_model_destroy(m);
}

/* A model that predicts `factor` times the last load, plus `shift`. */
static double factor, shift;

static int fx_create(const tide_model_params *p, void **state)
{
    (void)p;
    *state = NULL;
    return 0;
}

static int fx_train(void *state, const double *loads, int n, char *why, size_t len)
{
    (void)state, (void)loads, (void)n, (void)why, (void)len;
    return 0;
}

static int fx_predict(void *state, const double *loads, int n, const tide_task_set *next,
                      double *out, char *why, size_t len)
{
    (void)state, (void)next, (void)why, (void)len;
    *out = factor * loads[n - 1] + shift;
    return 0;
}

static void fx_destroy(void *state)
{
    (void)state;
}

static const tide_model_ops fx_ops = {.name = "fx",
                                      .create = fx_create,
                                      .train = fx_train,
                                      .predict = fx_predict,
                                      .destroy = fx_destroy};

static tide_model *make_fx(double f, double s, tide_pred_select select)
{
    factor = f, shift = s;
    tide_model_params p;
    tide_model_params_defaults(&p);
    p.select = select;
    char err[256];
    tide_model *m = tide_model_create_ops(&fx_ops, &p, err, sizeof err);
    CHECK(m, "%s", err);
    return m;
}

static tide_model *run_fx(double f, int phases)
{
    tide_model *m = make_fx(f, 0, TIDE_SELECT_AUTO);
    rng r = {5};
    double y[80];
    ar4_series(&r, y, phases, 0.01);
    for (int t = 0; t < phases; t++)
        tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0);
    return m;
}

static void loser_is_not_served(void)
{
    tide_model *m = run_fx(1.25, 60); /* 25% off, inside the guard's envelope */
    tide_model_stats s;
    tide_model_get_stats(m, &s);
    tide_prediction p;
    CHECK(tide_model_predict_info(m, NULL, &p) == 0, "predict");
    printf("a 25%%-biased model: served by model %ld of %ld phases, now %s\n",
           s.by_source[TIDE_SRC_MODEL], s.predicted, tide_pred_source_name(p.source));
    CHECK(s.by_source[TIDE_SRC_MODEL] <= 3 && p.source != TIDE_SRC_MODEL, "the loser served");
    tide_model_destroy(m);
}

/* A model serves once it has been scored on 3 phases and beat the baselines there (auto), at
 * once under TIDE_PRED_SELECT=model. The model predicts a ramp exactly (the last load + 1), where
 * persistence errs by 1 and the median by 2; it is fitted after phase 0. Returns the first phase
 * it served, and leaves the model in `out`. */
static int first_served(tide_pred_select select, tide_model **out)
{
    tide_model *m = make_fx(1, 1, select);
    int first = -1;
    for (int t = 0; t < 12; t++) {
        tide_prediction p;
        if (tide_model_predict_info(m, NULL, &p) == 0 && p.source == TIDE_SRC_MODEL && first < 0)
            first = t;
        tide_model_observe_phase(m, 10 + t, 0, NULL, NULL, 0);
    }
    *out = m;
    return first;
}

static void judged_before_served(void)
{
    tide_model *m;
    int first = first_served(TIDE_SELECT_MODEL, &m);
    tide_model_destroy(m);
    CHECK(first == 1, "select=model: the fit served first at phase %d, not at once", first);
    first = first_served(TIDE_SELECT_AUTO, &m);
    tide_model_stats s;
    tide_model_get_stats(m, &s);
    printf("an exact model: served from phase %d (auto), %ld of %ld phases\n", first,
           s.by_source[TIDE_SRC_MODEL], s.predicted);
    CHECK(first == 4, "auto: the fit served first at phase %d, not after 3 scored phases", first);
    CHECK(s.by_source[TIDE_SRC_MODEL] == 8, "served %ld phases", s.by_source[TIDE_SRC_MODEL]);
    tide_model_destroy(m);

    /* A model that weighs the phase's tasks (task times size^3, mixes drawn anew each phase)
     * knows what the baselines cannot: its fresh fit serves from its first prediction. */
    m = make("task");
    rng r = {91};
    int first_pred = -1, first_task = -1;
    for (int ph = 0; ph < 10; ph++) {
        double feat[12], times[12], load = 0;
        for (int i = 0; i < 12; i++) {
            feat[i] = 10 + (int)(40 * rng_uniform(&r));
            times[i] = 2e-4 * feat[i] * feat[i] * feat[i];
            load += times[i];
        }
        tide_task_set ts = {12, 1, feat};
        tide_prediction p;
        if (tide_model_predict_info(m, &ts, &p) == 0) {
            if (first_pred < 0) first_pred = ph;
            if (p.source == TIDE_SRC_MODEL && first_task < 0) first_task = ph;
        }
        tide_model_observe_phase(m, load, 12, feat, times, 1);
    }
    printf("a task model: first prediction at phase %d, served from phase %d\n", first_pred,
           first_task);
    CHECK(first_pred >= 0 && first_task == first_pred,
          "the task model's fresh fit waited: served from phase %d, first prediction %d",
          first_task, first_pred);
    tide_model_destroy(m);
}

/* Two victims' loads from the paper's MxM (scripts/bench-proact, quiet, TIDE_PRED_WINDOW=2
 * TIDE_PRED_TRAIN=6; ranks 2 and 3 of two runs, docs/performance.md section 13): the rank
 * model's first fit, after phase 5, served 0.8 s low at phase 6 and kept an uncertainty of 0.8 for
 * three phases, and the plan left that room empty. Persistence was right within 0.06. */
static void first_fit_waits(void)
{
    static const double runs[2][12] = {{4.4416, 4.2161, 4.2122, 4.2095, 4.2082, 4.2714, 4.2160,
                                        4.2153, 4.2294, 4.2225, 4.2111, 4.2105},
                                       {3.6170, 3.5064, 3.5078, 3.5071, 3.5071, 3.5430, 3.5176,
                                        3.5076, 3.5138, 3.5148, 3.5094, 3.5096}};
    for (int r = 0; r < 2; r++) {
        tide_model_params p;
        tide_model_params_defaults(&p);
        p.window = 2, p.train = 6;
        char err[256];
        tide_model *m = tide_model_create(&p, err, sizeof err);
        CHECK(m, "%s", err);
        double worst_err = 0, worst_unc = 0;
        for (int t = 0; t < 12; t++) {
            tide_prediction pr;
            if (t >= 6 && tide_model_predict_info(m, NULL, &pr) == 0) {
                worst_err = fmax(worst_err, fabs(pr.load - runs[r][t]));
                worst_unc = fmax(worst_unc, pr.unc);
            }
            tide_model_observe_phase(m, runs[r][t], 0, NULL, NULL, 0);
        }
        printf("MxM victim %d: worst error %.3f, worst uncertainty %.3f over phases 6-11\n", r,
               worst_err, worst_unc);
        CHECK(worst_err < 0.1 && worst_unc < 0.1, "run %d: error %g, uncertainty %g", r, worst_err,
              worst_unc);
        tide_model_destroy(m);
    }
}

static void wild_prediction_is_guarded(void)
{
    /* A model that serves (judged and best, on a ramp it predicts exactly) predicts 40x: the
     * guard replaces it. Under TIDE_PRED_SELECT=model the 40x of a fit scored once is served
     * unless the guard replaces it too. */
    for (int select = 0; select < 2; select++) {
        tide_model *m;
        if (select == 0) {
            first_served(TIDE_SELECT_AUTO, &m);
            factor = 40, shift = 0;
        } else {
            m = make_fx(40, 0, TIDE_SELECT_MODEL);
            rng r = {5};
            double y[2];
            ar4_series(&r, y, 2, 0.01);
            for (int t = 0; t < 2; t++)
                tide_model_observe_phase(m, y[t], 0, NULL, NULL, 0);
        }
        tide_prediction p;
        CHECK(tide_model_predict_info(m, NULL, &p) == 0, "predict");
        tide_model_stats s;
        tide_model_get_stats(m, &s);
        printf("a 40x model (%s): served %.3f from %s, %ld guarded\n",
               select ? "select=model" : "auto", p.load, tide_pred_source_name(p.source),
               s.guarded);
        CHECK(p.source == TIDE_SRC_GUARD && p.load < 30 && s.guarded == select, "not guarded");
        tide_model_destroy(m);
    }
}

/* Phases of 12 tasks with a size feature; task times follow size^3 when `predictive`, otherwise
 * each task takes an equal share of an AR(4) rank load and the feature is noise. */
static const char *auto_choice(int nfeat, int predictive, long *task_served)
{
    tide_model *m = make("auto");
    rng r = {91};
    double ar[80];
    ar4_series(&r, ar, 80, 0.01);
    const char *last = "";
    *task_served = 0;
    for (int ph = 0; ph < 80; ph++) {
        double feat[12], times[12], load = 0;
        for (int i = 0; i < 12; i++) {
            feat[i] = 10 + (int)(40 * rng_uniform(&r));
            times[i] = predictive ? 2e-4 * feat[i] * feat[i] * feat[i] : ar[ph] / 12;
            load += times[i];
        }
        tide_task_set ts = {12, nfeat, nfeat ? feat : NULL};
        tide_prediction p;
        if (tide_model_predict_info(m, &ts, &p) == 0) {
            last = p.source == TIDE_SRC_MODEL ? p.model : tide_pred_source_name(p.source);
            /* Counted once both models have been scored for a while. */
            *task_served += ph >= 30 && p.source == TIDE_SRC_MODEL && strcmp(p.model, "task") == 0;
        }
        tide_model_observe_phase(m, load, 12, nfeat ? feat : NULL, times, nfeat);
    }
    tide_model_destroy(m);
    return last;
}

static void auto_chooses(void)
{
    long task;
    const char *c = auto_choice(1, 1, &task);
    printf("auto, predictive features: %s (task model served %ld of the last 50 phases)\n", c,
           task);
    CHECK(strcmp(c, "task") == 0 && task >= 45, "features ignored");
    c = auto_choice(0, 0, &task);
    printf("auto, no features: %s (task model served %ld of the last 50 phases)\n", c, task);
    CHECK(task == 0 && strcmp(c, "task") != 0, "a task model without features");
    c = auto_choice(1, 0, &task);
    printf(
        "auto, features that predict nothing: %s (task model served %ld of the last 50 phases)\n",
        c, task);
    /* Selection follows the recent error: a lucky stretch may serve it briefly, no more. */
    CHECK(task <= 5 && strcmp(c, "task") != 0, "the worse task model served");
}

int main(void)
{
    spike_is_ignored();
    step_is_followed();
    loser_is_not_served();
    first_fit_waits();
    judged_before_served();
    wild_prediction_is_guarded();
    auto_chooses();
    return 0;
}
