/*
 * global_refine.c - RefineLB: move objects off overloaded ranks only, so most objects stay.
 *
 * A rank is overloaded when its time exceeds threshold x average. The most overloaded rank gives
 * its heaviest object that fits the least loaded rank without taking it above threshold x
 * average; that rank has the most room, so if no object fits there, none fits anywhere and the
 * donor is done. The receiver stays within the threshold and the donor only loses work, so the
 * maximum never increases and a receiver never becomes a donor: each object moves at most once.
 * Cost: O(n log n) to order objects, then per move O(k_donor) for the scan plus O(log np).
 */
#include "global_internal.h"

#include <stdlib.h>
#include <string.h>

int tide_global_refine(const tide_global_input *in, const tide_global_params *params,
                       int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    int32_t np = in->np;
    if (in->nobj > 0) memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    double *time = malloc((size_t)np * sizeof *time);
    lb_heap over = {0}, least = {0};
    lb_by_rank g = {0};
    rc = TIDE_PLAN_ENOMEM;
    if (time == NULL || lb_heap_init(&over, np, true) != TIDE_PLAN_OK ||
        lb_heap_init(&least, np, false) != TIDE_PLAN_OK ||
        lb_by_rank_make(in, in->owner, &g) != TIDE_PLAN_OK)
        goto out;
    double limit = p.refine_threshold * lb_rank_times(in, in->owner, time);
    for (int32_t r = 0; r < np; r++) {
        lb_heap_push(&least, r, time[r]);
        if (time[r] > limit) lb_heap_push(&over, r, time[r]);
    }
    while (over.n > 0) {
        int32_t d = lb_heap_top(&over);
        int32_t recv = lb_heap_top(&least);
        double room = (limit - time[recv]) * lb_speed(in, recv);
        int64_t best = -1;
        for (int64_t j = g.start[d]; j < g.start[d + 1] && best < 0; j++) {
            int64_t o = g.obj[j]; /* heaviest first: the first that fits is the heaviest */
            if (new_owner[o] == d && in->load[o] > 0.0 && in->load[o] <= room) best = o;
        }
        if (best < 0 || recv == d) {
            lb_heap_remove(&over, d);
            continue;
        }
        new_owner[best] = recv;
        time[d] -= in->load[best] / lb_speed(in, d);
        time[recv] += in->load[best] / lb_speed(in, recv);
        lb_heap_update(&least, d, time[d]);
        lb_heap_update(&least, recv, time[recv]);
        if (time[d] > limit)
            lb_heap_update(&over, d, time[d]);
        else
            lb_heap_remove(&over, d);
    }
    rc = TIDE_PLAN_OK;
out:
    free(time);
    lb_heap_free(&over);
    lb_heap_free(&least);
    lb_by_rank_free(&g);
    return rc;
}

const tide_global_strategy tide_global_strategy_refine = {
    .name = "refine", .plan = tide_global_refine, .protocol = TIDE_GLOBAL_CENTRAL};
