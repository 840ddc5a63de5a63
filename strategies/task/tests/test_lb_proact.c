/* `proact` through the plug-in interface with fake actions: the rank's row of the plan is what
 * it offloads, and the plan reports what it leaves and why: nothing; a surplus smaller than a
 * task (granularity); a surplus within the prediction's uncertainty (the margin). */
#include "fake.h"

static void plan(double *load, double *unc, double *ntasks, int np, int me, fake *f)
{
    const tide_lb_ops *proact = tide_lb_ops_find("proact");
    tide_rank_status all[8] = {{0}};
    for (int i = 0; i < np; i++) {
        all[i].L_pred = load[i];
        all[i].L_unc = unc[i];
        all[i].ntasks = all[i].queued = ntasks[i];
    }
    double knob[8];
    default_knobs(proact, knob);
    uint64_t rng = 1;
    char state[64] = {0};
    tide_lb_view v = {.rank = me,
                      .size = np,
                      .running = true,
                      .queued = (long)ntasks[me],
                      .phase_tasks = (long)ntasks[me],
                      .all = all,
                      .knob = knob,
                      .state = state,
                      .rng = &rng};
    tide_lb_actions a = fake_actions(f);
    f->available = (long)ntasks[me];
    proact->phase_begin(&v, &a);
}

static int sent(const fake *f)
{
    int s = 0;
    for (int d = 0; d < FAKE_MAX; d++)
        s += f->offloaded[d];
    return s;
}

int main(void)
{
    fake f;
    /* 20 unit tasks against none: 10 move to rank 1, nothing is left. */
    double l1[2] = {20, 0}, u0[2] = {0, 0}, n1[2] = {20, 0};
    plan(l1, u0, n1, 2, 0, &f);
    CHECK_EQ_I64(sent(&f), 10);
    CHECK(f.reports == 1 && f.limit == TIDE_LB_LIMIT_NONE && fabs(f.residual) < 1e-9);
    /* Two tasks of 6 against two of 4: the surplus of 2 is smaller than a task. */
    double l2[2] = {12, 8}, n2[2] = {2, 2};
    plan(l2, u0, n2, 2, 0, &f);
    CHECK_EQ_I64(sent(&f), 0);
    CHECK(f.limit == TIDE_LB_LIMIT_GRANULARITY && fabs(f.residual - 2) < 1e-9);
    /* A surplus of 10 in unit tasks, but the prediction is +-12: nothing moves. */
    double u3[2] = {12, 0};
    plan(l1, u3, n1, 2, 0, &f);
    CHECK_EQ_I64(sent(&f), 0);
    CHECK(f.limit == TIDE_LB_LIMIT_UNCERTAINTY && fabs(f.residual - 10) < 1e-9);
    /* The receiver reports too: its residual is below the average. */
    plan(l1, u0, n1, 2, 1, &f);
    CHECK(f.limit == TIDE_LB_LIMIT_NONE && fabs(f.residual) < 1e-9);
    printf("%d failures\n", check_failures);
    return check_failures != 0;
}
