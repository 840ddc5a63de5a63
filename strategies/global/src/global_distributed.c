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

/* The whole simulated round: every rank's load, gossip and random stream, and the outcome. */
typedef struct dist_sim {
    const tide_global_input *in;
    const tide_global_params *p;
    int32_t *new_owner;
    tide_global_dist_report *rep;
    size_t words; /* of one rank's bitset of the ranks it heard of */
    double avg;
    double *load, *gossiped;
    bool *announce;
    uint64_t *rng, *known;
    sender S;
    lb_by_rank grp;
} dist_sim;

static int sim_alloc(dist_sim *D)
{
    int32_t np = D->in->np;
    int64_t n = D->in->nobj;
    D->words = tide_gossip_words(np);
    D->load = malloc((size_t)np * sizeof *D->load);
    D->gossiped = malloc((size_t)np * sizeof *D->gossiped);
    D->announce = malloc((size_t)np * sizeof *D->announce);
    D->rng = malloc((size_t)np * sizeof *D->rng);
    D->known = malloc((size_t)np * D->words * sizeof *D->known);
    D->S = (sender){.targets = malloc((size_t)np * sizeof *D->S.targets),
                    .view = malloc((size_t)np * sizeof *D->S.view),
                    .cdf = malloc((size_t)np * sizeof *D->S.cdf),
                    .slot = malloc((size_t)np * sizeof *D->S.slot),
                    .objs = malloc((size_t)(n > 0 ? n : 1) * sizeof *D->S.objs)};
    if (D->load == NULL || D->gossiped == NULL || D->announce == NULL || D->rng == NULL ||
        D->known == NULL || D->S.targets == NULL || D->S.view == NULL || D->S.cdf == NULL ||
        D->S.slot == NULL || D->S.objs == NULL ||
        lb_by_rank_make(D->in, D->in->owner, &D->grp) != TIDE_PLAN_OK)
        return TIDE_PLAN_ENOMEM;
    return TIDE_PLAN_OK;
}

static void sim_free(dist_sim *D)
{
    free(D->load);
    free(D->gossiped);
    free(D->announce);
    free(D->rng);
    free(D->known);
    free(D->S.targets);
    free(D->S.view);
    free(D->S.cdf);
    free(D->S.slot);
    free(D->S.objs);
    lb_by_rank_free(&D->grp);
}

/* Every rank's stream and gossiped load; the ranks below ratio x avg announce themselves.
 * Returns the largest load. */
static double sim_announce(dist_sim *D)
{
    double max = 0.0;
    for (int32_t r = 0; r < D->in->np; r++) {
        D->rng[r] = lb_rank_seed(D->p->seed, r);
        D->gossiped[r] = D->load[r];
        D->S.slot[r] = -1;
        D->announce[r] = D->load[r] < D->p->dist_target_ratio * D->avg;
        D->rep->underloaded += D->announce[r];
        max = D->load[r] > max ? D->load[r] : max;
    }
    return max;
}

/* Sender r offers its k objects, smallest first, to its m known targets while its load is above
 * the threshold. */
static void sim_send(dist_sim *D, int32_t r, int64_t m, int64_t k, double threshold)
{
    sender *S = &D->S;
    double *load = D->load;
    tide_global_dist_report *rep = D->rep;
    for (int64_t j = 0; j < k && load[r] > threshold; j++) {
        int64_t o = S->objs[j];
        double w = D->in->load[o];
        if (w <= 0.0) continue;
        int64_t i = tide_distributed_pick(m, S->view, S->cdf, w, threshold, D->p->dist_max_trials,
                                          &D->rng[r], NULL, NULL);
        if (i < 0) {
            rep->unplaced++;
            break; /* as DistributedLB: no room found, this sender is done */
        }
        int32_t to = S->targets[i];
        rep->proposals++;
        if (!tide_distributed_accept(load[to], w, threshold)) {
            rep->refused++;
            S->view[i] = threshold; /* the negative acknowledgement: that target is full */
            continue;
        }
        D->new_owner[o] = to;
        load[to] += w;
        load[r] -= w;
        S->view[i] += w;
        rep->moved_objects++;
    }
}

/* One phase: every rank above the threshold sends. Returns the largest load after it. */
static double sim_phase(dist_sim *D, int32_t phase, double threshold)
{
    int32_t np = D->in->np;
    for (int32_t r = 0; r < np; r++) {
        if (D->load[r] <= threshold) continue;
        int64_t k;
        int64_t m = sender_prepare(&D->S, D->in, &D->grp, D->new_owner, D->gossiped,
                                   &D->known[(size_t)r * D->words], D->avg, r, &k);
        if (m == 0) continue;
        if (phase == 1) D->rep->overloaded++;
        sim_send(D, r, m, k, threshold);
    }
    double new_max = 0.0;
    for (int32_t r = 0; r < np; r++)
        new_max = D->load[r] > new_max ? D->load[r] : new_max;
    return new_max;
}

/* Gossip, then phases until the ratio is reached, the threshold falls to ratio x avg, or the
 * phases run out. */
static int sim_run(dist_sim *D)
{
    const tide_global_params *p = D->p;
    D->avg = lb_rank_times(D->in, D->in->owner, D->load);
    double avg = D->avg, max = sim_announce(D);
    if (!(avg > 0.0) || max <= p->dist_target_ratio * avg) return TIDE_PLAN_OK;
    int rc = lb_gossip_simulate(D->in->np, D->announce, p->gossip_fanout, D->rng, D->known,
                                &D->rep->gossip_rounds, &D->rep->gossip_messages);
    if (rc != TIDE_PLAN_OK) return rc;
    double threshold = (max + avg) / 2.0, ratio = max / avg;
    for (int32_t phase = 1;; phase++) {
        D->rep->batches = phase;
        double new_max = sim_phase(D, phase, threshold);
        double old_ratio = ratio;
        ratio = new_max / avg;
        if (ratio <= p->dist_target_ratio || threshold <= p->dist_target_ratio * avg ||
            phase >= p->dist_max_phases)
            break;
        threshold = tide_distributed_next_threshold(threshold, new_max, avg, old_ratio, ratio);
    }
    return TIDE_PLAN_OK;
}

int tide_global_distributed_sim(const tide_global_input *in, const tide_global_params *params,
                                int32_t *new_owner, tide_global_dist_report *report)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    if (in->speed != NULL) return TIDE_PLAN_EINVAL;
    tide_global_dist_report rep = {0};
    int64_t n = in->nobj;
    if (n > 0) memcpy(new_owner, in->owner, (size_t)n * sizeof *new_owner);
    dist_sim D = {.in = in, .p = &p, .new_owner = new_owner, .rep = &rep};
    rc = sim_alloc(&D);
    if (rc == TIDE_PLAN_OK) rc = sim_run(&D);
    if (rc != TIDE_PLAN_OK && n > 0) memcpy(new_owner, in->owner, (size_t)n * sizeof *new_owner);
    sim_free(&D);
    if (rc == TIDE_PLAN_OK && report != NULL) *report = rep;
    return rc;
}

int tide_global_distributed(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner)
{
    return tide_global_distributed_sim(in, params, new_owner, NULL);
}
