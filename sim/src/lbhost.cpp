/* tide-sim's driver of the engine core's strategy host (runtime/core, tide_core_host.h): the
 * view's numbers come from a simulated rank, and the actions are the simulated engine's. Every
 * callback runs under the rank's callback lock, one at a time, as on libtide's comm thread. */
#include "sim.h"

#include <cstdlib>

static sim_rank *rank_of(void *ctx)
{
    return (sim_rank *)ctx;
}

/* --decisions: the phase-start plan of this rank, NULL outside it. */
static sim_decision *plan_record(sim_rank *R)
{
    if (R->S->decisions.empty() || !R->lb.planning) return nullptr;
    return &R->S->decisions[(size_t)R->phase][(size_t)R->id];
}

static int act_offload(void *ctx, int dest, int n)
{
    sim_rank *R = rank_of(ctx);
    int moved = sim_offload(R, dest, n);
    sim_decision *d = plan_record(R);
    if (d && dest >= 0 && dest < R->S->P) d->count[(size_t)dest] += moved;
    return moved;
}

static int act_offload_selected(void *ctx, const int32_t *dest, long n)
{
    sim_rank *R = rank_of(ctx);
    if (sim_decision *d = plan_record(R)) {
        d->sel.assign(dest, dest + n);
        for (long k = 0; k < n; k++)
            if (dest[k] >= 0 && dest[k] < R->S->P && dest[k] != R->id) d->count[(size_t)dest[k]]++;
    }
    return sim_offload_selected(R, dest, n);
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

static int act_task_coef(void *ctx, double *out, int max)
{
    return tide_feed_task_coef(&rank_of(ctx)->feed, out, max);
}

static bool act_adopt_task_coef(void *ctx, const double *coef, int n, double *load)
{
    return tide_feed_adopt(&rank_of(ctx)->feed, coef, n, load);
}

static void act_fatal(void *ctx, const char *msg)
{
    sim_rank *R = rank_of(ctx);
    fprintf(stderr, "tide-sim: rank %d: strategy %s: %s\n", R->id, R->S->ops->name, msg);
    exit(70);
}

static void numbers(void *ctx, tide_lb_view *v)
{
    sim_rank *R = rank_of(ctx);
    v->rank = R->id;
    v->size = R->S->P;
    v->phase = R->phase;
    v->running = R->running;
    v->stopping = false;
    v->now = sg::Engine::get_clock();
    v->phase_tasks = R->phase_tasks;
    v->queued = R->nlocal;
    v->queued_in = R->nremote;
    v->outgoing = R->noutgoing;
    v->threads = R->S->W;
}

static void enter(void *ctx)
{
    rank_of(ctx)->cb_lock->lock();
}

static void leave(void *ctx)
{
    rank_of(ctx)->cb_lock->unlock();
}

int sim_lb_init(sim_rank *R, char *err, size_t len)
{
    tide_lb_actions a = {};
    a.ctx = R;
    a.offload = act_offload;
    a.offload_selected = act_offload_selected;
    a.replicate = act_replicate;
    a.send_control = act_send_control;
    a.allgatherv = act_allgatherv;
    a.task_times = act_task_times;
    a.fatal = act_fatal;
    a.report_plan = nullptr; /* the simulated stats omit plan limits */
    a.reclaim = act_reclaim;
    a.report_transfer = act_report_transfer;
    a.task_coef = act_task_coef;
    a.adopt_task_coef = act_adopt_task_coef;
    tide_host_driver d = {R, numbers, enter, leave};
    size_t nall;
    tide_lb_all_knobs(&nall);
    const sim_config *c = R->S->cfg;
    return tide_host_init(&R->lb, c->tide.lb, c->tide.lb_knob,
                          nall < TIDE_LB_KNOBS_MAX ? nall : TIDE_LB_KNOBS_MAX, c->tide.seed, R->id,
                          &a, &d, err, len);
}

/* Every rank that took the collective shares its orders (coll.cpp). */
static tide_lb_orders *shared_orders(const tide_rank_status *all)
{
    return all ? sim_coll_orders((const double *)all) : nullptr;
}

void sim_lb_phase_begin(sim_rank *R, const tide_rank_status *all)
{
    if (!R->S->decisions.empty() && all)
        R->S->decisions[(size_t)R->phase][(size_t)R->id].count.assign((size_t)R->S->P, 0);
    tide_host_phase_begin(&R->lb, all, shared_orders(all));
}

void sim_lb_round(sim_rank *R, const tide_rank_status *all)
{
    tide_host_round(&R->lb, all, shared_orders(all));
}
