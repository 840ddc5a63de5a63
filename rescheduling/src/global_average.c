/*
 * global_average.c - AverageLB: ranks above the average shed their lightest objects until they
 * reach the average, a baseline of the SmartLB paper.
 *
 * Our reading (the paper's text of the baseline is not at hand; docs/global-strategies.md): the
 * average is the only target and there is no threshold. Donors are the ranks above the average,
 * heaviest first; a donor gives its objects lightest first, each to the currently least loaded
 * rank, while that rank is below the average and the donor stays at or above it. SmartLB keeps
 * the receiver at or below the average instead; AverageLB keeps the donor there, so it moves many
 * small objects and may overshoot on the receiver side. A move is also skipped when the receiver
 * would end above the donor's time before the move: with equal speeds that never happens (the
 * object is at most the donor's excess over the average), and it is what keeps the maximum from
 * increasing with speeds. Donors stay at or above the average, so none becomes a receiver.
 * Cost: O(n log n + np log np) plus O(log np) per move.
 */
#include "global_internal.h"

/* Donor d gives its objects lightest first (the walk lists them heaviest first) while it stays
 * at or above the average and the least loaded rank is below it. */
static void shed_to_average(lb_walk *w, const tide_global_input *in, int32_t d, int32_t *new_owner)
{
    for (int64_t j = w->g.start[d + 1] - 1; j >= w->g.start[d]; j--) {
        int64_t o = w->g.obj[j];
        int32_t recv = lb_heap_top(&w->least);
        double give = in->load[o] / lb_speed(in, d), take = in->load[o] / lb_speed(in, recv);
        if (w->time[recv] >= w->avg) return; /* nobody is below the average any more */
        if (recv == d || in->load[o] <= 0.0) continue;
        if (w->time[d] - give < w->avg) return; /* heavier objects would take d lower still */
        if (w->time[recv] + take > w->time[d]) continue;
        lb_walk_move(w, in, o, recv, new_owner);
    }
}

int tide_global_average(const tide_global_input *in, const tide_global_params *params,
                        int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    lb_walk w;
    rc = lb_walk_init(&w, in, false, new_owner);
    for (int32_t i = 0; rc == TIDE_PLAN_OK && i < w.ndonors; i++)
        shed_to_average(&w, in, w.donors[i], new_owner);
    lb_walk_free(&w);
    return rc;
}

const tide_global_strategy tide_global_strategy_average = {
    .name = "average", .plan = tide_global_average, .protocol = TIDE_GLOBAL_CENTRAL};
