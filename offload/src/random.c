/* `random`: a test mode of the offloading engine. At phase start every rank sends a fraction
 * TIDE_RANDOM_FRACTION of its tasks to ranks drawn uniformly among the others. */
#include "tide_lb.h"

static const tide_lb_knob random_fraction = {
    .name = "TIDE_RANDOM_FRACTION",
    .def = 0.5,
    .min = 0,
    .max = 1,
    .help = "`random` mode: fraction of each rank's tasks sent away at phase start"};

static void random_phase_begin(const tide_lb_view *v, const tide_lb_actions *a)
{
    if (v->size < 2) return;
    long k = (long)(v->knob[0] * (double)v->phase_tasks + 0.5);
    for (long i = 0; i < k; i++) {
        int dest = (int)(tide_lb_rng(v->rng) % (uint64_t)(v->size - 1));
        if (dest >= v->rank) dest++;
        if (a->offload(a->ctx, dest, 1) == 0) break;
    }
}

static const tide_lb_knob *const random_knobs[] = {&random_fraction, NULL};

const tide_lb_ops tide_lb_random = {.name = "random",
                                    .flags = TIDE_LB_PHASE_SYNC,
                                    .knobs = random_knobs,
                                    .help = "engine test mode: random destinations",
                                    .phase_begin = random_phase_begin};
