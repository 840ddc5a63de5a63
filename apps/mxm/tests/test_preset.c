/* The imbalance presets: equal total work, and a baseline R_imb from the task counts within
 * 10% of the nominal value (or of the cap, where the rank count cannot reach the nominal). */
#include "../preset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void check(int imb, int nranks, int base)
{
    int *c = malloc((size_t)nranks * sizeof *c);
    double target = -1;
    int capped = mxm_preset_counts(imb, nranks, base, c, &target);
    long sum = 0;
    int neg = 0;
    for (int r = 0; r < nranks; r++)
        sum += c[r], neg |= c[r] < 0;
    double nominal = mxm_preset_nominal(imb), r_imb = mxm_counts_imbalance(c, nranks);
    double cap = nranks / (nranks >= 16 ? nranks / 8.0 : 1.0) - 1.0;
    double want = nominal <= cap ? nominal : cap;
    int bad = capped < 0 || neg || sum != (long)nranks * base || fabs(target - want) > 1e-12 ||
              capped != (nominal > cap) || fabs(r_imb - want) > 0.1 * want + 1e-12;
    if (bad) {
        failures++;
        fprintf(stderr,
                "FAIL imb %d ranks %d base %d: sum %ld (want %ld), R_imb %.4f (want %.4f), "
                "capped %d\n",
                imb, nranks, base, sum, (long)nranks * base, r_imb, want, capped);
    }
    free(c);
}

int main(void)
{
    int bases[] = {2, 4, 8, 16, 56, 11, 13, 101};
    for (int imb = 0; imb < MXM_IMB_CASES; imb++)
        for (int p = 2; p <= 130; p++)
            for (size_t b = 0; b < sizeof bases / sizeof *bases; b++)
                check(imb, p, bases[b]);

    /* The documented 8-rank numbers with 16 tasks per rank. */
    int c[8];
    double target;
    mxm_preset_counts(3, 8, 16, c, &target);
    if (c[0] != 64 || c[1] != 64 / 7 + 1 || c[7] != 64 / 7 || mxm_counts_imbalance(c, 8) != 3.0) {
        fprintf(stderr, "FAIL Imb.3 on 8 ranks: %d %d ... %d\n", c[0], c[1], c[7]);
        failures++;
    }
    if (mxm_preset_counts(4, 8, 16, c, &target) != -1 ||
        mxm_preset_counts(1, 8, 0, c, &target) != -1) {
        fprintf(stderr, "FAIL bad arguments accepted\n");
        failures++;
    }
    if (failures) return 1;
    printf("presets ok\n");
    return 0;
}
