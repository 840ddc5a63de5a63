/*
 * test_plan_proact.c - hand-worked cases of the uniform-weight proactive planner, the move-list
 * helpers, and its argument checks.
 */
#include "check.h"
#include "tide_plan.h"

#include <math.h>
#include <string.h>

#define MAXNP 16

typedef struct planned {
    tide_move moves[MAXNP];
    tide_move_plan plan;
    int64_t tb[MAXNP * MAXNP];
} planned;

static int run(planned *p, int32_t np, const double *load, const int64_t *n)
{
    memset(p, 0, sizeof *p);
    p->plan.moves = p->moves;
    p->plan.capacity = MAXNP;
    int rc = tide_plan_proact(np, load, n, NULL, &p->plan);
    if (rc == TIDE_PLAN_OK) CHECK_EQ_I64(tide_plan_table(&p->plan, n, p->tb), TIDE_PLAN_OK);
    return rc;
}

static void check_table(const planned *p, int32_t np, const int64_t *expect)
{
    for (int32_t k = 0; k < np * np; k++) {
        if (p->tb[k] != expect[k])
            fprintf(stderr, "TB[%d][%d] = %lld, expected %lld\n", k / np, k % np,
                    (long long)p->tb[k], (long long)expect[k]);
        CHECK_EQ_I64(p->tb[k], expect[k]);
    }
}

/*
 * Eight ranks with different average task loads (w_hat = L/N):
 *
 *   rank   0   1   2   3   4   5   6   7
 *   L     10  30  20  50   5  45  15  25     sum 200, L_avg = 25
 *   N      5  10   4  25   5   9   3   5
 *   w_hat  2   3   5   2   1   5   5   5
 *
 * Order by (L, rank): r4(5) r0(10) r6(15) r2(20) r7(25) r1(30) r5(45) r3(50).
 * Victims (L < 25), least loaded first: r4 (under 20), r0 (15), r6 (10), r2 (5).
 * r7 sits exactly on the average: neither sends nor receives.
 * Offloaders (L > 25), most loaded first: r3 (over 25, w 2), r5 (over 20, w 5), r1 (over 5, w 3).
 *
 * Each step: kmax = floor(over / w) (the offloader stays >= L_avg), k = min(kmax, ceil(under/w)).
 *  1. r3 -> r4: kmax = floor(25/2) = 12, ceil(20/2) = 10  -> k = 10; over 5, under 0: r4 full.
 *  2. r3 -> r0: kmax = floor(5/2)  = 2,  ceil(15/2) = 8   -> k = 2;  over 1, under 11: r3 done.
 *  3. r5 -> r0: kmax = floor(20/5) = 4,  ceil(11/5) = 3   -> k = 3;  over 5, under -4: r0 full.
 *  4. r5 -> r6: kmax = floor(5/5)  = 1,  ceil(10/5) = 2   -> k = 1;  over 0, under 5: r5 done.
 *  5. r1 -> r6: kmax = floor(5/3)  = 1,  ceil(5/3)  = 2   -> k = 1;  over 2, under 2: r1 done.
 *  6. next offloader r7 has L = L_avg: stop. r2 receives nothing.
 *
 * Loads after: r0 10+2*2+3*5 = 29, r1 30-3 = 27, r2 20, r3 50-12*2 = 26, r4 5+10*2 = 25,
 * r5 45-4*5 = 25, r6 15+5+3 = 23, r7 25. Max 29 < L_avg + max w_hat = 30.
 */
static void test_eight_ranks(void)
{
    const double load[8] = {10, 30, 20, 50, 5, 45, 15, 25};
    const int64_t n[8] = {5, 10, 4, 25, 5, 9, 3, 5};
    /* clang-format off */
    const int64_t expect[64] = {
        /*        0   1   2   3   4   5   6   7 */
        /* 0 */   5,  0,  0,  0,  0,  0,  0,  0,
        /* 1 */   0,  9,  0,  0,  0,  0,  1,  0,
        /* 2 */   0,  0,  4,  0,  0,  0,  0,  0,
        /* 3 */   2,  0,  0, 13, 10,  0,  0,  0,
        /* 4 */   0,  0,  0,  0,  5,  0,  0,  0,
        /* 5 */   3,  0,  0,  0,  0,  5,  1,  0,
        /* 6 */   0,  0,  0,  0,  0,  0,  3,  0,
        /* 7 */   0,  0,  0,  0,  0,  0,  0,  5,
    };
    /* clang-format on */
    planned p;
    CHECK_EQ_I64(run(&p, 8, load, n), TIDE_PLAN_OK);
    check_table(&p, 8, expect);

    /* The move list is sorted by (from, to) and holds exactly the five steps. */
    const int32_t from[5] = {1, 3, 3, 5, 5}, to[5] = {6, 0, 4, 0, 6};
    const int64_t count[5] = {1, 2, 10, 3, 1};
    CHECK_EQ_I64(p.plan.nmoves, 5);
    for (int k = 0; k < 5 && k < (int)p.plan.nmoves; k++) {
        CHECK_EQ_I64(p.moves[k].from, from[k]);
        CHECK_EQ_I64(p.moves[k].to, to[k]);
        CHECK_EQ_I64(p.moves[k].count, count[k]);
        CHECK(p.moves[k].unit_ids == NULL);
    }

    /* Each rank's own row equals the table's row; rank 3 finds its two moves as one run. */
    for (int32_t me = 0; me < 8; me++) {
        int64_t row[8];
        CHECK_EQ_I64(tide_plan_row(&p.plan, n, me, row), TIDE_PLAN_OK);
        CHECK(memcmp(row, &p.tb[me * 8], sizeof row) == 0);
    }
    size_t nm;
    CHECK_EQ_I64(tide_plan_moves_from(&p.plan, 3, &nm), 1);
    CHECK_EQ_I64(nm, 2);
    CHECK_EQ_I64(tide_plan_moves_from(&p.plan, 7, &nm), 5);
    CHECK_EQ_I64(nm, 0);
}

/* Two ranks, unit tasks: L_avg = 5, the loaded rank gives exactly half. */
static void test_two_ranks(void)
{
    const double load[2] = {10, 0};
    const int64_t n[2] = {10, 0};
    const int64_t expect[4] = {5, 5, 0, 0};
    planned p;
    CHECK_EQ_I64(run(&p, 2, load, n), TIDE_PLAN_OK);
    check_table(&p, 2, expect);
}

/*
 * Why victims round up: one rank holds 10 unit tasks, ten ranks hold nothing. L_avg = 10/11,
 * every deficit (0.909) is below one task. Rounding the victim's share to nearest or down would
 * move nothing and leave the max at 10; ceil gives one task to each of the first nine victims
 * (the offloader may shed floor(9.09) = 9 and keeps 1). Max after = 1 < L_avg + 1.
 */
static void test_small_deficits(void)
{
    double load[11] = {10};
    int64_t n[11] = {10};
    planned p;
    CHECK_EQ_I64(run(&p, 11, load, n), TIDE_PLAN_OK);
    CHECK_EQ_I64(p.tb[0], 1);
    for (int32_t j = 1; j <= 9; j++)
        CHECK_EQ_I64(p.tb[j], 1);
    CHECK_EQ_I64(p.tb[10], 0);
}

/* Equal loads, one rank, all-zero loads, and an overloaded rank without tasks: nothing moves. */
static void test_nothing_to_do(void)
{
    planned p;
    const double eq[4] = {3, 3, 3, 3};
    const int64_t n4[4] = {3, 1, 7, 0};
    CHECK_EQ_I64(run(&p, 4, eq, n4), TIDE_PLAN_OK);
    CHECK_EQ_I64(p.plan.nmoves, 0);

    const double one[1] = {42};
    const int64_t n1[1] = {6};
    CHECK_EQ_I64(run(&p, 1, one, n1), TIDE_PLAN_OK);
    CHECK_EQ_I64(p.plan.nmoves, 0);
    CHECK_EQ_I64(p.tb[0], 6);

    const double zero[3] = {0, 0, 0};
    const int64_t n3[3] = {1, 2, 3};
    CHECK_EQ_I64(run(&p, 3, zero, n3), TIDE_PLAN_OK);
    CHECK_EQ_I64(p.plan.nmoves, 0);

    const double stuck[3] = {9, 0, 0};
    const int64_t none[3] = {0, 0, 0};
    CHECK_EQ_I64(run(&p, 3, stuck, none), TIDE_PLAN_OK);
    CHECK_EQ_I64(p.plan.nmoves, 0);
}

/* Equal loads are ordered by rank id: of two equally overloaded ranks the higher id is taken
 * first from the top, of two equal victims the lower id is served first. */
static void test_ties_by_rank(void)
{
    const double load[4] = {0, 4, 0, 4};
    const int64_t n[4] = {0, 4, 0, 4};
    planned p;
    CHECK_EQ_I64(run(&p, 4, load, n), TIDE_PLAN_OK);
    /* L_avg = 2: r3 first (sorted last), sends 2 to r0; then r1 sends 2 to r2. */
    CHECK_EQ_I64(p.tb[3 * 4 + 0], 2);
    CHECK_EQ_I64(p.tb[1 * 4 + 2], 2);
    CHECK_EQ_I64(p.plan.nmoves, 2);
}

static void test_bad_arguments(void)
{
    tide_move moves[4];
    tide_move_plan plan = {.moves = moves, .capacity = 4};
    const double ok[3] = {1, 2, 3};
    const int64_t n[3] = {1, 1, 1};
    const double neg[3] = {1, -2, 3};
    const double nan3[3] = {1, NAN, 3};
    const double inf3[3] = {1, INFINITY, 3};
    const int64_t nneg[3] = {1, -1, 1};
    CHECK_EQ_I64(tide_plan_proact(0, ok, n, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, NULL, n, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, ok, NULL, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, ok, n, NULL, NULL), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, neg, n, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, nan3, n, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, inf3, n, NULL, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact(3, ok, nneg, NULL, &plan), TIDE_PLAN_EINVAL);
    plan.capacity = 1; /* np - 1 = 2 needed */
    CHECK_EQ_I64(tide_plan_proact(3, ok, n, NULL, &plan), TIDE_PLAN_EINVAL);
    int64_t row[3];
    plan.capacity = 4;
    CHECK_EQ_I64(tide_plan_proact(3, ok, n, NULL, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_plan_row(&plan, n, 3, row), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_row(&plan, n, -1, row), TIDE_PLAN_EINVAL);
}

int main(void)
{
    test_eight_ranks();
    test_two_ranks();
    test_small_deficits();
    test_nothing_to_do();
    test_ties_by_rank();
    test_bad_arguments();
    return CHECK_REPORT("test_plan_proact");
}
