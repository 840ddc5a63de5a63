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

/* The registry against registry.cmake's list (TIDE_TEST_GLOBAL_STRATEGIES, comma-separated, set
 * by CMake): the same names in the same order, each entry named as its symbol says. */
static void registry(void)
{
    const char *env = getenv("TIDE_TEST_GLOBAL_STRATEGIES");
    CHECK(env != NULL && strlen(env) < 256);
    if (env == NULL || strlen(env) >= 256) return;
    char list[256], full[512] = "";
    snprintf(list, sizeof list, "%s", env);
    size_t n, k = 0;
    const tide_global_strategy *const *all = tide_global_strategies(&n);
    for (char *name = strtok(list, ","); name != NULL; name = strtok(NULL, ","), k++) {
        const tide_global_strategy *s = tide_global_find(name);
        CHECK(s != NULL && strcmp(s->name, name) == 0 && s->plan != NULL);
        CHECK(k < n && all[k] == s);
        if (s == NULL) continue;
        if (k) strcat(full, ", ");
        strcat(full, name);
        /* The decentralized ones, which a runtime runs as protocols between ranks. */
        tide_global_protocol want = strcmp(name, "packdrop") == 0 ? TIDE_GLOBAL_PROTO_PACKDROP
                                    : strcmp(name, "distributed") == 0
                                        ? TIDE_GLOBAL_PROTO_DISTRIBUTED
                                        : TIDE_GLOBAL_CENTRAL;
        CHECK(s->protocol == want);
    }
    CHECK(tide_global_find("GreedyLB") == NULL);
    CHECK_EQ_I64(k, n);
    CHECK(tide_global_find(NULL) == NULL);
    /* The list error messages offer: every name, in order; cut short, still terminated. */
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
