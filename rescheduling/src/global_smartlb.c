/*
 * global_smartlb.c - SmartLB: a centralised, conservative pass that only fills ranks up to the
 * average.
 *
 * Interpretation of the paper (its pseudo-code compares with opposite signs in its two tests;
 * the text is followed, see docs/global-strategies.md): act only when (max - min) / max exceeds
 * the threshold; then walk the ranks at or above the average, heaviest first, and their objects,
 * heaviest first, and move an object to the currently least loaded rank when the receiver stays
 * at or below the average; a donor stops giving once it is no longer above the average. The
 * least loaded rank is re-read from a heap after every move. Receivers end at or below the
 * average and donors only lose work, so the maximum never increases.
 * Cost: O(n log n + np log np) plus O(log np) per move.
 */
#include "global_internal.h"

int tide_global_smartlb(const tide_global_input *in, const tide_global_params *params,
                        int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    lb_walk w;
    rc = lb_walk_init(&w, in, true, new_owner);
    double max = 0.0, min = 0.0;
    for (int32_t r = 0; rc == TIDE_PLAN_OK && r < in->np; r++) {
        if (r == 0 || w.time[r] > max) max = w.time[r];
        if (r == 0 || w.time[r] < min) min = w.time[r];
    }
    if (rc != TIDE_PLAN_OK || max <= 0.0 || (max - min) / max <= p.smart_threshold) {
        lb_walk_free(&w);
        return rc;
    }
    for (int32_t i = 0; i < w.ndonors; i++) {
        int32_t d = w.donors[i];
        for (int64_t j = w.g.start[d]; j < w.g.start[d + 1] && w.time[d] > w.avg; j++) {
            int64_t o = w.g.obj[j];
            int32_t recv = lb_heap_top(&w.least);
            double take = in->load[o] / lb_speed(in, recv);
            if (recv == d || in->load[o] <= 0.0 || w.time[recv] + take > w.avg) continue;
            lb_walk_move(&w, in, o, recv, new_owner);
        }
    }
    lb_walk_free(&w);
    return TIDE_PLAN_OK;
}

const tide_global_strategy tide_global_strategy_smartlb = {
    .name = "smartlb", .plan = tide_global_smartlb, .protocol = TIDE_GLOBAL_CENTRAL};
