/*
 * test_average.c - AverageLB on hand-worked cases, and how it differs from SmartLB.
 */
#include "fixture.h"

static void average_by_hand(void)
{
    /* r0 {4,1,1,1,1} = 8, r1 {1}, r2 {3}: avg 4. r0 gives its 1s, lightest (highest index)
     * first, to the least loaded rank: object 4 and 3 to r1 (2, then 3), object 2 to r1 again
     * (tie with r2 at 3, lower rank first; r1 4), object 1 to r2 (4); r0 is at 4 and nobody is
     * below the average, so it keeps its 4. */
    double load[] = {4, 1, 1, 1, 1, 1, 3};
    int32_t owner[] = {0, 0, 0, 0, 0, 1, 2};
    tide_global_input in = {.np = 3, .nobj = 7, .load = load, .owner = owner};
    int32_t out[7];
    CHECK_EQ_I64(tide_global_average(&in, NULL, out), TIDE_PLAN_OK);
    int32_t want[] = {0, 2, 1, 1, 1, 1, 2};
    for (int i = 0; i < 7; i++)
        CHECK_EQ_I64(out[i], want[i]);
    CHECK(max_cost(&in, out, 0.0) == 4.0);
}

static void average_overshoots_where_smartlb_stops(void)
{
    /* r0 {3,3,0.5} = 6.5, r1 {0.5}: avg 3.5. AverageLB keeps the donor at or above the average:
     * it gives the 0.5 (r0 6, r1 1), and a 3 would leave r0 at 3 < 3.5, so it stops at max 6.
     * SmartLB keeps the receiver at or below the average: the first 3 takes r1 to exactly 3.5
     * and r0 to 3.5. With coarse objects the two baselines end far apart. */
    double load[] = {3, 3, 0.5, 0.5};
    int32_t owner[] = {0, 0, 0, 1};
    tide_global_input in = {.np = 2, .nobj = 4, .load = load, .owner = owner};
    int32_t a[4], s[4];
    CHECK_EQ_I64(tide_global_average(&in, NULL, a), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_global_smartlb(&in, NULL, s), TIDE_PLAN_OK);
    CHECK_EQ_I64(a[0], 0);
    CHECK_EQ_I64(a[1], 0);
    CHECK_EQ_I64(a[2], 1);
    CHECK_EQ_I64(s[0], 1);
    CHECK_EQ_I64(s[2], 0);
    CHECK(max_cost(&in, a, 0.0) == 6.0);
    CHECK(max_cost(&in, s, 0.0) == 3.5);
}

static void average_balanced_input_stays(void)
{
    double load[] = {2, 2, 2, 2};
    int32_t owner[] = {0, 1, 2, 3};
    tide_global_input in = {.np = 4, .nobj = 4, .load = load, .owner = owner};
    int32_t out[4];
    CHECK_EQ_I64(tide_global_average(&in, NULL, out), TIDE_PLAN_OK);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(out[i], owner[i]);
}

static void average_many_small_objects_reach_the_average(void)
{
    /* 4 ranks, 400 objects of load 1 all on rank 0: avg 100; AverageLB ends exactly balanced. */
    enum { N = 400 };
    double load[N];
    int32_t owner[N], out[N];
    for (int i = 0; i < N; i++) {
        load[i] = 1.0;
        owner[i] = 0;
    }
    tide_global_input in = {.np = 4, .nobj = N, .load = load, .owner = owner};
    CHECK_EQ_I64(tide_global_average(&in, NULL, out), TIDE_PLAN_OK);
    CHECK(max_cost(&in, out, 0.0) == 100.0);
    CHECK(mapping_valid(&in, out));
}

int main(void)
{
    average_by_hand();
    average_overshoots_where_smartlb_stops();
    average_balanced_input_stays();
    average_many_small_objects_reach_the_average();
    return CHECK_REPORT("global_test_average");
}
