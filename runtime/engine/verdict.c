/* The plain-language verdict printed at finalize beside the summary numbers: how much time the
 * run lost to imbalance and how much of that the balancer got back. The balancer has no run
 * without it to compare with, so the unbalanced time is estimated from what every rank owned
 * (docs/stats.md, "The verdict"):
 *   per phase  U = max_i L_i / threads   each rank runs exactly its own tasks, perfectly packed
 *              I = ideal                 max(sum L / (ranks x threads), longest task)
 *              A = max_i W_i             what the run achieved
 *   run        sums over the phases; saving = (U - I) / U, recovered = (U - A) / (U - I).
 * stats.c computes the totals (tide_stats_verdict); this file only puts them into words. */
#include "internal.h"

#include <math.h>
#include <string.h>

void tide_verdict_format(const tide_verdict *v, const char *lb, char *out, size_t len)
{
    if (v->unbalanced <= 0) {
        snprintf(out, len, "tide: verdict: no task ran, nothing to balance");
        return;
    }
    if (v->balanced) {
        snprintf(out, len,
                 "tide: verdict: the ranks' own loads were balanced (perfect balance would save "
                 "%.0f%%); lb=%s moved %lld tasks, the time above ideal is %.0f%%",
                 100 * v->saving, lb, (long long)v->moved, 100 * v->remaining);
        return;
    }
    char got[128];
    if (v->recovered <= 0 && v->achieved > v->unbalanced * 1.005)
        snprintf(got, sizeof got,
                 "recovered none of that (the run took %.0f%% longer than its own loads need)",
                 100 * (v->achieved - v->unbalanced) / v->unbalanced);
    else if (v->recovered <= 0)
        snprintf(got, sizeof got, "recovered none of that");
    else
        snprintf(got, sizeof got, "recovered %.0f%% of that", 100 * fmin(v->recovered, 1.0));
    snprintf(out, len,
             "tide: verdict: imbalance: perfect balance would save %.0f%% of the %.3f s the ranks' "
             "own loads need; lb=%s %s by moving %lld tasks; %.0f%% of the time is still above "
             "ideal%s",
             100 * v->saving, v->unbalanced, lb, got, (long long)v->moved, 100 * v->remaining,
             strcmp(lb, "none") == 0 ? " (balancing is off: try TIDE_LB=react or proact)" : "");
}
