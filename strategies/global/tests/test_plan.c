/*
 * test_plan.c - a mapping turned into a move plan, and the registry.
 */
#include "fixture.h"

static void plan_by_hand(void)
{
    int32_t owner[] = {0, 0, 1, 2, 0, 1};
    int32_t after[] = {2, 0, 0, 2, 2, 0};
    tide_move moves[6];
    int64_t ids[6];
    tide_move_plan plan = {.np = 3, .capacity = 6, .moves = moves, .ids = ids};
    CHECK_EQ_I64(tide_global_plan_from_mapping(3, 6, owner, after, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(plan.nmoves, 2);
    CHECK(moves[0].from == 0 && moves[0].to == 2 && moves[0].count == 2);
    CHECK(moves[0].unit_ids[0] == 0 && moves[0].unit_ids[1] == 4);
    CHECK(moves[1].from == 1 && moves[1].to == 0 && moves[1].count == 2);
    CHECK(moves[1].unit_ids[0] == 2 && moves[1].unit_ids[1] == 5);
    size_t n;
    CHECK_EQ_I64(tide_plan_moves_from(&plan, 1, &n), 1);
    CHECK_EQ_I64(n, 1);
    /* One room for two (from, to) pairs: refused, and the plan left empty. */
    plan.capacity = 1;
    CHECK_EQ_I64(tide_global_plan_from_mapping(3, 6, owner, after, &plan), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(plan.nmoves, 0);
    plan.capacity = 6;
    plan.np = 2;
    CHECK_EQ_I64(tide_global_plan_from_mapping(3, 6, owner, after, &plan), TIDE_PLAN_EINVAL);
    plan.np = 3;
    CHECK_EQ_I64(tide_global_plan_from_mapping(3, 6, owner, owner, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(plan.nmoves, 0);
}

static void registry(void)
{
    const char *names[] = {"none",        "greedy",  "refine",  "random",   "greedy_comm",
                           "refine_comm", "smartlb", "average", "packdrop", "distributed"};
    size_t n;
    tide_global_strategies(&n);
    CHECK_EQ_I64(n, sizeof names / sizeof *names);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const tide_global_strategy *s = tide_global_find(names[i]);
        CHECK(s != NULL && strcmp(s->name, names[i]) == 0 && s->plan != NULL);
        /* The decentralized ones, which a runtime runs as protocols between ranks. */
        tide_global_protocol want = strcmp(names[i], "packdrop") == 0 ? TIDE_GLOBAL_PROTO_PACKDROP
                                    : strcmp(names[i], "distributed") == 0
                                        ? TIDE_GLOBAL_PROTO_DISTRIBUTED
                                        : TIDE_GLOBAL_CENTRAL;
        CHECK(s->protocol == want);
    }
    CHECK(tide_global_find("GreedyLB") == NULL);
    CHECK(tide_global_find(NULL) == NULL);
    /* The list error messages offer: every name, in order; cut short, still terminated. */
    const char *full = "none, greedy, refine, random, greedy_comm, refine_comm, smartlb, average, "
                       "packdrop, distributed";
    char buf[192], small[9];
    CHECK_EQ_I64(tide_global_names(buf, sizeof buf), strlen(full));
    CHECK(strcmp(buf, full) == 0);
    CHECK_EQ_I64(tide_global_names(small, sizeof small), strlen(full));
    CHECK(strcmp(small, "none, gr") == 0);
    CHECK_EQ_I64(tide_global_names(NULL, 0), strlen(full));
}

int main(void)
{
    plan_by_hand();
    registry();
    return CHECK_REPORT("global_test_plan");
}
