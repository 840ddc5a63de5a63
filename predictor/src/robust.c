/* Rolling errors, medians, the spike filter and the envelope guard (see robust.h). */
#include "robust.h"

#include <math.h>
#include <stdlib.h>

void tide_ring_reset(tide_err_ring *r, int cap)
{
    r->cap = cap < 1 ? 1 : cap > TIDE_ERR_WINDOW_MAX ? TIDE_ERR_WINDOW_MAX : cap;
    r->n = r->head = 0;
    r->mean = INFINITY;
}

void tide_ring_push(tide_err_ring *r, double pred, double load)
{
    int slot = (r->head + r->n) % r->cap;
    if (r->n == r->cap)
        r->head = (r->head + 1) % r->cap;
    else
        r->n++;
    r->abs[slot] = fabs(pred - load);
    r->ape[slot] = load != 0 ? fabs(pred - load) / fabs(load) : NAN;
    double s = 0;
    /* In age order, as it always summed (the same rounding), without a division per value. */
    for (int i = 0, k = r->head; i < r->n; i++, k = k + 1 == r->cap ? 0 : k + 1)
        s += r->abs[k];
    r->mean = s / r->n;
}

double tide_ring_mean_abs(const tide_err_ring *r)
{
    return r->mean;
}

/* The middle of three and of five finite values without sorting them: the error windows hold
 * five values by default and median-of-three is a baseline, so these are nearly every call
 * (four or five a phase). The same value the sort gives: an odd count's median is an element. */
static double mid3(double a, double b, double c)
{
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* Six comparisons: of the pairs (a < b) and (c < d), the lesser of a and c has three larger
 * values, so it is the least or the second least of the five, never the median; e takes its
 * place, and the median of the five is then the second least of the four. */
static double mid5(const double *v)
{
    double a = v[0], b = v[1], c = v[2], d = v[3], t;
    if (a > b) t = a, a = b, b = t;
    if (c > d) t = c, c = d, d = t;
    if (a < c) {
        a = v[4];
        if (a > b) t = a, a = b, b = t;
    } else {
        c = v[4];
        if (c > d) t = c, c = d, d = t;
    }
    return a < c ? fmin(b, c) : fmin(a, d);
}

double tide_median_finite(const double *v, int n)
{
    if (n == 3 && isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2])) return mid3(v[0], v[1], v[2]);
    if (n == 5 && isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) && isfinite(v[3]) &&
        isfinite(v[4]))
        return mid5(v);
    double s[TIDE_ERR_WINDOW_MAX];
    int k = 0;
    for (int i = 0; i < n && k < TIDE_ERR_WINDOW_MAX; i++)
        if (isfinite(v[i])) s[k++] = v[i];
    if (k == 0) return NAN;
    /* At most 64 finite values, called several times a phase: insertion sort takes a tenth of
     * qsort's time at these sizes (glibc's merge sort through a comparison pointer), and the
     * predictor's medians were half of an empty inline phase (docs/performance.md, 15). */
    for (int i = 1; i < k; i++) {
        double x = s[i];
        int j = i;
        for (; j > 0 && s[j - 1] > x; j--)
            s[j] = s[j - 1];
        s[j] = x;
    }
    return k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
}

/* The ring's values in age order are irrelevant to a median: the storage order will do. */
double tide_ring_median_abs(const tide_err_ring *r)
{
    return r->n == 0 ? 0.0 : tide_median_finite(r->abs, r->n);
}

double tide_ring_median_ape(const tide_err_ring *r, int *n)
{
    int k = 0;
    for (int i = 0; i < r->n; i++)
        k += isfinite(r->ape[i]);
    *n = k;
    return k == 0 ? 0.0 : tide_median_finite(r->ape, r->n);
}

/* 3 robust standard deviations: beyond them a Gaussian series strays 0.3% of the time. */
#define SPIKE_MAD_SIGMAS 3.0
#define MAD_TO_SIGMA 1.4826

static int suspect(double factor, double x, double level, double sigma)
{
    if (!(level > 0) || !isfinite(x)) return 0;
    int far = x > level * factor || x < level / factor;
    return far && fabs(x - level) > SPIKE_MAD_SIGMAS * sigma;
}

double tide_spike_filter_step(tide_spike_filter *f, const double *clean, int n, double x,
                              int *restore)
{
    *restore = 0;
    if (f->factor == 0) return x;
    if (f->pending) {
        f->pending = 0;
        /* Nearer the suspect value than the level it left: the level moved. */
        if (isfinite(x) && fabs(x - f->pending_raw) < fabs(x - f->pending_level)) {
            *restore = 1;
            f->steps++;
            f->fresh = 2;
            return x; /* the step's second load is the new level, not a suspect */
        }
        f->spikes++;
    }
    /* Since a step, only the loads after it say what the level is. */
    if (f->fresh > 0 && f->fresh < n) clean += n - f->fresh, n = f->fresh;
    if (f->fresh > 0) f->fresh = f->fresh < TIDE_ERR_WINDOW_MAX ? f->fresh + 1 : 0;
    if (n < 2 || (n < 3 && f->fresh <= 0) || !isfinite(x)) return x;
    if (n > TIDE_ERR_WINDOW_MAX) clean += n - TIDE_ERR_WINDOW_MAX, n = TIDE_ERR_WINDOW_MAX;
    double level = tide_median_finite(clean, n);
    double dev[TIDE_ERR_WINDOW_MAX];
    for (int i = 0; i < n; i++)
        dev[i] = fabs(clean[i] - level);
    double sigma = MAD_TO_SIGMA * tide_median_finite(dev, n);
    if (!suspect(f->factor, x, level, sigma)) return x;
    f->pending = 1;
    f->pending_raw = x;
    f->pending_level = level;
    return level;
}

int tide_guard_inside(double v, const double *recent, int n, double g)
{
    if (g == 0) return 1;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (!isfinite(recent[i])) continue;
        if (recent[i] < lo) lo = recent[i];
        if (recent[i] > hi) hi = recent[i];
    }
    if (hi < lo) return 1; /* nothing to compare with */
    return v >= lo / g && v <= hi * g;
}
