/*
 * global_random.c - RandCentLB: every object to a uniformly random rank, a control that shows
 * what balancing costs and gains against no information at all.
 */
#include "global_internal.h"

int tide_global_random(const tide_global_input *in, const tide_global_params *params,
                       int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    uint64_t rng = p.seed;
    for (int64_t o = 0; o < in->nobj; o++)
        new_owner[o] = (int32_t)lb_rand_below(&rng, (uint64_t)in->np);
    return TIDE_PLAN_OK;
}

const tide_global_strategy tide_global_strategy_random = {
    .name = "random", .plan = tide_global_random, .protocol = TIDE_GLOBAL_CENTRAL};
