/* `proact` (the proactive scheme): at phase start every rank allgathers its predicted load and
 * task count, runs the same planner (Algorithm 1, offload/plan_proact.c) on the same input, and
 * sends the tasks of its own row of the plan. Until every rank's model has a prediction, it
 * behaves as `react`. `proact_react` adds reactive corrections during the phase to the plan,
 * for what the prediction missed. */
#include "internal.h"
#include "tide_plan.h"

#include <stdlib.h>

/* Returns true when a plan was made (every rank had a prediction). */
static bool plan_and_send(tide_rt *rt, const tide_rank_status *all)
{
    int np = rt->size;
    for (int i = 0; i < np; i++)
        if (all[i].L_pred < 0) return false;
    if (np < 2) return true;
    double *load = malloc((size_t)np * sizeof *load);
    int64_t *n = malloc((size_t)np * sizeof *n);
    int64_t *row = malloc((size_t)np * sizeof *row);
    tide_move *moves = malloc((size_t)np * sizeof *moves);
    bool ok = load && n && row && moves;
    if (ok) {
        for (int i = 0; i < np; i++) {
            load[i] = all[i].L_pred;
            n[i] = (int64_t)all[i].ntasks;
        }
        tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
        ok = tide_plan_proact(np, load, n, NULL, &plan) == TIDE_PLAN_OK &&
             tide_plan_row(&plan, n, rt->rank, row) == TIDE_PLAN_OK;
    }
    if (ok) {
        /* One task per victim per pass: with TIDE_OFFLOAD=rr the tasks then also leave
         * round-robin across victims (proact_off1); packed sends one package per victim. */
        bool more = true;
        while (more) {
            more = false;
            for (int j = 0; j < np; j++)
                if (j != rt->rank && row[j] > 0 && tide_offload_tasks(rt, j, 1) == 1) {
                    row[j]--;
                    more = true;
                }
        }
    }
    free(load);
    free(n);
    free(row);
    free(moves);
    return ok;
}

/* Per phase: whether the plan was made, so that proact falls back to rounds without one. */
static bool planned;

static void proact_begin(tide_rt *rt, const tide_rank_status *all)
{
    planned = plan_and_send(rt, all);
}

static void proact_round(tide_rt *rt, const tide_rank_status *all)
{
    if (!planned) tide_react_round(rt, all);
}

const tide_strategy tide_lb_proact = {.name = "proact",
                                     .phase_sync = true,
                                     .rounds = true,
                                     .phase_begin = proact_begin,
                                     .round = proact_round};
const tide_strategy tide_lb_proact_react = {.name = "proact_react",
                                           .phase_sync = true,
                                           .rounds = true,
                                           .phase_begin = proact_begin,
                                           .round = tide_react_round};
