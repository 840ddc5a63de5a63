/*
 * test_rank.c - one rank's side of PackDrop and DistributedLB (tide_global_rank.h) driven by
 * hand, as libtide's and tide-sim's drivers drive it: walks, refusals, ties, phases.
 */
#include "fixture.h"
#include "tide_global_rank.h"

/* A batch refused by every target asks each known target exactly once (the stride coprime with
 * m), then stays: m = 6 has strides sharing a factor with it. */
static void packdrop_walk_visits_every_target_once(void)
{
    double w[] = {8.0, 8.0}; /* 16 here, 0 on 5 others: avg 16/6 */
    int32_t targets[] = {1, 2, 3, 4, 5, 6};
    for (uint64_t seed = 1; seed <= 50; seed++) {
        tide_packdrop_rank R;
        CHECK_EQ_I64(tide_packdrop_rank_begin(&R, 7, 16.0, 2.0, 0.05, 2, w), TIDE_PLAN_OK);
        CHECK(R.run && R.nb >= 1 && !tide_packdrop_rank_announces(&R));
        uint64_t rng = tide_global_rank_seed(seed, 0);
        tide_packdrop_rank_targets(&R, 6, targets, &rng);
        int asked[7] = {0};
        int rounds = 0;
        while (tide_packdrop_rank_pending(&R)) {
            int64_t n = tide_packdrop_rank_propose(&R);
            for (int64_t i = 0; i < n; i++) {
                if (R.out[i].handle == 0) asked[R.out[i].target]++;
                tide_packdrop_rank_answered(&R, R.out[i].target, R.out[i].handle, false);
            }
            rounds++;
        }
        CHECK_EQ_I64(rounds, 6);
        for (int t = 1; t <= 6; t++)
            CHECK_EQ_I64(asked[t], 1);
        CHECK_EQ_I64(R.unplaced, R.nb);
        CHECK_EQ_I64(R.refused, 6 * R.nb);
        int32_t dest[2] = {0, 0};
        tide_packdrop_rank_dest(&R, dest);
        CHECK(dest[0] == 0 && dest[1] == 0);
        tide_packdrop_rank_free(&R);
    }
}

/* Accepted: the batch's objects go to the target, the proposer's load drops; the receiver
 * accepts while it stays within ub(avg) and counts what it accepted. */
static void packdrop_accept_moves_the_batch(void)
{
    double w[] = {1.0, 1.0, 1.0, 1.0};
    tide_packdrop_rank S, T;
    /* 2 ranks, 4 objects, total 4: avg 2, ub 2.1, s = 1.5 x 1: batches of 2. */
    CHECK_EQ_I64(tide_packdrop_rank_begin(&S, 2, 4.0, 4.0, 0.05, 4, w), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_packdrop_rank_begin(&T, 2, 4.0, 4.0, 0.05, 0, NULL), TIDE_PLAN_OK);
    CHECK_EQ_I64(S.nb, 1);
    CHECK(tide_packdrop_rank_announces(&T));
    int32_t to1[] = {1};
    uint64_t rng = 1;
    tide_packdrop_rank_targets(&S, 1, to1, &rng);
    CHECK_EQ_I64(tide_packdrop_rank_propose(&S), 1);
    CHECK(S.out[0].target == 1 && S.out[0].load == 2.0);
    bool ok = tide_packdrop_rank_answer(&T, S.out[0].load);
    CHECK(ok && T.load == 2.0);
    CHECK(!tide_packdrop_rank_answer(&T, 0.5)); /* 2.5 > ub 2.1 */
    tide_packdrop_rank_answered(&S, 1, S.out[0].handle, ok);
    CHECK(!tide_packdrop_rank_pending(&S) && S.load == 2.0);
    int32_t dest[4] = {0, 0, 0, 0};
    tide_packdrop_rank_dest(&S, dest);
    /* Lightest first, ties by lower index: objects 0 and 1 travel. */
    CHECK(dest[0] == 1 && dest[1] == 1 && dest[2] == 0 && dest[3] == 0);
    tide_packdrop_rank_free(&S);
    tide_packdrop_rank_free(&T);
}

/* DistributedLB: equal loads are offered lowest index first; a refusal closes that target for
 * the rest of the round (the next phase never asks it), an acceptance moves the object. */
static void distributed_refusal_closes_the_target(void)
{
    double w[] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    int32_t dest[6];
    tide_global_params p;
    tide_global_params_default(&p);
    tide_distributed_rank R;
    /* 3 ranks: this one 6, the others 0: avg 2, threshold (6 + 2) / 2 = 4. */
    CHECK_EQ_I64(tide_distributed_rank_begin(&R, 0, 3, 6.0, 6.0, 6, w, dest, &p), TIDE_PLAN_OK);
    CHECK(!R.stop && R.threshold == 4.0 && !tide_distributed_rank_announces(&R));
    int32_t targets[] = {1, 2};
    double heard[] = {0.0, 0.0};
    CHECK_EQ_I64(tide_distributed_rank_targets(&R, 2, targets, heard), TIDE_PLAN_OK);
    uint64_t rng = 7;
    int64_t n = tide_distributed_rank_propose(&R, &rng);
    CHECK_EQ_I64(n, 2); /* 6 -> 4: two objects, smallest index first */
    CHECK(R.out[0].handle == 0 && R.out[1].handle == 1);
    for (int64_t i = 0; i < n; i++)
        tide_distributed_rank_answered(&R, R.out[i].target, R.out[i].handle, false);
    CHECK(R.full[0] || R.full[1]);
    bool closed1 = R.full[0], closed2 = R.full[1];
    tide_distributed_rank_end(&R, 6.0);
    CHECK(!R.stop && R.threshold == 3.0); /* ratio unchanged: halfway to the average */
    for (int phase = 0; phase < 3; phase++) {
        n = tide_distributed_rank_propose(&R, &rng);
        for (int64_t i = 0; i < n; i++) {
            CHECK(!(closed1 && R.out[i].target == 1) && !(closed2 && R.out[i].target == 2));
            tide_distributed_rank_answered(&R, R.out[i].target, R.out[i].handle, true);
        }
    }
    int moved = 0;
    for (int i = 0; i < 6; i++)
        moved += dest[i] != 0;
    CHECK_EQ_I64(moved, R.moved);
    CHECK(R.load == 6.0 - (double)moved);
    tide_distributed_rank_free(&R);
}

/* The receiver accepts at or under the phase's threshold; the round stops at the goal or after
 * dist_max_phases. */
static void distributed_answer_and_stop(void)
{
    double w[] = {1.0};
    int32_t dest[1];
    tide_global_params p;
    tide_global_params_default(&p);
    p.dist_max_phases = 2;
    tide_distributed_rank R;
    CHECK_EQ_I64(tide_distributed_rank_begin(&R, 1, 2, 4.0, 3.0, 1, w, dest, &p), TIDE_PLAN_OK);
    CHECK(dest[0] == 1 && tide_distributed_rank_announces(&R)); /* 1 < 1.05 x 2 */
    CHECK_EQ_I64(tide_distributed_rank_targets(&R, 0, NULL, NULL), TIDE_PLAN_OK);
    uint64_t rng = 1;
    CHECK_EQ_I64(tide_distributed_rank_propose(&R, &rng), 0); /* threshold 2.5 */
    CHECK(tide_distributed_rank_answer(&R, 1.5));             /* 2.5 <= 2.5 */
    CHECK(!tide_distributed_rank_answer(&R, 0.1));
    tide_distributed_rank_end(&R, 2.9);
    CHECK(!R.stop);
    tide_distributed_rank_propose(&R, &rng);
    tide_distributed_rank_end(&R, 2.9);
    CHECK(R.stop); /* the second phase was the last */
    tide_distributed_rank_free(&R);
    /* Balanced already: stop at once. */
    CHECK_EQ_I64(tide_distributed_rank_begin(&R, 0, 2, 4.0, 2.05, 1, w, dest, &p), TIDE_PLAN_OK);
    CHECK(R.stop);
    tide_distributed_rank_free(&R);
}

int main(void)
{
    packdrop_walk_visits_every_target_once();
    packdrop_accept_moves_the_batch();
    distributed_refusal_closes_the_target();
    distributed_answer_and_stop();
    return CHECK_REPORT("test_rank");
}
