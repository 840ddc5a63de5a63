/*
 * test_packdrop.c - PackDrop's per-rank pieces by hand and its batches' bounds on random ranks,
 * and the simulated round.
 */
#include "fixture.h"

static void globals_by_hand(void)
{
    tide_packdrop_globals g;
    CHECK_EQ_I64(tide_packdrop_globals_make(4, 40.0, 20, 0.05, &g), TIDE_PLAN_OK);
    CHECK(g.avg == 10.0 && g.ub == 10.5 && g.ttc == 20);
    CHECK(g.ps == 1.8);                        /* 2 - 4 / 20 */
    CHECK(g.s > 3.5999999 && g.s < 3.6000001); /* 1.8 x mean object load 2 */
    CHECK_EQ_I64(tide_packdrop_globals_make(4, 40.0, 0, 0.05, &g), TIDE_PLAN_EINVAL);
    CHECK_EQ_I64(tide_packdrop_globals_make(8, 8.0, 2, 0.05, &g), TIDE_PLAN_OK);
    CHECK(g.ps == 1.0); /* 2 - 8/2 < 1: one object per batch */
}

static void assemble_by_hand(void)
{
    tide_packdrop_globals g;
    tide_packdrop_globals_make(4, 40.0, 20, 0.05, &g); /* ub 10.5, s 3.6 */
    /* 18 on the rank: lightest first 1,1,1,1 (batch of 4 > 3.6 closes at load 14), 2,2 (batch
     * of 4 closes, load 10 <= 10.5): the 5s stay. */
    double w[] = {5, 1, 2, 1, 5, 1, 2, 1};
    int32_t batch_of[8];
    double bl[8];
    int64_t nb;
    CHECK_EQ_I64(tide_packdrop_assemble(8, w, 0.0, &g, batch_of, &nb, bl), TIDE_PLAN_OK);
    CHECK_EQ_I64(nb, 2);
    int32_t want[] = {-1, 0, 1, 0, -1, 0, 1, 0};
    for (int i = 0; i < 8; i++)
        CHECK_EQ_I64(batch_of[i], want[i]);
    CHECK(bl[0] == 4.0 && bl[1] == 4.0);
    /* 12: one 3 brings it to 9 <= 10.5; the open batch (3 <= s) is sent as a partial batch. */
    double w2[] = {3, 3, 3, 3};
    CHECK_EQ_I64(tide_packdrop_assemble(4, w2, 0.0, &g, batch_of, &nb, bl), TIDE_PLAN_OK);
    CHECK_EQ_I64(nb, 1);
    CHECK(bl[0] == 3.0);
    CHECK_EQ_I64(batch_of[0], 0);
    CHECK_EQ_I64(batch_of[1], -1);
    /* Unmovable load counts: 8 fixed + 3 + 3 = 14, one 3 leaves to reach 11 > 10.5, then
     * another: 8. */
    double w3[] = {3, 3};
    CHECK_EQ_I64(tide_packdrop_assemble(2, w3, 8.0, &g, batch_of, &nb, bl), TIDE_PLAN_OK);
    CHECK_EQ_I64(nb, 1);
    CHECK(bl[0] == 6.0);
    /* Already within ub: nothing leaves. */
    CHECK_EQ_I64(tide_packdrop_assemble(2, w3, 4.0, &g, batch_of, &nb, bl), TIDE_PLAN_OK);
    CHECK_EQ_I64(nb, 0);
}

static void accept_rule(void)
{
    tide_packdrop_globals g;
    tide_packdrop_globals_make(4, 40.0, 20, 0.05, &g);
    CHECK(tide_packdrop_accept(7.0, 3.5, &g));  /* 10.5 = ub: stays within */
    CHECK(!tide_packdrop_accept(7.5, 3.5, &g)); /* 11 > ub */
}

static void assemble_bounds_random(void)
{
    uint64_t rng = 7;
    for (int t = 0; t < 2000; t++) {
        int64_t k = 1 + (int64_t)(test_rand(&rng) % 60);
        double w[60], bl[60];
        int32_t batch_of[60];
        double load = 0.0;
        for (int64_t i = 0; i < k; i++) {
            w[i] = test_uniform(&rng) < 0.1 ? 0.0 : 10.0 * test_uniform(&rng);
            load += w[i];
        }
        tide_packdrop_globals g;
        int32_t np = 2 + (int32_t)(test_rand(&rng) % 30);
        int64_t ttc = k * (1 + (int64_t)(test_rand(&rng) % 4));
        tide_packdrop_globals_make(np, load * (0.2 + test_uniform(&rng)) * np / 2, ttc, 0.05, &g);
        int64_t nb;
        CHECK_EQ_I64(tide_packdrop_assemble(k, w, 0.0, &g, batch_of, &nb, bl), TIDE_PLAN_OK);
        double left = load, sum[60] = {0}, last[60] = {0};
        double heaviest_left = 0.0;
        for (int64_t i = 0; i < k; i++) {
            if (batch_of[i] < 0) {
                if (w[i] > heaviest_left) heaviest_left = w[i];
                continue;
            }
            CHECK(batch_of[i] < nb);
            left -= w[i];
            sum[batch_of[i]] += w[i];
            if (w[i] > last[batch_of[i]]) last[batch_of[i]] = w[i];
        }
        for (int64_t b = 0; b < nb; b++) {
            CHECK(sum[b] > 0.0 && bl[b] > sum[b] - 1e-9 && bl[b] < sum[b] + 1e-9);
            /* Closed batches passed s with their last (heaviest) object, and not before it. */
            if (b < nb - 1) CHECK(bl[b] > g.s);
            CHECK(bl[b] - last[b] <= g.s + 1e-9);
        }
        /* The rank ends within ub unless it ran out of movable objects, and it did not give
         * more than needed: before its last object left it was still above ub. Objects left are
         * at least as heavy as any that went (lightest first). */
        bool all_moved = true;
        for (int64_t i = 0; i < k; i++)
            all_moved &= batch_of[i] >= 0 || w[i] == 0.0;
        CHECK(left <= g.ub + 1e-9 || all_moved);
        if (nb > 0) {
            double lightest_left = 1e300, heaviest_gone = 0.0;
            for (int64_t i = 0; i < k; i++) {
                if (batch_of[i] >= 0 && w[i] > heaviest_gone) heaviest_gone = w[i];
                if (batch_of[i] < 0 && w[i] > 0.0 && w[i] < lightest_left) lightest_left = w[i];
            }
            CHECK(heaviest_gone <= lightest_left);
            CHECK(left + heaviest_gone > g.ub - 1e-9);
        } else {
            CHECK(load <= g.ub + 1e-9 || all_moved);
        }
        (void)heaviest_left;
    }
}

static void sim_by_hand(void)
{
    /* r0 holds 8 objects of 1, r1 and r2 two each, r3 none: avg 3, ub 3.15, ps 2 - 4/12,
     * s = ps. r0 assembles {1,1} {1,1} {1} and keeps 3. Only r3 can take a 2-batch; the
     * batches that find no room stay home, and no receiver ends above ub. */
    double load[12];
    int32_t owner[12], out[12];
    for (int i = 0; i < 12; i++) {
        load[i] = 1.0;
        owner[i] = i < 8 ? 0 : (i < 10 ? 1 : 2);
    }
    tide_global_input in = {.np = 4, .nobj = 12, .load = load, .owner = owner};
    tide_global_dist_report rep;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        tide_global_params p;
        tide_global_params_default(&p);
        p.seed = seed;
        CHECK_EQ_I64(tide_global_packdrop_sim(&in, &p, out, &rep), TIDE_PLAN_OK);
        CHECK_EQ_I64(rep.overloaded, 1);
        CHECK_EQ_I64(rep.underloaded, 3);
        CHECK_EQ_I64(rep.batches, 3);
        double t[4] = {0};
        for (int i = 0; i < 12; i++) {
            t[out[i]] += 1.0;
            if (i >= 8) CHECK_EQ_I64(out[i], owner[i]); /* receivers never give */
        }
        for (int r = 1; r < 4; r++)
            CHECK(t[r] <= 3.15);
        CHECK(t[0] >= 3.0 && t[0] <= 6.0);
        CHECK_EQ_I64(rep.moved_objects, 8 - (int64_t)t[0]);
        CHECK(rep.proposals >= 3 - rep.unplaced);
        CHECK(rep.gossip_rounds >= 1 && rep.gossip_messages >= 2);
    }
}

static void gossip_pieces(void)
{
    uint64_t rng = 3;
    int32_t peers[4];
    for (int t = 0; t < 100; t++) {
        CHECK_EQ_I64(tide_gossip_peers(10, 4, 2, &rng, peers), 2);
        CHECK(peers[0] != 4 && peers[1] != 4 && peers[0] != peers[1]);
        CHECK(peers[0] >= 0 && peers[0] < 10 && peers[1] >= 0 && peers[1] < 10);
    }
    CHECK_EQ_I64(tide_gossip_peers(3, 1, 4, &rng, peers), 2);
    CHECK_EQ_I64(tide_gossip_peers(1, 0, 2, &rng, peers), 0);
    CHECK_EQ_I64(tide_gossip_words(64), 1);
    CHECK_EQ_I64(tide_gossip_words(65), 2);
    uint64_t known[2] = {0x5, 0}, msg[2] = {0x6, 0x1};
    CHECK_EQ_I64(tide_gossip_merge(70, known, msg), 2);
    CHECK(known[0] == 0x7 && known[1] == 0x1);
    CHECK_EQ_I64(tide_gossip_merge(70, known, msg), 0);
}

int main(void)
{
    globals_by_hand();
    assemble_by_hand();
    accept_rule();
    assemble_bounds_random();
    sim_by_hand();
    gossip_pieces();
    return CHECK_REPORT("global_test_packdrop");
}
