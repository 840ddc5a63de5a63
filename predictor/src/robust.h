/* The pieces that make a prediction robust, kept apart from the model wrapper so that each is a
 * small pure function with its own test: rolling error rings, medians, the causal spike filter
 * and the envelope guard. docs/predictor.md explains the rules and why they are what they are. */
#ifndef TIDE_PRED_ROBUST_H
#define TIDE_PRED_ROBUST_H

/* The error window: rolling errors kept per candidate, for selection, retraining and the
 * uncertainty. max(TIDE_PRED_WINDOW, TIDE_ERR_WINDOW_MIN), so that a median over it can outvote
 * one spike even with a window of 1 or 2 lags. */
#define TIDE_ERR_WINDOW_MIN 5
#define TIDE_ERR_WINDOW_MAX 64

/* The last `cap` prediction errors of one predictor: absolute errors and absolute percentage
 * errors (NaN where the load was 0, so no percentage exists). */
typedef struct tide_err_ring {
    double abs[TIDE_ERR_WINDOW_MAX];
    double ape[TIDE_ERR_WINDOW_MAX];
    int cap, n, head;
    double mean; /* of abs, made at each push: read several times a phase, changed once */
} tide_err_ring;

void tide_ring_reset(tide_err_ring *r, int cap);
void tide_ring_push(tide_err_ring *r, double pred, double load);
/* Mean absolute error, INFINITY when empty: the selection score (a rare blow-up counts fully). */
double tide_ring_mean_abs(const tide_err_ring *r);
/* Median absolute error, 0 when empty: the uncertainty (a rare spike does not count). */
double tide_ring_median_abs(const tide_err_ring *r);
/* Median absolute percentage error over the finite ones (*n of them): the retrain trigger. */
double tide_ring_median_ape(const tide_err_ring *r, int *n);

/* Median of the finite values among v[0..n) (n <= TIDE_ERR_WINDOW_MAX); NAN when none. */
double tide_median_finite(const double *v, int n);

/* The causal spike filter. A load is suspect when it lies a factor `spike` or more away from the
 * median of the recent clean loads AND more than 3 robust standard deviations (1.4826 x MAD)
 * from it: a level a period-2 oscillation or a drift reaches is not suspect, a one-phase x3 is.
 * A suspect load is replaced by the recent median until the next load decides: back near the
 * old level, it was a spike (it stays replaced); near the suspect value, the level stepped (the
 * suspect value is restored), and the loads before the step no longer define the level. */
typedef struct tide_spike_filter {
    double factor; /* TIDE_PRED_SPIKE; 0: the filter is off */
    int pending;   /* the last load is suspect and undecided */
    double pending_raw, pending_level;
    int fresh;          /* loads since a recent level step (the level is theirs); 0: none */
    long spikes, steps; /* decided so far */
} tide_spike_filter;

/* Filters the new load x given the recent clean loads (oldest first, the suspect one last when
 * f->pending). Returns the clean value of x; when the previous suspect load turned out to be a
 * level step, *restore is set to 1 and the caller puts its raw value back into clean[n-1]. */
double tide_spike_filter_step(tide_spike_filter *f, const double *clean, int n, double x,
                              int *restore);

/* Whether a prediction v lies in the envelope of recent loads: [min / g, max * g] over the
 * finite values of recent[0..n). g = 0 turns the guard off (always inside). */
int tide_guard_inside(double v, const double *recent, int n, double g);

#endif
