/* `react` through the plug-in interface with fake actions: an imbalanced round makes the most
 * loaded rank send to the least loaded (and only it), a balanced one moves nothing, and the
 * threshold knob is honoured; the `chameleon` preset moves at most one task per decision and
 * still evens the queues out over rounds. No MPI: the same callbacks the runtime calls. */
#include "fake.h"

/* One round of rank me with the given knobs; queued_in[] (may be NULL) are received tasks.
 * Returns the tasks it offloaded, *partner the last destination. */
static int round_of(const tide_lb_ops *ops, int me, const double *queued, const double *queued_in,
                    int np, const double *knob, fake *f, int *partner)
{
    tide_rank_status all[8] = {{0}};
    for (int i = 0; i < np; i++)
        all[i].queued = queued[i], all[i].queued_in = queued_in ? queued_in[i] : 0;
    uint64_t rng = 1;
    char state[64] = {0}; /* the engine gives every strategy its zeroed state_size bytes */
    tide_lb_view v = {.rank = me,
                      .size = np,
                      .running = true,
                      .queued = (long)queued[me],
                      .all = all,
                      .knob = knob,
                      .state = state,
                      .rng = &rng};
    tide_lb_actions a = fake_actions(f);
    f->available = (long)queued[me];
    ops->round(&v, &a);
    int total = 0;
    for (int d = 0; d < np; d++) {
        if (f->offloaded[d]) *partner = d;
        total += f->offloaded[d];
    }
    return total;
}

static int sent_by(const tide_lb_ops *ops, int me, const double *queued, int np, double threshold,
                   fake *f)
{
    double knob[8];
    default_knobs(ops, knob);
    knob[0] = threshold;
    int partner = -1;
    return round_of(ops, me, queued, NULL, np, knob, f, &partner);
}

/* One decision of rank me under TIDE_REACT_PRESET=chameleon. */
static int chameleon_sent(const tide_lb_ops *ops, int me, const double *queued,
                          const double *queued_in, int np, fake *f, int *partner)
{
    double knob[8];
    default_knobs(ops, knob);
    knob[2] = 1; /* chameleon */
    return round_of(ops, me, queued, queued_in, np, knob, f, partner);
}

/* Rounds of the chameleon preset on 6 ranks, every rank deciding on the same snapshot as the
 * runtime's allgather gives it: no decision moves more than one task, and the spread falls to
 * below Chameleon's absolute gap of 2. */
static void test_chameleon_rounds(const tide_lb_ops *react)
{
    double q[6] = {30, 12, 9, 2, 1, 0};
    double spread0 = 30, spread = spread0;
    fake f;
    int rounds = 0, moved = 0;
    for (; rounds < 200; rounds++) {
        double next[6];
        memcpy(next, q, sizeof q);
        int this_round = 0;
        for (int me = 0; me < 6; me++) {
            int partner = -1, k = chameleon_sent(react, me, q, NULL, 6, &f, &partner);
            CHECK(k <= 1);
            if (k > 0) next[me] -= k, next[partner] += k, this_round += k;
        }
        memcpy(q, next, sizeof q);
        moved += this_round;
        if (this_round == 0) break;
    }
    double lo = q[0], hi = q[0];
    for (int i = 1; i < 6; i++)
        lo = q[i] < lo ? q[i] : lo, hi = q[i] > hi ? q[i] : hi;
    spread = hi - lo;
    CHECK(moved > 0);
    CHECK(spread < 2 && spread < spread0);
    CHECK(rounds > 1); /* one task per decision: it takes several rounds */
}

static void test_chameleon(const tide_lb_ops *react)
{
    fake f;
    int partner = -1;
    /* The pair that `tide` serves with 4 tasks gets one. */
    double q[4] = {20, 4, 4, 0};
    CHECK_EQ_I64(chameleon_sent(react, 0, q, NULL, 4, &f, &partner), 1);
    CHECK_EQ_I64(partner, 3);
    /* Fewer than 2 own tasks queued: nothing leaves, whatever was received. */
    double own[4] = {1, 4, 4, 0}, in[4] = {9, 0, 0, 0};
    CHECK_EQ_I64(chameleon_sent(react, 0, own, in, 4, &f, &partner), 0);
    /* A gap below 2 tasks: nothing moves. */
    double close[2] = {3, 2};
    CHECK_EQ_I64(chameleon_sent(react, 0, close, NULL, 2, &f, &partner), 0);
    test_chameleon_rounds(react);
    /* The preset fixes the two knobs: another value of either is a configuration error. */
    double knob[8], two[2] = {20, 0};
    default_knobs(react, knob);
    knob[1] = 8, knob[2] = 1;
    round_of(react, 0, two, NULL, 2, knob, &f, &partner);
    CHECK_EQ_I64(f.fatals, 1);
    CHECK_EQ_I64(f.offloads, 0);
}

int main(void)
{
    const tide_lb_ops *react = tide_lb_ops_find("react");
    CHECK(react && react->round && (react->flags & TIDE_LB_ROUNDS));
    double q[4] = {20, 4, 4, 0};
    fake f;
    /* Rank 0 (most loaded) pairs with rank 3 (least loaded): gap 20, half of it, capped by
     * TIDE_REACT_MAX_TASKS (default 4). */
    CHECK_EQ_I64(sent_by(react, 0, q, 4, 0.05, &f), 4);
    CHECK_EQ_I64(f.offloaded[3], 4);
    /* The receivers and the middle ranks send nothing. */
    for (int me = 1; me < 4; me++)
        CHECK_EQ_I64(sent_by(react, me, q, 4, 0.05, &f), 0);
    /* Balanced queues: nothing moves. */
    double even[4] = {5, 5, 5, 5};
    CHECK_EQ_I64(sent_by(react, 0, even, 4, 0.05, &f), 0);
    /* A threshold above the imbalance: nothing moves. */
    double mild[4] = {10, 9, 9, 9};
    CHECK_EQ_I64(sent_by(react, 0, mild, 4, 0.5, &f), 0);
    /* proact_react corrects with the same decision when its plan is in place. */
    const tide_lb_ops *pr = tide_lb_ops_find("proact_react");
    CHECK(pr && pr->round);
    CHECK_EQ_I64(sent_by(pr, 0, q, 4, 0.05, &f), 4);
    /* rep replicates instead of moving. */
    const tide_lb_ops *rep = tide_lb_ops_find("rep");
    CHECK(rep && rep->round);
    CHECK_EQ_I64(sent_by(rep, 0, q, 4, 0.05, &f), 0);
    CHECK_EQ_I64(f.replicated[3], 4);
    test_chameleon(react);
    printf("%d failures\n", check_failures);
    return check_failures != 0;
}
