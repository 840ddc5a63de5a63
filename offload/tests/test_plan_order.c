/*
 * test_plan_order.c - the load order computed once (tide_plan_order, tide_lb_order): it is the
 * sort by (load, rank) with ties everywhere; the planners' _ordered forms give byte for byte the
 * plans and decisions of their sorting forms; an order that is not that sort is rejected; and a
 * view's orders are made once per status collective, until the host forgets them.
 */
#include "check.h"
#include "tide_lb.h"
#include "tide_plan.h"

#include <stdlib.h>
#include <string.h>

#define NP 300

static const double *sort_load; /* qsort has no context argument */

static int by_load_rank(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    if (sort_load[a] != sort_load[b]) return sort_load[a] < sort_load[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static void check_is_sort(const double *load, const int32_t *order)
{
    static int32_t want[NP];
    for (int32_t i = 0; i < NP; i++)
        want[i] = i;
    sort_load = load;
    qsort(want, NP, sizeof *want, by_load_rank);
    CHECK(memcmp(order, want, sizeof want) == 0);
}

static void check_same_plans(const double *load, const int32_t *order)
{
    static int64_t n[NP], off[NP + 1];
    static double w[NP * 3], margin[NP];
    static int32_t dest_a[NP * 3], dest_b[NP * 3];
    static tide_move a[NP], b[NP];
    off[0] = 0;
    for (int i = 0; i < NP; i++) {
        n[i] = 3 + i % 5;
        margin[i] = (double)(i % 3) * 0.5;
        off[i + 1] = off[i] + 3;
        for (int t = 0; t < 3; t++)
            w[3 * i + t] = load[i] / 3.0;
    }
    tide_move_plan pa = {NP, 0, NP, a, NULL}, pb = {NP, 0, NP, b, NULL};
    CHECK_EQ_I64(tide_plan_proact_margin(NP, load, margin, n, NULL, &pa), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_plan_proact_ordered(NP, load, margin, order, n, NULL, &pb), TIDE_PLAN_OK);
    CHECK(pa.nmoves > 0);
    CHECK(pa.nmoves == pb.nmoves && memcmp(a, b, pa.nmoves * sizeof *a) == 0);

    pa.nmoves = pb.nmoves = 0;
    CHECK_EQ_I64(tide_plan_proact_weighted_margin(NP, load, NULL, off, w, NULL, dest_a, &pa),
                 TIDE_PLAN_OK);
    CHECK_EQ_I64(
        tide_plan_proact_weighted_ordered(NP, load, NULL, order, off, w, NULL, dest_b, &pb),
        TIDE_PLAN_OK);
    CHECK(pa.nmoves > 0);
    CHECK(pa.nmoves == pb.nmoves && memcmp(a, b, pa.nmoves * sizeof *a) == 0);
    CHECK(memcmp(dest_a, dest_b, sizeof dest_a) == 0);

    tide_react_params p = {0.05, 2.0, 4};
    int same = 1, sends = 0;
    for (int32_t me = 0; me < NP; me++) {
        tide_react_decision da, db;
        CHECK_EQ_I64(tide_plan_react(NP, load, NULL, &p, me, NULL, &da), TIDE_PLAN_OK);
        CHECK_EQ_I64(tide_plan_react_ordered(NP, load, order, NULL, &p, me, NULL, &db),
                     TIDE_PLAN_OK);
        same &= da.partner == db.partner && da.send == db.send && da.recv == db.recv;
        sends += da.send > 0;
    }
    CHECK(same);
    CHECK(sends > 0);
}

static void check_rejected(const double *load, const int32_t *order)
{
    static int64_t n[NP];
    static tide_move moves[NP];
    for (int i = 0; i < NP; i++)
        n[i] = 4;
    tide_move_plan plan = {NP, 0, NP, moves, NULL};
    tide_react_params p = {0.05, 2.0, 4};
    tide_react_decision d;
    CHECK_EQ_I64(tide_plan_proact_ordered(NP, load, NULL, order, n, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_react_ordered(NP, load, order, NULL, &p, 0, NULL, &d), TIDE_PLAN_EINVAL);
}

static void check_wrong_orders(const double *load, const int32_t *order)
{
    static int32_t bad[NP];
    int32_t k = 0; /* a pair of neighbours with different loads: swapped, not sorted */
    while (load[order[k]] == load[order[k + 1]])
        k++;
    memcpy(bad, order, sizeof bad);
    bad[k] = order[k + 1], bad[k + 1] = order[k];
    check_rejected(load, bad);
    memcpy(bad, order, sizeof bad);
    bad[NP - 1] = bad[NP - 2]; /* a rank twice, one missing */
    check_rejected(load, bad);
    memcpy(bad, order, sizeof bad);
    bad[0] = NP; /* not a rank */
    check_rejected(load, bad);
}

/* A view's orders: made from the statuses when first asked, the same until forgotten. */
static void check_view_orders(const double *a, const double *b)
{
    static tide_rank_status all[NP];
    for (int i = 0; i < NP; i++)
        all[i] = (tide_rank_status){.L_pred = a[i], .queued = b[i], .queued_in = 1};
    tide_lb_orders cache = {0};
    tide_lb_view v = {.rank = 0, .size = NP, .all = all, .orders = &cache};
    const int32_t *pred = tide_lb_order(&v, TIDE_LB_KEY_PRED);
    CHECK(pred != NULL);
    if (pred) check_is_sort(a, pred);
    const int32_t *backlog = tide_lb_order(&v, TIDE_LB_KEY_BACKLOG);
    static double b1[NP];
    for (int i = 0; i < NP; i++)
        b1[i] = b[i] + 1;
    CHECK(backlog != NULL);
    if (backlog) check_is_sort(b1, backlog);
    for (int i = 0; i < NP; i++) /* new statuses the host has not announced: still the old order */
        all[i].L_pred = b[i];
    CHECK(tide_lb_order(&v, TIDE_LB_KEY_PRED) == pred);
    if (pred) check_is_sort(a, pred);
    tide_lb_orders_forget(&cache);
    pred = tide_lb_order(&v, TIDE_LB_KEY_PRED);
    CHECK(pred != NULL);
    if (pred) check_is_sort(b, pred);
    all[7].L_pred = -1; /* no prediction: no order, the planner decides */
    tide_lb_orders_forget(&cache);
    CHECK(tide_lb_order(&v, TIDE_LB_KEY_PRED) == NULL);
    tide_lb_orders_free(&cache);
    v.orders = NULL;
    CHECK(tide_lb_order(&v, TIDE_LB_KEY_BACKLOG) == NULL);
}

int main(void)
{
    static double a[NP], b[NP];
    static int32_t order[NP];
    uint64_t seed = 15;
    for (int i = 0; i < NP; i++) {
        a[i] = (double)(test_rand(&seed) % 10); /* ties everywhere: the rank decides */
        b[i] = (double)(test_rand(&seed) % 1000) / 7.0;
    }
    for (int pass = 0; pass < 2; pass++) {
        const double *load = pass ? b : a;
        CHECK_EQ_I64(tide_plan_order(NP, load, order), TIDE_PLAN_OK);
        check_is_sort(load, order);
        check_same_plans(load, order);
        check_wrong_orders(load, order);
    }
    CHECK_EQ_I64(tide_plan_order(NP, a, NULL), TIDE_PLAN_EINVAL);
    a[3] = -1.0;
    CHECK_EQ_I64(tide_plan_order(NP, a, order), TIDE_PLAN_EINVAL);
    a[3] = 0.0;
    check_view_orders(a, b);
    return CHECK_REPORT("test_plan_order");
}
