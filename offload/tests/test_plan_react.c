/*
 * test_plan_react.c - reactive pairing: hand-worked pairings, the gates, and consistency between
 * the one-rank and all-rank entry points over random inputs.
 */
#include "check.h"
#include "tide_plan.h"

#define MAXNP 33

static const tide_react_params chameleon = {0.05, 2.0, 1000};

/* Queue lengths [10, 2, 6, 4]: order r1(2) r3(4) r2(6) r0(10). r0 pairs with r1: gap 8, one task
 * weighs 1, the split that equalises the pair is round(8/2) = 4. r2 pairs with r3: gap 2 >= the
 * absolute gate 2, 2/6 >= 0.05, round(2/2) = 1. */
static void test_queue_lengths(void)
{
    const double q[4] = {10, 2, 6, 4};
    tide_react_decision d[4];
    CHECK_EQ_I64(tide_plan_react_all(4, q, NULL, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].partner, 1);
    CHECK_EQ_I64(d[0].send, 4);
    CHECK_EQ_I64(d[1].partner, 0);
    CHECK_EQ_I64(d[1].recv, 4);
    CHECK_EQ_I64(d[1].send, 0);
    CHECK_EQ_I64(d[2].partner, 3);
    CHECK_EQ_I64(d[2].send, 1);
    CHECK_EQ_I64(d[3].recv, 1);

    /* Chameleon's react_mig moves one task per decision. */
    tide_react_params one = chameleon;
    one.max_tasks = 1;
    CHECK_EQ_I64(tide_plan_react_all(4, q, NULL, &one, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send, 1);
    CHECK_EQ_I64(d[1].recv, 1);

    /* The per-rank entry point agrees. */
    tide_react_decision me;
    CHECK_EQ_I64(tide_plan_react(4, q, NULL, &chameleon, 2, NULL, &me), TIDE_PLAN_OK);
    CHECK_EQ_I64(me.partner, 3);
    CHECK_EQ_I64(me.send, 1);
}

/* Loads with task counts: r0 load 20 in 4 tasks (w 5), r1 idle: round(20/10) = 2 tasks. */
static void test_loads_with_counts(void)
{
    const double l[2] = {20, 0};
    const int64_t n[2] = {4, 0};
    tide_react_decision d[2];
    CHECK_EQ_I64(tide_plan_react_all(2, l, n, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send, 2);
    CHECK_EQ_I64(d[1].recv, 2);

    /* A gap of one task or less is left alone: moving it would only swap the pair. */
    const double l2[2] = {10, 6};
    const int64_t n2[2] = {2, 3};
    CHECK_EQ_I64(tide_plan_react_all(2, l2, n2, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send, 0);
    CHECK_EQ_I64(d[0].partner, 1);

    /* The sender cannot give more tasks than it has. */
    const double l3[2] = {100, 0};
    const int64_t n3[2] = {1, 0};
    tide_react_params p = {0.0, 0.0, 50};
    CHECK_EQ_I64(tide_plan_react_all(2, l3, n3, &p, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send, 0); /* gap 100 = one task of 100: no gain */
    const int64_t n4[2] = {3, 0};
    CHECK_EQ_I64(tide_plan_react_all(2, l3, n4, &p, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send, 2); /* round(100 / (2 * 33.3)) = 2 */
}

static void test_gates_and_median(void)
{
    tide_react_decision d[4];
    /* (100 - 97) / 100 = 0.03 < 0.05: partners are known but nothing moves. */
    const double close[4] = {100, 99, 98, 97};
    CHECK_EQ_I64(tide_plan_react_all(4, close, NULL, &chameleon, NULL, d), TIDE_PLAN_OK);
    for (int i = 0; i < 4; i++)
        CHECK(d[i].send == 0 && d[i].recv == 0 && d[i].partner >= 0);

    /* Absolute gate: gap 1.5 < 2. */
    const double small[2] = {2.5, 1.0};
    CHECK_EQ_I64(tide_plan_react_all(2, small, NULL, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send, 0);

    /* Odd np: the median rank (r2, load 5) is unpaired. */
    const double odd[3] = {9, 1, 5};
    CHECK_EQ_I64(tide_plan_react_all(3, odd, NULL, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[2].partner, -1);
    CHECK_EQ_I64(d[0].partner, 1);
    CHECK_EQ_I64(d[0].send, 4);

    /* All idle, and a single rank. */
    const double zero[2] = {0, 0};
    CHECK_EQ_I64(tide_plan_react_all(2, zero, NULL, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].send + d[1].send, 0);
    CHECK_EQ_I64(tide_plan_react_all(1, odd, NULL, &chameleon, NULL, d), TIDE_PLAN_OK);
    CHECK_EQ_I64(d[0].partner, -1);
}

static void test_bad_arguments(void)
{
    const double l[2] = {1, 0};
    tide_react_decision d[2];
    tide_react_params bad = chameleon;
    bad.max_tasks = 0;
    CHECK_EQ_I64(tide_plan_react_all(2, l, NULL, &bad, NULL, d), TIDE_PLAN_EINVAL);
    bad = chameleon;
    bad.min_rel_imbalance = -1;
    CHECK_EQ_I64(tide_plan_react_all(2, l, NULL, &bad, NULL, d), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_react_all(2, l, NULL, NULL, NULL, d), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_react(2, l, NULL, &chameleon, 2, NULL, d), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_react(0, l, NULL, &chameleon, 0, NULL, d), TIDE_PLAN_EINVAL);
}

/* Random inputs: pairing is an involution, send/recv mirror each other, only the more loaded
 * side sends, sends respect max_tasks and n_tasks, and every rank's own call agrees. */
static void test_random_consistency(void)
{
    uint64_t s = 7;
    double load[MAXNP];
    int64_t n[MAXNP];
    tide_react_decision all[MAXNP], one;
    for (int c = 0; c < 3000 && check_failures < 20; c++) {
        int32_t np = 1 + (int32_t)(test_rand(&s) % MAXNP);
        int with_counts = (int)(test_rand(&s) % 2);
        tide_react_params p = {0.05 * test_uniform(&s), 2.0 * test_uniform(&s),
                               1 + (int64_t)(test_rand(&s) % 8)};
        for (int32_t i = 0; i < np; i++) {
            n[i] = (int64_t)(test_rand(&s) % 30);
            load[i] = (double)(test_rand(&s) % 50);
        }
        const int64_t *nt = with_counts ? n : NULL;
        CHECK_EQ_I64(tide_plan_react_all(np, load, nt, &p, NULL, all), TIDE_PLAN_OK);
        int32_t unpaired = 0;
        for (int32_t i = 0; i < np; i++) {
            CHECK_EQ_I64(tide_plan_react(np, load, nt, &p, i, NULL, &one), TIDE_PLAN_OK);
            CHECK(one.partner == all[i].partner && one.send == all[i].send &&
                  one.recv == all[i].recv);
            int32_t j = all[i].partner;
            if (j < 0) {
                unpaired++;
                continue;
            }
            CHECK(j != i && all[j].partner == i);
            CHECK_EQ_I64(all[i].send, all[j].recv);
            CHECK(all[i].send == 0 || all[i].recv == 0);
            CHECK(all[i].send <= p.max_tasks);
            if (all[i].send > 0) {
                CHECK(load[i] > load[j]);
                if (nt) CHECK(all[i].send <= n[i]);
            }
        }
        CHECK_EQ_I64(unpaired, np % 2);
    }
}

int main(void)
{
    test_queue_lengths();
    test_loads_with_counts();
    test_gates_and_median();
    test_bad_arguments();
    test_random_consistency();
    return CHECK_REPORT("test_plan_react");
}
