/* quiet_until, the hint with which tide-sim skips idle comm-thread turns, must never be late:
 * for every registered strategy that has one, a seeded random walk drives the strategy through
 * its own callbacks (phase starts, progress at random times, requests and answers, fresh and
 * stale) over random views, and after each step progress is called with the same view at times
 * before the hint: it must not act, nor touch its state or its random stream. For ws the hint
 * is also tight (progress at the hinted time sends a request), or skipping would gain nothing.
 * Breaking the hint (returning INFINITY less often, or a later time) fails the first part;
 * returning -INFINITY fails the second. */
#include "fake.h"

#define STEPS 20000
#define STATE_MAX 256

static uint64_t walk_rng = 42;

static double uniform(void)
{
    return (double)(tide_lb_rng(&walk_rng) >> 11) / 9007199254740992.0;
}

static int pick(int n)
{
    return (int)(tide_lb_rng(&walk_rng) % (uint64_t)n);
}

/* Progress with view v at time now changes nothing and asks for nothing. */
static bool progress_is_idle(const tide_lb_ops *ops, tide_lb_view v, double now)
{
    unsigned char before[STATE_MAX];
    uint64_t rng = *v.rng, rng_copy = rng;
    memcpy(before, v.state, ops->state_size);
    unsigned char state[STATE_MAX];
    memcpy(state, v.state, ops->state_size);
    v.state = state;
    v.rng = &rng_copy;
    v.now = now;
    fake f;
    tide_lb_actions a = fake_actions(&f);
    f.available = v.queued;
    f.outgoing = v.outgoing;
    ops->progress(&v, &a);
    return f.controls == 0 && f.offloads == 0 && f.replicas == 0 && f.fatals == 0 &&
           f.reclaims == 0 && rng_copy == rng && memcmp(state, before, ops->state_size) == 0;
}

static void walk(const tide_lb_ops *ops)
{
    CHECK(ops->progress != NULL);
    CHECK(ops->state_size <= STATE_MAX);
    double knob[16];
    default_knobs(ops, knob);
    void *state = calloc(1, ops->state_size);
    uint64_t rng = 7;
    double now = 0;
    int phase = 0, finite = 0, tight = 0;
    for (int step = 0; step < STEPS; step++) {
        now += uniform() * 1e-3;
        if (pick(200) == 0) phase++;
        tide_lb_view v = {.rank = 1,
                          .size = 4,
                          .phase = phase,
                          .running = pick(20) != 0,
                          .stopping = pick(100) == 0,
                          .now = now,
                          .phase_tasks = 8,
                          .queued = pick(2) == 0 ? 0 : pick(4),
                          .queued_in = pick(3) == 0 ? pick(2) : 0,
                          .outgoing = pick(3) == 0 ? 0 : pick(20),
                          .threads = 1 + pick(4),
                          .knob = knob,
                          .state = state,
                          .rng = &rng};
        fake f;
        tide_lb_actions a = fake_actions(&f);
        f.available = v.queued;
        int what = pick(8);
        tide_rank_status all[4];
        for (int i = 0; i < 4; i++) /* what a phase-start allgather would have brought */
            all[i] = (tide_rank_status){.ntasks = 8,
                                        .L_pred = pick(4) ? 8 * uniform() : -1,
                                        .queued = 8,
                                        .threads = 1 + pick(4),
                                        .task_bytes = 1e6,
                                        .send_bw = pick(2) ? 1e6 + 1e9 * uniform() : 0};
        if (what == 0 && ops->phase_begin) {
            if (ops->flags & TIDE_LB_PHASE_SYNC) v.all = all;
            ops->phase_begin(&v, &a);
            v.all = NULL;
        } else if (what <= 3 && ops->control) { /* an answer or a request, maybe stale */
            tide_control m = {(uint32_t)(1 + pick(2)), (uint32_t)(phase - pick(2)), pick(3), 0};
            if (m.op == 2 && pick(2)) m.value = 0;
            ops->control(&v, &a, pick(4) == 1 ? 0 : 2, &m);
        } else {
            ops->progress(&v, &a);
        }
        /* the view after the step, as the engine would show it next */
        double q = ops->quiet_until(&v);
        CHECK(!isnan(q));
        if (!isfinite(q)) {
            CHECK(progress_is_idle(ops, v, now + 1e-9));
            CHECK(progress_is_idle(ops, v, now + uniform()));
            continue;
        }
        finite++;
        if (q > now) {
            CHECK(progress_is_idle(ops, v, now));
            CHECK(progress_is_idle(ops, v, now + (q - now) * uniform()));
            CHECK(progress_is_idle(ops, v, nextafter(q, -INFINITY)));
        }
        if (!progress_is_idle(ops, v, q > now ? q : now)) tight++;
    }
    free(state);
    printf("%s: %d of %d steps with a finite hint, progress acted at %d of them\n", ops->name,
           finite, STEPS, tight);
    CHECK(finite > STEPS / 20);
    if (strcmp(ops->name, "ws") == 0) CHECK_EQ_I64(tight, finite);
}

int main(void)
{
    size_t n;
    const tide_lb_ops *const *all = tide_lb_all(&n);
    int with_hint = 0;
    for (size_t i = 0; i < n; i++) {
        if (!all[i]->quiet_until) continue;
        with_hint++;
        walk(all[i]);
    }
    CHECK(tide_lb_ops_find("ws")->quiet_until != NULL);
    CHECK(with_hint >= 1);
    return CHECK_REPORT("task_test_lb_quiet");
}
