/* The plain-language verdict printed at finalize beside the summary numbers: how much time the
 * run lost to imbalance and how much of that the balancer got back. The balancer has no run
 * without it to compare with, so the unbalanced time is estimated from what every rank owned
 * (docs/stats.md, "The verdict"):
 *   per phase  U = max_i L_i / threads   each rank runs exactly its own tasks, perfectly packed
 *              I = ideal                 max(sum L / (ranks x threads), longest task)
 *              A = max_i W_i             what the run achieved
 *   run        sums over the phases; saving = (U - I) / U, recovered = (U - A) / (U - I). */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Below this share of U, the run counts as balanced already: no recovery ratio is meaningful. */
#define TIDE_VERDICT_BALANCED 0.02

tide_verdict tide_stats_verdict(const tide_phase_log *log, int threads)
{
    tide_verdict v;
    memset(&v, 0, sizeof v);
    for (int p = 0; p < log->nphases; p++) {
        tide_phase_stats ps;
        tide_stats_compute(log, p, threads, 0, &ps);
        const tide_rank_record *r = log->records + (size_t)p * (size_t)log->nranks;
        double own_max = 0;
        for (int i = 0; i < log->nranks; i++)
            own_max = fmax(own_max, r[i].L / threads);
        /* A rank whose own load fits within the ideal still needs the ideal's time. */
        v.unbalanced += fmax(own_max, ps.ideal);
        v.ideal += ps.ideal;
        v.achieved += ps.W_max;
        v.moved += ps.offloaded;
    }
    v.saving = v.unbalanced > 0 ? (v.unbalanced - v.ideal) / v.unbalanced : 0;
    v.balanced = v.saving < TIDE_VERDICT_BALANCED;
    v.recovered = v.balanced ? 0 : (v.unbalanced - v.achieved) / (v.unbalanced - v.ideal);
    v.remaining = v.achieved > 0 ? fmax(v.achieved - v.ideal, 0) / v.achieved : 0;
    return v;
}

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
    char got[96];
    if (v->recovered <= 0)
        snprintf(got, sizeof got, "recovered none of that (%.0f%%)", 100 * v->recovered);
    else
        snprintf(got, sizeof got, "recovered %.0f%% of that", 100 * fmin(v->recovered, 1.0));
    snprintf(out, len,
             "tide: verdict: imbalance: perfect balance would save %.0f%% of the %.3f s the ranks' "
             "own loads need; lb=%s %s by moving %lld tasks; %.0f%% of the time is still above "
             "ideal%s",
             100 * v->saving, v->unbalanced, lb, got, (long long)v->moved, 100 * v->remaining,
             strcmp(lb, "none") == 0 ? " (balancing is off: try TIDE_LB=react or proact)" : "");
}
