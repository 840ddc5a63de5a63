/*
 * plan_common.c - input validation, rank ordering and move-list helpers used by every planner.
 */
#include "plan_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int plan_check_margins(int32_t np, const double *margin)
{
    if (margin == NULL) return TIDE_PLAN_OK;
    for (int32_t i = 0; i < np; i++)
        if (!(margin[i] >= 0.0) || !isfinite(margin[i])) return TIDE_PLAN_EINVAL;
    return TIDE_PLAN_OK;
}

double plan_sender_level(int32_t np, const plan_rank_key *keys, double avg, const double *margin)
{
    if (margin == NULL) return avg;
    double room = 0, surplus = 0;
    for (int32_t k = 0; k < np && keys[k].load < avg; k++) {
        double d = avg - keys[k].load - margin[keys[k].rank];
        if (d > 0) room += d;
    }
    for (int32_t k = np - 1; k >= 0 && keys[k].load > avg; k--)
        if (plan_sends(keys, k, avg, margin)) surplus += keys[k].load - avg;
    /* Room for every surplus, up to rounding (deficits and surpluses summed apart): avg, so
     * that a surplus of exactly k tasks still moves k. */
    if (surplus - room <= 1e-9 * surplus) return avg;
    /* The top c senders past their threshold are lowered to avg + (their surplus - room) / c;
     * the next one joins while that level is still below its load. */
    double top = 0, level = avg;
    int32_t c = 0;
    for (int32_t k = np - 1; k >= 0 && keys[k].load > avg; k--) {
        if (!plan_sends(keys, k, avg, margin)) continue;
        if (c > 0 && level >= keys[k].load) break;
        top += keys[k].load - avg;
        c++;
        level = avg + (top - room) / c;
    }
    return level > avg ? level : avg;
}

int plan_check_inputs(int32_t np, const double *load, const int64_t *n_tasks)
{
    if (np < 1 || load == NULL) return TIDE_PLAN_EINVAL;
    for (int32_t i = 0; i < np; i++) {
        if (!isfinite(load[i]) || load[i] < 0.0) return TIDE_PLAN_EINVAL;
        if (n_tasks != NULL && n_tasks[i] < 0) return TIDE_PLAN_EINVAL;
    }
    return TIDE_PLAN_OK;
}

static int compare_rank_keys(const void *pa, const void *pb)
{
    const plan_rank_key *a = pa, *b = pb;
    if (a->load < b->load) return -1;
    if (a->load > b->load) return 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

int plan_sort_ranks(int32_t np, const double *load, const int32_t *order, plan_rank_key *keys)
{
    if (order == NULL) {
        for (int32_t i = 0; i < np; i++) {
            keys[i].load = load[i];
            keys[i].rank = i;
        }
        qsort(keys, (size_t)np, sizeof *keys, compare_rank_keys);
        return TIDE_PLAN_OK;
    }
    /* Keys strictly ascending in the total order (load, rank) name np distinct ranks of
     * [0, np): the order is a permutation, sorted, and so exactly what the sort would give. */
    for (int32_t k = 0; k < np; k++) {
        int32_t r = order[k];
        if (r < 0 || r >= np) return TIDE_PLAN_EINVAL;
        keys[k].load = load[r];
        keys[k].rank = r;
        if (k > 0 && compare_rank_keys(&keys[k - 1], &keys[k]) >= 0) return TIDE_PLAN_EINVAL;
    }
    return TIDE_PLAN_OK;
}

int tide_plan_order(int32_t np, const double *load, int32_t *order)
{
    if (order == NULL) return TIDE_PLAN_EINVAL;
    int rc = plan_check_inputs(np, load, NULL);
    if (rc != TIDE_PLAN_OK) return rc;
    plan_rank_key *keys = malloc((size_t)np * sizeof *keys);
    if (keys == NULL) return TIDE_PLAN_ENOMEM;
    plan_sort_ranks(np, load, NULL, keys);
    for (int32_t k = 0; k < np; k++)
        order[k] = keys[k].rank;
    free(keys);
    return TIDE_PLAN_OK;
}

double plan_sorted_sum(int32_t np, const plan_rank_key *keys)
{
    double sum = 0.0;
    for (int32_t i = 0; i < np; i++)
        sum += keys[i].load;
    return sum;
}

static int compare_moves(const void *pa, const void *pb)
{
    const tide_move *a = pa, *b = pb;
    if (a->from != b->from) return (a->from > b->from) - (a->from < b->from);
    return (a->to > b->to) - (a->to < b->to);
}

void plan_sort_moves(tide_move_plan *plan)
{
    qsort(plan->moves, plan->nmoves, sizeof *plan->moves, compare_moves);
}

size_t tide_plan_moves_from(const tide_move_plan *plan, int32_t rank, size_t *n)
{
    /* Moves are sorted by from: binary search for the first move of `rank`. */
    size_t lo = 0, hi = plan->nmoves;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan->moves[mid].from < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < plan->nmoves && plan->moves[end].from == rank)
        end++;
    if (n != NULL) *n = end - lo;
    return lo;
}

static int check_move(const tide_move_plan *plan, const tide_move *m)
{
    return m->from >= 0 && m->from < plan->np && m->to >= 0 && m->to < plan->np && m->count >= 0;
}

int tide_plan_row(const tide_move_plan *plan, const int64_t *n_tasks, int32_t me, int64_t *row)
{
    if (plan == NULL || n_tasks == NULL || row == NULL || me < 0 || me >= plan->np)
        return TIDE_PLAN_EINVAL;
    memset(row, 0, (size_t)plan->np * sizeof *row);
    size_t n;
    size_t first = tide_plan_moves_from(plan, me, &n);
    int64_t sent = 0;
    for (size_t k = first; k < first + n; k++) {
        const tide_move *m = &plan->moves[k];
        if (!check_move(plan, m)) return TIDE_PLAN_EINVAL;
        row[m->to] += m->count;
        sent += m->count;
    }
    row[me] = n_tasks[me] - sent;
    return TIDE_PLAN_OK;
}

int tide_plan_table(const tide_move_plan *plan, const int64_t *n_tasks, int64_t *tb)
{
    if (plan == NULL || n_tasks == NULL || tb == NULL) return TIDE_PLAN_EINVAL;
    size_t np = (size_t)plan->np;
    memset(tb, 0, np * np * sizeof *tb);
    for (size_t i = 0; i < np; i++)
        tb[i * np + i] = n_tasks[i];
    for (size_t k = 0; k < plan->nmoves; k++) {
        const tide_move *m = &plan->moves[k];
        if (!check_move(plan, m)) return TIDE_PLAN_EINVAL;
        tb[(size_t)m->from * np + (size_t)m->to] += m->count;
        tb[(size_t)m->from * np + (size_t)m->from] -= m->count;
    }
    return TIDE_PLAN_OK;
}
