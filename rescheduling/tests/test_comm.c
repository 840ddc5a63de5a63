/*
 * test_comm.c - greedy_comm and refine_comm keep heavily communicating objects together where
 * greedy and refine split them.
 */
#include "fixture.h"

static void greedy_comm_keeps_pairs(void)
{
    /* Pairs (0,1) and (2,3) exchange 2 units each way-sum; alpha 1. Greedy alternates ranks and
     * cuts both pairs; greedy_comm puts 1 with 0 (cost 2 on r0 vs 1 + 2 on r1) and 3 with 2. */
    double load[] = {1, 1, 1, 1};
    int32_t owner[] = {0, 0, 0, 0};
    int64_t off[] = {0, 1, 1, 2, 2};
    int64_t adj[] = {1, 3};
    double vol[] = {2, 2};
    tide_global_input in = {.np = 2,
                            .nobj = 4,
                            .load = load,
                            .owner = owner,
                            .comm_off = off,
                            .comm_adj = adj,
                            .comm_vol = vol};
    tide_global_params p;
    tide_global_params_default(&p);
    p.comm_alpha = 1.0;
    int32_t g[4], gc[4];
    CHECK_EQ_I64(tide_global_greedy(&in, &p, g), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_global_greedy_comm(&in, &p, gc), TIDE_PLAN_OK);
    int32_t want[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(gc[i], want[i]);
    tide_global_summary sg, sc;
    CHECK_EQ_I64(tide_global_summarize(&in, g, &sg), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_global_summarize(&in, gc, &sc), TIDE_PLAN_OK);
    CHECK(sg.comm_after == 4.0);
    CHECK(sc.comm_after == 0.0);
    /* alpha 0: plain greedy. */
    p.comm_alpha = 0.0;
    CHECK_EQ_I64(tide_global_greedy_comm(&in, &p, gc), TIDE_PLAN_OK);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(gc[i], g[i]);
}

static void refine_comm_moves_loners(void)
{
    /* r0: pair (0,1) with volume 2 plus loners 2 and 3; r1: object 4; all loads 1, alpha 1.
     * Costs 4 and 1, avg 2.5, limit 2.625. Plain refine moves object 0 and cuts the pair;
     * refine_comm moves loner 2 (costs 3 | 2); moving 3 would take r1 to 3 > limit; moving 0
     * would raise r0 (5). */
    double load[] = {1, 1, 1, 1, 1};
    int32_t owner[] = {0, 0, 0, 0, 1};
    int64_t off[] = {0, 1, 1, 1, 1, 1};
    int64_t adj[] = {1};
    double vol[] = {2};
    tide_global_input in = {.np = 2,
                            .nobj = 5,
                            .load = load,
                            .owner = owner,
                            .comm_off = off,
                            .comm_adj = adj,
                            .comm_vol = vol};
    tide_global_params p;
    tide_global_params_default(&p);
    p.comm_alpha = 1.0;
    int32_t r[5], rc[5];
    CHECK_EQ_I64(tide_global_refine(&in, &p, r), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_global_refine_comm(&in, &p, rc), TIDE_PLAN_OK);
    CHECK_EQ_I64(r[0], 1);
    int32_t want[] = {0, 0, 1, 0, 1};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_I64(rc[i], want[i]);
    CHECK(max_cost(&in, rc, 1.0) == 3.0);
    CHECK(max_cost(&in, r, 1.0) > 3.0);
}

static void comm_graph_validation(void)
{
    double load[] = {1, 1};
    int32_t owner[] = {0, 0};
    int64_t off[] = {0, 1, 1};
    int64_t adj[] = {2}; /* out of range */
    double vol[] = {1};
    tide_global_input in = {.np = 2,
                            .nobj = 2,
                            .load = load,
                            .owner = owner,
                            .comm_off = off,
                            .comm_adj = adj,
                            .comm_vol = vol};
    int32_t out[2];
    CHECK_EQ_I64(tide_global_greedy_comm(&in, NULL, out), TIDE_PLAN_EINVAL);
    adj[0] = 1;
    vol[0] = -1;
    CHECK_EQ_I64(tide_global_refine_comm(&in, NULL, out), TIDE_PLAN_EINVAL);
    vol[0] = 1;
    CHECK_EQ_I64(tide_global_refine_comm(&in, NULL, out), TIDE_PLAN_OK);
}

int main(void)
{
    greedy_comm_keeps_pairs();
    refine_comm_moves_loners();
    comm_graph_validation();
    return CHECK_REPORT("global_test_comm");
}
