/* Predictor internals shared between files; never included by users. */
#ifndef TIDE_PRED_INTERNAL_H
#define TIDE_PRED_INTERNAL_H

#include "tide_predictor.h"

extern const tide_model_ops tide_model_rank_ops;
extern const tide_model_ops tide_model_task_ops;

/* The task model's coefficients as task_coefficients gives them, with NaN for the columns
 * that never varied in its last fit (their coefficient is not known, not 0). */
int tide_task_model_known(const void *state, double *out, int max);
/* The range of single task times the task model's last fit was trained on: 1 and lo, hi, or 0
 * without a fit. */
int tide_task_model_range(const void *state, double *lo, double *hi);
/* The task model's per-task times for a task set under given coefficients (intercept first,
 * then each feature's powers 1..degree), as its own fit would give them. */
int tide_task_model_eval(int degree, const double *coef, int ncoef, const tide_task_set *tasks,
                         double *times);

#endif
