/* The strategy host (tide_core_host.h): the part of hosting a task strategy that libtide and
 * tide-sim share. */
#include "tide_core_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The strategy's knob values in its own order, from the values of every registered knob. */
static void pick_knobs(tide_host *h, const double *values, size_t n)
{
    size_t nall;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&nall);
    if (n > nall) n = nall;
    for (size_t k = 0; k < tide_lb_knob_count(h->ops); k++)
        for (size_t i = 0; i < n; i++)
            if (all[i] == h->ops->knobs[k]) h->knob[k] = values[i];
}

int tide_host_init(tide_host *h, const char *name, const double *values, size_t n, uint64_t seed,
                   int rank, const tide_lb_actions *actions, const tide_host_driver *driver,
                   char *err, size_t len)
{
    const tide_lb_ops *ops = tide_lb_ops_find(name);
    if (!ops) { /* the knob table checked the name: a registry without it is a build error */
        memset(h, 0, sizeof *h);
        snprintf(err, len, "TIDE_LB='%s' is not registered", name);
        return -1;
    }
    return tide_host_init_ops(h, ops, values, n, seed, rank, actions, driver, err, len);
}

int tide_host_init_ops(tide_host *h, const tide_lb_ops *ops, const double *values, size_t n,
                       uint64_t seed, int rank, const tide_lb_actions *actions,
                       const tide_host_driver *driver, char *err, size_t len)
{
    memset(h, 0, sizeof *h);
    h->ops = ops;
    h->knob = calloc(tide_lb_knob_count(ops) + 1, sizeof *h->knob);
    if (ops->state_size) h->state = calloc(1, ops->state_size);
    if (!h->knob || (ops->state_size && !h->state)) {
        snprintf(err, len, "out of memory for the state of strategy %s", ops->name);
        tide_host_free(h);
        return -1;
    }
    pick_knobs(h, values, n);
    h->rng = tide_host_rank_seed(seed, rank);
    h->actions = *actions;
    h->driver = *driver;
    return 0;
}

void tide_host_free(tide_host *h)
{
    tide_lb_orders_free(&h->orders);
    free(h->state);
    free(h->knob);
    h->state = NULL;
    h->knob = NULL;
}

static tide_lb_view view_of(tide_host *h, const tide_rank_status *all, tide_lb_orders *orders)
{
    tide_lb_view v;
    memset(&v, 0, sizeof v);
    h->driver.numbers(h->driver.ctx, &v);
    v.all = all;
    v.orders = all ? orders : NULL;
    v.knob = h->knob;
    v.state = h->state;
    v.rng = &h->rng;
    return v;
}

static void enter(tide_host *h)
{
    if (h->driver.enter) h->driver.enter(h->driver.ctx);
}

static void leave(tide_host *h)
{
    if (h->driver.leave) h->driver.leave(h->driver.ctx);
}

/* The orders of a new status collective: the driver's shared cache, or the host's own, whose
 * orders of the previous statuses are forgotten. */
static tide_lb_orders *orders_of(tide_host *h, tide_lb_orders *shared)
{
    if (shared) return shared;
    tide_lb_orders_forget(&h->orders);
    return &h->orders;
}

void tide_host_phase_begin(tide_host *h, const tide_rank_status *all, tide_lb_orders *shared)
{
    if (!h->ops->phase_begin) return;
    enter(h);
    tide_lb_view v = view_of(h, all, orders_of(h, shared));
    h->planning = true;
    h->ops->phase_begin(&v, &h->actions);
    h->planning = false;
    leave(h);
}

void tide_host_round(tide_host *h, const tide_rank_status *all, tide_lb_orders *shared)
{
    if (!h->ops->round) return;
    enter(h);
    tide_lb_view v = view_of(h, all, orders_of(h, shared));
    h->ops->round(&v, &h->actions);
    leave(h);
}

void tide_host_progress(tide_host *h)
{
    if (!h->ops->progress) return;
    enter(h);
    tide_lb_view v = view_of(h, NULL, NULL);
    h->ops->progress(&v, &h->actions);
    leave(h);
}

void tide_host_control(tide_host *h, int src, const tide_control *msg)
{
    if (!h->ops->control) return;
    enter(h);
    tide_lb_view v = view_of(h, NULL, NULL);
    h->ops->control(&v, &h->actions, src, msg);
    leave(h);
}

double tide_host_quiet_until(tide_host *h)
{
    if (!h->ops->quiet_until) return -INFINITY;
    tide_lb_view v = view_of(h, NULL, NULL);
    return h->ops->quiet_until(&v);
}

bool tide_host_rounds_needed(tide_host *h)
{
    if (!h->ops->rounds_needed) return true;
    tide_lb_view v = view_of(h, NULL, NULL);
    return h->ops->rounds_needed(&v);
}
