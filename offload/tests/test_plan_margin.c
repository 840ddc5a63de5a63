/*
 * test_plan_margin.c - the proactive planners with per-rank margins (prediction uncertainty):
 * zero margins give exactly the plans without them; a sender's margin is a threshold (beyond
 * it the sender moves its whole surplus and still ends at or above L_avg; margins on senders
 * alone that each stay below the surplus give the plan without margins), when the victims'
 * room is short the senders come down to one level (within a task), a victim ends below
 * L_avg - its margin + one task, and only ranks beyond their margins take part. Random cases from
 * seeds, as in test_plan_props.c.
 */
#include "check.h"
#include "tide_plan.h"

#include <string.h>

#define MAXNP 48
#define MAXT 24
#define CASES 3000
#define EPS 1e-9

typedef struct input {
    int32_t np;
    double load[MAXNP], margin[MAXNP];
    int64_t n[MAXNP];
    int64_t off[MAXNP + 1];
    double w[MAXNP * MAXT];
} input;

static void generate(uint64_t seed, input *in)
{
    uint64_t s = seed;
    in->np = 2 + (int32_t)(test_rand(&s) % (MAXNP - 1));
    in->off[0] = 0;
    for (int32_t i = 0; i < in->np; i++) {
        in->n[i] = 1 + (int64_t)(test_rand(&s) % MAXT);
        in->load[i] = 0;
        for (int64_t t = 0; t < in->n[i]; t++) {
            double w = 0.1 + 3.0 * test_uniform(&s);
            in->w[in->off[i] + t] = w;
            in->load[i] += w;
        }
        in->off[i + 1] = in->off[i] + in->n[i];
        in->margin[i] = test_rand(&s) % 3 ? 0.0 : 10.0 * test_uniform(&s);
    }
}

static double average(const input *in)
{
    double s = 0;
    for (int32_t i = 0; i < in->np; i++)
        s += in->load[i];
    return s / in->np;
}

static int same_moves(const tide_move_plan *a, const tide_move_plan *b)
{
    if (a->nmoves != b->nmoves) return 0;
    for (size_t k = 0; k < a->nmoves; k++)
        if (a->moves[k].from != b->moves[k].from || a->moves[k].to != b->moves[k].to ||
            a->moves[k].count != b->moves[k].count)
            return 0;
    return 1;
}

/* Both planners give the same plan with margins m as without margins. */
static void same_as_without(const input *in, const double *m)
{
    tide_move m1[MAXNP], m2[MAXNP];
    tide_move_plan a = {.moves = m1, .capacity = MAXNP}, b = {.moves = m2, .capacity = MAXNP};
    CHECK_EQ_I64(tide_plan_proact(in->np, in->load, in->n, NULL, &a), TIDE_PLAN_OK);
    CHECK_EQ_I64(tide_plan_proact_margin(in->np, in->load, m, in->n, NULL, &b), TIDE_PLAN_OK);
    CHECK(same_moves(&a, &b));
    static int32_t d1[MAXNP * MAXT], d2[MAXNP * MAXT];
    a.nmoves = b.nmoves = 0;
    CHECK_EQ_I64(tide_plan_proact_weighted(in->np, in->load, in->off, in->w, NULL, d1, &a),
                 TIDE_PLAN_OK);
    CHECK_EQ_I64(
        tide_plan_proact_weighted_margin(in->np, in->load, m, in->off, in->w, NULL, d2, &b),
        TIDE_PLAN_OK);
    CHECK(same_moves(&a, &b));
    CHECK(memcmp(d1, d2, sizeof(int32_t) * (size_t)in->off[in->np]) == 0);
}

static void zero_margins_change_nothing(const input *in)
{
    static const double zeros[MAXNP];
    same_as_without(in, zeros);
}

/* The level the senders past their threshold are lowered to when the victims' room (deficits
 * less margins) is short of their surplus, found by bisection (the planner computes it in one
 * pass from the top): sum over those senders of max(0, L_i - level) = room. */
static double sender_level(const input *in, double avg)
{
    double room = 0, surplus = 0;
    for (int32_t i = 0; i < in->np; i++) {
        if (in->load[i] < avg && avg - in->load[i] > in->margin[i])
            room += avg - in->load[i] - in->margin[i];
        if (in->load[i] > avg && in->load[i] - avg > in->margin[i]) surplus += in->load[i] - avg;
    }
    if (surplus <= room) return avg;
    double lo = avg, hi = avg + surplus;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi), above = 0;
        for (int32_t i = 0; i < in->np; i++)
            if (in->load[i] > mid && in->load[i] - avg > in->margin[i]) above += in->load[i] - mid;
        if (above > room)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Uniform weights: w_i = load_i / n_i. */
static void uniform_keeps_margins(const input *in)
{
    tide_move moves[MAXNP];
    tide_move_plan plan = {.moves = moves, .capacity = MAXNP};
    CHECK_EQ_I64(tide_plan_proact_margin(in->np, in->load, in->margin, in->n, NULL, &plan),
                 TIDE_PLAN_OK);
    double avg = average(in), after[MAXNP], max_in[MAXNP] = {0};
    memcpy(after, in->load, sizeof(double) * (size_t)in->np);
    for (size_t k = 0; k < plan.nmoves; k++) {
        const tide_move *m = &plan.moves[k];
        double w = in->load[m->from] / (double)in->n[m->from];
        after[m->from] -= (double)m->count * w;
        after[m->to] += (double)m->count * w;
        if (w > max_in[m->to]) max_in[m->to] = w;
        CHECK(in->load[m->from] > avg + in->margin[m->from]);
        CHECK(in->load[m->to] < avg - in->margin[m->to]);
    }
    /* The room goes to the most loaded first: a sender past its threshold ends less than one of
     * its tasks above the level (fails when the first sender takes all the room). */
    double level = sender_level(in, avg);
    for (int32_t i = 0; i < in->np; i++) {
        if (after[i] < in->load[i]) CHECK(after[i] >= avg - EPS);
        if (after[i] > in->load[i]) CHECK(after[i] < avg - in->margin[i] + max_in[i] + EPS);
        if (in->load[i] - avg > in->margin[i] && in->n[i] > 0)
            CHECK(after[i] < level + in->load[i] / (double)in->n[i] + 1e-6);
    }
}

static void weighted_keeps_margins(const input *in)
{
    tide_move moves[MAXNP];
    tide_move_plan plan = {.moves = moves, .capacity = MAXNP};
    static int32_t dest[MAXNP * MAXT];
    CHECK_EQ_I64(tide_plan_proact_weighted_margin(in->np, in->load, in->margin, in->off, in->w,
                                                  NULL, dest, &plan),
                 TIDE_PLAN_OK);
    double avg = average(in), after[MAXNP], max_in[MAXNP] = {0};
    memcpy(after, in->load, sizeof(double) * (size_t)in->np);
    for (int32_t i = 0; i < in->np; i++)
        for (int64_t t = in->off[i]; t < in->off[i + 1]; t++) {
            int32_t d = dest[t];
            if (d == i) continue;
            after[i] -= in->w[t];
            after[d] += in->w[t];
            if (in->w[t] > max_in[d]) max_in[d] = in->w[t];
            CHECK(in->load[i] > avg + in->margin[i]);
            CHECK(in->load[d] < avg - in->margin[d]);
        }
    for (int32_t i = 0; i < in->np; i++) {
        if (after[i] < in->load[i]) CHECK(after[i] >= avg - EPS);
        if (after[i] > in->load[i]) CHECK(after[i] < avg - in->margin[i] + max_in[i] + EPS);
    }
}

/* Margins on senders only, each below its surplus, change nothing: the threshold passes and
 * the sender moves what the plan without margins moves (fails when a sender's margin is taken
 * off its surplus). */
static void sender_margins_below_surplus_change_nothing(const input *in)
{
    double avg = average(in), m[MAXNP];
    for (int32_t i = 0; i < in->np; i++)
        m[i] = in->load[i] > avg ? 0.9 * (in->load[i] - avg) : 0.0;
    same_as_without(in, m);
}

/* A 4-rank case: a sender's margin at or above its surplus moves nothing; just below it, the
 * whole surplus moves. And two senders (14 and 10 unit tasks, average 6) whose victims have
 * room for 6 (margins 3): both come down to 9, where the first alone would have taken all the
 * room and left the second at 10. */
static void margins_decide(void)
{
    double load[4] = {4, 4, 4, 12};
    int64_t n[4] = {4, 4, 4, 12};
    double big[4] = {0, 0, 0, 6}, small[4] = {0, 0, 0, 5.9};
    tide_move moves[4];
    tide_move_plan plan = {.moves = moves, .capacity = 4};
    CHECK_EQ_I64(tide_plan_proact_margin(4, load, big, n, NULL, &plan), TIDE_PLAN_OK);
    CHECK_EQ_I64(plan.nmoves, 0);
    CHECK_EQ_I64(tide_plan_proact_margin(4, load, small, n, NULL, &plan), TIDE_PLAN_OK);
    int64_t sent = 0;
    for (size_t k = 0; k < plan.nmoves; k++)
        sent += plan.moves[k].count;
    CHECK_EQ_I64(sent, 6); /* its whole surplus, 12 - 6 */
    double two[4] = {0, 0, 14, 10}, vm[4] = {3, 3, 0, 0};
    int64_t n2[4] = {0, 0, 14, 10};
    CHECK_EQ_I64(tide_plan_proact_margin(4, two, vm, n2, NULL, &plan), TIDE_PLAN_OK);
    int64_t from[4] = {0};
    for (size_t k = 0; k < plan.nmoves; k++)
        from[plan.moves[k].from] += plan.moves[k].count;
    CHECK_EQ_I64(from[2], 5);
    CHECK_EQ_I64(from[3], 1);
    double bad[4] = {0, -1, 0, 0};
    CHECK_EQ_I64(tide_plan_proact_margin(4, load, bad, n, NULL, &plan), TIDE_PLAN_EINVAL);
}

int main(void)
{
    margins_decide();
    for (uint64_t seed = 1; seed <= CASES; seed++) {
        input in;
        generate(seed, &in);
        int before = check_failures;
        zero_margins_change_nothing(&in);
        uniform_keeps_margins(&in);
        weighted_keeps_margins(&in);
        sender_margins_below_surplus_change_nothing(&in);
        if (check_failures != before) fprintf(stderr, "  (seed %llu)\n", (unsigned long long)seed);
        if (check_failures > 20) break;
    }
    printf("%d failures over %d cases\n", check_failures, CASES);
    return check_failures != 0;
}
