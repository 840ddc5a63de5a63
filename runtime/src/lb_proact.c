/* `proact` (the proactive scheme): at phase start every rank allgathers its predicted load and
 * task count, runs the same planner (Algorithm 1, offload/plan_proact.c) on the same input, and
 * sends the tasks of its own row of the plan; with per-task predictions it chooses which tasks. Until every rank's model has a prediction, it
 * behaves as `react`. `proact_react` adds reactive corrections during the phase to the plan,
 * for what the prediction missed. */
#include "internal.h"
#include "tide_plan.h"

#include <stdlib.h>

/* The planner's margins: each rank's prediction uncertainty times TIDE_PROACT_MARGIN, so that a
 * surplus the prediction is not sure of stays where it is (docs/offload-planner.md). */
static double *margins(const tide_rt *rt, const tide_rank_status *all)
{
    double *m = malloc((size_t)rt->size * sizeof *m);
    if (!m) tide_fatal("proact: out of memory planning a phase");
    for (int i = 0; i < rt->size; i++)
        m[i] = all[i].L_unc > 0 ? rt->cfg.proact_margin * all[i].L_unc : 0.0;
    return m;
}

/* With per-task predictions on every rank (the task model), the plan chooses which tasks leave
 * so that the moved load fits each victim's deficit (offload/plan_proact_weighted.c): every
 * rank contributes its tasks' predicted times, in queue order, to one allgather. */
static bool plan_weighted(tide_rt *rt, const tide_rank_status *all)
{
    int np = rt->size;
    int *counts = malloc((size_t)np * sizeof *counts);
    int64_t *off = malloc((size_t)(np + 1) * sizeof *off);
    double *load = malloc((size_t)np * sizeof *load);
    tide_move *moves = malloc((size_t)np * sizeof *moves);
    /* Every rank must join the allgather below; one that could not would hang the others. */
    if (!counts || !off || !load || !moves) tide_fatal("proact: out of memory planning a phase");
    off[0] = 0;
    for (int i = 0; i < np; i++) {
        counts[i] = (int)all[i].queued;
        off[i + 1] = off[i] + counts[i];
        load[i] = all[i].L_pred;
    }
    double *w = malloc((size_t)(off[np] + 1) * sizeof *w);
    int32_t *dest = malloc((size_t)(off[np] + 1) * sizeof *dest);
    double *mine = malloc((size_t)(counts[rt->rank] + 1) * sizeof *mine);
    if (!w || !dest || !mine) tide_fatal("proact: out of memory planning a phase");
    /* Every rank joins the collective even when its own predictions failed (zeros then). */
    if (!tide_predict_task_times(rt, mine, counts[rt->rank]))
        for (int k = 0; k < counts[rt->rank]; k++) mine[k] = 0;
    tide_coll_allgatherv(rt, mine, counts[rt->rank], counts, w);
    tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
    double *margin = margins(rt, all);
    bool ok = tide_plan_proact_weighted_margin(np, load, margin, off, w, NULL, dest, &plan) ==
              TIDE_PLAN_OK;
    if (ok) tide_offload_selected(rt, dest + off[rt->rank], counts[rt->rank]);
    free(counts), free(off), free(load), free(moves), free(w), free(dest), free(mine), free(margin);
    return ok;
}

/* Returns true when a plan was made (every rank had a prediction). */
static bool plan_and_send(tide_rt *rt, const tide_rank_status *all)
{
    int np = rt->size;
    bool per_task = true;
    for (int i = 0; i < np; i++) {
        if (all[i].L_pred < 0) return false;
        if (all[i].task_pred != 1) per_task = false;
    }
    if (np < 2) return true;
    if (per_task) return plan_weighted(rt, all);
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
        double *margin = margins(rt, all);
        ok = tide_plan_proact_margin(np, load, margin, n, NULL, &plan) == TIDE_PLAN_OK &&
             tide_plan_row(&plan, n, rt->rank, row) == TIDE_PLAN_OK;
        free(margin);
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

const tide_strategy tide_strategy_proact = {.name = "proact",
                                     .phase_sync = true,
                                     .rounds = true,
                                     .phase_begin = proact_begin,
                                     .round = proact_round};
const tide_strategy tide_strategy_proact_react = {.name = "proact_react",
                                           .phase_sync = true,
                                           .rounds = true,
                                           .phase_begin = proact_begin,
                                           .round = tide_react_round};
