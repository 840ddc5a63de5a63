/* The "task" model: each task's execution time from its features and their powers
 * (t ~ c0 + sum_j sum_d c_jd f_j^d, d = 1..TIDE_PRED_TASK_DEGREE), so an MxM task whose time
 * grows with n^3 is fitted without the user declaring it; a tool's task_features hook can add
 * other transforms as extra features. A phase's load is the sum over its tasks. Useful when a
 * rank's tasks differ from phase to phase, where the rank model only sees their sum. */
#include "fit.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Task samples kept for training: the most recent ones, at most this many. */
#define TASK_ROWS_MAX 8192

typedef struct task_model {
    tide_solver solver;
    int degree;
    int nfeat; /* -1 until the first phase with tasks */
    int p;     /* nfeat * degree */
    long nphase;
    /* Ring of task samples. */
    double *feat, *time;
    long *phase;
    int head, count;
    /* The last phase's tasks: the default "next phase" for prediction. */
    double *last;
    int last_ntasks, last_cap, last_known;
    int fitted;
    double *coef, *x;
    /* Per expanded column of the last fit: whether it varied over the training rows, and its
     * value when it did not (the fit folded it into the intercept and learned nothing about it). */
    char *varied;
    double *constant;
    double tmin, tmax; /* the shortest and longest finite task time of the last fit's rows */
} task_model;

static int task_create(const tide_model_params *p, void **state)
{
    task_model *t = calloc(1, sizeof *t);
    if (!t) return TIDE_PRED_ERR_NOMEM;
    t->solver = p->solver;
    t->degree = p->task_degree;
    t->nfeat = -1;
    *state = t;
    return TIDE_PRED_OK;
}

static int set_nfeat(task_model *t, int nfeat)
{
    if (t->nfeat == nfeat) return TIDE_PRED_OK;
    if (t->nfeat >= 0) return TIDE_PRED_ERR_INVALID; /* features must keep their meaning */
    t->nfeat = nfeat;
    t->p = nfeat * t->degree;
    t->feat = malloc(sizeof(double) * TASK_ROWS_MAX * ((size_t)nfeat + 1));
    t->time = malloc(sizeof(double) * TASK_ROWS_MAX);
    t->phase = malloc(sizeof(long) * TASK_ROWS_MAX);
    t->coef = calloc((size_t)t->p + 1, sizeof(double));
    t->x = calloc((size_t)t->p + 1, sizeof(double));
    t->varied = calloc((size_t)t->p + 1, 1);
    t->constant = calloc((size_t)t->p + 1, sizeof(double));
    if (t->feat && t->time && t->phase && t->coef && t->x && t->varied && t->constant)
        return TIDE_PRED_OK;
    free(t->feat), free(t->time), free(t->phase), free(t->coef), free(t->x), free(t->varied);
    free(t->constant);
    t->feat = t->time = t->coef = t->x = t->constant = NULL;
    t->varied = NULL;
    t->phase = NULL;
    t->nfeat = -1;
    return TIDE_PRED_ERR_NOMEM;
}

static int remember_tasks(task_model *t, const tide_task_set *ts)
{
    size_t need = (size_t)ts->ntasks * (size_t)t->nfeat;
    if (need > (size_t)t->last_cap) {
        double *b = realloc(t->last, sizeof(double) * need);
        if (!b) return TIDE_PRED_ERR_NOMEM;
        t->last = b;
        t->last_cap = (int)need;
    }
    if (need) memcpy(t->last, ts->features, sizeof(double) * need);
    t->last_ntasks = ts->ntasks;
    t->last_known = 1;
    return TIDE_PRED_OK;
}

static int task_observe(void *state, const tide_phase_obs *obs)
{
    task_model *t = state;
    const tide_task_set *ts = &obs->tasks;
    long ph = t->nphase++;
    if (ts->ntasks <= 0 || (ts->nfeat > 0 && !ts->features)) return TIDE_PRED_OK;
    int rc = set_nfeat(t, ts->nfeat);
    if (rc == TIDE_PRED_OK) rc = remember_tasks(t, ts);
    if (rc != TIDE_PRED_OK || !obs->task_times) return rc;
    for (int i = 0; i < ts->ntasks; i++) {
        int slot = (t->head + t->count) % TASK_ROWS_MAX;
        if (t->count == TASK_ROWS_MAX)
            t->head = (t->head + 1) % TASK_ROWS_MAX;
        else
            t->count++;
        if (t->nfeat) /* tasks without features (features may be NULL) still give a time */
            memcpy(t->feat + (size_t)slot * t->nfeat, ts->features + (size_t)i * t->nfeat,
                   sizeof(double) * (size_t)t->nfeat);
        t->time[slot] = obs->task_times[i];
        t->phase[slot] = ph;
    }
    return TIDE_PRED_OK;
}

static void expand_n(int nfeat, int degree, const double *f, double *x)
{
    for (int j = 0; j < nfeat; j++) {
        double v = f[j];
        for (int d = 0; d < degree; d++, v *= f[j])
            x[j * degree + d] = v;
    }
}

static void expand(const task_model *t, const double *f, double *x)
{
    expand_n(t->nfeat, t->degree, f, x);
}

int tide_task_model_eval(int degree, const double *coef, int ncoef, const tide_task_set *ts,
                         double *times)
{
    if (!coef || degree < 1 || ts->ntasks < 0 || ts->nfeat < 0 || ncoef != ts->nfeat * degree + 1 ||
        (ts->ntasks && ts->nfeat && !ts->features) || (ts->ntasks && !times))
        return TIDE_PRED_ERR_INVALID;
    double *x = malloc(sizeof(double) * (size_t)ncoef);
    if (!x) return TIDE_PRED_ERR_NOMEM;
    int rc = TIDE_PRED_OK;
    for (int i = 0; i < ts->ntasks && rc == TIDE_PRED_OK; i++) {
        expand_n(ts->nfeat, degree, ts->features + (size_t)i * ts->nfeat, x);
        double v = coef[0];
        for (int j = 0; j < ncoef - 1; j++) /* an unknown (NaN) coefficient of a zero column */
            v += x[j] != 0 ? coef[1 + j] * x[j] : 0;
        if (!isfinite(v)) rc = TIDE_PRED_ERR_INVALID;
        times[i] = v > 0 ? v : 0.0; /* as task_predict_tasks: a time cannot be negative */
    }
    free(x);
    return rc;
}

/* Fits on the task samples of the last nloads phases (the wrapper's training window). */
static int task_train(void *state, const double *loads, int nloads, char *why, size_t len)
{
    (void)loads;
    task_model *t = state;
    t->fitted = 0;
    int ns = 0;
    for (int i = 0; i < t->count; i++)
        ns += t->phase[(t->head + i) % TASK_ROWS_MAX] >= t->nphase - nloads;
    if (ns < t->p + 2) { /* p + 1 coefficients need more samples than that */
        snprintf(why, len, "%d task samples in the last %d phases, too few for %d coefficients", ns,
                 nloads, t->p + 1);
        return TIDE_PRED_NOT_READY;
    }
    double *X = malloc(sizeof(double) * (size_t)ns * ((size_t)t->p + 1));
    double *y = malloc(sizeof(double) * (size_t)ns);
    if (!X || !y) {
        free(X), free(y);
        return TIDE_PRED_ERR_NOMEM;
    }
    int r = 0;
    t->tmin = INFINITY, t->tmax = -INFINITY;
    for (int i = 0; i < t->count; i++) {
        int slot = (t->head + i) % TASK_ROWS_MAX;
        if (t->phase[slot] < t->nphase - nloads) continue;
        expand(t, t->feat + (size_t)slot * t->nfeat, X + (size_t)r * t->p);
        y[r++] = t->time[slot];
        if (isfinite(t->time[slot])) {
            t->tmin = fmin(t->tmin, t->time[slot]);
            t->tmax = fmax(t->tmax, t->time[slot]);
        }
    }
    for (int j = 0; j < t->p; j++) {
        t->varied[j] = 0;
        t->constant[j] = X[j];
        for (int i = 1; i < ns && !t->varied[j]; i++)
            t->varied[j] = X[(size_t)i * t->p + j] != X[j];
    }
    int rc = tide_fit_linear(t->solver, X, y, ns, t->p, t->coef, why, len);
    free(X), free(y);
    t->fitted = rc == TIDE_PRED_OK;
    return rc;
}

/* Index of the first expanded column in which task row x leaves the training data's span (a
 * column that never varied there now has another value: the fit knows nothing about it), or -1. */
static int unseen_column(const task_model *t, const double *x)
{
    for (int j = 0; j < t->p; j++)
        if (!t->varied[j] && fabs(x[j] - t->constant[j]) > 1e-9 * fmax(1.0, fabs(t->constant[j])))
            return j;
    return -1;
}

static int task_predict_tasks(void *state, const tide_task_set *ts, double *times)
{
    task_model *t = state;
    if (!t->fitted) return TIDE_PRED_NOT_READY;
    if (ts->ntasks < 0 || ts->nfeat != t->nfeat || (ts->ntasks && t->nfeat && !ts->features))
        return TIDE_PRED_ERR_INVALID;
    for (int i = 0; i < ts->ntasks; i++) {
        expand(t, ts->features + (size_t)i * t->nfeat, t->x);
        if (unseen_column(t, t->x) >= 0) return TIDE_PRED_DEGENERATE;
        double v = tide_fit_eval(t->coef, t->x, t->p);
        if (!isfinite(v)) return TIDE_PRED_ERR_INVALID; /* non-finite features */
        /* An extrapolated polynomial can dip below zero for tiny tasks; a time cannot. */
        times[i] = v > 0 ? v : 0.0;
    }
    return TIDE_PRED_OK;
}

static int task_predict(void *state, const double *loads, int n, const tide_task_set *next,
                        double *out, char *why, size_t len)
{
    (void)loads, (void)n;
    task_model *t = state;
    tide_task_set last = {t->last_ntasks, t->nfeat, t->last};
    if (!next) {
        if (!t->last_known) {
            snprintf(why, len, "no tasks known for the next phase");
            return TIDE_PRED_DEGENERATE;
        }
        next = &last;
    }
    if (!t->fitted) {
        snprintf(why, len, "task model not fitted");
        return TIDE_PRED_DEGENERATE;
    }
    if (next->nfeat != t->nfeat) {
        snprintf(why, len, "tasks carry %d features, the model was fitted on %d", next->nfeat,
                 t->nfeat);
        return TIDE_PRED_DEGENERATE;
    }
    double sum = 0;
    for (int i = 0; i < next->ntasks; i++) {
        expand(t, next->features + (size_t)i * t->nfeat, t->x);
        int j = unseen_column(t, t->x);
        if (j >= 0) {
            snprintf(why, len,
                     "task %d's feature %d (power %d) is %g, the model was fitted only on %g", i,
                     j / t->degree, j % t->degree + 1, t->x[j], t->constant[j]);
            return TIDE_PRED_DEGENERATE;
        }
        double v = tide_fit_eval(t->coef, t->x, t->p);
        if (!isfinite(v)) {
            snprintf(why, len, "task %d has non-finite features", i);
            return TIDE_PRED_DEGENERATE;
        }
        sum += v > 0 ? v : 0;
    }
    *out = sum;
    return TIDE_PRED_OK;
}

static int task_coefficients(const void *state, double *out, int max)
{
    const task_model *t = state;
    if (!t->fitted) return 0;
    int n = t->p + 1 < max ? t->p + 1 : max;
    for (int i = 0; i < n; i++)
        out[i] = t->coef[i];
    return n;
}

int tide_task_model_range(const void *state, double *lo, double *hi)
{
    const task_model *t = state;
    if (!t->fitted || !(t->tmin <= t->tmax)) return 0;
    *lo = t->tmin, *hi = t->tmax;
    return 1;
}

int tide_task_model_known(const void *state, double *out, int max)
{
    const task_model *t = state;
    int n = task_coefficients(state, out, max);
    for (int i = 1; i < n; i++) /* NaN: the column never varied, the fit knows nothing of it */
        if (!t->varied[i - 1]) out[i] = NAN;
    return n;
}

static void task_destroy(void *state)
{
    task_model *t = state;
    if (!t) return;
    free(t->feat), free(t->time), free(t->phase), free(t->last), free(t->coef), free(t->x);
    free(t->varied), free(t->constant);
    free(t);
}

const tide_model_ops tide_model_task_ops = {
    .name = "task",
    .create = task_create,
    .observe = task_observe,
    .train = task_train,
    .predict = task_predict,
    .predict_tasks = task_predict_tasks,
    .coefficients = task_coefficients,
    .destroy = task_destroy,
};
