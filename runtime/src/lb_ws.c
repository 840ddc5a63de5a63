/* `ws` (random work stealing): a rank whose queues are empty asks a random other rank for
 * work; the victim answers with tasks when it has more than TIDE_WS_THRESHOLD not started (one
 * task, or half of the surplus: TIDE_WS_AMOUNT), else with a refusal, after which the thief
 * waits before it asks again, doubling the wait up to TIDE_WS_BACKOFF_MAX_US. The phase ends
 * through status rounds, so a thief may keep stealing after its own tasks are done.
 *
 * A request carries the thief's phase; a victim grants only requests of the phase it is running,
 * so tasks never cross a phase boundary, and stale answers are recognised by their phase. */
#include "internal.h"

enum { WS_REQUEST = 1, WS_ANSWER = 2 };

#define WS_BACKOFF_MIN 50e-6

/* Comm-thread-only state of this rank's thief. */
static struct {
    bool pending;      /* a request is unanswered */
    int pending_phase; /* ... and it was sent in this phase */
    double next_try;   /* tide_now() before which no new request goes out */
    double backoff;
} thief;

static void ws_begin(tide_rt *rt, const tide_rank_status *all)
{
    (void)rt;
    (void)all;
    thief.next_try = 0;
    thief.backoff = WS_BACKOFF_MIN;
}

static void ws_progress(tide_rt *rt)
{
    if (rt->size < 2 || rt->stopping) return;
    if (thief.pending && thief.pending_phase == rt->cphase) return;
    if (atomic_load(&rt->local.count) > 0 || atomic_load(&rt->remote.count) > 0) return;
    double now = tide_now();
    if (now < thief.next_try) return;
    int victim = (int)(tide_rng_next(&rt->rng) % (uint64_t)(rt->size - 1));
    if (victim >= rt->rank) victim++;
    tide_control req = {WS_REQUEST, (uint32_t)rt->cphase, 0, 0};
    tide_send_control(rt, victim, &req);
    thief.pending = true;
    thief.pending_phase = rt->cphase;
}

static int grant_for(tide_rt *rt)
{
    long surplus = atomic_load(&rt->local.count) - rt->cfg.ws_threshold;
    if (surplus <= 0) return 0;
    return rt->cfg.ws_half ? (int)((surplus + 1) / 2) : 1;
}

static void ws_control(tide_rt *rt, int src, const tide_control *msg)
{
    if (msg->op == WS_REQUEST) {
        if (rt->stopping) return; /* nobody waits for answers any more */
        int granted = 0;
        if (rt->running && (int)msg->phase == rt->cphase)
            granted = tide_offload_tasks(rt, src, grant_for(rt));
        tide_control ans = {WS_ANSWER, msg->phase, granted, 0};
        tide_send_control(rt, src, &ans);
        return;
    }
    if (msg->op != WS_ANSWER) tide_fatal("unknown work-stealing message %u from rank %d", msg->op, src);
    if (!thief.pending || (int)msg->phase != thief.pending_phase) return; /* stale */
    thief.pending = false;
    if (msg->value > 0) {
        thief.backoff = WS_BACKOFF_MIN; /* the tasks are on their way */
        thief.next_try = tide_now() + WS_BACKOFF_MIN;
    } else {
        thief.next_try = tide_now() + thief.backoff;
        thief.backoff *= 2;
        if (thief.backoff > 1e-6 * rt->cfg.ws_backoff_max_us)
            thief.backoff = 1e-6 * rt->cfg.ws_backoff_max_us;
    }
}

const tide_strategy tide_strategy_ws = {.name = "ws",
                                  .phase_sync = true,
                                  .rounds = true,
                                  .phase_begin = ws_begin,
                                  .progress = ws_progress,
                                  .control = ws_control};
