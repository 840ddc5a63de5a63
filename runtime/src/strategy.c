/* The registry of balancing strategies, and the two that need no model: `none` (the baseline,
 * nothing moves) and `random` (a test mode that sends a fraction TIDE_RANDOM_FRACTION of each
 * rank's tasks to random other ranks, to exercise the offloading engine). */
#include "internal.h"

#include <string.h>

static void random_phase_begin(tide_rt *rt)
{
    if (rt->size < 2) return;
    long n = rt->phase_tasks;
    long k = (long)(rt->cfg.random_fraction * (double)n + 0.5);
    for (long i = 0; i < k; i++) {
        int dest = (int)(tide_rng_next(&rt->rng) % (uint64_t)(rt->size - 1));
        if (dest >= rt->rank) dest++;
        if (tide_offload_tasks(rt, dest, 1) == 0) break; /* workers started the rest */
    }
}

static const tide_strategy strategies[] = {
    {"none", false, NULL, NULL},
    {"random", true, random_phase_begin, NULL},
};

const tide_strategy *tide_strategy_find(const char *name)
{
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++)
        if (strcmp(strategies[i].name, name) == 0) return &strategies[i];
    return NULL;
}

const char *tide_strategy_names(void)
{
    return "none, random";
}
