/* The host of the task strategy (tide_lb.h) in the simulator, the counterpart of
 * runtime/engine/lb_host.c: a view made from a simulated rank, and actions that are the
 * simulated engine's. Every callback runs under the rank's callback lock, one at a time, as on
 * libtide's comm thread. */
#include "sim.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

static sim_rank *rank_of(void *ctx)
{
    return (sim_rank *)ctx;
}

static int act_offload(void *ctx, int dest, int n)
{
    return sim_offload(rank_of(ctx), dest, n);
}

static int act_offload_selected(void *ctx, const int32_t *dest, long n)
{
    return sim_offload_selected(rank_of(ctx), dest, n);
}

static int act_replicate(void *ctx, int dest, int n)
{
    return sim_replicate(rank_of(ctx), dest, n);
}

static void act_send_control(void *ctx, int dest, const tide_control *msg)
{
    sim_rank *R = rank_of(ctx);
    if (dest < 0 || dest >= R->S->P || dest == R->id) return;
    sim_queue_control(R, dest, msg);
}

static void act_allgatherv(void *ctx, const double *mine, int n, const int *counts, double *out)
{
    sim_coll_allgatherv(rank_of(ctx), mine, n, counts, out);
}

static bool act_task_times(void *ctx, double *times, long n)
{
    return sim_predict_task_times(rank_of(ctx), times, n);
}

static int act_reclaim(void *ctx, int n)
{
    return sim_reclaim(rank_of(ctx), n);
}

static void act_report_transfer(void *ctx, double seconds)
{
    rank_of(ctx)->plan_transfer = seconds;
}

static void act_fatal(void *ctx, const char *msg)
{
    sim_rank *R = rank_of(ctx);
    fprintf(stderr, "tide-sim: rank %d: strategy %s: %s\n", R->id, R->S->ops->name, msg);
    exit(70);
}

void sim_lb_init(sim_rank *R)
{
    const tide_lb_ops *ops = R->S->ops;
    size_t nall;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&nall);
    R->knob.assign(tide_lb_knob_count(ops) + 1, 0.0);
    for (size_t k = 0; k < tide_lb_knob_count(ops); k++)
        for (size_t i = 0; i < nall && i < TIDE_LB_KNOBS_MAX; i++)
            if (all[i] == ops->knobs[k]) R->knob[k] = R->S->cfg->tide.lb_knob[i];
    R->state = ops->state_size ? calloc(1, ops->state_size) : nullptr;
    R->rng = R->S->cfg->tide.seed * 0x9e3779b97f4a7c15ull + (uint64_t)R->id; /* as libtide's */
    R->actions = tide_lb_actions{};
    R->actions.ctx = R;
    R->actions.offload = act_offload;
    R->actions.offload_selected = act_offload_selected;
    R->actions.replicate = act_replicate;
    R->actions.send_control = act_send_control;
    R->actions.allgatherv = act_allgatherv;
    R->actions.task_times = act_task_times;
    R->actions.fatal = act_fatal;
    R->actions.report_plan = nullptr; /* the simulated stats omit plan limits */
    R->actions.reclaim = act_reclaim;
    R->actions.report_transfer = act_report_transfer;
}

static tide_lb_view view_of(sim_rank *R, const tide_rank_status *all)
{
    tide_lb_view v = {};
    v.rank = R->id;
    v.size = R->S->P;
    v.phase = R->phase;
    v.running = R->running;
    v.stopping = false;
    v.now = sg::Engine::get_clock();
    v.phase_tasks = R->phase_tasks;
    v.queued = R->nlocal;
    v.queued_in = R->nremote;
    v.outgoing = R->noutgoing;
    v.threads = R->S->W;
    v.all = all;
    v.orders = all ? sim_coll_orders((const double *)all) : nullptr;
    v.knob = R->knob.data();
    v.state = R->state;
    v.rng = &R->rng;
    return v;
}

typedef void (*lb_callback)(const tide_lb_view *, const tide_lb_actions *);

static void call(sim_rank *R, lb_callback fn, const tide_rank_status *all)
{
    if (!fn) return;
    R->cb_lock->lock();
    tide_lb_view v = view_of(R, all);
    fn(&v, &R->actions);
    R->cb_lock->unlock();
}

void sim_lb_phase_begin(sim_rank *R, const tide_rank_status *all)
{
    R->planning = true; /* what moves now is the plan (its burst measures the drain rate) */
    call(R, R->S->ops->phase_begin, all);
    R->planning = false;
}

void sim_lb_round(sim_rank *R, const tide_rank_status *all)
{
    call(R, R->S->ops->round, all);
}

void sim_lb_progress(sim_rank *R)
{
    call(R, R->S->ops->progress, nullptr);
}

double sim_lb_quiet_until(sim_rank *R)
{
    if (!R->S->ops->quiet_until) return -INFINITY;
    /* Without the callback lock: the hint only reads, and an actor runs until its next simcall,
     * so no callback can interleave; taking the lock would be a scheduling point of its own and
     * let other actors run first at the same instant, which the turn it stands for is not. */
    tide_lb_view v = view_of(R, nullptr);
    return R->S->ops->quiet_until(&v);
}

void sim_lb_control(sim_rank *R, int src, const tide_control *msg)
{
    if (!R->S->ops->control) return;
    R->cb_lock->lock();
    tide_lb_view v = view_of(R, nullptr);
    R->S->ops->control(&v, &R->actions, src, msg);
    R->cb_lock->unlock();
}
