/* Tide predictor: online load models, pure C, no MPI and no global state.
 *
 * The runtime creates one model per rank and, after every phase, reports what it measured:
 *   tide_model_params p; tide_model_params_defaults(&p);
 *   tide_model_params_set(&p, "TIDE_PRED_WINDOW", "6", err, sizeof err);   // per knob
 *   tide_model *m = tide_model_create(&p, err, sizeof err);
 *   for each phase:
 *       double pred; int rc = tide_model_predict(m, &pred);   // TIDE_PRED_NOT_READY before
 * training
 *       ... run the phase, measure the rank's load L ...
 *       tide_model_observe_phase(m, L, ntasks, features, times, nfeat);  // may (re)train
 *   tide_model_destroy(m);
 *
 * A model never calls GSL's aborting error handler and never returns a non-finite or negative
 * prediction: when the data cannot support a fit (constant loads, too few samples, NaN/Inf, a
 * failed solver) it predicts the last finite load (persistence) and records why.
 *
 * Models are a struct of callbacks (tide_model_ops) found by name; the built-in "rank" and
 * "task" models are written against that interface, and a tool library (TIDE_TOOL) can supply
 * its own. Functions return TIDE_PRED_OK (0), a positive status, or a negative error code;
 * tide_pred_strerror() names each. */
#ifndef TIDE_PREDICTOR_H
#define TIDE_PREDICTOR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tide_pred_status {
    TIDE_PRED_OK = 0,
    TIDE_PRED_NOT_READY = 1,  /* no prediction yet: not trained, or no finite load seen */
    TIDE_PRED_DEGENERATE = 2, /* (model ops) data cannot support a fit; `why` says how */
    /* The negative values are tide.h's for the same errors (one scheme across libtide, the
     * predictor and the planners). */
    TIDE_PRED_ERR_INVALID = -1, /* bad argument (NULL, negative count, changed nfeat, ...) */
    TIDE_PRED_ERR_CONFIG = -3,  /* bad parameter value; the error text names it */
    TIDE_PRED_ERR_NOMEM = -4,   /* allocation failed */
    TIDE_PRED_ERR_TOOL = -8     /* a tool library could not be loaded or is malformed */
} tide_pred_status;

const char *tide_pred_strerror(int code);

/* ---- parameters (the TIDE_PRED_* knobs) -------------------------------------------------- */

typedef enum tide_solver {
    TIDE_SOLVER_OLS = 0, /* default: least squares by truncated SVD (see src/fit.c for why) */
    TIDE_SOLVER_RIDGE,   /* ridge, lambda chosen by generalized cross-validation */
    TIDE_SOLVER_ROBUST   /* bisquare-weighted robust regression: ignores outlier phases */
} tide_solver;

#define TIDE_PRED_NAME_MAX 32

/* TIDE_PRED_SELECT: which prediction is served (docs/predictor.md, "Robust by default"). */
typedef enum tide_pred_select {
    TIDE_SELECT_AUTO = 0, /* default: the model only while it beats persistence and median-of-3 */
    TIDE_SELECT_MODEL     /* always the model (the guard still applies unless TIDE_PRED_GUARD=0) */
} tide_pred_select;

typedef struct tide_model_params {
    char kind[TIDE_PRED_NAME_MAX]; /* TIDE_PRED_MODEL: "auto" (default), "rank" or "task" */
    int window;                    /* TIDE_PRED_WINDOW: lags k, and the rolling-error window; 4 */
    int train;                     /* TIDE_PRED_TRAIN: the most recent phases each fit uses; a
                                      model fits as soon as it has more samples than
                                      coefficients and refits after every phase until it has
                                      this many; 20 */
    double retrain_err;            /* TIDE_PRED_RETRAIN_ERR: retrain when the median absolute
                                      percentage error of the last max(window, 5) predictions
                                      exceeds it (a fraction: 0.10 = 10%); 0.10 */
    tide_solver solver;            /* TIDE_PRED_SOLVER: ols (default), ridge, robust */
    int task_degree;               /* TIDE_PRED_TASK_DEGREE: polynomial degree of each task
                                      feature in the task model (3 fits n^3 kernels); 3 */
    tide_pred_select select;       /* TIDE_PRED_SELECT: auto (default) or model */
    double guard;                  /* TIDE_PRED_GUARD: a model prediction outside [min/g, max*g]
                                      of the recent loads is replaced; 2; 0 = off */
    double spike;                  /* TIDE_PRED_SPIKE: a load this factor away from the recent
                                      level is a suspect spike, kept out of the fit; 2; 0 = off */
} tide_model_params;

void tide_model_params_defaults(tide_model_params *p);

/* Sets one knob by its environment name ("TIDE_PRED_WINDOW", "8"). On a bad name or value
 * returns TIDE_PRED_ERR_CONFIG and writes one line naming the variable, the value and what is
 * allowed into err. TIDE_TOOL is not a model parameter (see tide_tool_load). */
int tide_model_params_set(tide_model_params *p, const char *name, const char *value, char *err,
                          size_t errlen);

/* Checks combinations of knobs (e.g. the rank model needs TIDE_PRED_TRAIN >= 2*WINDOW+2 to have
 * more samples than coefficients); same error convention. tide_model_create calls it. */
int tide_model_params_validate(const tide_model_params *p, char *err, size_t errlen);

const char *tide_solver_name(tide_solver s);

/* ---- what a model sees ------------------------------------------------------------------- */

/* The tasks of one phase: ntasks rows of nfeat numeric features, row-major. */
typedef struct tide_task_set {
    int ntasks;
    int nfeat;
    const double *features; /* may be NULL when ntasks == 0 or nfeat == 0 */
} tide_task_set;

/* Everything measured about one finished phase. */
typedef struct tide_phase_obs {
    double load;              /* L_i: total execution time of the rank's own tasks */
    tide_task_set tasks;      /* the phase's tasks and their features (may be empty) */
    const double *task_times; /* ntasks measured execution times, or NULL */
    int nphase_feat;          /* per-phase features (tool hook, core frequency), may be 0 */
    const double *phase_features;
} tide_phase_obs;

/* ---- the model interface (built-ins and tools alike) ------------------------------------- */

/* A model keeps its own state; the wrapper (tide_model) owns the load history, the error
 * tracking, the retrain policy and the persistence fallback, so a model only fits and predicts.
 * `loads` arrays hold the most recent phases' loads, oldest first (they may contain NaN/Inf when
 * a measurement was bad). */
typedef struct tide_model_ops {
    const char *name;
    /* Allocates state for these parameters. Returns TIDE_PRED_OK or an error. */
    int (*create)(const tide_model_params *p, void **state);
    /* Records a finished phase (e.g. its task samples). May be NULL. */
    int (*observe)(void *state, const tide_phase_obs *obs);
    /* Fits on the recent history (called after every phase from the first on, until a fit
     * succeeds and the history holds `train` phases). Returns TIDE_PRED_OK; TIDE_PRED_NOT_READY
     * while it has too few samples for its coefficients (the wrapper asks again after the next
     * phase); or TIDE_PRED_DEGENERATE with a reason in why (the wrapper then predicts by
     * persistence until the next successful fit). */
    int (*train)(void *state, const double *loads, int nloads, char *why, size_t whylen);
    /* Predicts the next phase's load from the recent loads and, when known, the next phase's
     * tasks (NULL: assume the last observed phase's tasks). TIDE_PRED_DEGENERATE + why when this
     * prediction cannot be made; the wrapper also rejects non-finite or negative values. */
    int (*predict)(void *state, const double *loads, int nloads, const tide_task_set *next,
                   double *out, char *why, size_t whylen);
    /* Optional: per-task execution times for a task set (task-level models). */
    int (*predict_tasks)(void *state, const tide_task_set *tasks, double *times);
    /* Optional: fitted coefficients in the data's units (intercept first); returns the count
     * written (at most max), or a negative error. */
    int (*coefficients)(const void *state, double *out, int max);
    void (*destroy)(void *state);
} tide_model_ops;

/* Built-in models by name ("rank", "task"); NULL when unknown ("auto" is not one model). */
const tide_model_ops *tide_model_ops_find(const char *name);
/* Comma-separated names TIDE_PRED_MODEL accepts ("auto" and the built-ins), for messages. */
const char *tide_model_ops_names(void);

/* ---- a model ----------------------------------------------------------------------------- */

typedef struct tide_model tide_model;

/* Where a served prediction came from (TIDE_PRED_SELECT=auto chooses per phase). */
typedef enum tide_pred_source {
    TIDE_SRC_NONE = 0,    /* no prediction (before training) */
    TIDE_SRC_MODEL,       /* a fitted model: tide_prediction.model names which */
    TIDE_SRC_PERSISTENCE, /* the last measured load */
    TIDE_SRC_MEDIAN,      /* the median of the last three measured loads */
    TIDE_SRC_GUARD,       /* the model's prediction left the envelope and was replaced */
    TIDE_SRC_COUNT
} tide_pred_source;

/* "none", "model", "persistence", "median", "guard". */
const char *tide_pred_source_name(int source);

/* A served prediction with its uncertainty: the median absolute error of the same source over
 * the last max(window, 5) phases, in load units (0 while none is scored). */
typedef struct tide_prediction {
    double load;
    double unc;
    int source;        /* tide_pred_source */
    const char *model; /* the serving model's name when source == TIDE_SRC_MODEL, else "" */
    int per_task;      /* 1: the serving model predicts per-task times (tide_model_predict_tasks) */
    /* While the last load is suspect (a spike or the first of a step: the next load decides),
     * how far it is from load (0 otherwise, and for a per-task model, which weighs the phase's
     * tasks): the planner widens its margin by it (docs/predictor.md, "Uncertainty"). */
    double suspect;
} tide_prediction;

/* Creates p->kind: a built-in model, or "auto" (the task model and the rank model side by side;
 * whichever predicts better is served). NULL on error, with one line in err. */
tide_model *tide_model_create(const tide_model_params *p, char *err, size_t errlen);
/* Same with explicit ops (e.g. a tool's model; ops must outlive the model). */
tide_model *tide_model_create_ops(const tide_model_ops *ops, const tide_model_params *p, char *err,
                                  size_t errlen);
void tide_model_destroy(tide_model *m);

/* Reports a finished phase. Task arrays are optional (NULL / 0 for the rank model); features are
 * ntasks x nfeat row-major. Scores the prediction made for this phase (and every candidate's),
 * filters spikes out of what the models learn from, then fits each model that has more samples
 * than coefficients (after every phase until `train` phases were seen), or retrains a model
 * whose recent median error exceeds retrain_err. */
int tide_model_observe_phase(tide_model *m, double load, int ntasks, const double *task_features,
                             const double *task_times, int nfeat);
/* Same with the full observation (per-phase features included). */
int tide_model_observe(tide_model *m, const tide_phase_obs *obs);

/* Prediction of the NEXT phase's load. TIDE_PRED_OK, or TIDE_PRED_NOT_READY before training. */
int tide_model_predict(tide_model *m, double *out);
/* Same, when the next phase's tasks are already known (the task model sums their times). */
int tide_model_predict_phase(tide_model *m, const tide_task_set *next, double *out);
/* The served prediction with its source and uncertainty; next may be NULL. */
int tide_model_predict_info(tide_model *m, const tide_task_set *next, tide_prediction *out);
/* Per-task times for a task set (task model): times[ntasks] and, if sum != NULL, their sum.
 * TIDE_PRED_NOT_READY before training or while falling back (no per-task model then). */
int tide_model_predict_tasks(tide_model *m, const tide_task_set *tasks, double *times, double *sum);
/* Recursive multi-step prediction of the primary model (the first fitted one): out[0] is the
 * next phase, out[s] feeds on out[0..s-1] as if they had been measured. */
int tide_model_predict_ahead(tide_model *m, int steps, double *out);

/* Fits now on the recent history (the runtime may call it off the critical path). */
int tide_model_train(tide_model *m);

typedef struct tide_model_stats {
    long phases;         /* phases observed */
    long predicted;      /* phases that had a served prediction (i.e. after training) */
    double sum_sq_err;   /* sum of (pred - load)^2 over predicted phases */
    long n_ape;          /* predicted phases with a nonzero finite load (MAPE's denominator) */
    double sum_ape;      /* sum of |pred - load| / |load| over those */
    int rolling_n;       /* errors in the rolling window (0: rolling_mape undefined) */
    double rolling_mape; /* MAPE of the served predictions over the last max(window, 5) phases */
    int retrains;        /* retrains caused by the rolling error (first fits not counted) */
    long fallbacks;      /* served predictions that did not come from a model */
    long by_source[TIDE_SRC_COUNT]; /* served predictions per tide_pred_source */
    long guarded;                   /* model predictions the guard replaced */
    long spikes;                    /* loads the filter judged to be one-phase spikes */
    long steps;                     /* suspect loads that turned out to be level steps */
} tide_model_stats;

void tide_model_get_stats(const tide_model *m, tide_model_stats *out);
int tide_model_is_trained(const tide_model *m);
/* 1 when the most recent prediction or fit of the primary model fell back to persistence
 * because the data could not support it (selection choosing a baseline is not a fallback). */
int tide_model_fell_back(const tide_model *m);
/* Why the most recent fallback happened ("" when never); the runtime prints it once. */
const char *tide_model_fallback_reason(const tide_model *m);
int tide_model_retrains(const tide_model *m);
/* Fitted coefficients, intercept first (rank model: intercept, lag 1 .. lag k). Returns the
 * count, 0 when not fitted, or a negative error. */
int tide_model_coefficients(const tide_model *m, double *out, int max);
/* The task model's coefficients (TIDE_PRED_MODEL=task or auto), intercept first, then each
 * feature's powers 1..TIDE_PRED_TASK_DEGREE, NaN for a column that never varied in the fit (it
 * knows nothing of it): the count (at most max), 0 while it has no fit, or a negative error.
 * Another rank's model can then weigh this rank's tasks with them. The task model refuses to
 * predict a task whose never-varied column takes another value (TIDE_PRED_DEGENERATE). */
int tide_model_task_coefficients(const tide_model *m, double *out, int max);
/* Per-task times of a task set under coefficients of that form (e.g. pooled from other ranks'
 * task models; a NaN one counts where its column is 0), and their sum if sum != NULL.
 * TIDE_PRED_ERR_INVALID when this model has no task model, ncoef does not match the set's
 * features, or a task needs a NaN coefficient. */
int tide_model_predict_tasks_coef(const tide_model *m, const double *coef, int ncoef,
                                  const tide_task_set *tasks, double *times, double *sum);
const char *tide_model_name(const tide_model *m);

/* ---- the tool API ------------------------------------------------------------------------ */

#define TIDE_TOOL_API_VERSION 1
/* The symbol a tool library exports: int tide_tool_register(tide_tool *tool). */
#define TIDE_TOOL_REGISTER_SYMBOL "tide_tool_register"

typedef struct tide_tool {
    int api_version; /* set by the loader to TIDE_TOOL_API_VERSION before registering */
    const char *name;
    void *user; /* passed back to the hooks */
    /* Extra features of one task, computed from the application's: writes at most max_extra
     * values and returns how many, or a negative value on error. May be NULL. */
    int (*task_features)(void *user, const double *app_features, int napp, double *extra,
                         int max_extra);
    /* Extra features of a phase (e.g. a problem-size parameter), asked once phase number
     * `phase` (counting from 1) has ended, with its measured load. Same contract. */
    int (*phase_features)(void *user, long phase, double *out, int max_out);
    /* Replaces the built-in model when non-NULL. */
    const tide_model_ops *model;
    void *dl_handle; /* set by tide_tool_load; closed by tide_tool_unload */
} tide_tool;

typedef int (*tide_tool_register_fn)(tide_tool *tool);

/* dlopens path (the value of TIDE_TOOL), calls its tide_tool_register and checks the result
 * (API version, complete model ops). On failure returns TIDE_PRED_ERR_TOOL with one line in err
 * naming TIDE_TOOL and the path. */
int tide_tool_load(const char *path, tide_tool *out, char *err, size_t errlen);
void tide_tool_unload(tide_tool *tool);

#ifdef __cplusplus
}
#endif

#endif
