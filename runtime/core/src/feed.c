/* The prediction feed (tide_core_feed.h): what the load model is fed and asked, for libtide
 * and tide-sim alike. */
#include "tide_core_feed.h"

#include <stdlib.h>
#include <string.h>

/* The most extra features a tool adds per task and per phase. */
#define TOOL_EXTRA_MAX 8

int tide_feed_init(tide_feed *f, const tide_model_params *p, const tide_tool *tool, bool freq,
                   char *err, size_t len)
{
    memset(f, 0, sizeof *f);
    f->tool = tool;
    f->model = tool && tool->model ? tide_model_create_ops(tool->model, p, err, len)
                                   : tide_model_create(p, err, len);
    if (!f->model) return -1;
    /* auto needs the features too: its task model competes with the rank model. */
    f->collect = strcmp(p->kind, "task") == 0 || strcmp(p->kind, "auto") == 0 ||
                 (tool && tool->task_features);
    f->freq = freq;
    f->nfeat = -1;
    f->load = f->unc = -1;
    f->source = TIDE_SRC_NONE;
    return 0;
}

void tide_feed_free(tide_feed *f)
{
    tide_model_destroy(f->model);
    free(f->weights);
    free(f->mat);
    memset(f, 0, sizeof *f);
}

static bool reserve(double **buf, size_t *cap, size_t n)
{
    if (n <= *cap) return true;
    double *b = realloc(*buf, n * sizeof *b);
    if (!b) return false;
    *buf = b;
    *cap = n;
    return true;
}

/* The application's features per task the model sees: as many columns as the first phase's
 * tasks used (the last column any of them set), so that the model's shape stays fixed. */
static int used_columns(const tide_feed_tasks *t)
{
    int used = 0;
    for (long i = 0; i < t->n; i++)
        for (int k = t->stride; k > used; k--)
            if (t->feat[i * t->stride + k - 1] != 0) {
                used = k;
                break;
            }
    return used;
}

/* The model's view of a phase's tasks: the application's columns (zeros where a row is
 * shorter) plus the tool's extra ones. The matrix is never NULL, even with no columns: a model
 * copies rows from it, and memcpy from NULL is undefined even for 0 bytes. On out of memory
 * the set is empty. */
static tide_task_set task_set(tide_feed *f, const tide_feed_tasks *t)
{
    static const tide_feed_tasks none = {0, 0, NULL, NULL};
    if (!t) t = &none;
    if (f->nfeat < 0) f->nfeat = used_columns(t);
    int extra = f->tool && f->tool->task_features ? TOOL_EXTRA_MAX : 0;
    int cols = f->nfeat + extra;
    if (!reserve(&f->mat, &f->mat_cap, (size_t)t->n * (size_t)cols + 1))
        return (tide_task_set){0, cols, NULL};
    int app = f->nfeat < t->stride ? f->nfeat : t->stride;
    for (long i = 0; i < t->n; i++) {
        double *row = f->mat + i * cols;
        const double *in = t->stride ? t->feat + i * t->stride : NULL; /* no rows: may be NULL */
        memset(row, 0, (size_t)cols * sizeof *row);
        if (app) memcpy(row, in, (size_t)app * sizeof *row);
        if (extra && f->tool->task_features(f->tool->user, in, f->nfeat, row + f->nfeat, extra) < 0)
            memset(row + f->nfeat, 0, (size_t)extra * sizeof *row);
    }
    return (tide_task_set){(int)t->n, cols, f->mat};
}

static int model_code(const char *name)
{
    if (strcmp(name, "rank") == 0) return TIDE_FEED_MODEL_RANK;
    if (strcmp(name, "task") == 0) return TIDE_FEED_MODEL_TASK;
    return *name ? TIDE_FEED_MODEL_TOOL : TIDE_FEED_MODEL_NONE;
}

/* The task model says which tasks are heavy; the served prediction (perhaps a baseline that
 * predicts the total better) says how much the rank carries: the weights are the task model's,
 * scaled to sum to the served load, so that a planner's load and weights agree. */
static bool weigh(tide_feed *f, const tide_task_set *set)
{
    f->nweights = 0;
    if (set->ntasks == 0 || !reserve(&f->weights, &f->weights_cap, (size_t)set->ntasks))
        return false;
    double sum = 0;
    if (tide_model_predict_tasks(f->model, set, f->weights, &sum) != TIDE_PRED_OK) return false;
    double scale = sum > 0 && f->load >= 0 ? f->load / sum : 1.0;
    for (int i = 0; i < set->ntasks; i++)
        f->weights[i] *= scale;
    f->nweights = set->ntasks;
    return true;
}

int tide_feed_predict(tide_feed *f, const tide_feed_tasks *next)
{
    tide_prediction p;
    tide_task_set set = {0, 0, NULL};
    if (f->collect) set = task_set(f, next);
    f->rows = set.features ? set.ntasks : 0; /* kept for tide_feed_adopt */
    f->cols = set.nfeat;
    int rc = tide_model_predict_info(f->model, f->collect ? &set : NULL, &p);
    bool ok = rc == TIDE_PRED_OK;
    f->load = ok ? p.load : -1;
    f->unc = ok ? p.unc : -1;
    f->suspect = ok ? p.suspect : 0;
    f->source = ok ? p.source : TIDE_SRC_NONE;
    f->model_code = ok && p.source == TIDE_SRC_MODEL ? model_code(p.model) : TIDE_FEED_MODEL_NONE;
    f->per_task = ok && f->collect && weigh(f, &set);
    return rc;
}

int tide_feed_task_coef(const tide_feed *f, double *out, int max)
{
    int n = f->model ? tide_model_task_coefficients(f->model, out, max) : 0;
    return n > 0 ? n : 0;
}

bool tide_feed_adopt(tide_feed *f, const double *coef, int ncoef, double *load)
{
    if (!f->model || !f->collect || f->rows <= 0 ||
        !reserve(&f->weights, &f->weights_cap, (size_t)f->rows))
        return false;
    tide_task_set set = {(int)f->rows, f->cols, f->mat};
    double sum = 0;
    if (tide_model_predict_tasks_coef(f->model, coef, ncoef, &set, f->weights, &sum) !=
        TIDE_PRED_OK)
        return false;
    f->nweights = f->rows;
    f->per_task = true;
    f->load = sum;
    f->suspect = 0; /* a task model's prediction now */
    f->source = TIDE_SRC_MODEL;
    f->model_code = TIDE_FEED_MODEL_POOLED;
    if (load) *load = sum;
    return true;
}

void tide_feed_serve(tide_feed *f, double load, int source)
{
    f->load = load;
    f->unc = 0;
    f->suspect = 0;
    f->rows = 0; /* no model weighed these tasks: nothing to adopt */
    f->source = source;
    f->model_code = TIDE_FEED_MODEL_NONE;
    f->per_task = false;
}

int tide_feed_observe(tide_feed *f, double load, const tide_feed_tasks *done, long phase,
                      double mhz)
{
    tide_phase_obs obs = {.load = load};
    if (f->collect) {
        obs.tasks = task_set(f, done);
        obs.task_times = obs.tasks.ntasks ? done->times : NULL;
    }
    double phase_feat[1 + TOOL_EXTRA_MAX];
    int nf = 0;
    if (f->freq) phase_feat[nf++] = mhz;
    if (f->tool && f->tool->phase_features) {
        int got = f->tool->phase_features(f->tool->user, phase, phase_feat + nf, TOOL_EXTRA_MAX);
        if (got > 0) nf += got;
    }
    obs.nphase_feat = nf;
    obs.phase_features = nf ? phase_feat : NULL;
    return tide_model_observe(f->model, &obs);
}

int tide_feed_served(double load, double source, double model_code)
{
    if (load < 0) return -1;
    switch ((int)source) {
    case TIDE_SRC_MODEL:
        return model_code == TIDE_FEED_MODEL_RANK     ? TIDE_SERVED_RANK
               : model_code == TIDE_FEED_MODEL_TASK   ? TIDE_SERVED_TASK
               : model_code == TIDE_FEED_MODEL_POOLED ? TIDE_SERVED_POOLED
                                                      : TIDE_SERVED_TOOL;
    case TIDE_SRC_PERSISTENCE:
        return TIDE_SERVED_PERSISTENCE;
    case TIDE_SRC_MEDIAN:
        return TIDE_SERVED_MEDIAN;
    case TIDE_SRC_GUARD:
        return TIDE_SERVED_GUARD;
    case TIDE_FEED_SRC_HINT:
        return TIDE_SERVED_HINT;
    case TIDE_FEED_SRC_EXACT:
        return TIDE_SERVED_EXACT;
    default:
        return -1;
    }
}

const char *tide_feed_served_name(int kind)
{
    static const char *const names[TIDE_SERVED_COUNT] = {
        "rank", "task", "tool", "persistence", "median", "guard", "pooled", "hint", "exact"};
    return kind >= 0 && kind < TIDE_SERVED_COUNT ? names[kind] : "none";
}
