/* A model instance: the part every model shares. It keeps the recent loads, scores each
 * prediction against the load that was then measured, decides when to (re)train, and serves
 * last-value persistence whenever the model cannot give a sound number. Models (model_*.c or a
 * tool's) only fit and predict. */
#include "internal.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASON_MAX 256

struct tide_model {
    const tide_model_ops *ops;
    void *state;
    tide_model_params p;
    /* Recent loads, oldest first: buf[start .. len), at most p.train of them. Twice the room so
     * appending is a store and, once in p.train phases, one memmove. */
    double *buf;
    int len;
    double last_finite;
    int have_finite;
    int trained;     /* the first fit was attempted */
    int persistence; /* the last fit was degenerate: predict the last load */
    int fell_back;   /* the most recent prediction or fit fell back */
    char reason[REASON_MAX];
    /* Scoring. */
    double *ape; /* ring of the last p.window absolute percentage errors */
    int ape_n, ape_head;
    tide_model_stats stats;
};

static const double *recent(const tide_model *m, int *n)
{
    *n = m->len < m->p.train ? m->len : m->p.train;
    return m->buf + (m->len - *n);
}

static void append_load(tide_model *m, double load)
{
    if (m->len == 2 * m->p.train) {
        memmove(m->buf, m->buf + m->p.train, sizeof(double) * (size_t)m->p.train);
        m->len = m->p.train;
    }
    m->buf[m->len++] = load;
    if (isfinite(load)) m->last_finite = load, m->have_finite = 1;
}

static void fall_back(tide_model *m, const char *fmt, const char *detail)
{
    m->fell_back = 1;
    snprintf(m->reason, sizeof m->reason, fmt, detail);
}

tide_model *tide_model_create_ops(const tide_model_ops *ops, const tide_model_params *p, char *err,
                                  size_t errlen)
{
    if (!ops || !p || !ops->create || !ops->train || !ops->predict || !ops->destroy) {
        if (err && errlen) snprintf(err, errlen, "model ops incomplete or parameters missing");
        return NULL;
    }
    if (tide_model_params_validate(p, err, errlen) != TIDE_PRED_OK) return NULL;
    /* GSL's default handler aborts the process; every GSL return code is checked instead. */
    gsl_set_error_handler_off();
    tide_model *m = calloc(1, sizeof *m);
    if (m) {
        m->ops = ops;
        m->p = *p;
        m->buf = malloc(sizeof(double) * 2 * (size_t)p->train);
        m->ape = malloc(sizeof(double) * (size_t)p->window);
    }
    if (!m || !m->buf || !m->ape || ops->create(p, &m->state) != TIDE_PRED_OK) {
        if (err && errlen)
            snprintf(err, errlen, "cannot create the %s model: out of memory", ops->name);
        if (m) free(m->buf), free(m->ape), free(m);
        return NULL;
    }
    return m;
}

tide_model *tide_model_create(const tide_model_params *p, char *err, size_t errlen)
{
    const tide_model_ops *ops = p ? tide_model_ops_find(p->kind) : NULL;
    if (!ops) {
        if (err && errlen)
            snprintf(err, errlen, "TIDE_PRED_MODEL='%s' is invalid: expected one of %s",
                     p ? p->kind : "(null)", tide_model_ops_names());
        return NULL;
    }
    return tide_model_create_ops(ops, p, err, errlen);
}

void tide_model_destroy(tide_model *m)
{
    if (!m) return;
    m->ops->destroy(m->state);
    free(m->buf), free(m->ape), free(m);
}

int tide_model_train(tide_model *m)
{
    if (!m) return TIDE_PRED_ERR_INVALID;
    int n;
    const double *loads = recent(m, &n);
    char why[REASON_MAX] = "";
    int rc = m->ops->train(m->state, loads, n, why, sizeof why);
    m->trained = 1;
    m->persistence = rc != TIDE_PRED_OK;
    if (rc == TIDE_PRED_OK) return TIDE_PRED_OK;
    fall_back(m, "training fell back to persistence: %s",
              rc == TIDE_PRED_DEGENERATE ? why : tide_pred_strerror(rc));
    return rc < 0 ? rc : TIDE_PRED_OK;
}

/* The one place a prediction is made, from `loads` (the recent ones, or those extended by
 * earlier steps of predict_ahead). */
static int predict_from(tide_model *m, const double *loads, int n, const tide_task_set *next,
                        double *out)
{
    if (!m->trained) return TIDE_PRED_NOT_READY;
    if (!m->persistence) {
        char why[REASON_MAX] = "";
        double v = 0;
        int rc = m->ops->predict(m->state, loads, n, next, &v, why, sizeof why);
        if (rc < 0) return rc;
        if (rc == TIDE_PRED_OK && isfinite(v) && v >= 0) {
            m->fell_back = 0;
            *out = v;
            return TIDE_PRED_OK;
        }
        if (rc == TIDE_PRED_OK) snprintf(why, sizeof why, "the model predicted %g", v);
        fall_back(m, "prediction fell back to persistence: %s", why);
    } else {
        m->fell_back = 1;
    }
    /* Persistence: the last finite load, of the extended history first. */
    for (int i = n - 1; i >= 0; i--) {
        if (isfinite(loads[i])) {
            *out = loads[i];
            return TIDE_PRED_OK;
        }
    }
    if (!m->have_finite) return TIDE_PRED_NOT_READY;
    *out = m->last_finite;
    return TIDE_PRED_OK;
}

int tide_model_predict_phase(tide_model *m, const tide_task_set *next, double *out)
{
    if (!m || !out) return TIDE_PRED_ERR_INVALID;
    int n;
    const double *loads = recent(m, &n);
    return predict_from(m, loads, n, next, out);
}

int tide_model_predict(tide_model *m, double *out)
{
    return tide_model_predict_phase(m, NULL, out);
}

int tide_model_predict_ahead(tide_model *m, int steps, double *out)
{
    if (!m || !out || steps < 1) return TIDE_PRED_ERR_INVALID;
    int n;
    const double *loads = recent(m, &n);
    double *h = malloc(sizeof(double) * ((size_t)n + (size_t)steps));
    if (!h) return TIDE_PRED_ERR_NOMEM;
    memcpy(h, loads, sizeof(double) * (size_t)n);
    int rc = TIDE_PRED_OK;
    for (int s = 0; s < steps && rc == TIDE_PRED_OK; s++) {
        rc = predict_from(m, h, n + s, NULL, &out[s]);
        h[n + s] = out[s];
    }
    free(h);
    return rc;
}

int tide_model_predict_tasks(tide_model *m, const tide_task_set *tasks, double *times, double *sum)
{
    if (!m || !tasks || tasks->ntasks < 0 || (tasks->ntasks && !times))
        return TIDE_PRED_ERR_INVALID;
    if (!m->ops->predict_tasks) return TIDE_PRED_ERR_INVALID;
    if (!m->trained || m->persistence) return TIDE_PRED_NOT_READY;
    int rc = m->ops->predict_tasks(m->state, tasks, times);
    if (rc != TIDE_PRED_OK) return rc;
    if (sum) {
        double s = 0;
        for (int i = 0; i < tasks->ntasks; i++)
            s += times[i];
        *sum = s;
    }
    return TIDE_PRED_OK;
}

static void score(tide_model *m, double pred, double load)
{
    tide_model_stats *st = &m->stats;
    st->predicted++;
    st->sum_sq_err += (pred - load) * (pred - load);
    if (load == 0) return; /* no percentage error against a zero load */
    double ape = fabs(pred - load) / fabs(load);
    st->n_ape++;
    st->sum_ape += ape;
    m->ape[(m->ape_head + m->ape_n) % m->p.window] = ape;
    if (m->ape_n < m->p.window)
        m->ape_n++;
    else
        m->ape_head = (m->ape_head + 1) % m->p.window;
    double s = 0;
    for (int i = 0; i < m->ape_n; i++)
        s += m->ape[i];
    st->rolling_n = m->ape_n;
    st->rolling_mape = s / m->ape_n;
}

int tide_model_observe(tide_model *m, const tide_phase_obs *obs)
{
    if (!m || !obs || obs->tasks.ntasks < 0 || obs->tasks.nfeat < 0) return TIDE_PRED_ERR_INVALID;
    const tide_task_set *known =
        obs->tasks.ntasks > 0 && (obs->tasks.nfeat == 0 || obs->tasks.features) ? &obs->tasks
                                                                                : NULL;
    double pred;
    int rc = tide_model_predict_phase(m, known, &pred);
    if (rc < 0) return rc;
    if (rc == TIDE_PRED_OK && isfinite(obs->load)) {
        score(m, pred, obs->load);
        if (m->fell_back) m->stats.fallbacks++;
    }
    append_load(m, obs->load);
    m->stats.phases++;
    if (m->ops->observe) {
        rc = m->ops->observe(m->state, obs);
        if (rc != TIDE_PRED_OK) return rc;
    }
    if (!m->trained) {
        if (m->stats.phases >= m->p.train) return tide_model_train(m);
        return TIDE_PRED_OK;
    }
    if (rc == TIDE_PRED_OK && m->ape_n > 0 && m->stats.rolling_mape > m->p.retrain_err) {
        m->stats.retrains++;
        return tide_model_train(m);
    }
    return TIDE_PRED_OK;
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
    return m && m->trained;
}

int tide_model_fell_back(const tide_model *m)
{
    return m && m->fell_back;
}

const char *tide_model_fallback_reason(const tide_model *m)
{
    return m ? m->reason : "";
}

int tide_model_retrains(const tide_model *m)
{
    return m ? m->stats.retrains : 0;
}

int tide_model_coefficients(const tide_model *m, double *out, int max)
{
    if (!m || (max > 0 && !out) || max < 0) return TIDE_PRED_ERR_INVALID;
    if (!m->trained || m->persistence || !m->ops->coefficients) return 0;
    return m->ops->coefficients(m->state, out, max);
}

const char *tide_model_name(const tide_model *m)
{
    return m ? m->ops->name : "";
}
