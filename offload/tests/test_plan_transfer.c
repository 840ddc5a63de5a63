/* Transfer-aware plans (tide_plan_transfer): moves that would arrive too late to gain anything
 * stay; with free or fast transfers the plan is kept whole; a plan made late sends late; the
 * weights of a plan made while the workers run (tide_plan_freeze); the transport's send order; on
 * random plans, the model never predicts a phase longer than moving nothing; and the drain rate
 * the plans are made with (tide_drain). */
#include "check.h"
#include "tide_plan.h"

#include <math.h>
#include <stdlib.h>

static int kept(const tide_xfer_send *s, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i].arrival >= 0;
    return k;
}

/* One sender with 40 s of unit tasks on 4 workers (it ends at 10 s), three idle receivers on 4
 * workers, 30 planned moves in the transport's order. */
static size_t one_sender(tide_xfer_rank *r, tide_xfer_send *s, double bw)
{
    r[0] = (tide_xfer_rank){40, 4, bw, 1e6, 0};
    for (int j = 1; j < 4; j++)
        r[j] = (tide_xfer_rank){0, 4, bw, 1e6, 0};
    size_t n = 0;
    for (int pass = 0; pass < 10; pass++)
        for (int j = 1; j < 4; j++)
            s[n++] = (tide_xfer_send){0, j, pass, 1.0, 0};
    return n;
}

static void slow_link_drops_late_moves(void)
{
    tide_xfer_rank r[4];
    tide_xfer_send s[30];
    double fin[4];
    /* 1 MB per task at 1 MB/s: task k arrives at k s and ends at k + 1 s on an idle receiver,
     * while the sender, having given away k - 1 tasks, ends at 10 - (k - 1) / 4 s. The move pays
     * while k + 1 < 10 - (k - 1) / 4, that is for k <= 7. */
    size_t n = one_sender(r, s, 1e6);
    CHECK(tide_plan_transfer(4, r, s, n, fin) == TIDE_PLAN_OK);
    CHECK_EQ_I64(kept(s, n), 7);
    for (size_t k = 0; k < n; k++)
        CHECK(k < 7 ? fabs(s[k].arrival - (double)(k + 1)) < 1e-12 : s[k].arrival == -1);
    CHECK(fabs(fin[0] - (10 - 7 * 0.25)) < 1e-12);
    CHECK(fabs(fin[1] - 8.0) < 1e-12); /* its last task arrived at 7 s and took 1 s */
    /* The same plan at 1 GB/s, and with the rate unknown (moves free): every move pays. */
    n = one_sender(r, s, 1e9);
    CHECK(tide_plan_transfer(4, r, s, n, fin) == TIDE_PLAN_OK);
    CHECK_EQ_I64(kept(s, n), 30);
    CHECK(s[29].arrival > 0.0299 && s[29].arrival < 0.0301);
    n = one_sender(r, s, 0);
    CHECK(tide_plan_transfer(4, r, s, n, NULL) == TIDE_PLAN_OK);
    CHECK_EQ_I64(kept(s, n), 30);
}

/* A plan made 3 s into the phase while the workers ran (TIDE_LB_START_EARLY): its sends leave
 * from then on, so task k arrives at 3 + k s and pays while 4 + k < 10 - (k - 1) / 4, that is
 * for k <= 4 (7 with the plan at the phase start). */
static void late_plan_sends_late(void)
{
    tide_xfer_rank r[4];
    tide_xfer_send s[30];
    double fin[4];
    size_t n = one_sender(r, s, 1e6);
    for (int i = 0; i < 4; i++)
        r[i].ready = 3;
    CHECK(tide_plan_transfer(4, r, s, n, fin) == TIDE_PLAN_OK);
    CHECK_EQ_I64(kept(s, n), 4);
    for (size_t k = 0; k < 4; k++)
        CHECK(fabs(s[k].arrival - (double)(k + 4)) < 1e-12);
    CHECK(fabs(fin[0] - (10 - 4 * 0.25)) < 1e-12);
    /* A plan that comes after its sender would have ended moves nothing, even when free. */
    n = one_sender(r, s, 0);
    for (int i = 0; i < 4; i++)
        r[i].ready = 11;
    CHECK(tide_plan_transfer(4, r, s, n, NULL) == TIDE_PLAN_OK);
    CHECK_EQ_I64(kept(s, n), 0);
    r[0].ready = -1;
    CHECK(tide_plan_transfer(4, r, s, n, NULL) == TIDE_PLAN_EINVAL);
    r[0].ready = NAN;
    CHECK(tide_plan_transfer(4, r, s, n, NULL) == TIDE_PLAN_EINVAL);
}

/* The weights a plan made while the workers run sees (tide_plan_freeze): started tasks and the
 * queued ones the workers reach before the plan is applied count as load that cannot move. */
static void freeze_marks_started_and_next(void)
{
    /* Positions 0..5; 0 and 2 started; the queue takes 1, 3, 4, 5 in that order. */
    double w[6] = {1, 2, 3, 4, 5, 6};
    const long queued[4] = {1, 3, 4, 5};
    tide_plan_freeze(w, 6, queued, 4, 5.5); /* 1 (2 s) and 3 (4 s) reach 5.5 s */
    const double want[6] = {-1, -2, -3, -4, 5, 6};
    for (int k = 0; k < 6; k++)
        CHECK(w[k] == want[k]);
    /* No budget: only the started ones; a queue order other than the positions' is followed;
     * positions out of range are ignored. */
    double v[4] = {1, 2, 3, 4};
    const long order[4] = {3, 1, 9, -1};
    tide_plan_freeze(v, 4, order, 4, 0);
    CHECK(v[0] == -1 && v[1] == 2 && v[2] == -3 && v[3] == 4);
    double u[4] = {1, 2, 3, 4};
    tide_plan_freeze(u, 4, order, 4, 1); /* the first queued (position 3) reaches it */
    CHECK(u[0] == -1 && u[1] == 2 && u[2] == -3 && u[3] == -4);
}

/* A move that gains nothing even when free stays: the receiver would end later than the sender. */
static void no_gain_no_move(void)
{
    tide_xfer_rank r[2] = {{10, 1, 0, 0, 0}, {9.5, 1, 0, 0, 0}};
    tide_xfer_send s[1] = {{0, 1, 0, 1.0, 0}};
    CHECK(tide_plan_transfer(2, r, s, 1, NULL) == TIDE_PLAN_OK);
    CHECK(s[0].arrival == -1);
}

/* The transport sends round-robin over the receivers, in rank order, one task each per pass. */
static void transport_order(void)
{
    tide_xfer_send s[6] = {{1, 3, 10, 1, 0}, {1, 3, 11, 1, 0}, {1, 3, 12, 1, 0},
                           {0, 2, 20, 1, 0}, {1, 0, 30, 1, 0}, {1, 2, 40, 1, 0}};
    CHECK(tide_plan_transfer_order(4, s, 6) == TIDE_PLAN_OK);
    const int64_t want[6] = {20, 30, 40, 10, 11, 12};
    for (int k = 0; k < 6; k++)
        CHECK_EQ_I64(s[k].unit, want[k]);
}

static void bad_input(void)
{
    tide_xfer_rank r[2] = {{1, 1, 0, 0, 0}, {1, 0, 0, 0, 0}}; /* no workers */
    tide_xfer_send s[1] = {{0, 1, 0, 1, 0}};
    CHECK(tide_plan_transfer(2, r, s, 1, NULL) == TIDE_PLAN_EINVAL);
    r[1].threads = 1;
    s[0].to = 0; /* to itself */
    CHECK(tide_plan_transfer(2, r, s, 1, NULL) == TIDE_PLAN_EINVAL);
    CHECK(tide_plan_transfer_order(2, s, 1) == TIDE_PLAN_EINVAL);
    s[0].to = 1;
    s[0].weight = NAN;
    CHECK(tide_plan_transfer(2, r, s, 1, NULL) == TIDE_PLAN_EINVAL);
    r[0].bw = -1;
    s[0].weight = 1;
    CHECK(tide_plan_transfer(2, r, s, 1, NULL) == TIDE_PLAN_EINVAL);
}

/* Random Algorithm-1 plans with random rates: the predicted end of every rank after the kept
 * moves is never later than the latest end without moves, and the kept moves of a (sender,
 * receiver) pair are the first ones it would send. */
static void random_plans(void)
{
    uint64_t seed = 26;
    for (int round = 0; round < 2000; round++) {
        int np = 2 + (int)(test_rand(&seed) % 15);
        double load[16];
        int64_t n[16];
        tide_xfer_rank r[16];
        double worst = 0;
        for (int i = 0; i < np; i++) {
            n[i] = 1 + (int64_t)(test_rand(&seed) % 60);
            load[i] = (double)n[i] * (0.01 + 0.1 * (double)(test_rand(&seed) % 100) / 100);
            double bw = test_rand(&seed) % 4 == 0 ? 0 : 1e6 * (double)(1 + test_rand(&seed) % 1000);
            r[i] = (tide_xfer_rank){load[i], (double)(1 + test_rand(&seed) % 8), bw, 2e6, 0};
            worst = fmax(worst, load[i] / r[i].threads);
        }
        tide_move moves[16];
        tide_move_plan plan = {np, 0, 16, moves, NULL};
        CHECK(tide_plan_proact(np, load, n, NULL, &plan) == TIDE_PLAN_OK);
        tide_xfer_send *s = malloc(16 * 60 * sizeof *s);
        size_t ns = 0;
        for (size_t m = 0; m < plan.nmoves; m++)
            for (int64_t c = 0; c < moves[m].count; c++)
                s[ns++] = (tide_xfer_send){moves[m].from, moves[m].to, c,
                                           load[moves[m].from] / (double)n[moves[m].from], 0};
        CHECK(tide_plan_transfer_order(np, s, ns) == TIDE_PLAN_OK);
        double fin[16];
        CHECK(tide_plan_transfer(np, r, s, ns, fin) == TIDE_PLAN_OK);
        for (int i = 0; i < np; i++)
            CHECK(fin[i] <= worst + 1e-9);
        for (size_t a = 0; a < ns; a++)
            for (size_t b = a + 1; b < ns; b++)
                if (s[a].from == s[b].from && s[a].to == s[b].to)
                    CHECK(!(s[a].arrival < 0 && s[b].arrival >= 0));
        free(s);
    }
}

/* The drain rate: a plan's burst, from its first task waiting to leave until its last posted
 * message completed, over the bytes of those messages; messages outside a burst do not count;
 * the estimate is the best of the last TIDE_DRAIN_PHASES phases that measured one. */
static void drain_rate(void)
{
    tide_drain d = {0};
    double last;
    CHECK(!tide_drain_posted(&d)); /* a reactive move: no burst */
    tide_drain_completed(&d, 5e6, 0.5, false);
    CHECK(tide_drain_phase_end(&d, 0.6, &last) == 0 && last == 0.5);
    tide_drain_waiting(&d, 1);
    tide_drain_waiting(&d, 1.5); /* already waiting: the burst began at 1 */
    CHECK(tide_drain_posted(&d) && tide_drain_posted(&d));
    tide_drain_completed(&d, 1e6, 2, true);
    tide_drain_flowing(&d, 3);              /* none waits, one message still in flight */
    tide_drain_completed(&d, 7e6, 4, true); /* the burst's last: 8e6 bytes in 3 s */
    CHECK(!tide_drain_posted(&d));          /* after the burst */
    tide_drain_completed(&d, 9e6, 4.5, false);
    CHECK(fabs(tide_drain_phase_end(&d, 5, &last) - 8e6 / 3) < 1e-6 && last == 4.5);
    CHECK(fabs(tide_drain_phase_end(&d, 6, &last) - 8e6 / 3) < 1e-6 && last == 0); /* kept */
    /* A burst MPI takes at once (all posted before the first completes): measured too. */
    tide_drain d2 = {0};
    tide_drain_waiting(&d2, 10);
    for (int k = 0; k < 4; k++)
        CHECK(tide_drain_posted(&d2));
    tide_drain_flowing(&d2, 10);
    for (int k = 0; k < 4; k++)
        tide_drain_completed(&d2, 1e5, 10.1 * (k + 1) / 4 + 10 * (1 - (k + 1) / 4.0), true);
    CHECK(fabs(tide_drain_phase_end(&d2, 11, &last) - 4e5 / 0.1) < 1e-3);
    for (int p = 0; p < TIDE_DRAIN_PHASES; p++) { /* slower phases push the fast one out */
        tide_drain_waiting(&d, 10 + p);
        CHECK(tide_drain_posted(&d));
        tide_drain_flowing(&d, 10.2 + p);
        tide_drain_completed(&d, 1e5, 11 + p, true);
        double rate = tide_drain_phase_end(&d, 11 + p, &last);
        CHECK(p < TIDE_DRAIN_PHASES - 1 ? fabs(rate - 8e6 / 3) < 1e-6 : fabs(rate - 1e5) < 1e-6);
    }
    tide_drain_waiting(&d, 20); /* a burst running at the phase end counts so far, goes on */
    CHECK(tide_drain_posted(&d) && tide_drain_posted(&d));
    tide_drain_completed(&d, 4e6, 20.5, true);
    CHECK(fabs(tide_drain_phase_end(&d, 21, &last) - 4e6) < 1e-6);
    tide_drain_flowing(&d, 21.2);
    tide_drain_completed(&d, 1e6, 22, true);
    CHECK(fabs(tide_drain_phase_end(&d, 23, &last) - 4e6) < 1e-6 &&
          d.rate[(d.next + 3) % 4] == 1e6);
}

int main(void)
{
    drain_rate();
    slow_link_drops_late_moves();
    late_plan_sends_late();
    freeze_marks_started_and_next();
    no_gain_no_move();
    transport_order();
    bad_input();
    random_plans();
    return CHECK_REPORT("test_plan_transfer");
}
