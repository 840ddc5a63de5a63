/* libtide's driver of the engine core's strategy host (runtime/core, tide_core_host.h) for the
 * task strategy chosen by TIDE_LB: the view's numbers come from the runtime, and the actions are
 * the engine's services (tide_offload_tasks, tide_send_control, ...); the core keeps the
 * strategy's state and knob values and calls it. */
#include "internal.h"

#include <stdlib.h>

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

static int act_task_coef(void *ctx, double *out, int max)
{
    return tide_feed_task_coef(&((tide_rt *)ctx)->feed, out, max);
}

static bool act_adopt_task_coef(void *ctx, const double *coef, int n, double *load)
{
    return tide_feed_adopt(&((tide_rt *)ctx)->feed, coef, n, load);
}

/* The view's numbers, from the runtime. */
static void numbers(void *ctx, tide_lb_view *v)
{
    tide_rt *rt = ctx;
    v->rank = rt->rank;
    v->size = rt->size;
    v->phase = rt->cphase;
    v->running = rt->running;
    v->stopping = rt->stopping;
    v->now = tide_now();
    v->phase_tasks = rt->phase_tasks;
    v->queued = atomic_load(&rt->local.count);
    v->queued_in = atomic_load(&rt->remote.count);
    v->outgoing = tide_transport_outgoing(rt);
    v->threads = rt->threads;
}

int tide_lb_host_init(tide_rt *rt, char *err, size_t len)
{
    tide_lb_actions actions = {.ctx = rt,
                               .offload = act_offload,
                               .offload_selected = act_offload_selected,
                               .replicate = act_replicate,
                               .send_control = act_send_control,
                               .allgatherv = act_allgatherv,
                               .task_times = act_task_times,
                               .fatal = act_fatal,
                               .report_plan = act_report_plan,
                               .reclaim = act_reclaim,
                               .report_transfer = act_report_transfer,
                               .task_coef = act_task_coef,
                               .adopt_task_coef = act_adopt_task_coef};
    tide_host_driver driver = {.ctx = rt, .numbers = numbers};
    size_t nall;
    tide_lb_all_knobs(&nall);
    if (nall > TIDE_LB_KNOBS_MAX) nall = TIDE_LB_KNOBS_MAX;
    if (tide_host_init(&rt->lb, rt->cfg.lb, rt->cfg.lb_knob, nall, rt->cfg.seed, rt->rank, &actions,
                       &driver, err, len) != 0)
        return rt->lb.ops ? TIDE_ERR_NOMEM : TIDE_ERR_CONFIG;
    rt->inline_phases = tide_lb_inline_phases(&rt->cfg, rt->size);
    tide_plan_gate_setup(&rt->gate, rt->lb.ops->flags, rt->cfg.phase_driver, rt->cfg.plan_gate,
                         rt->size);
    return TIDE_OK;
}

void tide_lb_host_free(tide_rt *rt)
{
    tide_host_free(&rt->lb);
}

bool tide_lb_inline_phases(const tide_config *cfg, int ranks)
{
    return tide_proto_inline_phases(tide_lb_ops_find(cfg->lb), cfg->phase_driver, ranks);
}

void tide_lb_phase_begin(tide_rt *rt, const tide_rank_status *all)
{
    tide_host_phase_begin(&rt->lb, all, NULL);
}

void tide_lb_round(tide_rt *rt, const tide_rank_status *all)
{
    tide_host_round(&rt->lb, all, NULL);
}

void tide_lb_progress(tide_rt *rt)
{
    tide_host_progress(&rt->lb);
}

void tide_lb_control(tide_rt *rt, int src, const tide_control *msg)
{
    tide_host_control(&rt->lb, src, msg);
}
