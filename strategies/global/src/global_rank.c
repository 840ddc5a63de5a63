/*
 * global_rank.c - one rank's side of PackDrop's and DistributedLB's protocols as step functions
 * (tide_global_rank.h): the control flow libtide's message protocol, tide-sim's and the
 * sequential simulations all run, over the per-rank rules of global_packdrop.c and
 * global_distributed.c.
 */
#include "global_internal.h"
#include "tide_global_rank.h"

#include <stdlib.h>
#include <string.h>

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---------------------------------------------------------------------------------------------
 * PackDrop.
 * ------------------------------------------------------------------------------------------- */
int tide_packdrop_rank_begin(tide_packdrop_rank *R, int32_t np, double total_load, double ttc,
                             double tolerance, int64_t k, const double *w)
{
    *R = (tide_packdrop_rank){.k = k};
    if (k < 0 || (k > 0 && w == NULL)) return TIDE_PLAN_EINVAL;
    for (int64_t i = 0; i < k; i++)
        R->load += w[i];
    if (ttc < 1 ||
        tide_packdrop_globals_make(np, total_load, (int64_t)ttc, tolerance, &R->g) != TIDE_PLAN_OK)
        return TIDE_PLAN_OK;
    R->run = true;
    R->batch_of = malloc((size_t)(k + 1) * sizeof *R->batch_of);
    double *bload = malloc((size_t)(k + 1) * sizeof *bload);
    R->b = malloc((size_t)(k + 1) * sizeof *R->b);
    R->pending = malloc((size_t)(k + 1) * sizeof *R->pending);
    R->out = malloc((size_t)(k + 1) * sizeof *R->out);
    int rc = TIDE_PLAN_ENOMEM;
    if (R->batch_of == NULL || bload == NULL || R->b == NULL || R->pending == NULL ||
        R->out == NULL)
        goto out;
    for (int64_t i = 0; i < k; i++)
        R->batch_of[i] = -1; /* assembly fills it only on an overloaded rank */
    rc = TIDE_PLAN_OK;
    if (R->load > R->g.ub)
        rc = tide_packdrop_assemble(k, w, 0.0, &R->g, R->batch_of, &R->nb, bload);
    for (int64_t b = 0; rc == TIDE_PLAN_OK && b < R->nb; b++)
        R->b[b] = (tide_packdrop_batch){.load = bload[b], .target = -1};
out:
    free(bload);
    return rc;
}

bool tide_packdrop_rank_announces(const tide_packdrop_rank *R)
{
    return R->load < R->g.avg;
}

void tide_packdrop_rank_targets(tide_packdrop_rank *R, int64_t m, const int32_t *targets,
                                uint64_t *rng)
{
    R->m = m;
    R->targets = targets;
    R->npend = 0;
    for (int64_t b = 0; b < R->nb; b++) {
        tide_packdrop_batch *B = &R->b[b];
        if (m == 0) {
            R->unplaced++;
            continue;
        }
        /* A stride coprime with m visits every known target once, in a random-looking order. */
        B->start = (int64_t)lb_rand_below(rng, (uint64_t)m);
        B->stride = 1 + (int64_t)lb_rand_below(rng, (uint64_t)m);
        while (gcd64(B->stride, m) != 1)
            B->stride = B->stride % m + 1;
        R->pending[R->npend++] = b;
    }
}

bool tide_packdrop_rank_pending(const tide_packdrop_rank *R)
{
    return R->npend > 0;
}

int64_t tide_packdrop_rank_propose(tide_packdrop_rank *R)
{
    int64_t n = R->npend;
    for (int64_t i = 0; i < n; i++) {
        int64_t h = R->pending[i];
        tide_packdrop_batch *B = &R->b[h];
        int32_t t = R->targets[(B->start + B->tries * B->stride) % R->m];
        B->tries++;
        R->out[i] = (tide_dlb_proposal){t, h, B->load};
    }
    R->proposals += n;
    R->npend = 0;
    return n;
}

bool tide_packdrop_rank_answer(tide_packdrop_rank *R, double load)
{
    if (!tide_packdrop_accept(R->load, load, &R->g)) return false;
    R->load += load;
    return true;
}

void tide_packdrop_rank_answered(tide_packdrop_rank *R, int32_t target, int64_t handle,
                                 bool accepted)
{
    tide_packdrop_batch *B = &R->b[handle];
    if (accepted) {
        B->target = target;
        R->load -= B->load;
        return;
    }
    R->refused++;
    if (B->tries < R->m)
        R->pending[R->npend++] = handle; /* the next known target, next round */
    else
        R->unplaced++; /* every known target refused: the batch stays */
}

void tide_packdrop_rank_dest(const tide_packdrop_rank *R, int32_t *dest)
{
    for (int64_t i = 0; R->nb > 0 && i < R->k; i++)
        if (R->batch_of[i] >= 0 && R->b[R->batch_of[i]].target >= 0)
            dest[i] = R->b[R->batch_of[i]].target;
}

void tide_packdrop_rank_free(tide_packdrop_rank *R)
{
    free(R->batch_of);
    free(R->b);
    free(R->pending);
    free(R->out);
    *R = (tide_packdrop_rank){0};
}

/* ---------------------------------------------------------------------------------------------
 * DistributedLB.
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
