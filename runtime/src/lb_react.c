/* `react` (react_mig, as in Chameleon): every TIDE_ROUND_US the ranks allgather their queue
 * lengths; when the imbalance exceeds TIDE_REACT_THRESHOLD, the most loaded rank sends tasks to
 * the least loaded, the second to the second least, and so on (offload/plan_react.c decides,
 * identically on every rank). The load of a rank is its tasks not yet started, own and received:
 * what is running cannot move and will finish either way. */
#include "internal.h"
#include "tide_plan.h"

#include <stdlib.h>

void tide_react_round(tide_rt *rt, const tide_rank_status *all)
{
    if (rt->size < 2) return;
    double *load = malloc((size_t)rt->size * sizeof *load);
    if (!load) return; /* skipping a round is safe: the next one decides again */
    for (int i = 0; i < rt->size; i++) load[i] = all[i].queued + all[i].queued_in;
    tide_react_params p = {rt->cfg.react_threshold, 2.0, rt->cfg.react_max_tasks};
    tide_react_decision d;
    if (tide_plan_react(rt->size, load, NULL, &p, rt->rank, NULL, &d) == TIDE_PLAN_OK &&
        d.send > 0 && d.partner >= 0)
        tide_offload_tasks(rt, d.partner, (int)d.send);
    free(load);
}

const tide_strategy tide_strategy_react = {
    .name = "react", .phase_sync = true, .rounds = true, .round = tide_react_round};
