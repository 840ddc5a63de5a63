/* `proact` (the proactive scheme): at phase start every rank allgathers its predicted load, its
 * uncertainty and its task count, runs the same planner (Algorithm 1, plan_proact.c) on the same
 * input, and sends the tasks of its own row of the plan; when the task model gives per-task
 * weights on every rank, plan_proact_weighted.c chooses which tasks leave. A surplus within a
 * rank's uncertainty (times TIDE_PROACT_MARGIN) moves nothing. Until every rank has a prediction
 * it behaves as `react`. `proact_react` adds reactive corrections during the phase to the plan,
 * for what the prediction missed. */
#include "tide_lb.h"
#include "tide_plan.h"

#include <math.h>
#include <stdlib.h>

enum { K_THRESHOLD, K_MAX_TASKS, K_MARGIN };

static const tide_lb_knob proact_margin = {
    .name = "TIDE_PROACT_MARGIN",
    .def = 1,
    .min = 0,
    .max = 100,
    .help = "`proact`, `proact_react`: each rank's planner margin is this times its prediction "
            "uncertainty; a surplus within it moves nothing (0: plan on the predictions alone)"};

typedef struct proact_state {
    bool planned; /* this phase's plan was made (every rank had a prediction) */
} proact_state;

/* The planner's margins: each rank's prediction uncertainty times TIDE_PROACT_MARGIN. */
static void margins(const tide_lb_view *v, double *m)
{
    for (int i = 0; i < v->size; i++)
        m[i] = v->all[i].L_unc > 0 ? v->knob[K_MARGIN] * v->all[i].L_unc : 0.0;
}

/* What the plan leaves on this rank: its predicted load after the plan above the average, and
 * why that surplus stayed (lightest = its lightest task that could have moved). */
static void report(const tide_lb_view *v, const tide_lb_actions *a, const double *after,
                   const double *margin, double lightest)
{
    if (!a->report_plan) return;
    double avg = 0;
    for (int i = 0; i < v->size; i++)
        avg += v->all[i].L_pred / v->size;
    double residual = after[v->rank] - avg;
    int limit = TIDE_LB_LIMIT_NONE;
    if (residual > 0 && residual <= margin[v->rank])
        limit = TIDE_LB_LIMIT_UNCERTAINTY;
    else if (residual > 0 && residual < lightest)
        limit = TIDE_LB_LIMIT_GRANULARITY;
    else if (residual > 0)
        limit = TIDE_LB_LIMIT_CAPACITY;
    a->report_plan(a->ctx, residual, limit);
}

/* With per-task weights on every rank the plan chooses which tasks leave so that the moved load
 * fits each victim's deficit: every rank contributes its tasks' weights, in queue order, to one
 * allgatherv, which every rank must join even when its own weights failed (zeros then). */
static bool plan_weighted(const tide_lb_view *v, const tide_lb_actions *a)
{
    int np = v->size, me = v->rank;
    int *counts = malloc((size_t)np * sizeof *counts);
    int64_t *off = malloc((size_t)(np + 1) * sizeof *off);
    double *load = malloc((size_t)np * sizeof *load), *margin = malloc((size_t)np * sizeof *margin);
    tide_move *moves = malloc((size_t)np * sizeof *moves);
    if (!counts || !off || !load || !margin || !moves)
        a->fatal(a->ctx, "proact: out of memory planning a phase");
    off[0] = 0;
    for (int i = 0; i < np; i++) {
        counts[i] = (int)v->all[i].queued;
        off[i + 1] = off[i] + counts[i];
        load[i] = v->all[i].L_pred;
    }
    double *w = malloc((size_t)(off[np] + 1) * sizeof *w);
    int32_t *dest = malloc((size_t)(off[np] + 1) * sizeof *dest);
    double *mine = malloc((size_t)(counts[me] + 1) * sizeof *mine);
    if (!w || !dest || !mine) a->fatal(a->ctx, "proact: out of memory planning a phase");
    if (!a->task_times(a->ctx, mine, counts[me]))
        for (int k = 0; k < counts[me]; k++)
            mine[k] = 0;
    a->allgatherv(a->ctx, mine, counts[me], counts, w);
    margins(v, margin);
    tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
    bool ok = tide_plan_proact_weighted_margin(np, load, margin, off, w, NULL, dest, &plan) ==
              TIDE_PLAN_OK;
    if (ok) {
        a->offload_selected(a->ctx, dest + off[me], counts[me]);
        double lightest = INFINITY;
        for (int i = 0; i < np; i++) /* load[] becomes the predicted load after the plan */
            for (int64_t t = off[i]; t < off[i + 1]; t++) {
                load[i] -= dest[t] != i ? w[t] : 0;
                if (dest[t] != i) load[dest[t]] += w[t];
                if (i == me && dest[t] == me && w[t] > 0 && w[t] < lightest) lightest = w[t];
            }
        report(v, a, load, margin, lightest);
    }
    free(counts), free(off), free(load), free(margin), free(moves), free(w), free(dest), free(mine);
    return ok;
}

/* Sends this rank's row of the uniform plan one task per victim per pass: with TIDE_OFFLOAD=rr
 * the tasks also leave round-robin across victims (proact_off1); packed sends one package per
 * victim (proact_off2). */
static void send_row(const tide_lb_view *v, const tide_lb_actions *a, int64_t *row)
{
    bool more = true;
    while (more) {
        more = false;
        for (int j = 0; j < v->size; j++)
            if (j != v->rank && row[j] > 0 && a->offload(a->ctx, j, 1) == 1) {
                row[j]--;
                more = true;
            }
    }
}

/* The uniform plan's predicted loads after it (tasks of average weight w_i = L_i / N_i). */
static void report_uniform(const tide_lb_view *v, const tide_lb_actions *a,
                           const tide_move_plan *plan, const double *load, const int64_t *n,
                           const double *margin)
{
    double *after = malloc((size_t)v->size * sizeof *after);
    if (!after) return; /* statistics only */
    for (int i = 0; i < v->size; i++)
        after[i] = load[i];
    for (size_t k = 0; k < plan->nmoves; k++) {
        const tide_move *m = &plan->moves[k];
        double w = load[m->from] / (double)n[m->from];
        after[m->from] -= (double)m->count * w;
        after[m->to] += (double)m->count * w;
    }
    int me = v->rank;
    report(v, a, after, margin, n[me] > 0 ? load[me] / (double)n[me] : INFINITY);
    free(after);
}

static bool plan_uniform(const tide_lb_view *v, const tide_lb_actions *a)
{
    int np = v->size;
    double *load = malloc((size_t)np * sizeof *load), *margin = malloc((size_t)np * sizeof *margin);
    int64_t *n = malloc((size_t)np * sizeof *n), *row = malloc((size_t)np * sizeof *row);
    tide_move *moves = malloc((size_t)np * sizeof *moves);
    bool ok = load && margin && n && row && moves;
    if (ok) {
        for (int i = 0; i < np; i++) {
            load[i] = v->all[i].L_pred;
            n[i] = (int64_t)v->all[i].ntasks;
        }
        margins(v, margin);
        tide_move_plan plan = {np, 0, (size_t)np, moves, NULL};
        ok = tide_plan_proact_margin(np, load, margin, n, NULL, &plan) == TIDE_PLAN_OK &&
             tide_plan_row(&plan, n, v->rank, row) == TIDE_PLAN_OK;
        if (ok) report_uniform(v, a, &plan, load, n, margin);
    }
    if (ok) send_row(v, a, row);
    free(load), free(margin), free(n), free(row), free(moves);
    return ok;
}

/* True when a plan was made (every rank had a prediction). */
static bool plan_and_send(const tide_lb_view *v, const tide_lb_actions *a)
{
    bool per_task = true;
    for (int i = 0; i < v->size; i++) {
        if (v->all[i].L_pred < 0) return false;
        if (v->all[i].task_pred != 1) per_task = false;
    }
    if (v->size < 2) return true;
    return per_task ? plan_weighted(v, a) : plan_uniform(v, a);
}

static void proact_begin(const tide_lb_view *v, const tide_lb_actions *a)
{
    proact_state *s = v->state;
    s->planned = plan_and_send(v, a);
}

static void proact_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    const proact_state *s = v->state;
    if (s->planned) return;
    tide_lb_pair p = tide_lb_react_pair(v, v->knob[K_THRESHOLD], v->knob[K_MAX_TASKS]);
    if (p.send > 0) a->offload(a->ctx, p.partner, p.send);
}

static void proact_react_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    tide_lb_pair p = tide_lb_react_pair(v, v->knob[K_THRESHOLD], v->knob[K_MAX_TASKS]);
    if (p.send > 0) a->offload(a->ctx, p.partner, p.send);
}

static const tide_lb_knob *const proact_knobs[] = {
    &tide_lb_knob_react_threshold, &tide_lb_knob_react_max_tasks, &proact_margin, NULL};

const tide_lb_ops tide_lb_proact = {.name = "proact",
                                    .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS,
                                    .state_size = sizeof(proact_state),
                                    .knobs = proact_knobs,
                                    .help = "proactive offloading from predicted loads",
                                    .phase_begin = proact_begin,
                                    .round = proact_round};
const tide_lb_ops tide_lb_proact_react = {.name = "proact_react",
                                          .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS,
                                          .state_size = sizeof(proact_state),
                                          .knobs = proact_knobs,
                                          .help = "proactive plan plus reactive corrections",
                                          .phase_begin = proact_begin,
                                          .round = proact_react_round};
