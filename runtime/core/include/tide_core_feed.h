/* The prediction feed of the engine core: what a rank's load model (predictor/) is fed after a
 * phase and asked before one, independent of where the numbers come from. libtide
 * (runtime/engine/predict.c) and tide-sim (sim/src/predict.cpp) are its two drivers: they hand
 * over the phase's own tasks (their features as the application set them, and after the phase
 * their measured times), the rank's measured load and the core frequency, as plain arrays.
 *
 * The feed decides: which model is created (TIDE_PRED_MODEL, or a tool's), whether the tasks'
 * features are part of the question (the `task` and `auto` models, a tool's task features), how
 * many feature columns the model sees (fixed by the first phase, so that the model's shape
 * never changes), the per-task weights (the task model's times scaled to the served
 * prediction), the kind of source that served, and the per-phase features (the frequency
 * first, then a tool's). No I/O, no globals, no threads: the driver calls it from one thread. */
#ifndef TIDE_CORE_FEED_H
#define TIDE_CORE_FEED_H

#include "tide_predictor.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sources beyond the predictor's (tide_pred_source): the application's cost hints served the
 * phase (libtide), or the simulator's oracle gave the true load (tide-sim --pred exact). */
enum { TIDE_FEED_SRC_HINT = TIDE_SRC_COUNT, TIDE_FEED_SRC_EXACT };

/* The serving model when the source is TIDE_SRC_MODEL, as a number a collective of doubles
 * carries. */
enum tide_feed_model {
    TIDE_FEED_MODEL_NONE,
    TIDE_FEED_MODEL_RANK,
    TIDE_FEED_MODEL_TASK,
    TIDE_FEED_MODEL_TOOL,
    TIDE_FEED_MODEL_POOLED /* another rank's task model weighed the tasks (tide_feed_adopt) */
};

/* Who served a prediction, as the statistics name it (tide_feed_served_name). */
enum tide_feed_served {
    TIDE_SERVED_RANK,
    TIDE_SERVED_TASK,
    TIDE_SERVED_TOOL,
    TIDE_SERVED_PERSISTENCE,
    TIDE_SERVED_MEDIAN,
    TIDE_SERVED_GUARD,
    TIDE_SERVED_POOLED,
    TIDE_SERVED_HINT,
    TIDE_SERVED_EXACT,
    TIDE_SERVED_COUNT
};

/* The phase's own tasks as the driver knows them: n rows of `stride` values, the features the
 * application set (zeros beyond them), and after the phase their measured times. */
typedef struct tide_feed_tasks {
    long n;
    int stride;
    const double *feat;  /* n x stride; may be NULL when n or stride is 0 */
    const double *times; /* tide_feed_observe: n measured times (negative: not measured) */
} tide_feed_tasks;

typedef struct tide_feed {
    tide_model *model;
    const tide_tool *tool; /* NULL: none; else its model, task and phase features are used */
    bool collect;          /* the model sees the tasks' features */
    bool freq;             /* phase feature 0 is the core frequency (the driver reads it) */
    int nfeat;             /* application features per task the model sees (-1: not fixed yet) */
    /* The served prediction of the running phase: tide_feed_predict or tide_feed_serve. */
    double load, unc; /* -1: none */
    double suspect;   /* tide_prediction.suspect (0: none) */
    int source;       /* tide_pred_source or TIDE_FEED_SRC_* */
    int model_code;   /* tide_feed_model */
    bool per_task;    /* weights[] holds the phase's per-task weights */
    double *weights;  /* per task row: the task model's time, scaled so that they sum to load */
    long nweights;    /* rows of weights */
    size_t weights_cap;
    double *mat; /* the model's feature matrix, rebuilt for each question */
    size_t mat_cap;
    long rows; /* the predicted phase's tasks in mat (tide_feed_predict), rows x cols */
    int cols;
} tide_feed;

/* Creates the model: the tool's when tool->model is set, else p->kind. freq: the driver reads
 * a core frequency for every phase (decided once, so the phase features keep their count).
 * Returns 0, or -1 with one line in err. tool must outlive the feed. */
int tide_feed_init(tide_feed *f, const tide_model_params *p, const tide_tool *tool, bool freq,
                   char *err, size_t len);
void tide_feed_free(tide_feed *f);

/* Asks the model for the phase about to run, with the phase's tasks when the feed collects
 * them: sets load, unc, source, model_code, and per_task with the weights when the task model
 * can weigh the tasks (whichever source serves the total). Returns the predictor's code
 * (TIDE_PRED_OK, or TIDE_PRED_NOT_READY before training: then load is -1). */
int tide_feed_predict(tide_feed *f, const tide_feed_tasks *next);

/* A load known without the model (cost hints, an oracle): served with uncertainty 0 and no
 * per-task weights of the model's. */
void tide_feed_serve(tide_feed *f, double load, int source);

/* This rank's task-model coefficients (tide_model_task_coefficients): the count written (at
 * most max), 0 while the task model has no fit (or there is none). */
int tide_feed_task_coef(const tide_feed *f, double *out, int max);

/* Weighs the predicted phase's tasks with coefficients of another rank's task model (the same
 * features and degree everywhere: the proactive plan pools them, proact.c) and serves their sum
 * as this rank's load, with per-task weights. For a rank whose own task model has no fit yet
 * (its tasks' features never varied), when other ranks' fits exist; *load (may be NULL) gets the
 * new load. False, nothing changed, when the feed has no predicted tasks or the coefficients do not
 * fit them. */
bool tide_feed_adopt(tide_feed *f, const double *coef, int ncoef, double *load);

/* The weight of the task in row `row` of the phase's tasks, 0 without one. */
static inline double tide_feed_weight(const tide_feed *f, long row)
{
    return f->per_task && row >= 0 && row < f->nweights ? f->weights[row] : 0;
}

/* Tells the model what the finished phase measured: the rank's own load, its tasks (features
 * and times, used when the feed collects them), and the phase features: the core frequency in
 * MHz when f->freq, then the tool's phase features for `phase`, the finished phase's number
 * counting from 1 (the rank's tide_taskwait calls so far; libtide and tide-sim alike). */
int tide_feed_observe(tide_feed *f, double load, const tide_feed_tasks *done, long phase,
                      double mhz);

/* The statistics' kind of a served prediction (source and model code as the record carries
 * them), or -1 when there was none (load < 0). */
int tide_feed_served(double load, double source, double model_code);
/* "rank", "task", "tool", "persistence", "median", "guard", "pooled", "hint", "exact". */
const char *tide_feed_served_name(int kind);

#ifdef __cplusplus
}
#endif

#endif
