/* `ws` (random work stealing): a rank whose queues are empty asks a random other rank for
 * work; the victim answers with tasks when it has more than TIDE_WS_THRESHOLD not started (one
 * task, or half of the surplus: TIDE_WS_AMOUNT), else with a refusal, after which the thief
 * waits before it asks again, doubling the wait up to TIDE_WS_BACKOFF_MAX_US. The phase ends
 * through status rounds, so a thief may keep stealing after its own tasks are done.
 *
 * A request carries the thief's phase; a victim grants only requests of the phase it is running,
 * so tasks never cross a phase boundary, and stale answers are recognised by their phase. */
#include "tide_lb.h"

#include <math.h>

enum { WS_REQUEST = 1, WS_ANSWER = 2 };
enum { K_THRESHOLD, K_AMOUNT, K_BACKOFF_MAX_US };

#define WS_BACKOFF_MIN 50e-6

static const char *const amount_names[] = {"one", "half", NULL};

static const tide_lb_knob ws_threshold = {.name = "TIDE_WS_THRESHOLD",
                                          .def = 1,
                                          .min = 0,
                                          .max = 1000000,
                                          .integer = true,
                                          .help =
                                              "`ws`: not-started tasks a victim keeps for itself"};
static const tide_lb_knob ws_amount = {
    .name = "TIDE_WS_AMOUNT",
    .def = 1,
    .min = 0,
    .max = 1,
    .integer = true,
    .choices = amount_names,
    .help = "`ws`: a granted request takes one task or half the surplus"};
static const tide_lb_knob ws_backoff = {
    .name = "TIDE_WS_BACKOFF_MAX_US",
    .def = 2000,
    .min = 50,
    .max = 10000000,
    .integer = true,
    .help = "`ws`: longest wait of a refused thief before it asks again"};

/* This rank's thief. */
typedef struct ws_state {
    bool pending;      /* a request is unanswered */
    int pending_phase; /* ... and it was sent in this phase */
    double next_try;   /* before this time no new request goes out */
    double backoff;
} ws_state;

static void ws_begin(const tide_lb_view *v, const tide_lb_actions *a)
{
    (void)a;
    ws_state *s = v->state;
    s->next_try = 0;
    s->backoff = WS_BACKOFF_MIN;
}

static void ws_progress(const tide_lb_view *v, const tide_lb_actions *a)
{
    ws_state *s = v->state;
    if (v->size < 2 || v->stopping) return;
    if (s->pending && s->pending_phase == v->phase) return;
    if (v->queued > 0 || v->queued_in > 0 || v->now < s->next_try) return;
    int victim = (int)(tide_lb_rng(v->rng) % (uint64_t)(v->size - 1));
    if (victim >= v->rank) victim++;
    tide_control req = {WS_REQUEST, (uint32_t)v->phase, 0, 0};
    a->send_control(a->ctx, victim, &req);
    s->pending = true;
    s->pending_phase = v->phase;
}

/* ws_progress does nothing before this while the view stays: not with a request out, nor
 * with tasks queued, nor before the back-off ends. */
static double ws_quiet_until(const tide_lb_view *v)
{
    const ws_state *s = v->state;
    if (v->size < 2 || v->stopping) return INFINITY;
    if (s->pending && s->pending_phase == v->phase) return INFINITY;
    if (v->queued > 0 || v->queued_in > 0) return INFINITY;
    return s->next_try;
}

/* Tasks a victim grants: none at or below the threshold, else one or half the surplus. */
static int grant_for(const tide_lb_view *v)
{
    long surplus = v->queued - (long)v->knob[K_THRESHOLD];
    if (surplus <= 0) return 0;
    return v->knob[K_AMOUNT] == 1 ? (int)((surplus + 1) / 2) : 1;
}

static void ws_answered(const tide_lb_view *v, ws_state *s, int64_t granted)
{
    s->pending = false;
    if (granted > 0) {
        s->backoff = WS_BACKOFF_MIN; /* the tasks are on their way */
        s->next_try = v->now + WS_BACKOFF_MIN;
        return;
    }
    s->next_try = v->now + s->backoff;
    s->backoff *= 2;
    double max = 1e-6 * v->knob[K_BACKOFF_MAX_US];
    if (s->backoff > max) s->backoff = max;
}

static void ws_control(const tide_lb_view *v, const tide_lb_actions *a, int src,
                       const tide_control *msg)
{
    ws_state *s = v->state;
    if (msg->op == WS_REQUEST) {
        if (v->stopping) return; /* nobody waits for answers any more */
        int granted = 0;
        if (v->running && (int)msg->phase == v->phase)
            granted = a->offload(a->ctx, src, grant_for(v));
        tide_control ans = {WS_ANSWER, msg->phase, granted, 0};
        a->send_control(a->ctx, src, &ans);
        return;
    }
    if (msg->op != WS_ANSWER) {
        a->fatal(a->ctx, "unknown work-stealing message");
        return;
    }
    if (!s->pending || (int)msg->phase != s->pending_phase) return; /* stale */
    ws_answered(v, s, msg->value);
}

static const tide_lb_knob *const ws_knobs[] = {&ws_threshold, &ws_amount, &ws_backoff, NULL};

const tide_lb_ops tide_lb_ws = {.name = "ws",
                                .flags = TIDE_LB_PHASE_SYNC | TIDE_LB_ROUNDS | TIDE_LB_GATED,
                                .state_size = sizeof(ws_state),
                                .knobs = ws_knobs,
                                .help = "random work stealing",
                                .phase_begin = ws_begin,
                                .progress = ws_progress,
                                .quiet_until = ws_quiet_until,
                                .control = ws_control};
