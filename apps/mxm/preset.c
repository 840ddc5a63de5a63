/* Imbalance presets. One overloaded ("heavy") rank per group of eight ranks carries (1 + R)
 * times the average task count; the other ranks share the rest evenly. With every task of the
 * same cost, max/avg - 1 is then exactly R, up to rounding, for any rank count, and the total
 * work is the same for every preset, so times of different presets compare. R cannot exceed
 * nranks/heavy - 1 (every task on the heavy ranks); a preset asking for more is capped there. */
#include "preset.h"

#include <math.h>

static const double nominal[MXM_IMB_CASES] = {0.0, 0.5, 1.5, 3.0};

double mxm_preset_nominal(int imb)
{
    return imb >= 0 && imb < MXM_IMB_CASES ? nominal[imb] : -1.0;
}

/* Heavy ranks are 0, 8, 16, ...: one per eight ranks, spread over the job so that on a cluster
 * they do not all share a node. */
static int heavy_count(int nranks)
{
    return nranks >= 16 ? nranks / 8 : 1;
}

static int is_heavy(int rank, int heavy)
{
    return rank % 8 == 0 && rank / 8 < heavy;
}

int mxm_preset_counts(int imb, int nranks, int base, int *counts, double *target)
{
    if (imb < 0 || imb >= MXM_IMB_CASES || nranks < 1 || base < 1) return -1;
    long total = (long)nranks * base;
    if (imb == 0 || nranks == 1) {
        for (int r = 0; r < nranks; r++)
            counts[r] = base;
        *target = 0.0;
        return imb != 0 && nranks == 1;
    }
    int heavy = heavy_count(nranks);
    double r_max = (double)nranks / heavy - 1.0;
    double r = nominal[imb] <= r_max ? nominal[imb] : r_max;
    long per_heavy = lround((1.0 + r) * base);
    if (per_heavy * heavy > total) per_heavy = total / heavy;
    long rest = total - per_heavy * heavy;
    int light = nranks - heavy;
    long q = rest / light, extra = rest % light;
    for (int rk = 0, li = 0; rk < nranks; rk++) {
        if (is_heavy(rk, heavy)) {
            counts[rk] = (int)per_heavy;
        } else {
            counts[rk] = (int)(q + (li < extra));
            li++;
        }
    }
    *target = r;
    return r < nominal[imb];
}

double mxm_counts_imbalance(const int *counts, int nranks)
{
    long sum = 0;
    int max = 0;
    for (int r = 0; r < nranks; r++) {
        sum += counts[r];
        if (counts[r] > max) max = counts[r];
    }
    if (sum == 0) return 0.0;
    return (double)max * nranks / (double)sum - 1.0;
}
