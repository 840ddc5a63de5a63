/* The "rank" model (the proactive paper's main scheme): the next load of this rank from its
 * last k loads plus an intercept, L^I ~ c0 + c1 L^{I-1} + ... + ck L^{I-k}. */
#include "fit.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct rank_model {
    tide_solver solver;
    int k;
    int fitted;
    double *coef; /* k + 1: intercept, lag 1 .. lag k */
    double *x;    /* scratch: one sample's lags */
} rank_model;

static int rank_create(const tide_model_params *p, void **state)
{
    rank_model *r = calloc(1, sizeof *r);
    if (!r) return TIDE_PRED_ERR_NOMEM;
    r->solver = p->solver;
    r->k = p->window;
    r->coef = calloc((size_t)r->k + 1, sizeof(double));
    r->x = calloc((size_t)r->k, sizeof(double));
    if (!r->coef || !r->x) {
        free(r->coef), free(r->x), free(r);
        return TIDE_PRED_ERR_NOMEM;
    }
    *state = r;
    return TIDE_PRED_OK;
}

/* Sample t: features loads[t-1], ..., loads[t-k] (lag 1 first), label loads[t]. */
static int rank_train(void *state, const double *loads, int n, char *why, size_t len)
{
    rank_model *r = state;
    int k = r->k, ns = n - k;
    r->fitted = 0;
    if (ns < k + 2) { /* k + 1 coefficients need more samples than that */
        snprintf(why, len, "too few phases (%d) for %d lags", n, k);
        return TIDE_PRED_NOT_READY;
    }
    double *X = malloc(sizeof(double) * (size_t)ns * (size_t)k);
    if (!X) return TIDE_PRED_ERR_NOMEM;
    for (int s = 0; s < ns; s++)
        for (int j = 0; j < k; j++)
            X[(size_t)s * k + j] = loads[k + s - 1 - j];
    int rc = tide_fit_linear(r->solver, X, loads + k, ns, k, r->coef, why, len);
    free(X);
    r->fitted = rc == TIDE_PRED_OK;
    return rc;
}

static int rank_predict(void *state, const double *loads, int n, const tide_task_set *next,
                        double *out, char *why, size_t len)
{
    (void)next;
    rank_model *r = state;
    if (!r->fitted) {
        snprintf(why, len, "rank model not fitted");
        return TIDE_PRED_DEGENERATE;
    }
    if (n < r->k) {
        snprintf(why, len, "only %d recent loads for %d lags", n, r->k);
        return TIDE_PRED_DEGENERATE;
    }
    for (int j = 0; j < r->k; j++) {
        r->x[j] = loads[n - 1 - j];
        if (!isfinite(r->x[j])) {
            snprintf(why, len, "the load %d phase(s) ago is not finite", j + 1);
            return TIDE_PRED_DEGENERATE;
        }
    }
    *out = tide_fit_eval(r->coef, r->x, r->k);
    return TIDE_PRED_OK;
}

static int rank_coefficients(const void *state, double *out, int max)
{
    const rank_model *r = state;
    if (!r->fitted) return 0;
    int n = r->k + 1 < max ? r->k + 1 : max;
    for (int i = 0; i < n; i++)
        out[i] = r->coef[i];
    return n;
}

static void rank_destroy(void *state)
{
    rank_model *r = state;
    if (!r) return;
    free(r->coef), free(r->x), free(r);
}

const tide_model_ops tide_model_rank_ops = {
    .name = "rank",
    .create = rank_create,
    .train = rank_train,
    .predict = rank_predict,
    .coefficients = rank_coefficients,
    .destroy = rank_destroy,
};
