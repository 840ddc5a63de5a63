/* `react` (react_mig, as in Chameleon): every TIDE_ROUND_US the ranks allgather their queue
 * lengths; when the imbalance exceeds TIDE_REACT_THRESHOLD, the most loaded rank sends tasks to
 * the least loaded, the second to the second least, and so on (tide_plan_react decides,
 * identically on every rank). The load of a rank is its tasks not yet started, own and received:
 * what is running cannot move and will finish either way.
 *
 * TIDE_REACT_PRESET=chameleon calibrates the decision to Chameleon's defaults instead of Tide's
 * tuned ones, so that the proactive paper's comparison can be rerun as the paper ran it: one task
 * per decision (MAX_TASKS_PER_RANK_TO_MIGRATE_AT_ONCE 1), a relative imbalance of 0.05
 * (MIN_REL_LOAD_IMBALANCE_BEFORE_MIGRATION), an absolute gap of 2 tasks
 * (MIN_ABS_LOAD_IMBALANCE_BEFORE_MIGRATION) and at least 2 own tasks queued
 * (MIN_LOCAL_TASKS_IN_QUEUE_BEFORE_MIGRATION); chameleon-hpc/chameleon, src/chameleon_common.cpp
 * and src/chameleon_strategies.cpp (docs/strategies.md). */
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

static const char *const react_preset_names[] = {"tide", "chameleon", NULL};
static const tide_lb_knob react_preset = {
    .name = "TIDE_REACT_PRESET",
    .def = 0,
    .min = 0,
    .max = 1,
    .integer = true,
    .choices = react_preset_names,
    .help = "`react`: `tide` (TIDE_REACT_THRESHOLD, TIDE_REACT_MAX_TASKS) or `chameleon` "
            "(Chameleon's defaults: 1 task per decision, imbalance 0.05, gap 2, 2 own tasks "
            "queued; the two knobs must then stay at their defaults)"};

/* The minimum gap between a pair, in queued tasks: moving one task across a gap of one would
 * only swap the pair. Chameleon's MIN_ABS_LOAD_IMBALANCE_BEFORE_MIGRATION is the same 2. */
#define REACT_MIN_GAP 2.0

/* Chameleon's defaults (chameleon-hpc/chameleon, src/chameleon_common.cpp). */
#define CHAMELEON_MIN_REL_IMBALANCE 0.05
#define CHAMELEON_MAX_TASKS_AT_ONCE 1.0
#define CHAMELEON_MIN_LOCAL_TASKS 2

tide_lb_pair tide_lb_react_pair(const tide_lb_view *v, double threshold, double max_tasks)
{
    tide_lb_pair out = {-1, 0};
    if (v->size < 2 || !v->all) return out;
    double *load = malloc((size_t)v->size * sizeof *load);
    if (!load) return out; /* skipping a round is safe: the next one decides again */
    for (int i = 0; i < v->size; i++)
        load[i] = tide_lb_key_value(&v->all[i], TIDE_LB_KEY_BACKLOG);
    tide_react_params p = {threshold, REACT_MIN_GAP, (int64_t)max_tasks};
    tide_react_decision d;
    const int32_t *order = tide_lb_order(v, TIDE_LB_KEY_BACKLOG);
    if (tide_plan_react_ordered(v->size, load, order, NULL, &p, v->rank, NULL, &d) ==
            TIDE_PLAN_OK &&
        d.send > 0 && d.partner >= 0)
        out = (tide_lb_pair){d.partner, (int)d.send};
    free(load);
    return out;
}

/* One decision with Chameleon's defaults. Its knobs would silently not apply, so a value other
 * than their default is a configuration error. */
static tide_lb_pair chameleon_pair(const tide_lb_view *v, const tide_lb_actions *a)
{
    tide_lb_pair none = {-1, 0};
    if (v->knob[0] != tide_lb_knob_react_threshold.def ||
        v->knob[1] != tide_lb_knob_react_max_tasks.def) {
        a->fatal(a->ctx, "TIDE_REACT_PRESET=chameleon fixes the threshold and the tasks per "
                         "decision: unset TIDE_REACT_THRESHOLD and TIDE_REACT_MAX_TASKS");
        return none;
    }
    if (v->queued < CHAMELEON_MIN_LOCAL_TASKS) return none;
    return tide_lb_react_pair(v, CHAMELEON_MIN_REL_IMBALANCE, CHAMELEON_MAX_TASKS_AT_ONCE);
}

static void react_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    tide_lb_pair p =
        v->knob[2] == 1 ? chameleon_pair(v, a) : tide_lb_react_pair(v, v->knob[0], v->knob[1]);
    if (p.send > 0) a->offload(a->ctx, p.partner, p.send);
}

static const tide_lb_knob *const react_knobs[] = {
    &tide_lb_knob_react_threshold, &tide_lb_knob_react_max_tasks, &react_preset, NULL};

const tide_lb_ops tide_lb_react = {.name = "react",
                                   .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS | TIDE_LB_GATED,
                                   .knobs = react_knobs,
                                   .help = "reactive migration (Chameleon's react_mig)",
                                   .round = react_round};
