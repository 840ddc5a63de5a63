/*
 * plan_proact.c - proactive planner with uniform task weights (Algorithm 1 of the proactive
 * offloading paper): offloaders from the top of the load order hand whole tasks to victims from
 * the bottom, a two-pointer walk over one sorted array.
 */
#include "plan_internal.h"

#include <math.h>
#include <stdlib.h>

size_t tide_plan_proact_scratch_bytes(int32_t np)
{
    return np < 1 ? 0 : (size_t)np * sizeof(plan_rank_key);
}

/* Tasks rank `r` may still send: floor(over / w), at most the tasks it has left. Floor keeps the
 * offloader at or above L_avg, so it never becomes a victim of its own plan. */
static int64_t tasks_above_average(double over, double w, int64_t left)
{
    double k = floor(over / w);
    if (!(k > 0.0)) return 0;
    return k >= (double)left ? left : (int64_t)k;
}

/* Tasks the victim takes from an offloader with per-task load w: ceil(under / w), at most kmax.
 * Rounding the victim's share up, and the offloader's down, is what makes the bound hold: a
 * victim ends below L_avg + w (its last task started below L_avg), and an offloader is only left
 * with a surplus >= w once every victim is full, which the conservation of load rules out (proof
 * in docs/offload-planner.md). Rounding to nearest would leave a victim whose deficit is under
 * w/2 empty, and with many such victims the top offloader would keep its whole surplus. */
static int64_t tasks_into_deficit(double under, double w, int64_t kmax)
{
    double kv = ceil(under / w);
    return kv >= (double)kmax ? kmax : (int64_t)kv;
}

int tide_plan_proact(int32_t np, const double *load, const int64_t *n_tasks, void *scratch,
                     tide_move_plan *plan)
{
    return tide_plan_proact_margin(np, load, NULL, n_tasks, scratch, plan);
}

int tide_plan_proact_margin(int32_t np, const double *load, const double *margin,
                            const int64_t *n_tasks, void *scratch, tide_move_plan *plan)
{
    return tide_plan_proact_ordered(np, load, margin, NULL, n_tasks, scratch, plan);
}

int tide_plan_proact_ordered(int32_t np, const double *load, const double *margin,
                             const int32_t *order, const int64_t *n_tasks, void *scratch,
                             tide_move_plan *plan)
{
    if (n_tasks == NULL || plan == NULL || plan->moves == NULL) return TIDE_PLAN_EINVAL;
    int rc = plan_check_inputs(np, load, n_tasks);
    if (rc == TIDE_PLAN_OK) rc = plan_check_margins(np, margin);
    if (rc != TIDE_PLAN_OK) return rc;
    if (plan->capacity < (size_t)(np - 1)) return TIDE_PLAN_EINVAL;

    plan_rank_key *keys = scratch;
    if (keys == NULL) {
        keys = malloc(tide_plan_proact_scratch_bytes(np));
        if (keys == NULL) return TIDE_PLAN_ENOMEM;
    }
    if (plan_sort_ranks(np, load, order, keys) != TIDE_PLAN_OK) {
        if (scratch == NULL) free(keys);
        return TIDE_PLAN_EINVAL;
    }
    plan->np = np;
    plan->nmoves = 0;
    double avg = plan_sorted_sum(np, keys) / (double)np;
    double level = plan_sender_level(np, keys, avg, margin);

    /* hi walks offloaders down from the most loaded, lo walks victims up from the least loaded;
     * `over` and `under` are the surplus/deficit still open at the current hi and lo. */
    int32_t hi = np - 1, lo = 0;
    double over = plan_surplus(keys, hi, avg, level, margin),
           under = plan_deficit(keys, lo, avg, margin);
    int64_t left = n_tasks[keys[hi].rank];
    while (hi > lo && keys[hi].load > avg && keys[lo].load < avg) {
        /* A surplus or deficit within the rank's margin is not certain enough to act on: the
         * rank keeps its tasks, or takes none. Never true without margins. */
        if (!(over > 0.0)) {
            hi--;
            over = plan_surplus(keys, hi, avg, level, margin);
            left = n_tasks[keys[hi].rank];
            continue;
        }
        if (!(under > 0.0)) {
            lo++;
            under = plan_deficit(keys, lo, avg, margin);
            continue;
        }
        int32_t src = keys[hi].rank;
        double w = n_tasks[src] > 0 ? keys[hi].load / (double)n_tasks[src] : 0.0;
        int64_t kmax = w > 0.0 ? tasks_above_average(over, w, left) : 0;
        int64_t k = kmax > 0 ? tasks_into_deficit(under, w, kmax) : 0;
        if (k > 0) {
            tide_move *m = &plan->moves[plan->nmoves++];
            m->from = src;
            m->to = keys[lo].rank;
            m->count = k;
            m->unit_ids = NULL;
            over -= (double)k * w;
            under -= (double)k * w;
            left -= k;
        }
        /* One side is always finished: either the offloader has no whole task of surplus left,
         * or the victim took all it would take from it. Advancing at least one pointer per step
         * bounds the walk by np - 1 steps and the plan by np - 1 moves. */
        int offloader_done = (k == kmax);
        int victim_done = under <= 0.0 || !offloader_done;
        if (offloader_done) {
            hi--;
            over = plan_surplus(keys, hi, avg, level, margin);
            left = n_tasks[keys[hi].rank];
        }
        if (victim_done) {
            lo++;
            under = plan_deficit(keys, lo, avg, margin);
        }
    }

    if (scratch == NULL) free(keys);
    plan_sort_moves(plan);
    return TIDE_PLAN_OK;
}
