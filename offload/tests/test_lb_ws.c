/* `ws` through the plug-in interface with fake actions: an idle thief sends one request and no
 * second while it is pending; a victim with a surplus grants tasks and answers; a refusal makes
 * the thief back off, doubling up to the knob's maximum; stale answers are ignored; an unknown
 * message is a protocol error. The strategy's state lives in the view, not in statics: two
 * thieves do not share it. */
#include "fake.h"

typedef struct rank {
    double knob[8];
    void *state;
    uint64_t rng;
} rank;

static tide_lb_view view(const tide_lb_ops *ws, rank *r, int me, long queued, double now)
{
    return (tide_lb_view){.rank = me,
                          .size = 4,
                          .phase = 7,
                          .running = true,
                          .now = now,
                          .queued = queued,
                          .knob = r->knob,
                          .state = r->state,
                          .rng = &r->rng};
    (void)ws;
}

int main(void)
{
    const tide_lb_ops *ws = tide_lb_ops_find("ws");
    CHECK(ws && ws->progress && ws->control && ws->state_size > 0);
    rank thief = {.rng = 3}, other = {.rng = 3}, victim = {.rng = 5};
    default_knobs(ws, thief.knob), default_knobs(ws, other.knob), default_knobs(ws, victim.knob);
    thief.state = calloc(1, ws->state_size), other.state = calloc(1, ws->state_size);
    victim.state = calloc(1, ws->state_size);
    fake f;
    tide_lb_actions a = fake_actions(&f);

    tide_lb_view v = view(ws, &thief, 0, 0, 1.0);
    ws->phase_begin(&v, &a);
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 1);
    CHECK(f.control_dest[0] != 0 && f.control[0].op == 1 && f.control[0].phase == 7);
    ws->progress(&v, &a); /* pending: no second request */
    CHECK_EQ_I64(f.controls, 1);
    /* Another thief's state is its own: it may ask although the first one waits. */
    tide_lb_view o = view(ws, &other, 1, 0, 1.0);
    ws->phase_begin(&o, &a);
    ws->progress(&o, &a);
    CHECK_EQ_I64(f.controls, 2);

    /* The victim holds 9 tasks, keeps TIDE_WS_THRESHOLD (1) and grants half the surplus. */
    tide_control req = f.control[0];
    a = fake_actions(&f);
    f.available = 9;
    tide_lb_view vv = view(ws, &victim, f.control_dest[0], 9, 1.0);
    ws->control(&vv, &a, 0, &req);
    CHECK_EQ_I64(f.offloaded[0], 4);
    CHECK(f.controls == 1 && f.control[0].op == 2 && f.control[0].value == 4);
    /* A request of another phase is refused: tasks never cross a phase boundary. */
    tide_control old = req;
    old.phase = 6;
    a = fake_actions(&f);
    f.available = 9;
    ws->control(&vv, &a, 0, &old);
    CHECK(f.offloaded[0] == 0 && f.control[0].value == 0);

    /* A refusal: the thief waits 50 us, then 100 us after the next one, ... */
    a = fake_actions(&f);
    tide_control no = {2, 7, 0, 0};
    ws->control(&v, &a, 3, &no);
    v.now = 1.0 + 40e-6;
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 0); /* still backing off */
    v.now = 1.0 + 60e-6;
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 1);
    /* A stale answer (another phase) changes nothing: the request stays pending. */
    tide_control stale = {2, 3, 5, 0};
    ws->control(&v, &a, 3, &stale);
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 1);
    /* The wait doubles (100 us now), and the doubling stops at TIDE_WS_BACKOFF_MAX_US. */
    thief.knob[2] = 80; /* us */
    ws->control(&v, &a, 3, &no);
    double t0 = v.now;
    v.now = t0 + 95e-6;
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 1);
    v.now = t0 + 105e-6;
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 2);
    ws->control(&v, &a, 3, &no); /* 200 us would be next: capped to 80 */
    double t1 = v.now;
    v.now = t1 + 70e-6;
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 2);
    v.now = t1 + 85e-6;
    ws->progress(&v, &a);
    CHECK_EQ_I64(f.controls, 3);
    /* Unknown operation: a protocol error. */
    tide_control junk = {99, 7, 0, 0};
    ws->control(&v, &a, 3, &junk);
    CHECK_EQ_I64(f.fatals, 1);
    free(thief.state), free(other.state), free(victim.state);
    printf("%d failures\n", check_failures);
    return check_failures != 0;
}
