/*
 * global_distributed.c - DistributedLB (Charm++, after Grapevine): gossip of underloaded ranks,
 * then probabilistic transfers from overloaded ranks; per-rank steps and a whole-round simulation.
 *
 * Following Charm++'s DistributedLB: when max / avg exceeds the target ratio, ranks below
 * ratio x avg announce themselves by gossip, which carries their loads. Then, in phases, every
 * rank above the phase's transfer threshold T offers its objects smallest first (small objects
 * make probabilistic transfers land more evenly) while its load exceeds T: it draws a target
 * among those it heard of with probability proportional to the target's room (avg - load), as
 * long as the target, as this sender sees it (gossiped load plus what it sent there), stays
 * below T; the target acknowledges only if its real load stays at or under T, otherwise the
 * object stays and the sender marks that target full. T starts at (max + avg) / 2 so the most
 * loaded give first, and relaxes between phases (tide_distributed_next_threshold) until the
 * ratio is reached, T falls to ratio x avg, or the phases run out.
 */
#include "global_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tide_distributed_cdf(int64_t m, const double *tload, double avg, double *cdf)
{
    double acc = 0.0;
    for (int64_t i = 0; i < m; i++) {
        double room = avg - tload[i];
        acc += room > 0.0 ? room : 0.0;
        cdf[i] = acc;
    }
}

/* The first target whose cumulative weight exceeds u (u in [0, total)). */
static int64_t draw(int64_t m, const double *cdf, double u)
{
    int64_t lo = 0, hi = m - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int64_t tide_distributed_pick(int64_t m, const double *tview, const double *cdf, double w,
                              double threshold, int32_t max_trials, uint64_t *rng, int64_t *draws,
                              int64_t *misses)
{
    if (m < 1 || !(cdf[m - 1] > 0.0)) return -1;
    for (int32_t t = 0; t < max_trials; t++) {
        int64_t i = draw(m, cdf, lb_uniform(rng) * cdf[m - 1]);
        if (draws != NULL) ++*draws;
        if (tview[i] + w < threshold) return i;
        if (misses != NULL) ++*misses;
    }
    return -1;
}

bool tide_distributed_accept(double receiver_load, double w, double threshold)
{
    return receiver_load + w <= threshold;
}

double tide_distributed_next_threshold(double threshold, double max_load, double avg,
                                       double old_ratio, double ratio)
{
    /* A phase that barely moved the max relaxes the threshold halfway to the average; one that
     * did restarts from halfway between the new max and the average. */
    if (fabs(ratio - old_ratio) < 0.01) return (threshold + avg) / 2.0;
    return (max_load + avg) / 2.0;
}

/* State of one simulated sender for one phase: its known targets, its view of their loads and
 * its objects smallest first. */
typedef struct sender {
    int32_t *targets;
    double *view, *cdf;
    int32_t *slot; /* np: index of a rank in targets, -1 otherwise */
    int64_t *objs;
} sender;

/* Rebuild r's view: gossiped loads plus what r already sent to each target in earlier phases. */
static int64_t sender_prepare(sender *S, const tide_global_input *in, const lb_by_rank *grp,
                              const int32_t *new_owner, const double *gossiped,
                              const uint64_t *known, double avg, int32_t r, int64_t *nobj)
{
    int64_t m = lb_bitset_list(in->np, known, S->targets);
    for (int64_t i = 0; i < m; i++) {
        S->view[i] = gossiped[S->targets[i]];
        S->slot[S->targets[i]] = (int32_t)i;
    }
    int64_t k = 0;
    for (int64_t j = grp->start[r]; j < grp->start[r + 1]; j++) {
        int64_t o = grp->obj[j];
        if (new_owner[o] == r)
            S->objs[k++] = o;
        else if (S->slot[new_owner[o]] >= 0)
            S->view[S->slot[new_owner[o]]] += in->load[o];
    }
    for (int64_t i = 0; i < m; i++)
        S->slot[S->targets[i]] = -1;
    lb_sort_by_load_asc(k, S->objs, in->load);
    tide_distributed_cdf(m, S->view, avg, S->cdf);
    *nobj = k;
    return m;
}

int tide_global_distributed_sim(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner, tide_global_dist_report *report)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    if (in->speed != NULL) return TIDE_PLAN_EINVAL;
    tide_global_dist_report rep = {0};
    int32_t np = in->np;
    int64_t n = in->nobj;
    if (n > 0) memcpy(new_owner, in->owner, (size_t)n * sizeof *new_owner);
    size_t words = tide_gossip_words(np);
    double *load = malloc((size_t)np * sizeof *load);
    double *gossiped = malloc((size_t)np * sizeof *gossiped);
    bool *announce = malloc((size_t)np * sizeof *announce);
    uint64_t *rng = malloc((size_t)np * sizeof *rng);
    uint64_t *known = malloc((size_t)np * words * sizeof *known);
    sender S = {.targets = malloc((size_t)np * sizeof *S.targets),
                .view = malloc((size_t)np * sizeof *S.view),
                .cdf = malloc((size_t)np * sizeof *S.cdf),
                .slot = malloc((size_t)np * sizeof *S.slot),
                .objs = malloc((size_t)(n > 0 ? n : 1) * sizeof *S.objs)};
    lb_by_rank grp = {0};
    rc = TIDE_PLAN_ENOMEM;
    if (load == NULL || gossiped == NULL || announce == NULL || rng == NULL || known == NULL ||
        S.targets == NULL || S.view == NULL || S.cdf == NULL || S.slot == NULL || S.objs == NULL ||
        lb_by_rank_make(in, in->owner, &grp) != TIDE_PLAN_OK)
        goto out;
    rc = TIDE_PLAN_OK;
    double avg = lb_rank_times(in, in->owner, load), max = 0.0;
    for (int32_t r = 0; r < np; r++) {
        rng[r] = lb_rank_seed(p.seed, r);
        gossiped[r] = load[r];
        S.slot[r] = -1;
        announce[r] = load[r] < p.dist_target_ratio * avg;
        rep.underloaded += announce[r];
        max = load[r] > max ? load[r] : max;
    }
    if (!(avg > 0.0) || max <= p.dist_target_ratio * avg) goto out;
    rc = lb_gossip_simulate(np, announce, p.gossip_fanout, rng, known, &rep.gossip_rounds,
                            &rep.gossip_messages);
    if (rc != TIDE_PLAN_OK) goto out;
    double threshold = (max + avg) / 2.0, ratio = max / avg;
    for (int32_t phase = 1;; phase++) {
        rep.batches = phase;
        for (int32_t r = 0; r < np; r++) {
            if (load[r] <= threshold) continue;
            int64_t k;
            int64_t m = sender_prepare(&S, in, &grp, new_owner, gossiped, &known[(size_t)r * words],
                                       avg, r, &k);
            if (m == 0) continue;
            if (phase == 1) rep.overloaded++;
            for (int64_t j = 0; j < k && load[r] > threshold; j++) {
                int64_t o = S.objs[j];
                double w = in->load[o];
                if (w <= 0.0) continue;
                int64_t i = tide_distributed_pick(m, S.view, S.cdf, w, threshold, p.dist_max_trials,
                                                  &rng[r], NULL, NULL);
                if (i < 0) {
                    rep.unplaced++;
                    break; /* as DistributedLB: no room found, this sender is done */
                }
                int32_t to = S.targets[i];
                rep.proposals++;
                if (!tide_distributed_accept(load[to], w, threshold)) {
                    rep.refused++;
                    S.view[i] = threshold; /* the negative acknowledgement: that target is full */
                    continue;
                }
                new_owner[o] = to;
                load[to] += w;
                load[r] -= w;
                S.view[i] += w;
                rep.moved_objects++;
            }
        }
        double new_max = 0.0;
        for (int32_t r = 0; r < np; r++)
            new_max = load[r] > new_max ? load[r] : new_max;
        double old_ratio = ratio;
        ratio = new_max / avg;
        if (ratio <= p.dist_target_ratio || threshold <= p.dist_target_ratio * avg ||
            phase >= p.dist_max_phases)
            break;
        threshold = tide_distributed_next_threshold(threshold, new_max, avg, old_ratio, ratio);
    }
out:
    if (rc != TIDE_PLAN_OK && n > 0) memcpy(new_owner, in->owner, (size_t)n * sizeof *new_owner);
    free(load);
    free(gossiped);
    free(announce);
    free(rng);
    free(known);
    free(S.targets);
    free(S.view);
    free(S.cdf);
    free(S.slot);
    free(S.objs);
    lb_by_rank_free(&grp);
    if (rc == TIDE_PLAN_OK && report != NULL) *report = rep;
    return rc;
}

int tide_global_distributed(const tide_global_input *in, const tide_global_params *params, int32_t *new_owner)
{
    return tide_global_distributed_sim(in, params, new_owner, NULL);
}
