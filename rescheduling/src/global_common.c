/*
 * global_common.c - parameters, input validation, rank times and the summary of a mapping.
 */
#include "global_internal.h"

#include <math.h>
#include <stdlib.h>

void tide_global_params_default(tide_global_params *p)
{
    p->seed = 1;
    p->refine_threshold = 1.05;
    p->smart_threshold = 0.05;
    p->comm_alpha = 1e-9; /* seconds per byte at both ends: a 1 GB/s link */
    p->packdrop_tolerance = 0.05;
    p->gossip_fanout = 2;
    p->dist_target_ratio = 1.05;
    p->dist_max_trials = 8;
    p->dist_max_phases = 10;
}

static bool finite_nonneg(double x)
{
    return isfinite(x) && x >= 0.0;
}

static int check_params(const tide_global_params *p)
{
    if (!isfinite(p->refine_threshold) || p->refine_threshold < 1.0) return TIDE_PLAN_EINVAL;
    if (!finite_nonneg(p->smart_threshold) || p->smart_threshold >= 1.0) return TIDE_PLAN_EINVAL;
    if (!finite_nonneg(p->comm_alpha) || !finite_nonneg(p->packdrop_tolerance))
        return TIDE_PLAN_EINVAL;
    if (p->gossip_fanout < 1 || p->dist_max_trials < 1 || p->dist_max_phases < 1)
        return TIDE_PLAN_EINVAL;
    if (!isfinite(p->dist_target_ratio) || p->dist_target_ratio < 1.0) return TIDE_PLAN_EINVAL;
    return TIDE_PLAN_OK;
}

int lb_check(const tide_global_input *in, const tide_global_params *params, tide_global_params *p)
{
    if (in == NULL || in->np < 1 || in->nobj < 0) return TIDE_PLAN_EINVAL;
    if (in->nobj > 0 && (in->load == NULL || in->owner == NULL)) return TIDE_PLAN_EINVAL;
    for (int64_t o = 0; o < in->nobj; o++) {
        if (!finite_nonneg(in->load[o])) return TIDE_PLAN_EINVAL;
        if (in->owner[o] < 0 || in->owner[o] >= in->np) return TIDE_PLAN_EINVAL;
        if (in->bytes != NULL && !finite_nonneg(in->bytes[o])) return TIDE_PLAN_EINVAL;
    }
    if (in->speed != NULL)
        for (int32_t r = 0; r < in->np; r++)
            if (!isfinite(in->speed[r]) || in->speed[r] <= 0.0) return TIDE_PLAN_EINVAL;
    bool any = in->comm_off != NULL || in->comm_adj != NULL || in->comm_vol != NULL;
    bool all = in->comm_off != NULL && (in->comm_adj != NULL && in->comm_vol != NULL);
    if (any && !all) {
        /* An empty graph may pass NULL adjacency arrays with all offsets 0. */
        if (in->comm_off == NULL) return TIDE_PLAN_EINVAL;
        for (int64_t o = 0; o <= in->nobj; o++)
            if (in->comm_off[o] != 0) return TIDE_PLAN_EINVAL;
    } else if (all) {
        if (in->comm_off[0] != 0) return TIDE_PLAN_EINVAL;
        for (int64_t o = 0; o < in->nobj; o++) {
            if (in->comm_off[o + 1] < in->comm_off[o]) return TIDE_PLAN_EINVAL;
            for (int64_t e = in->comm_off[o]; e < in->comm_off[o + 1]; e++)
                if (in->comm_adj[e] < 0 || in->comm_adj[e] >= in->nobj ||
                    !finite_nonneg(in->comm_vol[e]))
                    return TIDE_PLAN_EINVAL;
        }
    }
    if (params != NULL) {
        if (check_params(params) != TIDE_PLAN_OK) return TIDE_PLAN_EINVAL;
        *p = *params;
    } else {
        tide_global_params_default(p);
    }
    return TIDE_PLAN_OK;
}

double lb_rank_times(const tide_global_input *in, const int32_t *owner, double *time)
{
    double work = 0.0, speed = 0.0;
    for (int32_t r = 0; r < in->np; r++) {
        time[r] = 0.0;
        speed += lb_speed(in, r);
    }
    for (int64_t o = 0; o < in->nobj; o++) {
        time[owner[o]] += in->load[o];
        work += in->load[o];
    }
    for (int32_t r = 0; r < in->np; r++)
        time[r] /= lb_speed(in, r);
    return work / speed;
}

static double cut_volume(const tide_global_input *in, const int32_t *owner)
{
    double cut = 0.0;
    if (in->comm_adj == NULL) return 0.0;
    for (int64_t o = 0; o < in->nobj; o++)
        for (int64_t e = in->comm_off[o]; e < in->comm_off[o + 1]; e++)
            if (owner[in->comm_adj[e]] != owner[o]) cut += in->comm_vol[e];
    return cut;
}

static double max_of(int32_t n, const double *v)
{
    double m = 0.0;
    for (int32_t i = 0; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

int tide_global_summarize(const tide_global_input *in, const int32_t *new_owner,
                          tide_global_summary *out)
{
    tide_global_params p;
    if (lb_check(in, NULL, &p) != TIDE_PLAN_OK || out == NULL ||
        (in->nobj > 0 && new_owner == NULL))
        return TIDE_PLAN_EINVAL;
    for (int64_t o = 0; o < in->nobj; o++)
        if (new_owner[o] < 0 || new_owner[o] >= in->np) return TIDE_PLAN_EINVAL;
    double *time = malloc((size_t)in->np * sizeof *time);
    if (time == NULL) return TIDE_PLAN_ENOMEM;
    out->avg = lb_rank_times(in, in->owner, time);
    out->max_before = max_of(in->np, time);
    lb_rank_times(in, new_owner, time);
    out->max_after = max_of(in->np, time);
    free(time);
    out->moved = 0;
    out->bytes_moved = 0.0;
    for (int64_t o = 0; o < in->nobj; o++) {
        if (new_owner[o] == in->owner[o]) continue;
        out->moved++;
        if (in->bytes != NULL) out->bytes_moved += in->bytes[o];
    }
    out->comm_before = cut_volume(in, in->owner);
    out->comm_after = cut_volume(in, new_owner);
    return TIDE_PLAN_OK;
}

int tide_global_none(const tide_global_input *in, const tide_global_params *params,
                     int32_t *new_owner)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    for (int64_t o = 0; o < in->nobj; o++)
        new_owner[o] = in->owner[o];
    return TIDE_PLAN_OK;
}

uint64_t tide_global_rank_seed(uint64_t seed, int32_t r)
{
    return lb_rank_seed(seed, r);
}

uint64_t tide_global_rand_below(uint64_t *state, uint64_t n)
{
    return lb_rand_below(state, n);
}

const tide_global_strategy tide_global_strategy_none = {
    .name = "none", .plan = tide_global_none, .protocol = TIDE_GLOBAL_CENTRAL};
