/* Fake actions for strategy unit tests: every action is recorded, nothing moves, so a test
 * drives a strategy through views it builds by hand and checks what the strategy asked for. The
 * same interface is what the runtime and a simulator implement. */
#ifndef TIDE_LB_FAKE_H
#define TIDE_LB_FAKE_H

#include "check.h"
#include "tide_lb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX 64

typedef struct fake {
    int offloads, offloaded[FAKE_MAX]; /* per destination: tasks taken */
    int replicas, replicated[FAKE_MAX];
    int controls, control_dest[FAKE_MAX];
    tide_control control[FAKE_MAX];
    long available; /* tasks the fake queue holds: offload takes at most these */
    int fatals;
    int reports;
    double residual; /* the last report_plan */
    int limit;
    long outgoing; /* tasks waiting to leave: reclaim takes at most these */
    int reclaims;  /* reclaim calls, and the tasks they took */
    long reclaimed;
    double transfer; /* the last report_transfer */
} fake;

static int fake_offload(void *ctx, int dest, int n)
{
    fake *f = ctx;
    int k = n < f->available ? n : (int)f->available;
    f->available -= k;
    f->offloads++;
    f->offloaded[dest] += k;
    return k;
}

static int fake_offload_selected(void *ctx, const int32_t *dest, long n)
{
    (void)ctx, (void)dest, (void)n;
    return 0;
}

static int fake_replicate(void *ctx, int dest, int n)
{
    fake *f = ctx;
    f->replicas++;
    f->replicated[dest] += n;
    return n;
}

static void fake_send_control(void *ctx, int dest, const tide_control *msg)
{
    fake *f = ctx;
    if (f->controls < FAKE_MAX) f->control_dest[f->controls] = dest, f->control[f->controls] = *msg;
    f->controls++;
}

static void fake_allgatherv(void *ctx, const double *mine, int n, const int *counts, double *out)
{
    (void)ctx, (void)counts;
    memcpy(out, mine, sizeof(double) * (size_t)n);
}

static bool fake_task_times(void *ctx, double *times, long n)
{
    (void)ctx, (void)times, (void)n;
    return false;
}

static void fake_fatal(void *ctx, const char *msg)
{
    (void)msg;
    ((fake *)ctx)->fatals++;
}

static void fake_report_plan(void *ctx, double residual, int limit)
{
    fake *f = ctx;
    f->reports++;
    f->residual = residual;
    f->limit = limit;
}

static int fake_reclaim(void *ctx, int n)
{
    fake *f = ctx;
    long k = n < f->outgoing ? n : f->outgoing;
    f->outgoing -= k;
    f->reclaims++;
    f->reclaimed += k;
    return (int)k;
}

static void fake_report_transfer(void *ctx, double seconds)
{
    ((fake *)ctx)->transfer = seconds;
}

static tide_lb_actions fake_actions(fake *f)
{
    memset(f, 0, sizeof *f);
    return (tide_lb_actions){f,
                             fake_offload,
                             fake_offload_selected,
                             fake_replicate,
                             fake_send_control,
                             fake_allgatherv,
                             fake_task_times,
                             fake_fatal,
                             fake_report_plan,
                             fake_reclaim,
                             fake_report_transfer,
                             NULL, /* task_coef: no pooling of task models here */
                             NULL};
}

/* The strategy's knobs at their defaults, in its order. */
static void default_knobs(const tide_lb_ops *ops, double *knob)
{
    for (size_t k = 0; k < tide_lb_knob_count(ops); k++)
        knob[k] = ops->knobs[k]->def;
}

#endif
