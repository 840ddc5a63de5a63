/*
 * plan_react.c - reactive pairing (Chameleon's react_mig decision): the most loaded rank pairs
 * with the least loaded, the second with the second-least, and an upper-half rank sends part of
 * the pair's gap when the imbalance is large enough.
 */
#include "plan_internal.h"

#include <math.h>
#include <stdlib.h>

size_t tide_plan_react_scratch_bytes(int32_t np)
{
    return np < 1 ? 0 : (size_t)np * sizeof(plan_rank_key);
}

static int check_params(const tide_react_params *p)
{
    if (p == NULL) return TIDE_PLAN_EINVAL;
    if (!(p->min_rel_imbalance >= 0.0) || !isfinite(p->min_rel_imbalance)) return TIDE_PLAN_EINVAL;
    if (!(p->min_abs_imbalance >= 0.0) || !isfinite(p->min_abs_imbalance)) return TIDE_PLAN_EINVAL;
    return p->max_tasks >= 1 ? TIDE_PLAN_OK : TIDE_PLAN_EINVAL;
}

/* Tasks the upper rank of a pair sends to the lower one. */
static int64_t pair_transfer(const plan_rank_key *upper, const plan_rank_key *lower,
                             const int64_t *n_tasks, const tide_react_params *p)
{
    double gap = upper->load - lower->load;
    if (!(gap > 0.0) || gap < p->min_abs_imbalance) return 0;
    if (gap / upper->load < p->min_rel_imbalance) return 0;
    int64_t have = n_tasks != NULL ? n_tasks[upper->rank] : INT64_MAX;
    if (have <= 0) return 0;
    double w = n_tasks != NULL ? upper->load / (double)have : 1.0;
    /* A gap of at most one task cannot be narrowed by moving one: the pair would just swap. */
    if (gap <= w) return 0;
    double k = floor(gap / (2.0 * w) + 0.5);
    if (k >= (double)p->max_tasks) k = (double)p->max_tasks;
    if (k >= (double)have) return have;
    return (int64_t)k;
}

/* The decision for the rank at sorted position `pos`; the global-imbalance gate is the caller's. */
static tide_react_decision decide(int32_t np, const plan_rank_key *keys, int32_t pos,
                                  const int64_t *n_tasks, const tide_react_params *p, int gate)
{
    tide_react_decision d = {-1, 0, 0};
    int32_t other = np - 1 - pos;
    if (other == pos) return d;
    d.partner = keys[other].rank;
    if (!gate) return d;
    if (pos > other)
        d.send = pair_transfer(&keys[pos], &keys[other], n_tasks, p);
    else
        d.recv = pair_transfer(&keys[other], &keys[pos], n_tasks, p);
    return d;
}

/* Chameleon's first gate: act only when the whole system is out of balance, (max-min)/max. */
static int global_gate(int32_t np, const plan_rank_key *keys, const tide_react_params *p)
{
    double max = keys[np - 1].load, min = keys[0].load;
    return max > 0.0 && (max - min) / max >= p->min_rel_imbalance;
}

static int prepare(int32_t np, const double *load, const int32_t *order, const int64_t *n_tasks,
                   const tide_react_params *params, void *scratch, plan_rank_key **keys)
{
    int rc = plan_check_inputs(np, load, n_tasks);
    if (rc == TIDE_PLAN_OK) rc = check_params(params);
    if (rc != TIDE_PLAN_OK) return rc;
    *keys = scratch != NULL ? scratch : malloc(tide_plan_react_scratch_bytes(np));
    if (*keys == NULL) return TIDE_PLAN_ENOMEM;
    rc = plan_sort_ranks(np, load, order, *keys);
    if (rc != TIDE_PLAN_OK && scratch == NULL) free(*keys);
    return rc;
}

int tide_plan_react(int32_t np, const double *load, const int64_t *n_tasks,
                    const tide_react_params *params, int32_t me, void *scratch,
                    tide_react_decision *out)
{
    return tide_plan_react_ordered(np, load, NULL, n_tasks, params, me, scratch, out);
}

int tide_plan_react_ordered(int32_t np, const double *load, const int32_t *order,
                            const int64_t *n_tasks, const tide_react_params *params, int32_t me,
                            void *scratch, tide_react_decision *out)
{
    if (out == NULL || me < 0 || me >= np) return TIDE_PLAN_EINVAL;
    plan_rank_key *keys;
    int rc = prepare(np, load, order, n_tasks, params, scratch, &keys);
    if (rc != TIDE_PLAN_OK) return rc;
    int32_t pos = 0;
    while (keys[pos].rank != me)
        pos++;
    *out = decide(np, keys, pos, n_tasks, params, global_gate(np, keys, params));
    if (scratch == NULL) free(keys);
    return TIDE_PLAN_OK;
}

int tide_plan_react_all(int32_t np, const double *load, const int64_t *n_tasks,
                        const tide_react_params *params, void *scratch, tide_react_decision *out)
{
    if (out == NULL) return TIDE_PLAN_EINVAL;
    plan_rank_key *keys;
    int rc = prepare(np, load, NULL, n_tasks, params, scratch, &keys);
    if (rc != TIDE_PLAN_OK) return rc;
    int gate = global_gate(np, keys, params);
    for (int32_t pos = 0; pos < np; pos++)
        out[keys[pos].rank] = decide(np, keys, pos, n_tasks, params, gate);
    if (scratch == NULL) free(keys);
    return TIDE_PLAN_OK;
}
