/*
 * test_plan_weighted.c - hand-worked cases of the proactive planner with per-task weights.
 */
#include "check.h"
#include "tide_plan.h"

#include <string.h>

/*
 * Three ranks, L_avg = 18 / 3 = 6:
 *   r0: load 14, tasks [5, 4, 3, 2]  -> offloader, over 8
 *   r1: load 2,  tasks [2]           -> victim, under 4 (before r2: equal load, lower id)
 *   r2: load 2,  tasks [1, 1]        -> victim, under 4
 * r0 -> r1: the largest task <= min(4, 8) is task 1 (4): over 4, under 0, r1 full.
 * r0 -> r2: the largest task <= min(4, 4) still here is task 2 (3): over 1, under 1; then no
 *           task fits 1 and the smallest left (2) exceeds the surplus: r0 done.
 * Loads after: r0 7, r1 6, r2 5 (max 7 < L_avg + 5).
 */
static void test_fit_deficits(void)
{
    const double load[3] = {14, 2, 2};
    const int64_t off[4] = {0, 4, 5, 7};
    const double w[7] = {5, 4, 3, 2, 2, 1, 1};
    int32_t dest[7];
    tide_move moves[3];
    int64_t ids[7];
    tide_move_plan plan = {.moves = moves, .capacity = 3, .ids = ids};
    CHECK_EQ_I64(tide_plan_proact_weighted(3, load, off, w, NULL, dest, &plan), TIDE_PLAN_OK);
    const int32_t expect[7] = {0, 1, 2, 0, 1, 2, 2};
    for (int t = 0; t < 7; t++)
        CHECK_EQ_I64(dest[t], expect[t]);
    CHECK_EQ_I64(plan.nmoves, 2);
    CHECK_EQ_I64(moves[0].from, 0);
    CHECK_EQ_I64(moves[0].to, 1);
    CHECK_EQ_I64(moves[0].count, 1);
    CHECK(moves[0].unit_ids != NULL && moves[0].unit_ids[0] == 1);
    CHECK_EQ_I64(moves[1].to, 2);
    CHECK(moves[1].unit_ids != NULL && moves[1].unit_ids[0] == 2);
}

/*
 * Overshoot and ties: L_avg = 8/3.
 *   r0: load 8, tasks [4, 4] -> over 16/3;  r1, r2: load 0 -> under 8/3 each.
 * r0 -> r1: no task fits 8/3, the smallest (4) fits the surplus: r1 takes one and is full at
 *           4 < L_avg + 4. Of the two equal tasks the later one (task 1) leaves.
 * r0 -> r2: no task fits min(8/3, 4/3), and 4 > surplus 4/3: r0 done, r2 gets nothing.
 */
static void test_overshoot_and_ties(void)
{
    const double load[3] = {8, 0, 0};
    const int64_t off[4] = {0, 2, 2, 2};
    const double w[2] = {4, 4};
    int32_t dest[2];
    tide_move moves[2];
    tide_move_plan plan = {.moves = moves, .capacity = 2};
    CHECK_EQ_I64(tide_plan_proact_weighted(3, load, off, w, NULL, dest, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(dest[0], 0);
    CHECK_EQ_I64(dest[1], 1);
    CHECK_EQ_I64(plan.nmoves, 1);
    CHECK(moves[0].unit_ids == NULL); /* plan.ids was NULL: counts only */
}

/* Unmovable load: r0 carries 6 of running work and two movable tasks of 1; it can only shed
 * those, and zero-weight tasks never move. */
static void test_unmovable_and_zero_weights(void)
{
    const double load[2] = {8, 0};
    const int64_t off[3] = {0, 3, 3};
    const double w[3] = {1, 0, 1};
    int32_t dest[3];
    tide_move moves[1];
    tide_move_plan plan = {.moves = moves, .capacity = 1};
    CHECK_EQ_I64(tide_plan_proact_weighted(2, load, off, w, NULL, dest, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(dest[0], 1);
    CHECK_EQ_I64(dest[1], 0);
    CHECK_EQ_I64(dest[2], 1);
    CHECK_EQ_I64(plan.nmoves, 1);
    CHECK_EQ_I64(moves[0].count, 2);
}

static void test_bad_arguments(void)
{
    const double load[2] = {1, 0};
    const int64_t off_bad_start[3] = {1, 1, 1};
    const int64_t off_decreasing[3] = {0, 2, 1};
    const int64_t off[3] = {0, 1, 1};
    const double neg[1] = {-1};
    int32_t dest[2];
    tide_move moves[1];
    tide_move_plan plan = {.moves = moves, .capacity = 1};
    CHECK_EQ_I64(tide_plan_proact_weighted(2, load, off_bad_start, neg, NULL, dest, &plan),
                 TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact_weighted(2, load, off_decreasing, neg, NULL, dest, &plan),
                 TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact_weighted(2, load, off, neg, NULL, dest, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_plan_proact_weighted(2, load, off, NULL, NULL, dest, &plan),
                 TIDE_PLAN_EINVAL);
    const int64_t empty[3] = {0, 0, 0};
    CHECK_EQ_I64(tide_plan_proact_weighted(2, load, empty, NULL, NULL, dest, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(plan.nmoves, 0);
}

int main(void)
{
    test_fit_deficits();
    test_overshoot_and_ties();
    test_unmovable_and_zero_weights();
    test_bad_arguments();
    return CHECK_REPORT("test_plan_weighted");
}
