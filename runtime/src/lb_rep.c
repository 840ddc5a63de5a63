/* `rep` (react_rep) and `react_rep` (react_mig_rep): the reactive pairing of `react` decides
 * at phase start and at every status round which overloaded rank should help which underloaded
 * one and with how many tasks; `rep` sends that many speculative copies (the originals stay
 * queued, the first completed copy wins: replica.c), `react_rep` migrates them and replicates
 * as many more. Replication costs bandwidth and duplicated work when the prediction of who is
 * slow is wrong, but never loses time when it is right and the copy is not needed. */
#include "internal.h"
#include "tide_plan.h"

#include <stdlib.h>

static void pair_and_act(tide_rt *rt, const tide_rank_status *all, bool migrate)
{
    if (rt->size < 2 || !all) return;
    double *load = malloc((size_t)rt->size * sizeof *load);
    if (!load) return;
    for (int i = 0; i < rt->size; i++) load[i] = all[i].queued + all[i].queued_in;
    tide_react_params p = {rt->cfg.react_threshold, 2.0, rt->cfg.react_max_tasks};
    tide_react_decision d;
    if (tide_plan_react(rt->size, load, NULL, &p, rt->rank, NULL, &d) == TIDE_PLAN_OK &&
        d.send > 0 && d.partner >= 0) {
        if (migrate) tide_offload_tasks(rt, d.partner, (int)d.send);
        tide_replicate_tasks(rt, d.partner, (int)d.send);
    }
    free(load);
}

static void rep_round(tide_rt *rt, const tide_rank_status *all)
{
    pair_and_act(rt, all, false);
}

static void react_rep_round(tide_rt *rt, const tide_rank_status *all)
{
    pair_and_act(rt, all, true);
}

const tide_strategy tide_strategy_rep = {.name = "rep",
                                   .phase_sync = true,
                                   .rounds = true,
                                   .phase_begin = rep_round,
                                   .round = rep_round};
const tide_strategy tide_strategy_react_rep = {.name = "react_rep",
                                         .phase_sync = true,
                                         .rounds = true,
                                         .phase_begin = react_rep_round,
                                         .round = react_rep_round};
