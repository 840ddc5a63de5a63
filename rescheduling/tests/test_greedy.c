/*
 * test_greedy.c - GreedyLB and RandCentLB on hand-worked cases.
 */
#include "fixture.h"

static void greedy_lpt_by_hand(void)
{
    /* Heaviest first to the least loaded: 5->r0, 4->r1, 3->r1 (4 < 5), 3->r0 (5 < 7),
     * 3->r1 (7 < 8): times 8 and 10, while the optimum is 9 (5+4 | 3+3+3). */
    double load[] = {5, 4, 3, 3, 3};
    int32_t owner[] = {1, 1, 1, 1, 1};
    tide_global_input in = {.np = 2, .nobj = 5, .load = load, .owner = owner};
    int32_t out[5];
    CHECK_EQ_I64(tide_global_greedy(&in, NULL, out), TIDE_PLAN_OK);
    int32_t want[] = {0, 1, 1, 0, 1};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_I64(out[i], want[i]);
}

static void greedy_ties_and_speeds(void)
{
    /* Equal loads go in index order to the lower rank first; rank 1 is twice as fast, so after
     * 4 -> r0 (time 4) and 4 -> r1 (time 2) the third object goes to r1 (time 4), the fourth to
     * r0 (tie 4 = 4, lower rank). */
    double load[] = {4, 4, 4, 4};
    int32_t owner[] = {0, 0, 0, 0};
    double speed[] = {1, 2};
    tide_global_input in = {.np = 2, .nobj = 4, .load = load, .owner = owner, .speed = speed};
    int32_t out[4];
    CHECK_EQ_I64(tide_global_greedy(&in, NULL, out), TIDE_PLAN_OK);
    int32_t want[] = {0, 1, 1, 0};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(out[i], want[i]);
}

static void bad_inputs(void)
{
    double load[] = {1, -1};
    int32_t owner[] = {0, 0};
    int32_t out[2];
    tide_global_input in = {.np = 2, .nobj = 2, .load = load, .owner = owner};
    CHECK_EQ_I64(tide_global_greedy(&in, NULL, out), TIDE_PLAN_EINVAL);
    load[1] = 1;
    owner[1] = 2;
    CHECK_EQ_I64(tide_global_greedy(&in, NULL, out), TIDE_PLAN_EINVAL);
    owner[1] = 1;
    in.np = 0;
    CHECK_EQ_I64(tide_global_refine(&in, NULL, out), TIDE_PLAN_EINVAL);
    in.np = 2;
    tide_global_params p;
    tide_global_params_default(&p);
    p.refine_threshold = 0.9;
    CHECK_EQ_I64(tide_global_refine(&in, &p, out), TIDE_PLAN_EINVAL);
    double speed[] = {1, 0};
    in.speed = speed;
    CHECK_EQ_I64(tide_global_smartlb(&in, NULL, out), TIDE_PLAN_EINVAL);
    speed[1] = 1;
    /* The distributed rounds assume equal speeds and say so. */
    CHECK_EQ_I64(tide_global_packdrop(&in, NULL, out), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_global_distributed(&in, NULL, out), TIDE_PLAN_EINVAL);
    in.speed = NULL;
    CHECK_EQ_I64(tide_global_distributed(&in, NULL, out), TIDE_PLAN_OK);
    in.nobj = 0;
    CHECK_EQ_I64(tide_global_greedy(&in, NULL, NULL), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_global_packdrop(&in, NULL, NULL), TIDE_PLAN_OK);
}

static void random_is_seeded_and_uniform(void)
{
    enum { N = 40000, NP = 8 };
    double *load = malloc(N * sizeof *load);
    int32_t *owner = calloc(N, sizeof *owner), *a = malloc(N * sizeof *a),
            *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++)
        load[i] = 1.0;
    tide_global_input in = {.np = NP, .nobj = N, .load = load, .owner = owner};
    tide_global_params p;
    tide_global_params_default(&p);
    CHECK_EQ_I64(tide_global_random(&in, &p, a), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_global_random(&in, &p, b), TIDE_PLAN_OK);
    CHECK(memcmp(a, b, N * sizeof *a) == 0);
    int count[NP] = {0};
    for (int i = 0; i < N; i++)
        count[a[i]]++;
    /* 5000 expected per rank, standard deviation ~66: 400 is six deviations. */
    for (int r = 0; r < NP; r++)
        CHECK(count[r] > 4600 && count[r] < 5400);
    p.seed = 2;
    CHECK_EQ_I64(tide_global_random(&in, &p, b), TIDE_PLAN_OK);
    CHECK(memcmp(a, b, N * sizeof *a) != 0);
    free(load);
    free(owner);
    free(a);
    free(b);
}

int main(void)
{
    greedy_lpt_by_hand();
    greedy_ties_and_speeds();
    bad_inputs();
    random_is_seeded_and_uniform();
    return CHECK_REPORT("global_test_greedy");
}
