/* The TIDE_PRED_* knobs: rows of a knob table (tide_knob.h) over tide_model_params, read by the
 * parser libtide uses for every knob, and the one check across knobs (enough training phases for
 * the window). tide-predict takes its options from the same rows. */
#include "tide_predictor.h"
#include "tide_predictor_knobs.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const solver_names[] = {"ols", "ridge", "robust", NULL};

const char *tide_solver_name(tide_solver s)
{
    return (unsigned)s < 3 ? solver_names[s] : "?";
}

const char *tide_pred_strerror(int code)
{
    switch (code) {
    case TIDE_PRED_OK:
        return "success";
    case TIDE_PRED_NOT_READY:
        return "no prediction yet (model not trained)";
    case TIDE_PRED_DEGENERATE:
        return "data cannot support a fit";
    case TIDE_PRED_ERR_INVALID:
        return "invalid argument";
    case TIDE_PRED_ERR_CONFIG:
        return "invalid predictor parameter";
    case TIDE_PRED_ERR_NOMEM:
        return "out of memory";
    case TIDE_PRED_ERR_TOOL:
        return "tool library could not be loaded";
    default:
        return "unknown predictor status";
    }
}

_Static_assert(TIDE_KNOB_ERR_CONFIG == TIDE_PRED_ERR_CONFIG, "one error code for a bad knob");

static const char *const select_names[] = {"auto", "model", NULL};

static bool known_model(const char *v)
{
    return strcmp(v, "auto") == 0 || tide_model_ops_find(v);
}

static const char retrain_allowed[] =
    "a fraction in (0, 100] (0.10 = 10% median absolute percentage error)";
static const char factor_allowed[] = "0 (off) or a factor in (1, 1000]";

/* In the order tide_model_params_validate reports them; TIDE_PRED_TRAIN is checked last, against
 * the window. */
enum {
    K_MODEL,
    K_WINDOW,
    K_TRAIN,
    K_TASK_DEGREE,
    K_RETRAIN_ERR,
    K_GUARD,
    K_SPIKE,
    K_SELECT,
    K_SOLVER,
    K_COUNT
};

static const tide_knob rows[K_COUNT] = {
    [K_MODEL] = {.name = "TIDE_PRED_MODEL",
                 .kind = TIDE_KNOB_NAME,
                 .def = "auto",
                 .known = known_model,
                 .names = tide_model_ops_names,
                 .option = "--model",
                 .help = "load model (docs/predictor.md): `auto` runs the task model (when tasks "
                         "carry features) and the rank model side by side and serves whichever "
                         "predicts better",
                 TIDE_KNOB_FIELD(tide_model_params, kind)},
    [K_WINDOW] = {.name = "TIDE_PRED_WINDOW",
                  .kind = TIDE_KNOB_INT,
                  .def = "4",
                  .min = 1,
                  .max = 64,
                  .option = "--window",
                  .help = "past loads the rank model uses; errors are tracked over max(window, 5) "
                          "phases",
                  TIDE_KNOB_FIELD(tide_model_params, window)},
    [K_TRAIN] = {.name = "TIDE_PRED_TRAIN",
                 .kind = TIDE_KNOB_INT,
                 .def = "20",
                 .min = 2,
                 .max = 1000000,
                 .option = "--train",
                 .help = "the most recent phases each fit uses: a model fits as soon as it has "
                         "more samples than coefficients (the `rank` model after 2 x window + 2 "
                         "phases, the `task` model after one phase with enough tasks) and refits "
                         "after every phase until it has this many; `rank` and `auto` need at "
                         "least 2 x window + 2",
                 TIDE_KNOB_FIELD(tide_model_params, train)},
    [K_TASK_DEGREE] = {.name = "TIDE_PRED_TASK_DEGREE",
                       .kind = TIDE_KNOB_INT,
                       .def = "3",
                       .min = 1,
                       .max = 4,
                       .option = "--degree",
                       .help = "polynomial degree per feature in the task model",
                       TIDE_KNOB_FIELD(tide_model_params, task_degree)},
    [K_RETRAIN_ERR] = {.name = "TIDE_PRED_RETRAIN_ERR",
                       .kind = TIDE_KNOB_DOUBLE,
                       .def = "0.10",
                       .min = 0,
                       .max = 100,
                       .flags = TIDE_KNOB_MIN_OPEN,
                       .allowed = retrain_allowed,
                       .option = "--retrain-err",
                       .help = "retrain when the median absolute percentage error of the last "
                               "max(window, 5) predictions exceeds it (a confirmed level step "
                               "retrains at once)",
                       TIDE_KNOB_FIELD(tide_model_params, retrain_err)},
    [K_GUARD] = {.name = "TIDE_PRED_GUARD",
                 .kind = TIDE_KNOB_DOUBLE,
                 .def = "2",
                 .min = 1,
                 .max = 1000,
                 .flags = TIDE_KNOB_MIN_OPEN | TIDE_KNOB_OR_ZERO,
                 .allowed = factor_allowed,
                 .option = "--guard",
                 .help = "a model prediction outside [min / g, max x g] of the recent loads (per "
                         "task for the task model) is replaced and counted",
                 TIDE_KNOB_FIELD(tide_model_params, guard)},
    [K_SPIKE] = {.name = "TIDE_PRED_SPIKE",
                 .kind = TIDE_KNOB_DOUBLE,
                 .def = "2",
                 .min = 1,
                 .max = 1000,
                 .flags = TIDE_KNOB_MIN_OPEN | TIDE_KNOB_OR_ZERO,
                 .allowed = factor_allowed,
                 .option = "--spike",
                 .help = "a load this factor (and 3 robust sigmas) away from the recent level is "
                         "a suspect spike, kept out of what the models learn unless the next load "
                         "confirms a level step",
                 TIDE_KNOB_FIELD(tide_model_params, spike)},
    [K_SELECT] = {.name = "TIDE_PRED_SELECT",
                  .kind = TIDE_KNOB_CHOICE,
                  .def = "auto",
                  .choices = select_names,
                  .option = "--select",
                  .help = "`auto`: per rank and phase, serve the model only while its rolling "
                          "error beats persistence and median-of-3; `model`: always the model",
                  TIDE_KNOB_FIELD(tide_model_params, select)},
    [K_SOLVER] = {.name = "TIDE_PRED_SOLVER",
                  .kind = TIDE_KNOB_CHOICE,
                  .def = "ols",
                  .choices = solver_names,
                  .option = "--solver",
                  .help = "least-squares solver",
                  TIDE_KNOB_FIELD(tide_model_params, solver)},
};

static const tide_knob_table table = {.title = "Predictor (`TIDE_PRED_*`)",
                                      .owner = "predictor",
                                      .rows = rows,
                                      .n = K_COUNT,
                                      .prefix = "TIDE_PRED_",
                                      .what = "a predictor parameter"};

const tide_knob_table *tide_model_params_knobs(void)
{
    return &table;
}

void tide_model_params_defaults(tide_model_params *p)
{
    memset(p, 0, sizeof *p);
    tide_knob_defaults(&table, p, NULL, 0);
}

int tide_model_params_set(tide_model_params *p, const char *name, const char *v, char *err,
                          size_t len)
{
    if (!p || !name || !v) {
        if (err && len) snprintf(err, len, "predictor parameter name and value must not be NULL");
        return TIDE_PRED_ERR_INVALID;
    }
    tide_knob_place place = {&table, p};
    return tide_knob_set(&place, 1, name, v, table.what, err, len);
}

/* The rank model has window+1 coefficients and train-window samples; with fewer samples than
 * coefficients + 1 every fit is exact or underdetermined and predicts noise. */
static int check_train(const tide_model_params *p, char *err, size_t len)
{
    long need = strcmp(p->kind, "task") == 0 ? 2 : 2L * p->window + 2; /* rank, auto */
    if (p->train >= need && p->train <= 1000000) return TIDE_PRED_OK;
    char v[32], allowed[192];
    snprintf(v, sizeof v, "%d", p->train);
    snprintf(allowed, sizeof allowed,
             "an integer in [%ld, 1000000] (the %s model needs more samples than "
             "coefficients with TIDE_PRED_WINDOW=%d)",
             need, p->kind, p->window);
    return tide_knob_bad(rows[K_TRAIN].name, v, allowed, err, len);
}

int tide_model_params_validate(const tide_model_params *p, char *err, size_t len)
{
    if (!p) return TIDE_PRED_ERR_INVALID;
    for (int k = 0; k < K_COUNT; k++)
        if (k != K_TRAIN && tide_knob_check(&rows[k], p, err, len) != TIDE_KNOB_OK)
            return TIDE_PRED_ERR_CONFIG;
    return check_train(p, err, len);
}
