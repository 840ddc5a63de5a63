/* `proact` through the plug-in interface with fake actions: the rank's row of the plan is what
 * it offloads, and the plan reports what it leaves and why: nothing; a surplus smaller than a
 * task (granularity); a surplus within the prediction's uncertainty (the margin), widened to a
 * suspect last load's distance on a sender and on a victim. With a slow
 * transport it moves only what arrives in time, and its safety net (a fake clock) takes back
 * what is still waiting to leave when the sender's workers would reach it. proact_react keeps its
 * timed reactive rounds after a plan only while a round is cheap against the phase. */
#include "fake.h"

/* Rank 0 of 4 (4 workers each) holds 160 tasks of 1 s; the others none. Its sends drain at bw
 * bytes/s, 1 MB per task (bw 0: not measured); every rank's last phase_begin took plan_at s, and
 * rank 3 predicts pred3 (-1: no prediction, no plan). `strategy` plans at t = 100 s; the state
 * is kept in state. */
static void plan_on(const char *strategy, double bw, double plan_at, double pred3, fake *f,
                    char *state, tide_lb_view *v, tide_rank_status *all, double *knob)
{
    const tide_lb_ops *ops = tide_lb_ops_find(strategy);
    for (int i = 0; i < 4; i++)
        all[i] = (tide_rank_status){.ntasks = i ? 0 : 160,
                                    .L_pred = i == 3 ? pred3
                                              : i    ? 0
                                                     : 160,
                                    .queued = i ? 0 : 160,
                                    .threads = 4,
                                    .task_bytes = 1e6,
                                    .send_bw = bw,
                                    .plan_at = plan_at};
    default_knobs(ops, knob);
    *v = (tide_lb_view){.rank = 0,
                        .size = 4,
                        .running = true,
                        .now = 100,
                        .queued = 160,
                        .phase_tasks = 160,
                        .threads = 4,
                        .all = all,
                        .knob = knob,
                        .state = state};
    tide_lb_actions a = fake_actions(f);
    f->available = 160;
    ops->phase_begin(v, &a);
}

static void plan_costed(double bw, fake *f, char *state, tide_lb_view *v, tide_rank_status *all,
                        double *knob)
{
    plan_on("proact", bw, 0, 0, f, state, v, all, knob);
}

static void plan_suspect(double *load, double *unc, double *suspect, double *ntasks, int np, int me,
                         fake *f)
{
    const tide_lb_ops *proact = tide_lb_ops_find("proact");
    tide_rank_status all[8] = {{0}};
    for (int i = 0; i < np; i++) {
        all[i].L_pred = load[i];
        all[i].L_unc = unc[i];
        all[i].L_suspect = suspect ? suspect[i] : 0;
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

static void plan(double *load, double *unc, double *ntasks, int np, int me, fake *f)
{
    plan_suspect(load, unc, NULL, ntasks, np, me, f);
}

/* proact_react's timed rounds after its phase_begin (plan_on; 10 s per worker on average once
 * planned), as the host asks: without statuses. */
static bool react_rounds(double plan_at, double pred3)
{
    fake f;
    char state[64] = {0};
    tide_rank_status all[4];
    double knob[8];
    tide_lb_view v;
    plan_on("proact_react", 0, plan_at, pred3, &f, state, &v, all, knob);
    v.all = NULL;
    return tide_lb_ops_find("proact_react")->rounds_needed(&v);
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
    /* The same surplus with a prediction +-8: the margin is a threshold, the whole surplus
     * moves (taking the margin off it would move 2). */
    double u8[2] = {8, 0};
    plan(l1, u8, n1, 2, 0, &f);
    CHECK_EQ_I64(sent(&f), 10);
    /* No uncertainty, but the sender's last load was suspect (a spike or a step: the next
     * load tells) 12 away: its margin widens to 12, nothing moves. */
    double s12[2] = {12, 0};
    plan_suspect(l1, u0, s12, n1, 2, 0, &f);
    CHECK_EQ_I64(sent(&f), 0);
    CHECK(f.limit == TIDE_LB_LIMIT_UNCERTAINTY);
    /* A victim whose last load was suspect 20 above its prediction leaves that room empty: 30
     * unit tasks on rank 0, none on ranks 1 and 2; rank 2 gets rank 1's share too. */
    double l3[3] = {30, 0, 0}, u03[3] = {0, 0, 0}, n3[3] = {30, 0, 0}, s20[3] = {0, 20, 0};
    plan_suspect(l3, u03, s20, n3, 3, 0, &f);
    CHECK_EQ_I64(f.offloaded[1], 0);
    CHECK(f.offloaded[2] > 0);
    plan_suspect(l3, u03, NULL, n3, 3, 0, &f); /* without it: both get 10 */
    CHECK_EQ_I64(f.offloaded[1], 10);
    CHECK_EQ_I64(f.offloaded[2], 10);
    /* The receiver reports too: its residual is below the average. */
    plan(l1, u0, n1, 2, 1, &f);
    CHECK(f.limit == TIDE_LB_LIMIT_NONE && fabs(f.residual) < 1e-9);
    /* Unmeasured transport: the plan moves 120 of the 160 tasks (40 per receiver). At 1 MB/s a
     * task takes 1 s to leave: only the moves whose task ends before the sender would is made. */
    char state[64] = {0};
    tide_rank_status all[4];
    double knob[8];
    tide_lb_view v;
    plan_costed(0, &f, state, &v, all, knob);
    CHECK_EQ_I64(sent(&f), 120);
    CHECK(fabs(f.transfer) < 1e-9); /* free moves arrive at once */
    plan_costed(1e6, &f, state, &v, all, knob);
    int slow = sent(&f);
    CHECK(slow > 0 && slow < 120);
    CHECK(f.transfer > slow - 1 - 1e-9 && f.transfer < slow + 1e-9);
    /* The safety net, on a fake clock: rank 0 keeps 8 tasks of 1 s for its 4 workers and has
     * 20 more waiting to leave, but its transport sends one every 2 s. Without the net its
     * workers are idle from t = 2 s and the last task leaves at 40 s; with it they take back the
     * waiting tasks as soon as their queue holds fewer than 4 (at 1 s, with 4 still running), the
     * transport sends what it can meanwhile (2 tasks, at 2 and 4 s), and the 26 that stayed end
     * at 7 s: 28 tasks on 4 workers, as if nothing had been planned to move. */
    const tide_lb_ops *proact = tide_lb_ops_find("proact");
    tide_lb_actions a = fake_actions(&f);
    f.outgoing = 20;
    v.all = NULL;
    v.queued = 8;
    v.outgoing = 20;
    v.now = 0;
    CHECK(isinf(proact->quiet_until(&v))); /* its queue is full: nothing to do yet */
    proact->progress(&v, &a);
    CHECK(f.reclaims == 0);
    double busy[4] = {0}, next_send = 2, end = 0;
    long queued = 8, ran = 0, left = 0;
    for (int step = 0; step <= 5000; step++) {
        double t = step * 0.01;
        if (t >= next_send - 1e-9 && f.outgoing > 0) f.outgoing--, left++, next_send += 2;
        for (int pass = 0; pass < 2; pass++) {
            for (int w = 0; w < 4; w++)
                if (busy[w] <= t + 1e-9 && queued > 0) queued--, ran++, busy[w] = t + 1;
            v.now = t, v.queued = queued, v.outgoing = f.outgoing;
            long before = f.reclaimed;
            if (pass == 0 && proact->quiet_until(&v) <= t) proact->progress(&v, &a);
            queued += f.reclaimed - before;
        }
        for (int w = 0; w < 4; w++)
            end = fmax(end, busy[w]);
        if (!f.outgoing && !queued && end <= t + 1e-9) break;
    }
    CHECK_EQ_I64(left, 2);
    CHECK_EQ_I64(ran, 26);
    CHECK_EQ_I64(f.reclaimed, 18);
    CHECK(fabs(end - 7) < 1e-6);
    /* proact_react (same state): a rank that took moves back makes no reactive ones, though
     * the round shows it as the most loaded; a fresh plan clears that. */
    const tide_lb_ops *pr = tide_lb_ops_find("proact_react");
    v.all = all;
    a = fake_actions(&f);
    f.available = 160;
    pr->round(&v, &a);
    CHECK_EQ_I64(sent(&f), 0);
    plan_costed(1e9, &f, state, &v, all, knob);
    a = fake_actions(&f);
    f.available = 160;
    pr->round(&v, &a);
    CHECK(sent(&f) > 0);
    /* While some rank's planned tasks are on their way, queue lengths misstate its receivers:
     * no reactive move, from any rank; once they have arrived, moves again. */
    all[3].plan_moving = 1;
    a = fake_actions(&f);
    f.available = 160;
    pr->round(&v, &a);
    CHECK_EQ_I64(sent(&f), 0);
    all[3].plan_moving = 0;
    a = fake_actions(&f);
    f.available = 160;
    pr->round(&v, &a);
    CHECK(sent(&f) > 0);
    /* Its rounds after a plan: only while a round (the least plan_at) costs at most a quarter
     * of the work per worker the plan aims at. Before any plan_at, and in a phase without a
     * plan (react alone), always. */
    CHECK(react_rounds(1, 0));   /* 1 s against 10 s */
    CHECK(react_rounds(2.5, 0)); /* a quarter */
    CHECK(!react_rounds(5, 0));  /* half the phase */
    CHECK(react_rounds(0, 0));   /* no phase_begin timed yet */
    CHECK(react_rounds(5, -1));  /* rank 3 has no prediction: no plan */
    printf("%d failures\n", check_failures);
    return check_failures != 0;
}
