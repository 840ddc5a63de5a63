/* The host of the task strategy chosen by TIDE_LB: it gives the strategy (strategies/task,
 * tide_lb.h) a view made from the runtime and actions that are the engine's services, keeps its
 * state and its knob values, and is the only file that knows both sides. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int act_offload(void *ctx, int dest, int n)
{
    tide_rt *rt = ctx;
    int moved = tide_offload_tasks(rt, dest, n);
    if (rt->trace && moved) tide_trace_move(rt->trace, rt->cphase, dest, moved, rt->lb.planning);
    return moved;
}

/* The trace records the plan as the strategy made it: how many tasks it sends to each rank. */
static void trace_plan(tide_rt *rt, const int32_t *dest, long n)
{
    int *count = calloc((size_t)rt->size, sizeof *count);
    if (!count) tide_fatal("out of memory tracing a plan");
    for (long k = 0; k < n; k++)
        if (dest[k] >= 0 && dest[k] < rt->size && dest[k] != rt->rank) count[dest[k]]++;
    for (int d = 0; d < rt->size; d++)
        if (count[d]) tide_trace_move(rt->trace, rt->cphase, d, count[d], true);
    free(count);
}

static int act_offload_selected(void *ctx, const int32_t *dest, long n)
{
    tide_rt *rt = ctx;
    if (rt->trace) trace_plan(rt, dest, n);
    return tide_offload_selected(rt, dest, n);
}

static int act_replicate(void *ctx, int dest, int n)
{
    return tide_replicate_tasks(ctx, dest, n);
}

static void act_send_control(void *ctx, int dest, const tide_control *msg)
{
    tide_send_control(ctx, dest, msg);
}

static void act_allgatherv(void *ctx, const double *mine, int n, const int *counts, double *out)
{
    tide_coll_allgatherv(ctx, mine, n, counts, out);
}

static bool act_task_times(void *ctx, double *times, long n)
{
    return tide_predict_task_times(ctx, times, n);
}

static void act_fatal(void *ctx, const char *msg)
{
    tide_rt *rt = ctx;
    tide_fatal("strategy %s: %s", rt->lb.ops->name, msg);
}

static void act_report_plan(void *ctx, double residual, int limit)
{
    tide_rt *rt = ctx;
    rt->plan_residual = residual;
    rt->plan_limit = limit;
}

static int act_reclaim(void *ctx, int n)
{
    return tide_transport_reclaim(ctx, n);
}

static void act_report_transfer(void *ctx, double seconds)
{
    ((tide_rt *)ctx)->plan_transfer = seconds;
}

/* The strategy's knob values in its own order, from the configuration's table of all knobs. */
static void pick_knobs(tide_rt *rt)
{
    size_t nall;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&nall);
    for (size_t k = 0; k < tide_lb_knob_count(rt->lb.ops); k++)
        for (size_t i = 0; i < nall; i++)
            if (all[i] == rt->lb.ops->knobs[k]) rt->lb.knob[k] = rt->cfg.lb_knob[i];
}

int tide_lb_host_init(tide_rt *rt, char *err, size_t len)
{
    tide_lb_host *h = &rt->lb;
    memset(h, 0, sizeof *h);
    h->ops = tide_lb_ops_find(rt->cfg.lb);
    if (!h->ops) { /* config.c checked the name: a registry without it is a build error */
        snprintf(err, len, "TIDE_LB='%s' is not registered", rt->cfg.lb);
        return TIDE_ERR_CONFIG;
    }
    if (h->ops->state_size && !(h->state = calloc(1, h->ops->state_size))) {
        snprintf(err, len, "out of memory for the state of strategy %s", h->ops->name);
        return TIDE_ERR_NOMEM;
    }
    pick_knobs(rt);
    rt->plan_at_start = h->ops->flags & TIDE_LB_PHASE_SYNC;
    rt->inline_phases = tide_lb_inline_phases(&rt->cfg);
    h->actions = (tide_lb_actions){.ctx = rt,
                                   .offload = act_offload,
                                   .offload_selected = act_offload_selected,
                                   .replicate = act_replicate,
                                   .send_control = act_send_control,
                                   .allgatherv = act_allgatherv,
                                   .task_times = act_task_times,
                                   .fatal = act_fatal,
                                   .report_plan = act_report_plan,
                                   .reclaim = act_reclaim,
                                   .report_transfer = act_report_transfer};
    return TIDE_OK;
}

void tide_lb_host_free(tide_rt *rt)
{
    tide_lb_orders_free(&rt->lb.orders);
    free(rt->lb.state);
    rt->lb.state = NULL;
}

bool tide_lb_phase_sync(const tide_rt *rt)
{
    return rt->plan_at_start;
}

bool tide_lb_rounds(const tide_rt *rt)
{
    return rt->lb.ops->flags & TIDE_LB_ROUNDS;
}

bool tide_lb_inline_phases(const tide_config *cfg)
{
    const tide_lb_ops *o = tide_lb_ops_find(cfg->lb);
    bool acts = !o || o->flags || o->phase_begin || o->round || o->progress || o->control;
    return cfg->phase_driver == TIDE_PHASE_DRIVER_AUTO && !acts;
}

static tide_lb_view view_of(tide_rt *rt, const tide_rank_status *all)
{
    return (tide_lb_view){.rank = rt->rank,
                          .size = rt->size,
                          .phase = rt->cphase,
                          .running = rt->running,
                          .stopping = rt->stopping,
                          .now = tide_now(),
                          .phase_tasks = rt->phase_tasks,
                          .queued = atomic_load(&rt->local.count),
                          .queued_in = atomic_load(&rt->remote.count),
                          .outgoing = tide_transport_outgoing(rt),
                          .threads = rt->threads,
                          .all = all,
                          .orders = all ? &rt->lb.orders : NULL,
                          .knob = rt->lb.knob,
                          .state = rt->lb.state,
                          .rng = &rt->rng};
}

void tide_lb_phase_begin(tide_rt *rt, const tide_rank_status *all)
{
    if (!rt->lb.ops->phase_begin) return;
    tide_lb_orders_forget(&rt->lb.orders); /* each call follows a new status allgather */
    tide_lb_view v = view_of(rt, all);
    rt->lb.planning = true;
    rt->lb.ops->phase_begin(&v, &rt->lb.actions);
    rt->lb.planning = false;
}

void tide_lb_round(tide_rt *rt, const tide_rank_status *all)
{
    if (!rt->lb.ops->round) return;
    tide_lb_orders_forget(&rt->lb.orders);
    tide_lb_view v = view_of(rt, all);
    rt->lb.ops->round(&v, &rt->lb.actions);
}

void tide_lb_progress(tide_rt *rt)
{
    if (!rt->lb.ops->progress) return;
    tide_lb_view v = view_of(rt, NULL);
    rt->lb.ops->progress(&v, &rt->lb.actions);
}

void tide_lb_control(tide_rt *rt, int src, const tide_control *msg)
{
    if (!rt->lb.ops->control) return;
    tide_lb_view v = view_of(rt, NULL);
    rt->lb.ops->control(&v, &rt->lb.actions, src, msg);
}
