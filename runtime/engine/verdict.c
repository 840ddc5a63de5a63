/* The plain-language verdict printed at finalize below the summary line, in the summary's time
 * base (the sum of the phases' times): how much time the run lost to imbalance and how much of
 * that the balancer got back. The balancer has no run without it to compare with, so the
 * unbalanced time is estimated from what every rank owned (docs/stats.md, "The verdict"):
 *   per phase  U = max(max_i L_i / threads, I)  each rank runs exactly its own tasks, packed
 *              I = ideal                        max(sum L / (ranks x threads), longest task)
 *              A = the phase's time             what the run took (the summary line's time)
 *   run        sums over the phases; saving = (U - I) / U, recovered = (U - A) / (U - I).
 * stats.c computes the totals (tide_stats_verdict); this file only puts them into words. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* What lb did with the imbalance, after "lb=X took A s". */
static void outcome(const tide_verdict *v, const char *lb, char *out, size_t len)
{
    if (strcmp(lb, "none") == 0)
        snprintf(out, len, "balancing is off: try TIDE_LB=react or proact");
    else if (v->recovered > 0)
        snprintf(out, len, "which recovers %.0f%% of that saving by moving %lld tasks",
                 100 * fmin(v->recovered, 1.0), (long long)v->moved);
    else
        snprintf(out, len,
                 "no less than that estimate, though it moved %lld tasks: balancing did not pay "
                 "here, or the estimate (a lower bound) is low; compare with a TIDE_LB=none run",
                 (long long)v->moved);
}

void tide_verdict_format(const tide_verdict *v, const char *lb, char *out, size_t len)
{
    if (v->unbalanced <= 0) {
        snprintf(out, len, "tide: verdict: no task ran, nothing to balance");
        return;
    }
    if (v->too_short) {
        snprintf(out, len,
                 "tide: verdict: too short to judge: %.3f s in %d phases, %.2f ms of the ranks' "
                 "own work a phase; below %.2f s or %.0f ms a phase the runtime's own costs and "
                 "the timer's noise weigh as much as the work (run more or longer phases)",
                 v->achieved, v->phases, 1e3 * v->unbalanced / v->phases, TIDE_VERDICT_MIN_TIME,
                 1e3 * TIDE_VERDICT_MIN_PHASE);
        return;
    }
    if (v->balanced) {
        snprintf(out, len,
                 "tide: verdict: the ranks' own loads were balanced (perfect balance would save "
                 "%.0f%%); lb=%s took %.3f s against the ideal %.3f s, moving %lld tasks",
                 100 * v->saving, lb, v->achieved, v->ideal, (long long)v->moved);
        return;
    }
    char what[256];
    outcome(v, lb, what, sizeof what);
    snprintf(out, len,
             "tide: verdict: imbalance: perfect balance would save %.0f%% of the %.3f s the ranks' "
             "own loads need without balancing (ideal %.3f s); lb=%s took %.3f s, %s",
             100 * v->saving, v->unbalanced, v->ideal, lb, v->achieved, what);
}
