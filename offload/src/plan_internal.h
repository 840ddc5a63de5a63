/*
 * plan_internal.h - helpers shared by the planner files; not part of the public surface.
 */
#ifndef TIDE_PLAN_INTERNAL_H
#define TIDE_PLAN_INTERNAL_H

#include "tide_plan.h"

/* A rank in load order. Sorting these, rather than indices into load[], keeps qsort's comparator
 * free of context (C11 has no qsort_r) and makes the order total: (load, rank). */
typedef struct plan_rank_key {
    double load;
    int32_t rank;
} plan_rank_key;

/* Checks np, load (finite, >= 0) and, when non-NULL, n_tasks (>= 0). */
int plan_check_inputs(int32_t np, const double *load, const int64_t *n_tasks);

/* Fills keys[0..np) with (load[i], i) sorted ascending by (load, rank): with order == NULL by
 * sorting, else from the caller's order (tide_plan_order), checked to be exactly that sort in
 * O(np). Returns TIDE_PLAN_OK, or TIDE_PLAN_EINVAL for an order that is not. */
int plan_sort_ranks(int32_t np, const double *load, const int32_t *order, plan_rank_key *keys);

/* Sum of the loads in sorted order: for distinct loads the order, and so the rounding, does not
 * depend on how ranks are numbered. */
double plan_sorted_sum(int32_t np, const plan_rank_key *keys);

/* Checks margins (NULL, or np finite values >= 0). */
int plan_check_margins(int32_t np, const double *margin);

/* Whether the rank at sorted position k is a sender: its distance above avg exceeds its margin
 * (a threshold, not a deduction: what a sender keeps is the phase's critical path). Without
 * margins, any rank above avg. */
static inline bool plan_sends(const plan_rank_key *keys, int32_t k, double avg,
                              const double *margin)
{
    return keys[k].load - avg > (margin ? margin[keys[k].rank] : 0.0);
}

/* The level the senders are lowered to: avg when the victims' room (their deficits less their
 * margins) takes every surplus beyond its margin, else the one level above avg at which the
 * senders' loads above it fill that room exactly (water-filling from the top: the room goes to
 * the most loaded first, docs/offload-planner.md "Uncertain predictions"). avg without margins. */
double plan_sender_level(int32_t np, const plan_rank_key *keys, double avg, const double *margin);

/* The surplus of the rank at sorted position k that the plan may move: none unless it sends
 * (plan_sends), else its load above `level` (plan_sender_level). The deficit a victim may fill
 * is its distance to avg less its margin: margins protect receivers. Without margins, both are
 * the distance to avg (not positive for a rank that does not send). */
static inline double plan_surplus(const plan_rank_key *keys, int32_t k, double avg, double level,
                                  const double *margin)
{
    return !margin || plan_sends(keys, k, avg, margin) ? keys[k].load - level : 0.0;
}

static inline double plan_deficit(const plan_rank_key *keys, int32_t k, double avg,
                                  const double *margin)
{
    return avg - keys[k].load - (margin ? margin[keys[k].rank] : 0.0);
}

/* Sorts plan->moves by (from, to). */
void plan_sort_moves(tide_move_plan *plan);

/* Bytes of a scratch region rounded up so that a following region stays aligned for doubles. */
static inline size_t plan_align(size_t bytes)
{
    return (bytes + 15u) & ~(size_t)15u;
}

#endif /* TIDE_PLAN_INTERNAL_H */
