/* `react` through the plug-in interface with fake actions: an imbalanced round makes the most
 * loaded rank send to the least loaded (and only it), a balanced one moves nothing, and the
 * threshold knob is honoured. No MPI: the same callbacks the runtime calls. */
#include "fake.h"

static int sent_by(const tide_lb_ops *ops, int me, const double *queued, int np, double threshold,
                   fake *f)
{
    tide_rank_status all[8] = {{0}};
    for (int i = 0; i < np; i++)
        all[i].queued = queued[i];
    double knob[8];
    default_knobs(ops, knob);
    knob[0] = threshold;
    uint64_t rng = 1;
    tide_lb_view v = {.rank = me,
                      .size = np,
                      .running = true,
                      .queued = (long)queued[me],
                      .all = all,
                      .knob = knob,
                      .rng = &rng};
    tide_lb_actions a = fake_actions(f);
    f->available = (long)queued[me];
    ops->round(&v, &a);
    int total = 0;
    for (int d = 0; d < np; d++)
        total += f->offloaded[d];
    return total;
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
    printf("%d failures\n", check_failures);
    return check_failures != 0;
}
