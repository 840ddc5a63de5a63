/* A model instance: the part every model shares. It keeps the recent loads (as measured, and
 * cleaned of one-phase spikes for the models to learn from), one or two fitted models (two for
 * TIDE_PRED_MODEL=auto), the two baselines (persistence, median of three), every candidate's
 * rolling errors, and serves per phase the candidate that predicts best, behind an envelope
 * guard. Models (model_*.c or a tool's) only fit and predict. docs/predictor.md gives the rules. */
#include "internal.h"
#include "robust.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASON_MAX 256
#define MAX_FITTED 2
/* Scored phases before a model's rolling error is trusted against the baselines'. */
#define MIN_SCORED 3

enum { BASE_PERSISTENCE, BASE_MEDIAN, NBASE };

/* One fitted model among the candidates. */
typedef struct fitted {
    const tide_model_ops *ops;
    void *state;
    int trained;     /* the first fit was attempted */
    int persistence; /* the last fit was degenerate: this model has no prediction */
    int fell_back;   /* its most recent prediction or fit fell back */
    char reason[REASON_MAX];
    int retrains;
    tide_err_ring err;
    int since_fit; /* phases observed since its last fit */
    int hold;      /* phases an error-triggered refit waits after the last fit (see observe) */
} fitted;

/* What every candidate predicts for the coming phase. */
typedef struct candidates {
    double model[MAX_FITTED];
    int model_ok[MAX_FITTED]; /* a finite, non-negative prediction */
    int guarded[MAX_FITTED];  /* ... outside the envelope */
    double base[NBASE];
    int base_ok[NBASE];
} candidates;

/* The last prediction (predict_all): observe must score exactly what was predicted for the phase
 * it closes, and keeps it instead of making it again (the predictor was half of a fine-grained
 * phase's fixed cost, docs/performance.md section 15). It holds while nothing changed the model
 * (epoch) and for the same tasks: the same set, or both none, compared value for value. */
typedef struct memo {
    int valid;
    unsigned long epoch;
    int has_set, ntasks, nfeat;
    double *feat; /* ntasks x nfeat of the set predicted for */
    size_t feat_cap;
    candidates c;
    int chosen; /* served holds choose's result (a model was fitted) */
    tide_prediction served;
} memo;

struct tide_model {
    tide_model_params p;
    const char *kind; /* "auto", or the one model's name */
    fitted fit[MAX_FITTED];
    int nfit;
    /* Recent phases, oldest first: [start .. len) of raw (as measured), clean (spikes
     * replaced) and per_task (raw / tasks, NaN without tasks); `cap` of them are kept, with
     * twice the room so that appending is a store and, once in `cap` phases, one memmove. */
    double *raw, *clean, *per_task;
    int len, cap;
    int ewin; /* the error window: max(window, TIDE_ERR_WINDOW_MIN) */
    tide_spike_filter filter;
    tide_err_ring base_err[NBASE];
    tide_err_ring served_err;
    double last_finite;
    int have_finite;
    tide_model_stats stats;
    unsigned long epoch; /* changes whatever a prediction depends on: observe, train */
    memo memo;
};

static const char *const source_names[TIDE_SRC_COUNT] = {"none", "model", "persistence", "median",
                                                         "guard"};

const char *tide_pred_source_name(int source)
{
    return source >= 0 && source < TIDE_SRC_COUNT ? source_names[source] : "?";
}

/* The last min(len, k) entries of a history array. */
static const double *last(const tide_model *m, const double *h, int k, int *n)
{
    *n = m->len < k ? m->len : k;
    return h + (m->len - *n);
}

static void append(tide_model *m, double raw, double clean, int ntasks)
{
    if (m->len == 2 * m->cap) {
        size_t keep = sizeof(double) * (size_t)m->cap;
        memmove(m->raw, m->raw + m->cap, keep);
        memmove(m->clean, m->clean + m->cap, keep);
        memmove(m->per_task, m->per_task + m->cap, keep);
        m->len = m->cap;
    }
    m->raw[m->len] = raw;
    m->clean[m->len] = clean;
    m->per_task[m->len] = ntasks > 0 ? raw / ntasks : NAN;
    m->len++;
    if (isfinite(raw)) m->last_finite = raw, m->have_finite = 1;
}

static void fall_back(fitted *f, const char *fmt, const char *detail)
{
    f->fell_back = 1;
    snprintf(f->reason, sizeof f->reason, fmt, detail);
}

static int add_fitted(tide_model *m, const tide_model_ops *ops)
{
    if (!ops->create || !ops->train || !ops->predict || !ops->destroy) return TIDE_PRED_ERR_INVALID;
    fitted *f = &m->fit[m->nfit];
    memset(f, 0, sizeof *f);
    f->ops = ops;
    tide_ring_reset(&f->err, m->ewin);
    int rc = ops->create(&m->p, &f->state);
    if (rc == TIDE_PRED_OK) m->nfit++;
    return rc;
}

static tide_model *create(const tide_model_ops *const *ops, int nops, const char *kind,
                          const tide_model_params *p, char *err, size_t errlen)
{
    if (tide_model_params_validate(p, err, errlen) != TIDE_PRED_OK) return NULL;
    /* GSL's default handler aborts the process; every GSL return code is checked instead. */
    gsl_set_error_handler_off();
    tide_model *m = calloc(1, sizeof *m);
    int rc = m ? TIDE_PRED_OK : TIDE_PRED_ERR_NOMEM;
    if (m) {
        m->p = *p;
        m->kind = kind;
        m->ewin = p->window > TIDE_ERR_WINDOW_MIN ? p->window : TIDE_ERR_WINDOW_MIN;
        m->cap = p->train > m->ewin ? p->train : m->ewin;
        size_t room = sizeof(double) * 2 * (size_t)m->cap;
        m->raw = malloc(room), m->clean = malloc(room), m->per_task = malloc(room);
        if (!m->raw || !m->clean || !m->per_task) rc = TIDE_PRED_ERR_NOMEM;
        m->filter.factor = p->spike;
        for (int b = 0; b < NBASE; b++)
            tide_ring_reset(&m->base_err[b], m->ewin);
        tide_ring_reset(&m->served_err, m->ewin);
        for (int i = 0; i < nops && rc == TIDE_PRED_OK; i++)
            rc = add_fitted(m, ops[i]);
    }
    if (rc == TIDE_PRED_OK) return m;
    if (err && errlen)
        snprintf(err, errlen, "cannot create the %s model: %s", kind,
                 rc == TIDE_PRED_ERR_NOMEM ? "out of memory" : "model ops incomplete");
    tide_model_destroy(m);
    return NULL;
}

tide_model *tide_model_create_ops(const tide_model_ops *ops, const tide_model_params *p, char *err,
                                  size_t errlen)
{
    if (!ops || !p) {
        if (err && errlen) snprintf(err, errlen, "model ops or parameters missing");
        return NULL;
    }
    return create(&ops, 1, ops->name, p, err, errlen);
}

tide_model *tide_model_create(const tide_model_params *p, char *err, size_t errlen)
{
    if (p && strcmp(p->kind, "auto") == 0) {
        /* The task model first: on equal scores before any are known it is preferred, since
         * it sees the coming phase's tasks. Without task features it cannot fit and never
         * serves. */
        const tide_model_ops *both[] = {&tide_model_task_ops, &tide_model_rank_ops};
        return create(both, 2, "auto", p, err, errlen);
    }
    const tide_model_ops *ops = p ? tide_model_ops_find(p->kind) : NULL;
    if (!ops) {
        if (err && errlen)
            snprintf(err, errlen, "TIDE_PRED_MODEL='%s' is invalid: expected one of %s",
                     p ? p->kind : "(null)", tide_model_ops_names());
        return NULL;
    }
    return create(&ops, 1, ops->name, p, err, errlen);
}

void tide_model_destroy(tide_model *m)
{
    if (!m) return;
    for (int i = 0; i < m->nfit; i++)
        m->fit[i].ops->destroy(m->fit[i].state);
    free(m->memo.feat);
    free(m->raw), free(m->clean), free(m->per_task), free(m);
}

/* A model answers TIDE_PRED_NOT_READY while it has too few samples for its coefficients: it
 * stays unfitted (no prediction, no fallback) and is asked again after the next phase, until
 * the history holds TIDE_PRED_TRAIN phases; a model still short of samples then, or one that
 * had a fit, falls back as on degenerate data. */
static int train_one(tide_model *m, fitted *f)
{
    int n;
    const double *loads = last(m, m->clean, m->p.train, &n);
    char why[REASON_MAX] = "";
    int rc = f->ops->train(f->state, loads, n, why, sizeof why);
    if (rc == TIDE_PRED_NOT_READY) {
        if (!f->trained && m->stats.phases < m->p.train) return TIDE_PRED_OK;
        rc = TIDE_PRED_DEGENERATE;
    }
    f->trained = 1;
    f->since_fit = 0;
    f->persistence = rc != TIDE_PRED_OK;
    if (rc == TIDE_PRED_OK) {
        f->fell_back = 0;
        return TIDE_PRED_OK;
    }
    fall_back(f, "training fell back to persistence: %s",
              rc == TIDE_PRED_DEGENERATE ? why : tide_pred_strerror(rc));
    return rc < 0 ? rc : TIDE_PRED_OK;
}

int tide_model_train(tide_model *m)
{
    if (!m) return TIDE_PRED_ERR_INVALID;
    m->epoch++;
    int rc = TIDE_PRED_OK;
    for (int i = 0; i < m->nfit && rc >= 0; i++)
        rc = train_one(m, &m->fit[i]);
    return rc;
}

static int any_trained(const tide_model *m)
{
    for (int i = 0; i < m->nfit; i++)
        if (m->fit[i].trained) return 1;
    return 0;
}

/* Model i's prediction from `loads` (clean history, possibly extended by predict_ahead). */
static int model_value(tide_model *m, int i, const double *loads, int n, const tide_task_set *next,
                       double *out)
{
    fitted *f = &m->fit[i];
    if (!f->trained || f->persistence) {
        f->fell_back = f->trained;
        return 0;
    }
    char why[REASON_MAX] = "";
    double v = 0;
    int rc = f->ops->predict(f->state, loads, n, next, &v, why, sizeof why);
    if (rc < 0) return rc;
    if (rc == TIDE_PRED_OK && isfinite(v) && v >= 0) {
        f->fell_back = 0;
        *out = v;
        return 1;
    }
    if (rc == TIDE_PRED_OK) snprintf(why, sizeof why, "the model predicted %g", v);
    fall_back(f, "prediction fell back to persistence: %s", why);
    return 0;
}

/* A per-task model's envelope is over loads per task, so that a phase with twice the tasks may
 * be predicted twice the load; a rank model's over the loads themselves. */
static int inside_guard(const tide_model *m, int i, double v, const tide_task_set *next)
{
    int n;
    /* The task model answers for the phase's own tasks, so a phase of other tasks may carry
     * another load: its envelope is the single task times it was trained on (the mean task of
     * the prediction must lie within g of them), not the recent loads. */
    double range[2];
    if (m->fit[i].ops == &tide_model_task_ops && next && next->ntasks > 0 &&
        tide_task_model_range(m->fit[i].state, &range[0], &range[1]))
        return tide_guard_inside(v / next->ntasks, range, 2, m->p.guard);
    if (m->fit[i].ops->predict_tasks && next && next->ntasks > 0) {
        const double *pt = last(m, m->per_task, m->ewin, &n);
        return tide_guard_inside(v / next->ntasks, pt, n, m->p.guard);
    }
    const double *recent = last(m, m->raw, m->ewin, &n);
    return tide_guard_inside(v, recent, n, m->p.guard);
}

static int predict_candidates(tide_model *m, const tide_task_set *next, candidates *c)
{
    int n;
    const double *clean = last(m, m->clean, m->cap, &n);
    for (int i = 0; i < m->nfit; i++) {
        int ok = model_value(m, i, clean, n, next, &c->model[i]);
        if (ok < 0) return ok;
        c->model_ok[i] = ok;
        c->guarded[i] = ok && !inside_guard(m, i, c->model[i], next);
    }
    /* The baselines read the filtered loads too: right after a spike, persistence of the raw
     * load would predict the spike again. */
    const double *recent = last(m, m->clean, 3, &n);
    c->base[BASE_MEDIAN] = tide_median_finite(recent, n);
    c->base_ok[BASE_MEDIAN] = isfinite(c->base[BASE_MEDIAN]);
    c->base[BASE_PERSISTENCE] = m->last_finite;
    for (int i = n - 1; i >= 0; i--)
        if (isfinite(recent[i])) {
            c->base[BASE_PERSISTENCE] = recent[i];
            break;
        }
    c->base_ok[BASE_PERSISTENCE] = m->have_finite;
    return TIDE_PRED_OK;
}

/* A model's selection score: its mean absolute error, or -1 (preferred) while it has fewer
 * than MIN_SCORED scores, so that a fresh fit that may serve (waits()) is tried first. */
static double model_score(const fitted *f)
{
    return f->err.n < MIN_SCORED ? -1.0 : tide_ring_mean_abs(&f->err);
}

/* The best baseline: the lower mean absolute error; on a tie (or none scored) the median,
 * which a single spike cannot move. */
static int best_base(const tide_model *m, const candidates *c)
{
    if (!c->base_ok[BASE_MEDIAN]) return BASE_PERSISTENCE;
    double ep = tide_ring_mean_abs(&m->base_err[BASE_PERSISTENCE]);
    double em = tide_ring_mean_abs(&m->base_err[BASE_MEDIAN]);
    return ep < em ? BASE_PERSISTENCE : BASE_MEDIAN;
}

/* A source's uncertainty: the median of its recent absolute errors, or, while fewer than
 * MIN_SCORED are known, the largest of them: an early estimate errs on the cautious side, so
 * that the planner's margin guards the first plans. */
static double uncertainty(const tide_err_ring *r)
{
    if (r->n >= MIN_SCORED) return tide_ring_median_abs(r);
    double worst = 0;
    for (int i = 0; i < r->n; i++)
        worst = fmax(worst, r->abs[(r->head + i) % r->cap]);
    return worst;
}

static void serve_base(const tide_model *m, const candidates *c, int b, int source,
                       tide_prediction *out)
{
    out->load = c->base[b];
    out->unc = uncertainty(&m->base_err[b]);
    out->source = source ? source : b == BASE_PERSISTENCE ? TIDE_SRC_PERSISTENCE : TIDE_SRC_MEDIAN;
    out->model = "";
    out->per_task = 0;
}

/* Whether a fit must be judged before it serves (TIDE_PRED_SELECT=auto): a model that predicts
 * from the past loads alone (the rank model) knows nothing the baselines do not, so a fit with
 * fewer than MIN_SCORED scores waits for them (every candidate is scored every phase, served or
 * not). The paper's MxM's first rank-model fit served a victim's load 0.8 s low while
 * persistence was right, and the plan left that room empty for three phases (docs/performance.md
 * section 13). A model that weighs the phase's tasks knows what the baselines cannot, that the
 * tasks changed: its fresh fit is tried at once (in tide-sim's moving lake, the ranks the coast
 * reaches; waiting there cost proact 19% at 512 ranks, docs/sim.md). */
static bool waits(const fitted *f)
{
    return f->err.n < MIN_SCORED && !f->ops->predict_tasks;
}

/* While the last load is suspect (the filter has not yet told a spike from a step), the loads
 * a rank-level source serves come from the level the suspect left; the suspect value is as
 * likely the next one, and out->suspect says how far it is. In tide-sim's moving lake a rank the
 * coast reached measured 1.6 ms of work per worker after 0.3, was served 0.3 with uncertainty 0
 * in the next phase, took tasks as a victim and measured 3.6 (docs/sim.md). A per-task model
 * weighs the phase's tasks, which tell which of the two the phase holds. Apart from unc: a
 * planner that replaces the load by a pooled task model's (proact) drops it. */
static void note_suspect(const tide_model *m, tide_prediction *out)
{
    out->suspect =
        m->filter.pending && !out->per_task ? fabs(m->filter.pending_raw - out->load) : 0;
}

/* The selection rule (docs/predictor.md): the model with the lowest rolling error serves if it
 * beats the best baseline strictly; a guarded model never serves, and when a guarded model would
 * have served the source says so; a fresh fit of a model without the tasks waits (waits()).
 * TIDE_PRED_SELECT=model serves the first usable model whatever the baselines do, and
 * persistence when there is none. */
static void choose(const tide_model *m, const candidates *c, tide_prediction *out)
{
    int auto_select = m->p.select == TIDE_SELECT_AUTO;
    int b = auto_select ? best_base(m, c) : BASE_PERSISTENCE;
    double bar = auto_select ? tide_ring_mean_abs(&m->base_err[b]) : INFINITY;
    int best = -1, guarded = 0;
    double best_score = INFINITY;
    for (int i = 0; i < m->nfit; i++) {
        double s = model_score(&m->fit[i]);
        if (!c->model_ok[i] || (auto_select && waits(&m->fit[i])) || !(s < bar) ||
            (best >= 0 && !(s < best_score)))
            continue;
        if (c->guarded[i]) {
            guarded = 1;
            continue;
        }
        best = i, best_score = s;
    }
    if (best < 0) {
        serve_base(m, c, b, guarded ? TIDE_SRC_GUARD : 0, out);
        note_suspect(m, out);
        return;
    }
    const fitted *f = &m->fit[best];
    out->load = c->model[best];
    /* A fresh fit (of the task model, or under TIDE_PRED_SELECT=model) has few errors yet: the
     * baseline's are an estimate of its uncertainty too, and so is how far it strays from the
     * last load. */
    out->unc = uncertainty(&f->err);
    if (f->err.n < MIN_SCORED)
        out->unc = fmax(fmax(out->unc, uncertainty(&m->base_err[b])),
                        fabs(c->model[best] - c->base[BASE_PERSISTENCE]));
    out->source = TIDE_SRC_MODEL;
    out->model = f->ops->name;
    out->per_task = f->ops->predict_tasks != NULL;
    note_suspect(m, out);
}

static size_t set_values(const tide_task_set *t)
{
    return t->features ? (size_t)t->ntasks * (size_t)t->nfeat : 0;
}

/* Whether the memo holds the prediction for `next` in the model's present state. */
static int memo_holds(const tide_model *m, const tide_task_set *next)
{
    const memo *k = &m->memo;
    if (!k->valid || k->epoch != m->epoch || k->has_set != (next != NULL)) return 0;
    if (!next) return 1;
    size_t n = set_values(next);
    return k->ntasks == next->ntasks && k->nfeat == next->nfeat &&
           (n == 0 || memcmp(k->feat, next->features, n * sizeof *k->feat) == 0);
}

static void memo_keep(tide_model *m, const tide_task_set *next, const candidates *c,
                      const tide_prediction *served)
{
    memo *k = &m->memo;
    k->valid = 0;
    size_t n = next ? set_values(next) : 0;
    if (n > k->feat_cap) {
        double *grown = realloc(k->feat, n * sizeof *grown);
        if (!grown) return; /* no memo: observe predicts again */
        k->feat = grown;
        k->feat_cap = n;
    }
    if (n) memcpy(k->feat, next->features, n * sizeof *k->feat);
    k->has_set = next != NULL;
    k->ntasks = next ? next->ntasks : 0;
    k->nfeat = next ? next->nfeat : 0;
    k->c = *c;
    k->chosen = served != NULL;
    if (served) k->served = *served;
    k->epoch = m->epoch;
    k->valid = 1;
}

/* The candidates for `next` and, once a model was fitted, the one served: from the memo, or made
 * and kept. TIDE_PRED_NOT_READY before any load was seen or (out) before any fit. */
static int predict_all(tide_model *m, const tide_task_set *next, candidates *c,
                       tide_prediction *out)
{
    if (!m->have_finite) return TIDE_PRED_NOT_READY;
    if (memo_holds(m, next)) {
        *c = m->memo.c;
        if (!m->memo.chosen) return TIDE_PRED_NOT_READY;
        *out = m->memo.served;
        return TIDE_PRED_OK;
    }
    int rc = predict_candidates(m, next, c);
    if (rc < 0) return rc;
    int ready = any_trained(m);
    if (ready) choose(m, c, out);
    memo_keep(m, next, c, ready ? out : NULL);
    return ready ? TIDE_PRED_OK : TIDE_PRED_NOT_READY;
}

int tide_model_predict_info(tide_model *m, const tide_task_set *next, tide_prediction *out)
{
    if (!m || !out) return TIDE_PRED_ERR_INVALID;
    /* tasks with features need the matrix (the task model reads it) */
    if (next && (next->ntasks < 0 || next->nfeat < 0 ||
                 (next->ntasks > 0 && next->nfeat > 0 && !next->features)))
        return TIDE_PRED_ERR_INVALID;
    candidates c;
    return predict_all(m, next, &c, out);
}

int tide_model_predict_phase(tide_model *m, const tide_task_set *next, double *out)
{
    if (!out) return TIDE_PRED_ERR_INVALID;
    tide_prediction p;
    int rc = tide_model_predict_info(m, next, &p);
    if (rc == TIDE_PRED_OK) *out = p.load;
    return rc;
}

int tide_model_predict(tide_model *m, double *out)
{
    return tide_model_predict_phase(m, NULL, out);
}

int tide_model_predict_ahead(tide_model *m, int steps, double *out)
{
    if (!m || !out || steps < 1) return TIDE_PRED_ERR_INVALID;
    if (!any_trained(m) || !m->have_finite) return TIDE_PRED_NOT_READY;
    int n;
    const double *clean = last(m, m->clean, m->cap, &n);
    double *h = malloc(sizeof(double) * ((size_t)n + (size_t)steps));
    if (!h) return TIDE_PRED_ERR_NOMEM;
    memcpy(h, clean, sizeof(double) * (size_t)n);
    int rc = TIDE_PRED_OK;
    for (int s = 0; s < steps && rc == TIDE_PRED_OK; s++) {
        int ok = model_value(m, 0, h, n + s, NULL, &out[s]);
        if (ok < 0) rc = ok;
        if (ok == 0) { /* persistence of the extended history */
            out[s] = m->last_finite;
            for (int i = n + s - 1; i >= 0; i--)
                if (isfinite(h[i])) {
                    out[s] = h[i];
                    break;
                }
        }
        h[n + s] = out[s];
    }
    free(h);
    return rc;
}

static double total(const double *times, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += times[i];
    return s;
}

int tide_model_predict_tasks(tide_model *m, const tide_task_set *tasks, double *times, double *sum)
{
    if (!m || !tasks || tasks->ntasks < 0 || (tasks->ntasks && !times))
        return TIDE_PRED_ERR_INVALID;
    const fitted *f = NULL;
    for (int i = 0; i < m->nfit && !f; i++)
        if (m->fit[i].ops->predict_tasks) f = &m->fit[i];
    if (!f) return TIDE_PRED_ERR_INVALID;
    if (!f->trained || f->persistence) return TIDE_PRED_NOT_READY;
    int rc = f->ops->predict_tasks(f->state, tasks, times);
    if (rc == TIDE_PRED_OK && sum) *sum = total(times, tasks->ntasks);
    return rc;
}

/* Scores every candidate's prediction against the measured load. The baselines are scored
 * from the second phase on, before any model is fitted, so that the first predictions served
 * come with an uncertainty. */
static void score_candidates(tide_model *m, const candidates *c, double load)
{
    for (int i = 0; i < m->nfit; i++)
        if (c->model_ok[i]) tide_ring_push(&m->fit[i].err, c->model[i], load);
    for (int b = 0; b < NBASE; b++)
        if (c->base_ok[b]) tide_ring_push(&m->base_err[b], c->base[b], load);
}

/* Scores the served prediction (the statistics). */
static void score_served(tide_model *m, const tide_prediction *served, double load)
{
    tide_model_stats *st = &m->stats;
    double pred = served->load;
    st->predicted++;
    st->by_source[served->source]++;
    st->fallbacks += served->source != TIDE_SRC_MODEL;
    st->guarded += served->source == TIDE_SRC_GUARD;
    st->sum_sq_err += (pred - load) * (pred - load);
    tide_ring_push(&m->served_err, pred, load);
    if (load != 0) {
        st->n_ape++;
        st->sum_ape += fabs(pred - load) / fabs(load);
    }
    int n = 0;
    double s = 0;
    for (int i = 0; i < m->served_err.n; i++)
        if (isfinite(m->served_err.ape[i])) s += m->served_err.ape[i], n++;
    st->rolling_n = n;
    st->rolling_mape = n ? s / n : 0;
}

/* A model retrains when the median of its recent percentage errors is above the threshold (one
 * spike is outvoted), and at once when the filter has confirmed a level step. */
static int retrain_due(const tide_model *m, const fitted *f)
{
    int n;
    double med = tide_ring_median_ape(&f->err, &n);
    return n >= MIN_SCORED && med > m->p.retrain_err;
}

int tide_model_observe(tide_model *m, const tide_phase_obs *obs)
{
    if (!m || !obs || obs->tasks.ntasks < 0 || obs->tasks.nfeat < 0) return TIDE_PRED_ERR_INVALID;
    const tide_task_set *known =
        obs->tasks.ntasks > 0 && (obs->tasks.nfeat == 0 || obs->tasks.features) ? &obs->tasks
                                                                                : NULL;
    /* What was predicted for this phase (the memo, when the caller asked for it), scored
     * against what it measured: every candidate, and the one served, chosen before this
     * phase's errors were known. */
    tide_prediction served;
    candidates c;
    int rc = predict_all(m, known, &c, &served);
    if (rc < 0) return rc;
    if (m->have_finite && isfinite(obs->load)) {
        score_candidates(m, &c, obs->load);
        if (rc == TIDE_PRED_OK) score_served(m, &served, obs->load);
    }
    m->epoch++;

    int n, restore;
    long steps_before = m->filter.steps;
    const double *clean = last(m, m->clean, m->ewin, &n);
    double x = tide_spike_filter_step(&m->filter, clean, n, obs->load, &restore);
    if (restore) m->clean[m->len - 1] = m->raw[m->len - 1];
    append(m, obs->load, x, obs->tasks.ntasks);
    m->stats.phases++;
    m->stats.spikes = m->filter.spikes;
    m->stats.steps = m->filter.steps;

    /* A suspect phase's task times stay out of the task samples: if it was a whole-rank
     * disturbance they would bias every fit for `train` phases; if the level stepped, the next
     * phase's samples carry the new level anyway. */
    tide_phase_obs seen = *obs;
    seen.load = x;
    if (m->filter.pending) seen.task_times = NULL;
    for (int i = 0; i < m->nfit; i++) {
        fitted *f = &m->fit[i];
        if (f->ops->observe && (rc = f->ops->observe(f->state, &seen)) != TIDE_PRED_OK) return rc;
    }
    /* A model fits as soon as it has more samples than coefficients (train_one), and refits
     * after every phase until its history holds TIDE_PRED_TRAIN phases; then it refits at once
     * on a level step, and when its error calls for it once `hold` phases have passed since its
     * last fit. A refit that did not bring the error under the bar (the next one is due as soon
     * as allowed) doubles the hold, up to TIDE_PRED_TRAIN; an error under the bar resets it.
     * Without the hold, loads whose noise alone keeps the error above the bar (fine-grained
     * phases) refit a quarter of all phases, 1.4 us each, and no refit can help them. */
    for (int i = 0; i < m->nfit && rc >= 0; i++) {
        fitted *f = &m->fit[i];
        f->since_fit++;
        if (f->hold < MIN_SCORED) f->hold = MIN_SCORED;
        int step = m->filter.steps > steps_before;
        if (!f->trained || m->stats.phases <= m->p.train) {
            rc = train_one(m, f);
        } else if (step || (f->since_fit >= f->hold && retrain_due(m, f))) {
            f->hold = step ? MIN_SCORED : f->hold * 2 < m->p.train ? f->hold * 2 : m->p.train;
            f->retrains++;
            m->stats.retrains++;
            rc = train_one(m, f);
        } else if (f->since_fit >= f->hold) {
            f->hold = MIN_SCORED;
        }
    }
    return rc < 0 ? rc : TIDE_PRED_OK;
}

int tide_model_observe_phase(tide_model *m, double load, int ntasks, const double *task_features,
                             const double *task_times, int nfeat)
{
    tide_phase_obs obs = {
        .load = load, .tasks = {ntasks, nfeat, task_features}, .task_times = task_times};
    return tide_model_observe(m, &obs);
}

void tide_model_get_stats(const tide_model *m, tide_model_stats *out)
{
    if (m && out) *out = m->stats;
}

int tide_model_is_trained(const tide_model *m)
{
    return m && any_trained(m);
}

/* The model a user asks about: the first one that has a fit, else the first. */
static const fitted *primary(const tide_model *m)
{
    for (int i = 0; i < m->nfit; i++)
        if (m->fit[i].trained && !m->fit[i].persistence) return &m->fit[i];
    return &m->fit[0];
}

int tide_model_fell_back(const tide_model *m)
{
    return m && primary(m)->fell_back;
}

const char *tide_model_fallback_reason(const tide_model *m)
{
    return m ? primary(m)->reason : "";
}

int tide_model_retrains(const tide_model *m)
{
    return m ? m->stats.retrains : 0;
}

int tide_model_coefficients(const tide_model *m, double *out, int max)
{
    if (!m || (max > 0 && !out) || max < 0) return TIDE_PRED_ERR_INVALID;
    const fitted *f = primary(m);
    if (!f->trained || f->persistence || !f->ops->coefficients) return 0;
    return f->ops->coefficients(f->state, out, max);
}

/* The task model among the fitted ones (NULL: this model has none). */
static const fitted *task_fit(const tide_model *m)
{
    for (int i = 0; i < m->nfit; i++)
        if (m->fit[i].ops == &tide_model_task_ops) return &m->fit[i];
    return NULL;
}

int tide_model_task_coefficients(const tide_model *m, double *out, int max)
{
    if (!m || (max > 0 && !out) || max < 0) return TIDE_PRED_ERR_INVALID;
    const fitted *f = task_fit(m);
    if (!f || !f->trained || f->persistence) return 0;
    return tide_task_model_known(f->state, out, max);
}

int tide_model_predict_tasks_coef(const tide_model *m, const double *coef, int ncoef,
                                  const tide_task_set *tasks, double *times, double *sum)
{
    if (!m || !tasks || !task_fit(m)) return TIDE_PRED_ERR_INVALID;
    int rc = tide_task_model_eval(m->p.task_degree, coef, ncoef, tasks, times);
    if (rc == TIDE_PRED_OK && sum) *sum = total(times, tasks->ntasks);
    return rc;
}

const char *tide_model_name(const tide_model *m)
{
    return m ? m->kind : "";
}
