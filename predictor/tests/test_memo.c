/* observe scores the prediction made for the phase (model.c keeps it: the memo) instead of
 * making it again. It must be what a fresh prediction from the same state gives, for exactly the
 * tasks asked about: (1) a model asked before every phase and a model never asked end with the
 * same statistics (every served prediction scored alike); (2) asking about other tasks never
 * answers from the memo of the first question (and a set with features but no matrix is refused);
 * (3) a training between two questions is seen. The default `auto` model on noisy loads whose
 * tasks carry a feature, so that both models, both baselines and the guard take part. */
#include "testutil.h"
#include "tide_predictor.h"

#include <string.h>

enum { TASKS = 6, PHASES = 60 };

static tide_model *model(void)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    char err[256];
    tide_model *m = tide_model_create(&p, err, sizeof err);
    CHECK(m, "%s", err);
    return m;
}

static void tasks_of(int ph, double *feat, double *times, double *load, rng *r)
{
    *load = 0;
    for (int i = 0; i < TASKS; i++) {
        feat[i] = 1 + (ph + i) % 4;
        *load += times[i] = 1e-3 * feat[i] * (1 + 0.2 * (rng_uniform(r) - 0.5));
    }
}

static void same_prediction(tide_model *a, tide_model *b, const tide_task_set *set,
                            const char *what)
{
    tide_prediction pa, pb;
    int ra = tide_model_predict_info(a, set, &pa), rb = tide_model_predict_info(b, set, &pb);
    CHECK(ra == rb, "%s: %d against %d", what, ra, rb);
    if (ra == TIDE_PRED_OK)
        CHECK(pa.load == pb.load && pa.unc == pb.unc && pa.source == pb.source,
              "%s: %.17g (%d) "
              "against a fresh model's %.17g (%d)",
              what, pa.load, pa.source, pb.load, pb.source);
}

int main(void)
{
    tide_model *asked = model(), *silent = model(), *twin = model();
    rng r1 = {11}, r2 = {11}, r3 = {11};
    double feat[TASKS], times[TASKS], load, other[TASKS];
    int served = 0;
    for (int ph = 0; ph < PHASES; ph++) {
        tasks_of(ph, feat, times, &load, &r1);
        tasks_of(ph, feat, times, &load, &r2);
        tasks_of(ph, feat, times, &load, &r3);
        tide_task_set set = {TASKS, 1, feat};
        for (int i = 0; i < TASKS; i++)
            other[i] = feat[i] + 2;
        tide_task_set moved = {TASKS, 1, other}, bare = {TASKS, 1, NULL};
        /* (2) a first question about other tasks, then the phase's own: the answer must be a
         * fresh model's for the phase's tasks; the twin is asked about the phase's tasks only */
        tide_prediction p;
        served += tide_model_predict_info(asked, &moved, &p) == TIDE_PRED_OK;
        same_prediction(asked, twin, &set, "the phase's tasks after other tasks");
        CHECK(tide_model_predict_info(asked, &bare, &p) == TIDE_PRED_ERR_INVALID,
              "tasks with features but no matrix: accepted");
        same_prediction(asked, twin, &set, "the phase's tasks again");
        CHECK(tide_model_observe_phase(asked, load, TASKS, feat, times, 1) == 0, "observe");
        CHECK(tide_model_observe_phase(twin, load, TASKS, feat, times, 1) == 0, "observe");
        CHECK(tide_model_observe_phase(silent, load, TASKS, feat, times, 1) == 0, "observe");
        if (ph == PHASES / 2) { /* (3): asked keeps a memo from before the training */
            tide_prediction before, after;
            CHECK(tide_model_predict_info(asked, &set, &before) == TIDE_PRED_OK, "predict");
            CHECK(tide_model_train(asked) == 0 && tide_model_train(twin) == 0 &&
                      tide_model_train(silent) == 0,
                  "train");
            CHECK(tide_model_predict_info(silent, &set, &after) == TIDE_PRED_OK, "predict");
            CHECK(after.load != before.load, "the training changed nothing: (3) tests nothing");
            same_prediction(asked, silent, &set, "after a training");
        }
    }
    CHECK(served > PHASES / 2, "the models served only %d of %d phases", served, PHASES);
    /* (1): the silent model was never asked; its statistics score what observe predicted */
    tide_model_stats a, s;
    tide_model_get_stats(asked, &a);
    tide_model_get_stats(silent, &s);
    CHECK(a.predicted == s.predicted && a.sum_sq_err == s.sum_sq_err && a.fallbacks == s.fallbacks,
          "asked: %ld predictions, squared error %.17g; never asked: %ld, %.17g", (long)a.predicted,
          a.sum_sq_err, (long)s.predicted, s.sum_sq_err);
    printf("test_memo: %d phases, %ld predictions scored alike with and without questions\n",
           PHASES, (long)a.predicted);
    tide_model_destroy(asked), tide_model_destroy(silent), tide_model_destroy(twin);
    return 0;
}
