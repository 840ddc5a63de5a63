/* Least squares with GSL for the built-in models.
 *
 * Why this shape:
 * - Features are standardized (centered, divided by their standard deviation) before solving.
 *   Load histories are nearly constant (a rank's load moves by a few percent around a large
 *   mean), so raw lag columns are almost parallel to the intercept column and to each other; in
 *   standardized form only the variation is left and the system is well conditioned. The label
 *   is centered too, so the intercept is its mean and is never shrunk by the ridge penalty.
 * - Default solver "ols": gsl_multifit_linear_tsvd, i.e. the SVD least-squares solution with
 *   singular values below 1e-8 of the largest dropped. On full-rank data it equals plain OLS
 *   (exact AR recovery, cheapest: one SVD); on exactly collinear data (a load that alternates
 *   with period 2 makes lag 1 == lag 3) it returns the minimum-norm solution, which predicts
 *   correctly in the data's span, instead of the huge cancelling coefficients of plain OLS.
 * - "ridge": gsl_multifit_linear_solve with lambda chosen by generalized cross-validation
 *   (gsl_multifit_linear_gcv_calc over our own grid, see gcv_lambda). Trades a little bias for
 * variance when samples barely outnumber features (the task model with polynomial terms); costs ~a
 * few SVD solves.
 * - "robust": gsl_multifit_robust with bisquare weights, for runs where a few phases are hit by
 *   OS noise or I/O and would drag an OLS fit. Iterative (several weighted fits), needs a
 *   non-singular design, and is the most expensive.
 * GSL's error handler must be off (tide_model_create does it): every return code is checked
 * here and a failure becomes TIDE_PRED_DEGENERATE, never an abort. */
#include "fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TSVD_TOL 1e-8
#define ROBUST_MIN_RCOND 1e-10
#define GCV_POINTS 40

static int row_finite(const double *x, int p, double y)
{
    if (!isfinite(y)) return 0;
    for (int j = 0; j < p; j++)
        if (!isfinite(x[j])) return 0;
    return 1;
}

static int degenerate(char *why, size_t len, const char *msg, double v)
{
    if (why && len) snprintf(why, len, msg, v);
    return TIDE_PRED_DEGENERATE;
}

/* Column statistics over the valid rows; keep[j] says whether feature j varies. */
static int column_stats(const double *X, const double *y, const char *valid, int n, int p,
                        double *mean, double *sd, char *keep, double *ymean)
{
    int nv = 0;
    double ys = 0;
    for (int j = 0; j < p; j++)
        mean[j] = sd[j] = 0;
    for (int i = 0; i < n; i++) {
        if (!valid[i]) continue;
        nv++;
        ys += y[i];
        for (int j = 0; j < p; j++)
            mean[j] += X[(size_t)i * p + j];
    }
    *ymean = ys / nv;
    for (int j = 0; j < p; j++)
        mean[j] /= nv;
    for (int i = 0; i < n; i++) {
        if (!valid[i]) continue;
        for (int j = 0; j < p; j++) {
            double d = X[(size_t)i * p + j] - mean[j];
            sd[j] += d * d;
        }
    }
    int q = 0;
    for (int j = 0; j < p; j++) {
        sd[j] = sqrt(sd[j] / nv);
        /* Relative test: a column that only moves by rounding is constant. */
        keep[j] = sd[j] > 0 && sd[j] > 1e-10 * fabs(mean[j]);
        q += keep[j];
    }
    return q;
}

/* GSL's own GCV grid stops at the smallest singular value, so on correlated lags (every AR
 * load history) it cannot pick a lambda below it and shrinks even a well-determined fit. Search
 * a log grid from smax * 1e-8 (no regularization) to smax (heavy) instead. */
static double gcv_lambda(double smax, const gsl_vector *uty, double delta0,
                         gsl_multifit_linear_workspace *w)
{
    double best = 0, best_g = INFINITY;
    for (int i = 0; i < GCV_POINTS; i++) {
        double lambda = smax * pow(10.0, -8.0 + 8.0 * i / (GCV_POINTS - 1));
        double g = gsl_multifit_linear_gcv_calc(lambda, uty, delta0, w);
        if (isfinite(g) && g < best_g) best_g = g, best = lambda;
    }
    return best;
}

static int solve(tide_solver solver, const gsl_matrix *Z, const gsl_vector *yv, gsl_vector *c,
                 char *why, size_t len)
{
    size_t nv = Z->size1, q = Z->size2;
    int rc = GSL_SUCCESS;
    if (solver == TIDE_SOLVER_ROBUST) {
        gsl_multifit_linear_workspace *lw = gsl_multifit_linear_alloc(nv, q);
        gsl_multifit_robust_workspace *rw =
            gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, nv, q);
        gsl_matrix *cov = gsl_matrix_alloc(q, q);
        if (!lw || !rw || !cov) rc = GSL_ENOMEM;
        if (rc == GSL_SUCCESS) rc = gsl_multifit_linear_svd(Z, lw);
        double rcond = rc == GSL_SUCCESS ? gsl_multifit_linear_rcond(lw) : 0;
        if (rc == GSL_SUCCESS && !(rcond > ROBUST_MIN_RCOND)) {
            gsl_multifit_linear_free(lw), gsl_multifit_robust_free(rw), gsl_matrix_free(cov);
            return degenerate(why, len, "singular design matrix for the robust solver (rcond %g)",
                              rcond);
        }
        if (rc == GSL_SUCCESS) rc = gsl_multifit_robust(Z, yv, c, cov, rw);
        if (lw) gsl_multifit_linear_free(lw);
        if (rw) gsl_multifit_robust_free(rw);
        if (cov) gsl_matrix_free(cov);
    } else {
        gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(nv, q);
        if (!w) return TIDE_PRED_ERR_NOMEM;
        if (solver == TIDE_SOLVER_OLS) {
            gsl_matrix *cov = gsl_matrix_alloc(q, q);
            double chisq;
            size_t rank = 0;
            rc = cov ? gsl_multifit_linear_tsvd(Z, yv, TSVD_TOL, c, cov, &chisq, &rank, w)
                     : GSL_ENOMEM;
            if (cov) gsl_matrix_free(cov);
            if (rc == GSL_SUCCESS && rank == 0) rc = GSL_ESING;
        } else {
            gsl_vector *reg = gsl_vector_alloc(GCV_POINTS), *uty = gsl_vector_alloc(q);
            double lambda = 0, delta0, rnorm, snorm;
            rc = reg && uty ? gsl_multifit_linear_svd(Z, w) : GSL_ENOMEM;
            if (rc == GSL_SUCCESS) rc = gsl_multifit_linear_gcv_init(yv, reg, uty, &delta0, w);
            if (rc == GSL_SUCCESS) lambda = gcv_lambda(gsl_vector_get(reg, 0), uty, delta0, w);
            if (rc == GSL_SUCCESS)
                rc = gsl_multifit_linear_solve(lambda, Z, yv, c, &rnorm, &snorm, w);
            if (reg) gsl_vector_free(reg);
            if (uty) gsl_vector_free(uty);
        }
        gsl_multifit_linear_free(w);
    }
    if (rc == GSL_ENOMEM) return TIDE_PRED_ERR_NOMEM;
    if (rc != GSL_SUCCESS) {
        if (why && len)
            snprintf(why, len, "%s solver failed: %s", tide_solver_name(solver), gsl_strerror(rc));
        return TIDE_PRED_DEGENERATE;
    }
    return TIDE_PRED_OK;
}

int tide_fit_linear(tide_solver solver, const double *X, const double *y, int n, int p,
                    double *coef, char *why, size_t whylen)
{
    if (n < 0 || p < 0 || (n > 0 && (!X || !y)) || !coef) return TIDE_PRED_ERR_INVALID;
    char *valid = malloc((size_t)n + 1);
    double *mean = malloc(sizeof(double) * ((size_t)p + 1));
    double *sd = malloc(sizeof(double) * ((size_t)p + 1));
    char *keep = malloc((size_t)p + 1);
    if (!valid || !mean || !sd || !keep) {
        free(valid), free(mean), free(sd), free(keep);
        return TIDE_PRED_ERR_NOMEM;
    }
    int nv = 0;
    for (int i = 0; i < n; i++)
        nv += valid[i] = (char)row_finite(X + (size_t)i * p, p, y[i]);

    int rc = TIDE_PRED_OK, q = 0;
    double ymean = 0;
    if (nv == 0)
        rc = degenerate(why, whylen, "no finite samples (%g usable rows)", 0);
    else if ((q = column_stats(X, y, valid, n, p, mean, sd, keep, &ymean)) == 0)
        rc = degenerate(why, whylen,
                        "every feature is constant over %g samples (e.g. constant "
                        "loads): nothing to learn",
                        nv);
    else if (nv < q + 2)
        rc = degenerate(why, whylen, "too few finite samples (%g) for the coefficients", nv);
    if (rc != TIDE_PRED_OK) goto out;

    /* The robust fit needs its own intercept column: centering by the mean is not robust. */
    int robust = solver == TIDE_SOLVER_ROBUST;
    size_t cols = (size_t)q + (size_t)robust;
    gsl_matrix *Z = gsl_matrix_alloc((size_t)nv, cols);
    gsl_vector *yv = gsl_vector_alloc((size_t)nv), *c = gsl_vector_alloc(cols);
    if (!Z || !yv || !c) {
        rc = TIDE_PRED_ERR_NOMEM;
    } else {
        size_t r = 0;
        for (int i = 0; i < n; i++) {
            if (!valid[i]) continue;
            size_t k = 0;
            if (robust) gsl_matrix_set(Z, r, k++, 1.0);
            for (int j = 0; j < p; j++)
                if (keep[j]) gsl_matrix_set(Z, r, k++, (X[(size_t)i * p + j] - mean[j]) / sd[j]);
            gsl_vector_set(yv, r, robust ? y[i] : y[i] - ymean);
            r++;
        }
        rc = solve(solver, Z, yv, c, why, whylen);
    }
    if (rc == TIDE_PRED_OK) {
        double intercept = robust ? gsl_vector_get(c, 0) : ymean;
        size_t k = (size_t)robust;
        for (int j = 0; j < p; j++) {
            double b = keep[j] ? gsl_vector_get(c, k++) / sd[j] : 0.0;
            coef[1 + j] = b;
            intercept -= b * mean[j];
        }
        coef[0] = intercept;
        for (int j = 0; j <= p; j++)
            if (!isfinite(coef[j]))
                rc = degenerate(why, whylen, "the fit produced a non-finite coefficient (%g)",
                                coef[j]);
    }
    if (Z) gsl_matrix_free(Z);
    if (yv) gsl_vector_free(yv);
    if (c) gsl_vector_free(c);
out:
    free(valid), free(mean), free(sd), free(keep);
    return rc;
}

double tide_fit_eval(const double *coef, const double *x, int p)
{
    double s = coef[0];
    for (int j = 0; j < p; j++)
        s += coef[1 + j] * x[j];
    return s;
}
