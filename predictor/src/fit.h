/* Linear least squares for the built-in models: one entry point over the three solvers. */
#ifndef TIDE_PRED_FIT_H
#define TIDE_PRED_FIT_H

#include "tide_predictor.h"

/* Fits y ~ coef[0] + sum_j coef[1+j] * X[i][j] over the rows of X (n x p, row-major) whose
 * values are all finite. coef has p+1 entries, in the data's units; a feature that is constant
 * over the rows gets coefficient 0. Returns TIDE_PRED_OK, TIDE_PRED_DEGENERATE with a reason in
 * why (too few rows, every feature constant, singular system for the robust solver, solver
 * failure, non-finite result), or TIDE_PRED_ERR_NOMEM. */
int tide_fit_linear(tide_solver solver, const double *X, const double *y, int n, int p,
                    double *coef, char *why, size_t whylen);

/* coef[0] + sum_j coef[1+j] * x[j]. */
double tide_fit_eval(const double *coef, const double *x, int p);

#endif
