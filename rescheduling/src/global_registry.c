/*
 * global_registry.c - the global strategies by name, and a mapping turned into a move plan.
 *
 * Adding a strategy is its file in src/, which defines `const tide_global_strategy
 * tide_global_strategy_<name>` named "<name>", and its name in ../registry.cmake, from which the
 * build generates TIDE_GLOBAL_REGISTERED(X), X(tide_global_strategy_<name>) for each in that
 * order (the order TIDE_GLOBAL_LB's error message lists them).
 */
#include "global_internal.h"
#include "tide_global_registered.h"

#include <stdlib.h>
#include <string.h>

#define DECLARE(s) extern const tide_global_strategy s;
#define ENTRY(s) &s,
TIDE_GLOBAL_REGISTERED(DECLARE)

static const tide_global_strategy *const strategies[] = {TIDE_GLOBAL_REGISTERED(ENTRY)};

#define NSTRATEGIES (sizeof strategies / sizeof *strategies)

const tide_global_strategy *const *tide_global_strategies(size_t *n)
{
    if (n != NULL) *n = NSTRATEGIES;
    return strategies;
}

const tide_global_strategy *tide_global_find(const char *name)
{
    if (name == NULL) return NULL;
    for (size_t i = 0; i < NSTRATEGIES; i++)
        if (strcmp(strategies[i]->name, name) == 0) return strategies[i];
    return NULL;
}

size_t tide_global_names(char *buf, size_t len)
{
    size_t need = 0;
    for (size_t i = 0; i < NSTRATEGIES; i++) {
        const char *parts[2] = {i ? ", " : "", strategies[i]->name};
        for (int k = 0; k < 2; k++)
            for (const char *c = parts[k]; *c; c++, need++)
                if (need + 1 < len) buf[need] = *c;
    }
    if (len > 0) buf[need < len ? need : len - 1] = '\0';
    return need;
}

const char *tide_global_name_list(void)
{
    static char names[192];
    if (!names[0]) tide_global_names(names, sizeof names);
    return names;
}

int tide_global_plan_from_mapping(int32_t np, int64_t nobj, const int32_t *owner,
                                  const int32_t *new_owner, tide_move_plan *plan)
{
    if (np < 1 || nobj < 0 || plan == NULL || plan->np != np) return TIDE_PLAN_EINVAL;
    if (nobj > 0 && (owner == NULL || new_owner == NULL)) return TIDE_PLAN_EINVAL;
    int64_t moved = 0;
    for (int64_t o = 0; o < nobj; o++) {
        if (owner[o] < 0 || owner[o] >= np || new_owner[o] < 0 || new_owner[o] >= np)
            return TIDE_PLAN_EINVAL;
        moved += owner[o] != new_owner[o];
    }
    plan->nmoves = 0;
    if (moved == 0) return TIDE_PLAN_OK;
    if (plan->ids == NULL || plan->moves == NULL) return TIDE_PLAN_EINVAL;
    /* Sort the moved objects by (from, to, index): a stable pass on `to` then on `from`
     * (counting sorts) keeps indices ascending inside each pair in O(moved + np). */
    int64_t *tmp = malloc((size_t)moved * sizeof *tmp);
    int64_t *cnt = calloc((size_t)np + 1, sizeof *cnt);
    if (tmp == NULL || cnt == NULL) {
        free(tmp);
        free(cnt);
        return TIDE_PLAN_ENOMEM;
    }
    for (int64_t o = 0; o < nobj; o++)
        if (owner[o] != new_owner[o]) cnt[new_owner[o] + 1]++;
    for (int32_t r = 0; r < np; r++)
        cnt[r + 1] += cnt[r];
    for (int64_t o = 0; o < nobj; o++)
        if (owner[o] != new_owner[o]) tmp[cnt[new_owner[o]]++] = o;
    for (int32_t r = 0; r <= np; r++)
        cnt[r] = 0;
    for (int64_t i = 0; i < moved; i++)
        cnt[owner[tmp[i]] + 1]++;
    for (int32_t r = 0; r < np; r++)
        cnt[r + 1] += cnt[r];
    for (int64_t i = 0; i < moved; i++)
        plan->ids[cnt[owner[tmp[i]]]++] = tmp[i];
    free(tmp);
    free(cnt);
    for (int64_t i = 0; i < moved; i++) {
        int64_t o = plan->ids[i];
        tide_move *last = plan->nmoves > 0 ? &plan->moves[plan->nmoves - 1] : NULL;
        if (last != NULL && last->from == owner[o] && last->to == new_owner[o]) {
            last->count++;
            continue;
        }
        if (plan->nmoves == plan->capacity) {
            plan->nmoves = 0;
            return TIDE_PLAN_EINVAL;
        }
        plan->moves[plan->nmoves++] = (tide_move){
            .from = owner[o], .to = new_owner[o], .count = 1, .unit_ids = &plan->ids[i]};
    }
    return TIDE_PLAN_OK;
}
