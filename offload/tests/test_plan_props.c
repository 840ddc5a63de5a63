/*
 * test_plan_props.c - properties of the proactive planners over thousands of random inputs.
 * Every case is generated from its seed; a failure prints the seed so it can be replayed.
 */
#include "check.h"
#include "tide_plan.h"

#include <stdlib.h>
#include <string.h>

#define MAXNP 64
#define CASES 4000
#define EPS 1e-9

typedef struct input {
    int32_t np;
    double load[MAXNP];
    int64_t n[MAXNP];
} input;

/* Loads with many ties (small integers) or continuous ones, some ranks idle or without tasks. */
static void generate(uint64_t seed, int distinct, input *in)
{
    uint64_t s = seed;
    in->np = 1 + (int32_t)(test_rand(&s) % MAXNP);
    for (int32_t i = 0; i < in->np; i++) {
        uint64_t kind = test_rand(&s) % 8;
        in->n[i] = (int64_t)(test_rand(&s) % 40);
        if (kind == 0 && !distinct) {
            in->n[i] = 0;
            in->load[i] = 0.0;
        } else if (!distinct) {
            in->n[i] += 1;
            in->load[i] = (double)(in->n[i] * (int64_t)(1 + test_rand(&s) % 4));
        } else {
            in->n[i] += 1;
            in->load[i] = (double)in->n[i] * (0.1 + 5.0 * test_uniform(&s));
        }
    }
}

static int plan_table(const input *in, int64_t *tb, tide_move *moves, size_t *nmoves)
{
    tide_move_plan plan = {.moves = moves, .capacity = MAXNP};
    int rc = tide_plan_proact(in->np, in->load, in->n, NULL, &plan);
    if (rc == TIDE_PLAN_OK) rc = tide_plan_table(&plan, in->n, tb);
    *nmoves = plan.nmoves;
    return rc;
}

static void check_case(uint64_t seed, const input *in)
{
    static int64_t tb[MAXNP * MAXNP];
    tide_move moves[MAXNP];
    size_t nmoves;
    int32_t np = in->np;
    int before = check_failures;
    CHECK_EQ_I64(plan_table(in, tb, moves, &nmoves), TIDE_PLAN_OK);

    double sum = 0.0, max_w = 0.0;
    int32_t over = 0, under = 0;
    for (int32_t i = 0; i < np; i++)
        sum += in->load[i];
    double avg = sum / np;
    for (int32_t i = 0; i < np; i++) {
        if (in->n[i] > 0 && in->load[i] / (double)in->n[i] > max_w)
            max_w = in->load[i] / (double)in->n[i];
        over += in->load[i] > avg + EPS;
        under += in->load[i] < avg - EPS;
    }
    /* Every step retires an offloader or a victim: at most K + V - 1 moves. */
    CHECK(nmoves <= (size_t)(over + under > 0 ? over + under - 1 : 0));

    for (int32_t i = 0; i < np; i++) {
        int64_t row = 0;
        for (int32_t j = 0; j < np; j++) {
            int64_t v = tb[i * np + j];
            CHECK(v >= 0);
            row += v;
            if (i != j && v > 0) {
                CHECK(in->load[i] > avg);
                CHECK(in->load[j] < avg);
            }
        }
        CHECK_EQ_I64(row, in->n[i]);
    }
    /* Predicted loads after the plan: column sums of moved task loads. */
    for (int32_t j = 0; j < np; j++) {
        double after = 0.0;
        for (int32_t i = 0; i < np; i++)
            if (tb[i * np + j] > 0)
                after += (double)tb[i * np + j] * in->load[i] / (double)in->n[i];
        if (in->n[j] > 0 || in->load[j] == 0.0) CHECK(after < avg + max_w + EPS * (1 + avg));
        if (tb[j * np + j] < in->n[j]) CHECK(after > avg - EPS * (1 + avg)); /* senders */
    }
    if (check_failures != before)
        fprintf(stderr, "  (seed %llu, np %d)\n", (unsigned long long)seed, np);
}

/* Relabel the ranks by a random permutation, plan, map back: the same table. Loads must be
 * distinct, since equal loads are ordered by rank id by design. */
static void check_relabel(uint64_t seed, const input *in)
{
    static int64_t tb[MAXNP * MAXNP], tbp[MAXNP * MAXNP];
    tide_move moves[MAXNP];
    size_t nm;
    input pin;
    int32_t perm[MAXNP];
    uint64_t s = seed ^ 0xA5A5A5A5u;
    int32_t np = in->np;
    for (int32_t i = 0; i < np; i++)
        perm[i] = i;
    for (int32_t i = np - 1; i > 0; i--) {
        int32_t j = (int32_t)(test_rand(&s) % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    pin.np = np;
    for (int32_t i = 0; i < np; i++) {
        pin.load[perm[i]] = in->load[i];
        pin.n[perm[i]] = in->n[i];
    }
    CHECK_EQ_I64(plan_table(in, tb, moves, &nm), TIDE_PLAN_OK);
    CHECK_EQ_I64(plan_table(&pin, tbp, moves, &nm), TIDE_PLAN_OK);
    int same = 1;
    for (int32_t i = 0; i < np; i++)
        for (int32_t j = 0; j < np; j++)
            same &= tb[i * np + j] == tbp[perm[i] * np + perm[j]];
    CHECK(same);
    if (!same) fprintf(stderr, "  (relabel seed %llu)\n", (unsigned long long)seed);
}

/* Two "ranks" computing the plan from the same bytes with different scratch contents. */
static void check_deterministic(const input *in)
{
    static unsigned char scratch_a[MAXNP * 32], scratch_b[MAXNP * 32];
    tide_move ma[MAXNP], mb[MAXNP];
    memset(scratch_a, 0x00, sizeof scratch_a);
    memset(scratch_b, 0xFF, sizeof scratch_b);
    memset(ma, 0x11, sizeof ma);
    memset(mb, 0x22, sizeof mb);
    tide_move_plan a = {.moves = ma, .capacity = MAXNP}, b = {.moves = mb, .capacity = MAXNP};
    CHECK(tide_plan_proact_scratch_bytes(in->np) <= sizeof scratch_a);
    CHECK_EQ_I64(tide_plan_proact(in->np, in->load, in->n, scratch_a, &a), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_plan_proact(in->np, in->load, in->n, scratch_b, &b), TIDE_PLAN_OK);
    CHECK_EQ_I64(a.nmoves, b.nmoves);
    CHECK(memcmp(ma, mb, a.nmoves * sizeof *ma) == 0);
}

/* Weighted planner: random weights per task plus an unmovable part kept below the average. */
static void check_weighted(uint64_t seed)
{
    static double w[MAXNP * 40], load[MAXNP];
    static int64_t off[MAXNP + 1], ids[MAXNP * 40];
    static int32_t dest[MAXNP * 40];
    static double after[MAXNP];
    tide_move moves[MAXNP];
    uint64_t s = seed;
    int32_t np = 1 + (int32_t)(test_rand(&s) % MAXNP);
    double max_w = 0.0, sum = 0.0;
    off[0] = 0;
    for (int32_t i = 0; i < np; i++) {
        int64_t n = (int64_t)(test_rand(&s) % 40);
        off[i + 1] = off[i] + n;
        load[i] = test_rand(&s) % 4 == 0 ? test_uniform(&s) : 0.0; /* small unmovable part */
        for (int64_t t = off[i]; t < off[i + 1]; t++) {
            w[t] = test_rand(&s) % 10 == 0 ? 0.0 : 0.05 + 4.0 * test_uniform(&s);
            if (test_rand(&s) % 3 == 0) w[t] = 1.0; /* ties */
            load[i] += w[t];
            if (w[t] > max_w) max_w = w[t];
        }
        sum += load[i];
    }
    double avg = sum / np;
    tide_move_plan plan = {.moves = moves, .capacity = MAXNP, .ids = ids};
    int before = check_failures;
    CHECK_EQ_I64(tide_plan_proact_weighted(np, load, off, w, NULL, dest, &plan), TIDE_PLAN_OK);
    CHECK(plan.nmoves <= (size_t)(np - 1));

    for (int32_t i = 0; i < np; i++)
        after[i] = load[i];
    int64_t moved = 0;
    for (int32_t i = 0; i < np; i++)
        for (int64_t t = off[i]; t < off[i + 1]; t++) {
            CHECK(dest[t] >= 0 && dest[t] < np);
            if (dest[t] == i || dest[t] < 0 || dest[t] >= np) continue;
            CHECK(w[t] > 0.0);
            CHECK(load[i] > avg && load[dest[t]] < avg);
            after[i] -= w[t];
            after[dest[t]] += w[t];
            moved++;
        }
    int64_t counted = 0;
    for (size_t k = 0; k < plan.nmoves; k++) {
        const tide_move *m = &moves[k];
        CHECK(m->count > 0 && m->from != m->to);
        if (k > 0)
            CHECK(moves[k - 1].from < m->from ||
                  (moves[k - 1].from == m->from && moves[k - 1].to < m->to));
        for (int64_t c = 0; c < m->count; c++) {
            int64_t t = off[m->from] + m->unit_ids[c];
            CHECK(dest[t] == m->to);
            if (c > 0) CHECK(m->unit_ids[c - 1] < m->unit_ids[c]);
        }
        counted += m->count;
    }
    CHECK_EQ_I64(counted, moved);
    for (int32_t i = 0; i < np; i++) {
        CHECK(after[i] < avg + max_w + EPS * (1 + avg));
        if (after[i] < load[i]) CHECK(after[i] > avg - EPS * (1 + avg));
    }
    if (check_failures != before)
        fprintf(stderr, "  (weighted seed %llu)\n", (unsigned long long)seed);
}

int main(void)
{
    input in;
    for (uint64_t seed = 1; seed <= CASES && check_failures < 20; seed++) {
        generate(seed, 0, &in);
        check_case(seed, &in);
        check_deterministic(&in);
        generate(seed, 1, &in);
        check_case(seed, &in);
        check_relabel(seed, &in);
        check_weighted(seed);
    }
    return CHECK_REPORT("test_plan_props");
}
