/*
 * global_greedy.c - GreedyLB: heaviest object first onto the rank that is least loaded so far.
 *
 * The current mapping is ignored (every object may move): this is the longest-processing-time
 * rule, within 4/3 - 1/(3 np) of the optimal makespan on equal-speed ranks. With speeds the
 * least loaded rank is the one with the least time so far (work / speed).
 */
#include "global_internal.h"

#include <stdlib.h>

int tide_global_greedy(const tide_global_input *in, const tide_global_params *params,
                       int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    lb_heap h;
    if (lb_heap_init(&h, in->np, false) != TIDE_PLAN_OK) return TIDE_PLAN_ENOMEM;
    int64_t *order = lb_sort_heavy_first(in->nobj, in->load);
    if (order == NULL) {
        lb_heap_free(&h);
        return TIDE_PLAN_ENOMEM;
    }
    for (int32_t r = 0; r < in->np; r++)
        lb_heap_push(&h, r, 0.0);
    for (int64_t j = 0; j < in->nobj; j++) {
        int64_t o = order[j];
        int32_t r = lb_heap_top(&h);
        new_owner[o] = r;
        lb_heap_update(&h, r, h.key[r] + in->load[o] / lb_speed(in, r));
    }
    free(order);
    lb_heap_free(&h);
    return TIDE_PLAN_OK;
}

const tide_global_strategy tide_global_strategy_greedy = {
    .name = "greedy", .plan = tide_global_greedy, .protocol = TIDE_GLOBAL_CENTRAL};
