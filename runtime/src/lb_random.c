/* `random`: a test mode of the offloading engine. At phase start every rank sends a fraction
 * TIDE_RANDOM_FRACTION of its tasks to ranks drawn uniformly among the others. */
#include "internal.h"

static void random_phase_begin(tide_rt *rt, const tide_rank_status *all)
{
    (void)all;
    if (rt->size < 2) return;
    long k = (long)(rt->cfg.random_fraction * (double)rt->phase_tasks + 0.5);
    for (long i = 0; i < k; i++) {
        int dest = (int)(tide_rng_next(&rt->rng) % (uint64_t)(rt->size - 1));
        if (dest >= rt->rank) dest++;
        if (tide_offload_tasks(rt, dest, 1) == 0) break;
    }
}

const tide_strategy tide_strategy_random = {
    .name = "random", .phase_sync = true, .phase_begin = random_phase_begin};
