/*
 * test_plan_memo.c - plan_sort_ranks remembers its last large sort (plan_common.c): every call,
 * hit or miss, gives exactly the order a fresh sort by (load, rank) gives, for repeated, changed
 * and interleaved inputs with many ties, and a planner gives the same plan on a hit.
 */
#include "check.h"
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

#define NP 300

static int by_load_rank(const void *pa, const void *pb)
{
    const plan_rank_key *a = pa, *b = pb;
    if (a->load != b->load) return a->load < b->load ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static void check_sorted_as_fresh(const double *load)
{
    static plan_rank_key got[NP], want[NP];
    for (int32_t i = 0; i < NP; i++)
        want[i] = (plan_rank_key){.load = load[i], .rank = i};
    qsort(want, NP, sizeof *want, by_load_rank);
    memset(got, 0xff, sizeof got);
    plan_sort_ranks(NP, load, got);
    int same = 1;
    for (int32_t i = 0; i < NP; i++)
        same &= got[i].load == want[i].load && got[i].rank == want[i].rank;
    CHECK(same);
}

static size_t plan_of(const double *load, tide_move *moves)
{
    static int64_t n[NP];
    for (int i = 0; i < NP; i++)
        n[i] = 100;
    tide_move_plan plan = {.np = NP, .capacity = NP, .moves = moves};
    CHECK_EQ_I64(tide_plan_proact(NP, load, n, NULL, &plan), TIDE_PLAN_OK);
    return plan.nmoves;
}

int main(void)
{
    static double a[NP], b[NP];
    srand(15);
    for (int i = 0; i < NP; i++) {
        a[i] = (double)(rand() % 10); /* ties everywhere: the rank decides */
        b[i] = (double)(rand() % 1000) / 7.0;
    }
    check_sorted_as_fresh(a); /* miss */
    check_sorted_as_fresh(a); /* hit */
    check_sorted_as_fresh(b); /* miss, replaces the memo */
    check_sorted_as_fresh(a);
    a[NP / 2] += 1.0; /* one load changed: a miss, not the old order */
    check_sorted_as_fresh(a);
    check_sorted_as_fresh(a);

    static tide_move first[NP], again[NP];
    check_sorted_as_fresh(b);
    size_t n1 = plan_of(a, first), n2 = plan_of(a, again); /* a miss, then a hit */
    CHECK(n1 > 0);
    CHECK_EQ_I64(n1, n2);
    CHECK(memcmp(first, again, n1 * sizeof *first) == 0);
    return check_failures != 0;
}
