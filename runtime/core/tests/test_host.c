/* The strategy host with a fake driver and a fake strategy: pins what a strategy sees (the
 * driver's numbers, its knob values in its own order, its state, its random stream), the
 * orders' cache of a status collective (forgotten for each new one, or the driver's shared
 * one), that phase_begin is planning, and that the driver's enter/leave wrap exactly the
 * callbacks that run. Also a registered strategy by name, and an unknown name. */
#include "tide_core_host.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The fake driver: its numbers, and a log of what the host did. */
typedef struct driver {
    int entered, left, depth;
    int offloads, offloads_planning;
    struct tide_host *h;
} driver;

static void numbers(void *ctx, tide_lb_view *v)
{
    (void)ctx;
    v->rank = 3;
    v->size = 8;
    v->phase = 5;
    v->running = true;
    v->now = 1.25;
    v->phase_tasks = 40;
    v->queued = 17;
    v->queued_in = 2;
    v->outgoing = 1;
    v->threads = 4;
}

static void enter(void *ctx)
{
    driver *d = ctx;
    d->entered++;
    d->depth++;
}

static void leave(void *ctx)
{
    driver *d = ctx;
    d->left++;
    d->depth--;
}

static int act_offload(void *ctx, int dest, int n)
{
    driver *d = ctx;
    (void)dest;
    d->offloads++;
    if (d->h->planning) d->offloads_planning++;
    return n;
}

/* The fake strategy: two knobs, a state, and a log of the views it saw. */
static const tide_lb_knob knob_a = {.name = "TIDE_TEST_A", .def = 1, .min = 0, .max = 10};
static const tide_lb_knob knob_b = {.name = "TIDE_TEST_B", .def = 2, .min = 0, .max = 10};
static const tide_lb_knob *const fake_knobs[] = {&knob_b, &knob_a, NULL};

typedef struct fake_state {
    int calls;
    tide_lb_view last;
    uint64_t draw;
} fake_state;

static void seen(const tide_lb_view *v)
{
    fake_state *s = v->state;
    s->calls++;
    s->last = *v;
}

static void fake_begin(const tide_lb_view *v, const tide_lb_actions *a)
{
    seen(v);
    ((fake_state *)v->state)->draw = tide_lb_rng(v->rng);
    a->offload(a->ctx, 0, 1);
}

static void fake_round(const tide_lb_view *v, const tide_lb_actions *a)
{
    seen(v);
    a->offload(a->ctx, 1, 1);
}

static void fake_control(const tide_lb_view *v, const tide_lb_actions *a, int src,
                         const tide_control *msg)
{
    (void)a;
    (void)msg;
    CHECK(src == 6);
    seen(v);
}

static double fake_quiet(const tide_lb_view *v)
{
    return v->now + 1;
}

static const tide_lb_ops fake = {.name = "fake",
                                 .state_size = sizeof(fake_state),
                                 .knobs = fake_knobs,
                                 .phase_begin = fake_begin,
                                 .round = fake_round,
                                 .control = fake_control,
                                 .quiet_until = fake_quiet};

static void hosts_a_strategy(void)
{
    driver d = {0};
    tide_host h;
    d.h = &h;
    tide_lb_actions a = {.ctx = &d, .offload = act_offload};
    tide_host_driver dr = {&d, numbers, enter, leave};
    /* Knobs outside the registry's table get no values: zeros. */
    char err[128];
    CHECK(tide_host_init_ops(&h, &fake, NULL, 0, 11, 3, &a, &dr, err, sizeof err) == 0);
    CHECK(h.rng == 11 * 0x9e3779b97f4a7c15ull + 3);
    CHECK(h.knob[0] == 0 && h.knob[1] == 0);
    fake_state *s = h.state;
    CHECK(s && s->calls == 0);

    tide_rank_status all[8];
    memset(all, 0, sizeof all);
    tide_host_phase_begin(&h, all, NULL);
    CHECK(s->calls == 1 && d.entered == 1 && d.left == 1 && d.depth == 0);
    CHECK(d.offloads == 1 && d.offloads_planning == 1 && !h.planning);
    CHECK(s->last.rank == 3 && s->last.size == 8 && s->last.phase == 5 && s->last.running);
    CHECK(s->last.queued == 17 && s->last.queued_in == 2 && s->last.outgoing == 1);
    CHECK(s->last.threads == 4 && s->last.phase_tasks == 40 && s->last.now == 1.25);
    CHECK(s->last.all == all && s->last.orders == &h.orders);
    CHECK(s->last.knob == h.knob && s->last.state == h.state && s->last.rng == &h.rng);
    CHECK(s->draw != 0 && h.rng != 11 * 0x9e3779b97f4a7c15ull + 3); /* the stream advanced */

    /* A round: not planning; the host's orders forgotten (a new collective), or the driver's
     * shared cache when it gives one. */
    h.orders.made[0] = true;
    tide_host_round(&h, all, NULL);
    CHECK(!h.orders.made[0] && s->last.orders == &h.orders);
    CHECK(d.offloads == 2 && d.offloads_planning == 1);
    tide_lb_orders shared = {0};
    shared.made[0] = true;
    h.orders.made[0] = true;
    tide_host_round(&h, all, &shared);
    CHECK(s->last.orders == &shared && shared.made[0] && h.orders.made[0]);
    /* Without statuses no orders. */
    tide_host_phase_begin(&h, NULL, &shared);
    CHECK(s->last.all == NULL && s->last.orders == NULL);
    CHECK(d.entered == 4 && d.left == 4);

    /* No progress callback: nothing runs, nothing is entered. */
    tide_host_progress(&h);
    CHECK(s->calls == 4 && d.entered == 4);
    tide_control msg = {0};
    tide_host_control(&h, 6, &msg);
    CHECK(s->calls == 5 && d.entered == 5 && s->last.all == NULL && s->last.orders == NULL);
    /* quiet_until only reads: no enter. */
    CHECK(tide_host_quiet_until(&h) == 2.25 && d.entered == 5);
    tide_host_free(&h);
    CHECK(h.state == NULL && h.knob == NULL);
}

/* A registered strategy by name gets its knob values from the registry's table, in its own
 * order; an unknown name is one line. */
static void registered_by_name(void)
{
    size_t nall;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&nall);
    double values[256];
    CHECK(nall <= 256);
    for (size_t i = 0; i < nall; i++)
        values[i] = 100 + (double)i;
    driver d = {0};
    tide_host h;
    d.h = &h;
    tide_lb_actions a = {.ctx = &d, .offload = act_offload};
    tide_host_driver dr = {&d, numbers, NULL, NULL};
    char err[128];
    CHECK(tide_host_init(&h, "react", values, nall, 1, 0, &a, &dr, err, sizeof err) == 0);
    size_t nk = tide_lb_knob_count(h.ops);
    CHECK(nk >= 1);
    for (size_t k = 0; k < nk; k++) {
        size_t i = 0;
        while (i < nall && all[i] != h.ops->knobs[k])
            i++;
        CHECK(i < nall && h.knob[k] == values[i]);
    }
    CHECK(tide_host_quiet_until(&h) == -INFINITY || h.ops->quiet_until);
    tide_host_free(&h);

    err[0] = 0;
    CHECK(tide_host_init(&h, "bogus", values, nall, 1, 0, &a, &dr, err, sizeof err) == -1);
    CHECK(strcmp(err, "TIDE_LB='bogus' is not registered") == 0 && h.state == NULL);
    tide_host_free(&h);
}

int main(void)
{
    hosts_a_strategy();
    registered_by_name();
    return CHECK_REPORT("test_host");
}
