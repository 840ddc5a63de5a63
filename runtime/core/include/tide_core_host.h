/* The strategy host of the engine core: what hosting a task strategy (tide_lb.h) is, whoever
 * drives it. It finds the strategy by name, gives it its state and its knob values, seeds its
 * random stream, and calls it: each callback with a view made afresh, phase_begin marked as
 * planning, the orders of a status collective forgotten when a new one comes. The driver
 * supplies the view's numbers (its queues, its clock) and the actions (what an offload or a
 * control message does): libtide (runtime/engine/lb_host.c) and tide-sim (sim/src/lbhost.cpp).
 * No I/O, no globals, no threads. */
#ifndef TIDE_CORE_HOST_H
#define TIDE_CORE_HOST_H

#include "tide_lb.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the host needs from its driver beside the actions. */
typedef struct tide_host_driver {
    void *ctx;
    /* The rank's numbers now: rank, size, phase, running, stopping, now, phase_tasks, queued,
     * queued_in, outgoing and threads of *v (the host sets the rest). */
    void (*numbers)(void *ctx, tide_lb_view *v);
    /* Optional: around every callback that changes something (tide-sim: the rank's callback
     * lock, as libtide's comm thread runs them one at a time); NULL: nothing. */
    void (*enter)(void *ctx);
    void (*leave)(void *ctx);
} tide_host_driver;

typedef struct tide_host {
    const tide_lb_ops *ops;
    void *state;  /* ops->state_size bytes, zeroed */
    double *knob; /* the strategy's knob values, in the order of ops->knobs */
    uint64_t rng; /* the rank's random stream */
    tide_lb_actions actions;
    tide_host_driver driver;
    tide_lb_orders orders; /* of the statuses the last phase_begin or round saw */
    bool planning;         /* inside phase_begin: what moves now is the plan */
} tide_host;

/* Hosts strategy `name` on rank `rank`: values[i] is the value of tide_lb_all_knobs()[i] (n of
 * them), seed the run's seed. Returns 0, or -1 with one line in err (an unknown name, out of
 * memory). */
int tide_host_init(tide_host *h, const char *name, const double *values, size_t n, uint64_t seed,
                   int rank, const tide_lb_actions *actions, const tide_host_driver *driver,
                   char *err, size_t len);
/* Same with the strategy's ops given (a strategy outside the registry, a test's). */
int tide_host_init_ops(tide_host *h, const tide_lb_ops *ops, const double *values, size_t n,
                       uint64_t seed, int rank, const tide_lb_actions *actions,
                       const tide_host_driver *driver, char *err, size_t len);
void tide_host_free(tide_host *h);

/* Whether a strategy ever acts (moves a task, plans, takes rounds, polls or sends control
 * messages). One that never does lets the driver run its phases without the comm thread's
 * protocol: libtide's inline phases (TIDE_PHASE_DRIVER=auto), which tide-sim models too. */
static inline bool tide_host_acts(const tide_lb_ops *ops)
{
    return !ops || ops->flags || ops->phase_begin || ops->round || ops->progress || ops->control;
}

/* The rank's random stream for a seed, the same in every driver. */
static inline uint64_t tide_host_rank_seed(uint64_t seed, int rank)
{
    return seed * 0x9e3779b97f4a7c15ull + (uint64_t)rank;
}

/* The strategy's callbacks; each does nothing when the strategy has none. all: every rank's
 * status (NULL when the phase starts without a status collective); shared: a cache of its orders
 * the driver keeps for every rank that saw the same collective (tide-sim), NULL: the host's own. */
void tide_host_phase_begin(tide_host *h, const tide_rank_status *all, tide_lb_orders *shared);
void tide_host_round(tide_host *h, const tide_rank_status *all, tide_lb_orders *shared);
void tide_host_progress(tide_host *h);
void tide_host_control(tide_host *h, int src, const tide_control *msg);
/* The strategy's quiet_until for the view now (it only reads: no enter/leave); -INFINITY
 * without one. */
double tide_host_quiet_until(tide_host *h);
/* The strategy's rounds_needed for the view now (it only reads); true without one. */
bool tide_host_rounds_needed(tide_host *h);

#ifdef __cplusplus
}
#endif

#endif
