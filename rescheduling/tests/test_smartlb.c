/*
 * test_smartlb.c - SmartLB on hand-worked cases.
 */
#include "fixture.h"

static void smartlb_by_hand(void)
{
    /* r0 {3,2,1} = 6, r1 {2}, r2 {1}: avg 3. The 3 would take r2 to 4 > 3: skipped; the 2 goes
     * to r2 (3); r0 is at 4 > 3, so the 1 goes to the new least loaded r1 (3); r0 ends at 3. */
    double load[] = {3, 2, 1, 2, 1};
    int32_t owner[] = {0, 0, 0, 1, 2};
    tide_global_input in = {.np = 3, .nobj = 5, .load = load, .owner = owner};
    int32_t out[5];
    CHECK_EQ_I64(tide_global_smartlb(&in, NULL, out), TIDE_PLAN_OK);
    int32_t want[] = {0, 2, 1, 1, 2};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_I64(out[i], want[i]);
    CHECK(max_cost(&in, out, 0.0) == 3.0);
}

static void smartlb_threshold(void)
{
    /* r0 {98, 2} = 100, r1 {97}: (max - min) / max = 0.03 <= 0.05, SmartLB does nothing. */
    double load[] = {98, 2, 97};
    int32_t owner[] = {0, 0, 1};
    tide_global_input in = {.np = 2, .nobj = 3, .load = load, .owner = owner};
    int32_t out[3];
    CHECK_EQ_I64(tide_global_smartlb(&in, NULL, out), TIDE_PLAN_OK);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I64(out[i], owner[i]);
    tide_global_params p;
    tide_global_params_default(&p);
    p.smart_threshold = 0.01;
    CHECK_EQ_I64(tide_global_smartlb(&in, &p, out), TIDE_PLAN_OK);
    /* Threshold 0.01, avg 98.5: the 98 would take r1 to 195 and the 2 to 99 > 98.5, so nothing
     * fits and nothing moves. */
    for (int i = 0; i < 3; i++)
        CHECK_EQ_I64(out[i], owner[i]);
    load[1] = 1; /* avg 98: r1 takes the 1 and ends exactly at the average */
    CHECK_EQ_I64(tide_global_smartlb(&in, &p, out), TIDE_PLAN_OK);
    CHECK_EQ_I64(out[0], 0);
    CHECK_EQ_I64(out[1], 1);
    CHECK_EQ_I64(out[2], 1);
}

int main(void)
{
    smartlb_by_hand();
    smartlb_threshold();
    return CHECK_REPORT("global_test_smartlb");
}
