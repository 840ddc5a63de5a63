/* `react` (react_mig, as in Chameleon): every TIDE_ROUND_US the ranks allgather their queue
 * lengths; when the imbalance exceeds TIDE_REACT_THRESHOLD, the most loaded rank sends tasks to
 * the least loaded, the second to the second least, and so on (tide_plan_react decides,
 * identically on every rank). The load of a rank is its tasks not yet started, own and received:
 * what is running cannot move and will finish either way. */
#include "tide_lb.h"
#include "tide_plan.h"

#include <stdlib.h>

const tide_lb_knob tide_lb_knob_react_threshold = {
    .name = "TIDE_REACT_THRESHOLD",
    .def = 0.05,
    .min = 0,
    .max = 1,
    .help = "relative imbalance (max-min)/max of queued tasks that triggers reactive moves"};
const tide_lb_knob tide_lb_knob_react_max_tasks = {
    .name = "TIDE_REACT_MAX_TASKS",
    .def = 4,
    .min = 1,
    .max = 1000000,
    .integer = true,
    .help = "tasks one reactive decision may move (or replicate)"};

/* The minimum gap between a pair, in queued tasks: moving one task across a gap of one would
 * only swap the pair. */
#define REACT_MIN_GAP 2.0

tide_lb_pair tide_lb_react_pair(const tide_lb_view *v, double threshold, double max_tasks)
{
    tide_lb_pair out = {-1, 0};
    if (v->size < 2 || !v->all) return out;
    double *load = malloc((size_t)v->size * sizeof *load);
    if (!load) return out; /* skipping a round is safe: the next one decides again */
    for (int i = 0; i < v->size; i++)
        load[i] = v->all[i].queued + v->all[i].queued_in;
    tide_react_params p = {threshold, REACT_MIN_GAP, (int64_t)max_tasks};
    tide_react_decision d;
    if (tide_plan_react(v->size, load, NULL, &p, v->rank, NULL, &d) == TIDE_PLAN_OK && d.send > 0 &&
        d.partner >= 0)
        out = (tide_lb_pair){d.partner, (int)d.send};
    free(load);
    return out;
}

static void react_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    tide_lb_pair p = tide_lb_react_pair(v, v->knob[0], v->knob[1]);
    if (p.send > 0) a->offload(a->ctx, p.partner, p.send);
}

static const tide_lb_knob *const react_knobs[] = {&tide_lb_knob_react_threshold,
                                                  &tide_lb_knob_react_max_tasks, NULL};

const tide_lb_ops tide_lb_react = {.name = "react",
                                   .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS,
                                   .knobs = react_knobs,
                                   .help = "reactive migration (Chameleon's react_mig)",
                                   .round = react_round};
