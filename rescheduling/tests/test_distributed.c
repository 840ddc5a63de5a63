/*
 * test_distributed.c - DistributedLB's per-rank steps by hand and the simulated round.
 */
#include "fixture.h"

static void cdf_by_hand(void)
{
    double tload[] = {1.0, 3.0, 5.0, 2.5};
    double cdf[4];
    tide_distributed_cdf(4, tload, 3.0, cdf); /* rooms 2, 0, 0 (negative), 0.5 */
    CHECK(cdf[0] == 2.0 && cdf[1] == 2.0 && cdf[2] == 2.0 && cdf[3] == 2.5);
}

static void pick_and_accept_by_hand(void)
{
    /* Only target 0 has room (avg 5): every draw lands on it. w = 3: 1 + 3 < 5 fits. w = 4:
     * 1 + 4 is not below 5, three draws miss. */
    double view[] = {1.0, 9.0};
    double cdf[2];
    tide_distributed_cdf(2, view, 5.0, cdf);
    uint64_t rng = 11;
    int64_t draws = 0, misses = 0;
    CHECK_EQ_I64(tide_distributed_pick(2, view, cdf, 3.0, 5.0, 3, &rng, &draws, &misses), 0);
    CHECK_EQ_I64(draws, 1);
    CHECK_EQ_I64(tide_distributed_pick(2, view, cdf, 4.0, 5.0, 3, &rng, &draws, &misses), -1);
    CHECK_EQ_I64(draws, 4);
    CHECK_EQ_I64(misses, 3);
    /* No room anywhere: no draw at all. */
    double full[] = {6.0};
    double cdf1[1];
    tide_distributed_cdf(1, full, 5.0, cdf1);
    CHECK_EQ_I64(tide_distributed_pick(1, full, cdf1, 0.5, 9.0, 3, &rng, &draws, NULL), -1);
    CHECK_EQ_I64(draws, 4);
    /* The acknowledgement uses the receiver's real load. */
    CHECK(tide_distributed_accept(4.0, 1.0, 5.0));
    CHECK(!tide_distributed_accept(4.5, 1.0, 5.0));
    /* Threshold: halfway to avg after a phase that barely helped, else from the new max. */
    CHECK(tide_distributed_next_threshold(3.0, 2.9, 1.0, 2.905, 2.9) == 2.0);
    CHECK(tide_distributed_next_threshold(3.0, 2.0, 1.0, 3.0, 2.0) == 1.5);
}

static void sim_moves_only_from_over_to_under(void)
{
    uint64_t rng = 99;
    for (int t = 0; t < 50; t++) {
        fixture f;
        int32_t np = 2 + (int32_t)(test_rand(&rng) % 64);
        fixture_random(&f, &rng, np, 10 * np, false, false);
        int32_t *out = malloc((size_t)f.in.nobj * sizeof *out);
        int32_t *again = malloc((size_t)f.in.nobj * sizeof *out);
        double *before = calloc((size_t)np, sizeof *before), avg = 0.0;
        for (int64_t o = 0; o < f.in.nobj; o++) {
            before[f.owner[o]] += f.load[o];
            avg += f.load[o] / np;
        }
        tide_global_dist_report rep;
        CHECK_EQ_I64(tide_global_distributed_sim(&f.in, NULL, out, &rep), TIDE_PLAN_OK);
        CHECK_EQ_I64(tide_global_distributed(&f.in, NULL, again), TIDE_PLAN_OK);
        CHECK(memcmp(out, again, (size_t)f.in.nobj * sizeof *out) == 0);
        int64_t moved = 0;
        char *received = calloc((size_t)np, 1);
        for (int64_t o = 0; o < f.in.nobj; o++)
            if (out[o] != f.owner[o]) received[out[o]] = 1;
        for (int64_t o = 0; o < f.in.nobj; o++) {
            if (out[o] == f.owner[o]) continue;
            moved++;
            /* Givers start above the average, or received earlier and then exceeded a lowered
             * threshold. */
            CHECK(before[f.owner[o]] > avg || received[f.owner[o]]);
            CHECK(before[out[o]] < 1.05 * avg);
        }
        CHECK_EQ_I64(moved, rep.moved_objects);
        /* Receivers stay under a threshold below the initial max; givers only lose work. */
        CHECK(max_cost(&f.in, out, 0.0) <= max_cost(&f.in, f.owner, 0.0));
        CHECK(rep.batches <= 10);
        free(out);
        free(again);
        free(before);
        free(received);
        fixture_free(&f);
    }
}

int main(void)
{
    cdf_by_hand();
    pick_and_accept_by_hand();
    sim_moves_only_from_over_to_under();
    return CHECK_REPORT("global_test_distributed");
}
