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
#include "tide_global_rank.h"

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

/* ---------------------------------------------------------------------------------------------
 * One rank's side of the protocol as step functions (tide_global_rank.h): the control flow that
 * libtide's message protocol (runtime/objects/dlb.c), tide-sim's (sim/src/global_dlb.cpp) and the
 * sequential simulation below all run.
 * ------------------------------------------------------------------------------------------- */
int tide_distributed_rank_begin(tide_distributed_rank *R, int32_t me, int32_t np, double sum,
                                double max, int64_t k, const double *w, int32_t *dest,
                                const tide_global_params *prm)
{
    *R = (tide_distributed_rank){.me = me, .np = np, .k = k, .w = w, .dest = dest};
    if (np < 1 || me < 0 || me >= np || k < 0 || (k > 0 && (w == NULL || dest == NULL)))
        return TIDE_PLAN_EINVAL;
    if (prm != NULL)
        R->prm = *prm;
    else
        tide_global_params_default(&R->prm);
    for (int64_t i = 0; i < k; i++) {
        R->load += w[i];
        dest[i] = me;
    }
    R->avg = sum / np;
    R->goal = R->prm.dist_target_ratio * R->avg;
    R->threshold = (max + R->avg) / 2.0;
    R->ratio = max / R->avg;
    R->stop = !(R->avg > 0.0) || max <= R->goal;
    return TIDE_PLAN_OK;
}

bool tide_distributed_rank_announces(const tide_distributed_rank *R)
{
    return R->load < R->goal;
}

int tide_distributed_rank_targets(tide_distributed_rank *R, int64_t m, const int32_t *targets,
                                  const double *heard)
{
    R->m = m;
    R->targets = targets;
    size_t cm = (size_t)m + 1, ck = (size_t)R->k + 1;
    R->objs = malloc(ck * sizeof *R->objs);
    R->slot = malloc((size_t)R->np * sizeof *R->slot);
    R->heard = malloc(cm * sizeof *R->heard);
    R->sent = calloc(cm, sizeof *R->sent);
    R->view = malloc(cm * sizeof *R->view);
    R->cdf = malloc(cm * sizeof *R->cdf);
    R->full = calloc(cm, sizeof *R->full);
    R->out = malloc(ck * sizeof *R->out);
    if (R->objs == NULL || R->slot == NULL || R->heard == NULL || R->sent == NULL ||
        R->view == NULL || R->cdf == NULL || R->full == NULL || R->out == NULL)
        return TIDE_PLAN_ENOMEM;
    for (int32_t r = 0; r < R->np; r++)
        R->slot[r] = -1;
    for (int64_t i = 0; i < m; i++) {
        R->slot[targets[i]] = (int32_t)i;
        R->heard[i] = heard[i];
    }
    for (int64_t i = 0; i < R->k; i++)
        R->objs[i] = i;
    /* Smallest first: small objects make probabilistic transfers land more evenly. */
    lb_sort_by_load_asc(R->k, R->objs, R->w);
    return TIDE_PLAN_OK;
}

int64_t tide_distributed_rank_propose(tide_distributed_rank *R, uint64_t *rng)
{
    R->phase++;
    R->sending = R->load > R->threshold && R->m > 0;
    if (!R->sending) return 0;
    double threshold = R->threshold;
    for (int64_t i = 0; i < R->m; i++)
        R->view[i] = R->full[i] ? threshold : R->heard[i] + R->sent[i];
    tide_distributed_cdf(R->m, R->view, R->avg, R->cdf);
    double projected = R->load;
    int64_t n = 0;
    for (int64_t j = 0; j < R->k && projected > threshold; j++) {
        int64_t o = R->objs[j];
        double w = R->w[o];
        if (R->dest[o] != R->me || w <= 0.0) continue; /* already gone */
        int64_t i = tide_distributed_pick(R->m, R->view, R->cdf, w, threshold,
                                          R->prm.dist_max_trials, rng, NULL, NULL);
        if (i < 0) {
            R->unplaced++;
            break; /* as DistributedLB: no room found, this sender is done this phase */
        }
        R->out[n++] = (tide_dlb_proposal){R->targets[i], o, w};
        R->view[i] += w;
        projected -= w;
    }
    R->proposals += n;
    return n;
}

bool tide_distributed_rank_answer(tide_distributed_rank *R, double load)
{
    if (!tide_distributed_accept(R->load, load, R->threshold)) return false;
    R->load += load;
    return true;
}

void tide_distributed_rank_answered(tide_distributed_rank *R, int32_t target, int64_t handle,
                                    bool accepted)
{
    int32_t i = R->slot[target];
    if (!accepted) {
        R->refused++;
        /* The negative acknowledgement: this sender asks that target no more in this round
         * (without it, the next phase's view would forget the refusal and ask again). */
        R->full[i] = true;
        return;
    }
    R->dest[handle] = target;
    R->load -= R->w[handle];
    R->sent[i] += R->w[handle];
    R->moved++;
}

void tide_distributed_rank_end(tide_distributed_rank *R, double new_max)
{
    double old_ratio = R->ratio;
    R->ratio = new_max / R->avg;
    R->stop = R->ratio <= R->prm.dist_target_ratio || R->threshold <= R->goal ||
              R->phase >= R->prm.dist_max_phases;
    /* Every rank reduced the same max: the next threshold is the same everywhere; it is used
     * only when no rank voted to stop. */
    R->threshold =
        tide_distributed_next_threshold(R->threshold, new_max, R->avg, old_ratio, R->ratio);
}

void tide_distributed_rank_free(tide_distributed_rank *R)
{
    free(R->objs);
    free(R->slot);
    free(R->heard);
    free(R->sent);
    free(R->view);
    free(R->cdf);
    free(R->full);
    free(R->out);
    *R = (tide_distributed_rank){0};
}

/* ---------------------------------------------------------------------------------------------
 * Sequential simulation of one DistributedLB round over all ranks: every rank runs the steps of
 * tide_global_rank.h; gossip is lb_gossip_simulate (targets in ascending rank order, their
 * initial loads as announced), the handshake lb_handshake_run (a seeded arrival order).
 * ------------------------------------------------------------------------------------------- */
typedef struct dist_sim {
    int32_t np;
    tide_distributed_rank *R;
    int32_t **targets; /* np: the ranks each heard of */
    double **heard;    /* np: their announced loads */
    double **w;        /* np: each rank's object loads */
    uint64_t *rng;     /* np: each rank's stream */
    int32_t **dest;    /* np: new owner of each */
} dist_sim;

static bool dist_answer(void *ctx, int32_t target, double load)
{
    return tide_distributed_rank_answer(&((dist_sim *)ctx)->R[target], load);
}

static void dist_answered(void *ctx, int32_t from, const tide_dlb_proposal *p, bool ok)
{
    tide_distributed_rank_answered(&((dist_sim *)ctx)->R[from], p->target, p->handle, ok);
}

static int dist_alloc(dist_sim *D, int32_t np)
{
    D->np = np;
    D->R = calloc((size_t)np, sizeof *D->R);
    D->targets = calloc((size_t)np, sizeof *D->targets);
    D->heard = calloc((size_t)np, sizeof *D->heard);
    D->w = calloc((size_t)np, sizeof *D->w);
    D->dest = calloc((size_t)np, sizeof *D->dest);
    D->rng = calloc((size_t)np, sizeof *D->rng);
    return D->R && D->targets && D->heard && D->w && D->dest && D->rng ? TIDE_PLAN_OK
                                                                       : TIDE_PLAN_ENOMEM;
}

static void dist_free(dist_sim *D)
{
    for (int32_t r = 0; r < D->np; r++) {
        if (D->R != NULL) tide_distributed_rank_free(&D->R[r]);
        if (D->targets != NULL) free(D->targets[r]);
        if (D->heard != NULL) free(D->heard[r]);
        if (D->w != NULL) free(D->w[r]);
        if (D->dest != NULL) free(D->dest[r]);
    }
    free(D->R);
    free(D->targets);
    free(D->heard);
    free(D->w);
    free(D->dest);
    free(D->rng);
}

/* Every rank's begin step on its own objects (grp); returns whether any rank voted to stop. */
static int dist_begin(dist_sim *D, const tide_global_input *in, const tide_global_params *p,
                      const lb_by_rank *grp, bool *stop)
{
    int32_t np = D->np;
    double sum = 0.0, max = 0.0;
    for (int32_t r = 0; r < np; r++) {
        double load = 0.0;
        for (int64_t j = grp->start[r]; j < grp->start[r + 1]; j++)
            load += in->load[grp->obj[j]];
        sum += load;
        max = load > max ? load : max;
    }
    *stop = false;
    for (int32_t r = 0; r < np; r++) {
        int64_t k = grp->start[r + 1] - grp->start[r];
        D->w[r] = malloc((size_t)(k + 1) * sizeof **D->w);
        D->dest[r] = malloc((size_t)(k + 1) * sizeof **D->dest);
        if (D->w[r] == NULL || D->dest[r] == NULL) return TIDE_PLAN_ENOMEM;
        for (int64_t i = 0; i < k; i++)
            D->w[r][i] = in->load[grp->obj[grp->start[r] + i]];
        int rc = tide_distributed_rank_begin(&D->R[r], r, np, sum, max, k, D->w[r], D->dest[r], p);
        if (rc != TIDE_PLAN_OK) return rc;
        *stop |= D->R[r].stop;
    }
    return TIDE_PLAN_OK;
}

/* Gossip, then every rank's targets. */
static int dist_gossip(dist_sim *D, const tide_global_params *p, tide_global_dist_report *rep)
{
    int32_t np = D->np;
    size_t words = tide_gossip_words(np);
    bool *announce = malloc((size_t)np * sizeof *announce);
    uint64_t *known = malloc((size_t)np * words * sizeof *known);
    int rc = TIDE_PLAN_ENOMEM;
    if (announce == NULL || known == NULL) goto out;
    for (int32_t r = 0; r < np; r++) {
        announce[r] = tide_distributed_rank_announces(&D->R[r]);
        rep->underloaded += announce[r];
    }
    rc = lb_gossip_simulate(np, announce, p->gossip_fanout, D->rng, known, &rep->gossip_rounds,
                            &rep->gossip_messages);
    for (int32_t r = 0; rc == TIDE_PLAN_OK && r < np; r++) {
        D->targets[r] = malloc((size_t)np * sizeof **D->targets);
        D->heard[r] = malloc((size_t)np * sizeof **D->heard);
        if (D->targets[r] == NULL || D->heard[r] == NULL) {
            rc = TIDE_PLAN_ENOMEM;
            break;
        }
        int64_t m = 0, n = lb_bitset_list(np, &known[(size_t)r * words], D->targets[r]);
        for (int64_t i = 0; i < n; i++) {
            int32_t t = D->targets[r][i];
            if (t == r) continue;
            D->targets[r][m] = t;
            D->heard[r][m++] = D->R[t].load;
        }
        rc = tide_distributed_rank_targets(&D->R[r], m, D->targets[r], D->heard[r]);
    }
out:
    free(announce);
    free(known);
    return rc;
}

/* Phases until a rank votes to stop. */
static int dist_phases(dist_sim *D, uint64_t seed, tide_global_dist_report *rep)
{
    int32_t np = D->np;
    lb_handshake H = {0};
    uint64_t order_rng = lb_rank_seed(seed, -1);
    int rc = TIDE_PLAN_OK;
    for (int32_t phase = 1;; phase++) {
        rep->batches = phase;
        for (int32_t r = 0; r < np && rc == TIDE_PLAN_OK; r++) {
            int64_t n = tide_distributed_rank_propose(&D->R[r], &D->rng[r]);
            if (phase == 1) rep->overloaded += D->R[r].sending;
            rc = lb_handshake_add(&H, r, D->R[r].out, n);
        }
        if (rc != TIDE_PLAN_OK) break;
        lb_handshake_run(&H, &order_rng, dist_answer, dist_answered, D);
        double new_max = 0.0;
        for (int32_t r = 0; r < np; r++)
            new_max = D->R[r].load > new_max ? D->R[r].load : new_max;
        bool stop = false;
        for (int32_t r = 0; r < np; r++) {
            tide_distributed_rank_end(&D->R[r], new_max);
            stop |= D->R[r].stop;
        }
        if (stop) break;
    }
    lb_handshake_free(&H);
    return rc;
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
    dist_sim D = {0};
    lb_by_rank grp = {0};
    bool stop = true;
    rc = dist_alloc(&D, in->np);
    if (rc == TIDE_PLAN_OK) rc = lb_by_rank_make(in, in->owner, &grp);
    if (rc == TIDE_PLAN_OK) rc = dist_begin(&D, in, &p, &grp, &stop);
    if (rc == TIDE_PLAN_OK && !stop) {
        for (int32_t r = 0; r < in->np; r++)
            D.rng[r] = lb_rank_seed(p.seed, r);
        rc = dist_gossip(&D, &p, &rep);
        if (rc == TIDE_PLAN_OK) rc = dist_phases(&D, p.seed, &rep);
    }
    for (int32_t r = 0; rc == TIDE_PLAN_OK && !stop && r < in->np; r++) {
        for (int64_t i = 0; i < D.R[r].k; i++)
            new_owner[grp.obj[grp.start[r] + i]] = D.dest[r][i];
        rep.proposals += D.R[r].proposals;
        rep.refused += D.R[r].refused;
        rep.unplaced += D.R[r].unplaced;
        rep.moved_objects += D.R[r].moved;
    }
    if (rc != TIDE_PLAN_OK && n > 0) memcpy(new_owner, in->owner, (size_t)n * sizeof *new_owner);
    dist_free(&D);
    lb_by_rank_free(&grp);
    if (rc == TIDE_PLAN_OK && report != NULL) *report = rep;
    return rc;
}

int tide_global_distributed(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner)
{
    return tide_global_distributed_sim(in, params, new_owner, NULL);
}

const tide_global_strategy tide_global_strategy_distributed = {.name = "distributed",
                                                               .plan = tide_global_distributed,
                                                               .protocol =
                                                                   TIDE_GLOBAL_PROTO_DISTRIBUTED};
