/* `rep` (react_rep) and `react_rep` (react_mig_rep): the reactive pairing of `react` decides
 * at phase start and at every status round which overloaded rank should help which underloaded
 * one and with how many tasks; `rep` sends that many speculative copies (the originals stay
 * queued, the first completed copy wins), `react_rep` migrates them and replicates as many more.
 * Replication costs bandwidth and duplicated work when the guess of who is slow is wrong, but
 * never loses time when it is right and the copy is not needed. */
#include "tide_lb.h"

static void pair_and_act(const tide_lb_view *v, const tide_lb_actions *a, bool migrate)
{
    tide_lb_pair p = tide_lb_react_pair(v, v->knob[0], v->knob[1]);
    if (p.send <= 0) return;
    if (migrate) a->offload(a->ctx, p.partner, p.send);
    a->replicate(a->ctx, p.partner, p.send);
}

static void rep_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    pair_and_act(v, a, false);
}

static void react_rep_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    pair_and_act(v, a, true);
}

static const tide_lb_knob *const rep_knobs[] = {&tide_lb_knob_react_threshold,
                                                &tide_lb_knob_react_max_tasks, NULL};

const tide_lb_ops tide_lb_rep = {.name = "rep",
                                 .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS | TIDE_LB_GATED,
                                 .knobs = rep_knobs,
                                 .help = "reactive replication (react_rep)",
                                 .phase_begin = rep_round,
                                 .round = rep_round};
const tide_lb_ops tide_lb_react_rep = {.name = "react_rep",
                                       .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS | TIDE_LB_GATED,
                                       .knobs = rep_knobs,
                                       .help = "reactive migration plus replication",
                                       .phase_begin = react_rep_round,
                                       .round = react_rep_round};
