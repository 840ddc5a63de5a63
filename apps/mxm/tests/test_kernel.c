/* The result checks of --verify accept a right C and reject a wrong, stale or foreign one. */
#include "../kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "FAIL %s\n", what);
        failures++;
    }
}

int main(void)
{
    int n = 37;
    size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    double *ref = malloc(nn * sizeof *ref), *other = malloc(nn * sizeof *other);
    mxm_fill(n, 1, 10, a);
    mxm_fill(n, 1, 11, b);
    mxm_fill(n, 1, 12, other);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            ref[i * n + j] = s;
        }
    mxm_multiply(n, a, b, c);
    double maxdiff = 0;
    for (size_t k = 0; k < nn; k++)
        maxdiff = fmax(maxdiff, fabs(c[k] - ref[k]));
    expect(maxdiff < 1e-12, "dgemm agrees with the triple loop");
    expect(mxm_check(MXM_KERNEL_COMPUTE, n, a, b, c) == 0, "right product accepted");
    c[5 * n + 7] += 1e-6;
    expect(mxm_check(MXM_KERNEL_COMPUTE, n, a, b, c) != 0, "one perturbed entry rejected");
    expect(mxm_check(MXM_KERNEL_COMPUTE, n, a, other, ref) != 0, "another task's C rejected");
    c[0] = NAN;
    expect(mxm_check(MXM_KERNEL_COMPUTE, n, a, b, c) != 0, "NaN (never written) rejected");

    mxm_sleep_result(n, a, b, c);
    expect(mxm_check(MXM_KERNEL_SLEEP, n, a, b, c) == 0, "sleep result accepted");
    c[nn - 1] = 0;
    expect(mxm_check(MXM_KERNEL_SLEEP, n, a, b, c) != 0, "wrong sleep result rejected");

    double t0 = mxm_now();
    mxm_sleep_until(t0, 0.02);
    double dt = mxm_now() - t0;
    expect(dt >= 0.02 && dt < 0.5, "sleep_until sleeps the requested time");
    expect(mxm_calibrate(64) > 0, "calibration measures a positive time");
    free(a), free(b), free(c), free(ref), free(other);
    if (failures) return 1;
    printf("kernel ok\n");
    return 0;
}
