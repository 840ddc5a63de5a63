/* The robust median (robust.c) against a plain sort: every count up to 9, values drawn from a
 * set of seven (ties everywhere) and from doubles, with and without NaN/infinite values (they are
 * left out). The fast paths for three and five finite values must give the sort's element. */
#include "../src/robust.h"
#include "testutil.h"

static double reference(const double *v, int n)
{
    double s[16];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) s[k++] = v[i];
    if (k == 0) return NAN;
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1], s[j - 1] = t;
        }
    return k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
}

int main(void)
{
    rng r = {12345};
    long checked = 0;
    for (int it = 0; it < 400000; it++) {
        int n = 1 + it % 9;
        double v[9];
        for (int i = 0; i < n; i++) {
            double u = rng_uniform(&r);
            v[i] = it % 3 == 0 ? (double)(int)(u * 7) - 2 : 1e3 * (u - 0.3);
            if (it % 11 == 0 && u < 0.2) v[i] = u < 0.1 ? NAN : INFINITY;
        }
        double got = tide_median_finite(v, n), want = reference(v, n);
        CHECK((isnan(got) && isnan(want)) || got == want, "n=%d: %.17g, the sort gives %.17g", n,
              got, want);
        checked++;
    }
    printf("test_median: %ld medians as the sort gives them\n", checked);
    return 0;
}
