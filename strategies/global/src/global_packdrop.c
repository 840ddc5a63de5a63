/*
 * global_packdrop.c - PackDrop: what one rank computes (globals, BatchAssembly, the target's
 * acceptance rule) and a sequential simulation of a whole round over all ranks.
 *
 * One rank: two reductions give the average load and the total object count ttc; an overloaded
 * rank (load > ub(avg)) assembles batches locally; underloaded ranks (load < avg) announce
 * themselves by gossip; an overloaded rank proposes each batch to a random announced target,
 * which accepts only if it stays within ub(avg) (three-way handshake: propose, accept or refuse,
 * confirm and migrate); a refused batch is proposed to another announced target, never the same
 * one twice, and stays home when every known target refused. No rank gathers all loads.
 */
#include "global_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tide_packdrop_globals_make(int32_t np, double total_load, int64_t ttc, double tolerance,
                               tide_packdrop_globals *g)
{
    if (np < 1 || ttc < 1 || g == NULL || !isfinite(total_load) || total_load < 0.0 ||
        !isfinite(tolerance) || tolerance < 0.0)
        return TIDE_PLAN_EINVAL;
    g->avg = total_load / np;
    g->ttc = ttc;
    g->ub = (1.0 + tolerance) * g->avg;
    /* ps < 1 (fewer than np/2 objects in all) would mean empty batches: one object at least. */
    g->ps = 2.0 - (double)np / (double)ttc;
    if (g->ps < 1.0) g->ps = 1.0;
    g->s = g->ps * total_load / (double)ttc;
    return TIDE_PLAN_OK;
}

int tide_packdrop_assemble(int64_t k, const double *w, double extra_load,
                           const tide_packdrop_globals *g, int32_t *batch_of, int64_t *nbatches,
                           double *batch_load)
{
    if (k < 0 || g == NULL || nbatches == NULL || !isfinite(extra_load) || extra_load < 0.0 ||
        (k > 0 && (w == NULL || batch_of == NULL || batch_load == NULL)))
        return TIDE_PLAN_EINVAL;
    double load = extra_load;
    for (int64_t i = 0; i < k; i++) {
        if (!isfinite(w[i]) || w[i] < 0.0) return TIDE_PLAN_EINVAL;
        load += w[i];
        batch_of[i] = -1;
    }
    *nbatches = 0;
    int64_t *idx = malloc((size_t)(k > 0 ? k : 1) * sizeof *idx);
    if (idx == NULL) return TIDE_PLAN_ENOMEM;
    for (int64_t i = 0; i < k; i++)
        idx[i] = i;
    lb_sort_by_load_asc(k, idx, w);
    int64_t nb = 0, in_open = 0;
    double open = 0.0;
    for (int64_t j = 0; j < k && load > g->ub; j++) {
        int64_t o = idx[j];
        if (w[o] <= 0.0) continue; /* a weightless object would travel for nothing */
        batch_of[o] = (int32_t)nb;
        open += w[o];
        load -= w[o];
        in_open++;
        if (open > g->s) {
            batch_load[nb++] = open;
            open = 0.0;
            in_open = 0;
        }
    }
    if (in_open > 0) batch_load[nb++] = open; /* the last partial batch travels too */
    *nbatches = nb;
    free(idx);
    return TIDE_PLAN_OK;
}

bool tide_packdrop_accept(double receiver_load, double batch_load, const tide_packdrop_globals *g)
{
    return receiver_load + batch_load <= g->ub;
}

/* ---------------------------------------------------------------------------------------------
 * Sequential simulation of one PackDrop round over all ranks.
 * ------------------------------------------------------------------------------------------- */
typedef struct sim_batch {
    int32_t from;
    int32_t target; /* accepted target, -1 while pending */
    int64_t first;  /* objects in the batch: members[first .. first + n) */
    int64_t n;
    double load;
    int64_t tries;         /* targets asked so far */
    int64_t start, stride; /* the sender's walk through its known targets */
} sim_batch;

typedef struct sim {
    const tide_global_input *in;
    int32_t np;
    double *load;
    uint64_t *rng;   /* np per-rank streams */
    uint64_t *known; /* np gossip bitsets */
    sim_batch *batch;
    int64_t nbatch;
    int64_t *member;
} sim;

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Batches of every overloaded rank, assembled from its own objects only. */
static int assemble_all(sim *S, const lb_by_rank *grp, const tide_packdrop_globals *g,
                        tide_global_dist_report *rep)
{
    const tide_global_input *in = S->in;
    int64_t n = in->nobj;
    double *w = malloc((size_t)n * sizeof *w);
    int32_t *batch_of = malloc((size_t)n * sizeof *batch_of);
    double *bload = malloc((size_t)n * sizeof *bload);
    int64_t *fill = malloc((size_t)n * sizeof *fill);
    S->batch = malloc((size_t)n * sizeof *S->batch);
    S->member = malloc((size_t)n * sizeof *S->member);
    S->nbatch = 0;
    int rc = TIDE_PLAN_ENOMEM;
    if (w == NULL || batch_of == NULL || bload == NULL || fill == NULL || S->batch == NULL ||
        S->member == NULL)
        goto out;
    int64_t nmember = 0;
    for (int32_t r = 0; r < S->np; r++) {
        if (S->load[r] <= g->ub) continue;
        rep->overloaded++;
        int64_t k = grp->start[r + 1] - grp->start[r];
        const int64_t *obj = &grp->obj[grp->start[r]];
        for (int64_t i = 0; i < k; i++)
            w[i] = in->load[obj[i]];
        int64_t nb;
        rc = tide_packdrop_assemble(k, w, 0.0, g, batch_of, &nb, bload);
        if (rc != TIDE_PLAN_OK) goto out;
        int64_t base = S->nbatch;
        for (int64_t b = 0; b < nb; b++) {
            S->batch[base + b] = (sim_batch){.from = r, .target = -1, .load = bload[b]};
            fill[b] = 0;
        }
        for (int64_t i = 0; i < k; i++)
            if (batch_of[i] >= 0) S->batch[base + batch_of[i]].n++;
        for (int64_t b = 0; b < nb; b++) {
            S->batch[base + b].first = nmember;
            nmember += S->batch[base + b].n;
        }
        for (int64_t i = 0; i < k; i++)
            if (batch_of[i] >= 0) {
                sim_batch *B = &S->batch[base + batch_of[i]];
                S->member[B->first + fill[batch_of[i]]++] = obj[i];
            }
        S->nbatch += nb;
    }
    rep->batches = S->nbatch;
    rc = TIDE_PLAN_OK;
out:
    free(w);
    free(batch_of);
    free(bload);
    free(fill);
    return rc;
}

/* BatchSend in rounds: every pending batch is proposed to its next target; the targets answer
 * the proposals of a round in a random order (message arrival), accepting while they stay within
 * ub(avg); a refused batch tries its sender's next known target in the following round. */
static int send_all(sim *S, const tide_packdrop_globals *g, uint64_t seed,
                    tide_global_dist_report *rep)
{
    int32_t np = S->np;
    size_t words = tide_gossip_words(np);
    int64_t *known_n = malloc((size_t)np * sizeof *known_n);
    int32_t **targets = calloc((size_t)np, sizeof *targets);
    int64_t *pending = malloc((size_t)(S->nbatch > 0 ? S->nbatch : 1) * sizeof *pending);
    double *accepted = malloc((size_t)np * sizeof *accepted);
    int rc = TIDE_PLAN_ENOMEM;
    if (known_n == NULL || targets == NULL || pending == NULL || accepted == NULL) goto out;
    for (int32_t r = 0; r < np; r++) {
        known_n[r] = 0;
        accepted[r] = S->load[r];
    }
    int64_t npend = 0;
    for (int64_t b = 0; b < S->nbatch; b++) {
        sim_batch *B = &S->batch[b];
        int32_t r = B->from;
        if (targets[r] == NULL) {
            targets[r] = malloc((size_t)np * sizeof **targets);
            if (targets[r] == NULL) goto out;
            known_n[r] = lb_bitset_list(np, &S->known[(size_t)r * words], targets[r]);
        }
        int64_t m = known_n[r];
        if (m == 0) {
            rep->unplaced++;
            continue;
        }
        B->start = (int64_t)lb_rand_below(&S->rng[r], (uint64_t)m);
        /* A stride coprime with m visits every known target once, in a random-looking order. */
        B->stride = 1 + (int64_t)lb_rand_below(&S->rng[r], (uint64_t)m);
        while (gcd64(B->stride, m) != 1)
            B->stride = B->stride % m + 1;
        pending[npend++] = b;
    }
    uint64_t order_rng = lb_rank_seed(seed, -1);
    while (npend > 0) {
        /* Arrival order of this round's proposals: a seeded shuffle. */
        for (int64_t i = npend - 1; i > 0; i--) {
            int64_t j = (int64_t)lb_rand_below(&order_rng, (uint64_t)i + 1);
            int64_t t = pending[i];
            pending[i] = pending[j];
            pending[j] = t;
        }
        int64_t still = 0;
        for (int64_t i = 0; i < npend; i++) {
            sim_batch *B = &S->batch[pending[i]];
            int64_t m = known_n[B->from];
            int32_t t = targets[B->from][(B->start + B->tries * B->stride) % m];
            B->tries++;
            rep->proposals++;
            if (tide_packdrop_accept(accepted[t], B->load, g)) {
                accepted[t] += B->load;
                B->target = t;
                continue;
            }
            rep->refused++;
            if (B->tries < m)
                pending[still++] = pending[i];
            else
                rep->unplaced++;
        }
        npend = still;
    }
    rc = TIDE_PLAN_OK;
out:
    for (int32_t r = 0; targets != NULL && r < np; r++)
        free(targets[r]);
    free(targets);
    free(known_n);
    free(pending);
    free(accepted);
    return rc;
}

int tide_global_packdrop_sim(const tide_global_input *in, const tide_global_params *params,
                             int32_t *new_owner, tide_global_dist_report *report)
{
    tide_global_params p;
    int rc = lb_check(in, params, &p);
    if (rc != TIDE_PLAN_OK) return rc;
    if (in->speed != NULL) return TIDE_PLAN_EINVAL;
    tide_global_dist_report rep = {0};
    int32_t np = in->np;
    if (in->nobj == 0) {
        if (report != NULL) *report = rep;
        return TIDE_PLAN_OK;
    }
    memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    sim S = {.in = in, .np = np};
    lb_by_rank grp = {0};
    bool *announce = malloc((size_t)np * sizeof *announce);
    S.load = malloc((size_t)np * sizeof *S.load);
    S.rng = malloc((size_t)np * sizeof *S.rng);
    S.known = malloc((size_t)np * tide_gossip_words(np) * sizeof *S.known);
    rc = TIDE_PLAN_ENOMEM;
    if (announce == NULL || S.load == NULL || S.rng == NULL || S.known == NULL ||
        lb_by_rank_make(in, in->owner, &grp) != TIDE_PLAN_OK)
        goto out;
    double total = 0.0;
    for (int32_t r = 0; r < np; r++)
        S.load[r] = 0.0;
    for (int64_t o = 0; o < in->nobj; o++) {
        S.load[in->owner[o]] += in->load[o];
        total += in->load[o];
    }
    tide_packdrop_globals g;
    rc = tide_packdrop_globals_make(np, total, in->nobj, p.packdrop_tolerance, &g);
    if (rc != TIDE_PLAN_OK) goto out;
    for (int32_t r = 0; r < np; r++) {
        S.rng[r] = lb_rank_seed(p.seed, r);
        announce[r] = S.load[r] < g.avg;
        rep.underloaded += announce[r];
    }
    if ((rc = assemble_all(&S, &grp, &g, &rep)) != TIDE_PLAN_OK) goto out;
    if (S.nbatch > 0) {
        rc = lb_gossip_simulate(np, announce, p.gossip_fanout, S.rng, S.known, &rep.gossip_rounds,
                                &rep.gossip_messages);
        if (rc != TIDE_PLAN_OK) goto out;
        if ((rc = send_all(&S, &g, p.seed, &rep)) != TIDE_PLAN_OK) goto out;
    }
    for (int64_t b = 0; b < S.nbatch; b++) {
        const sim_batch *B = &S.batch[b];
        if (B->target < 0) continue;
        for (int64_t i = 0; i < B->n; i++)
            new_owner[S.member[B->first + i]] = B->target;
        rep.moved_objects += B->n;
    }
    rc = TIDE_PLAN_OK;
out:
    if (rc != TIDE_PLAN_OK) memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    free(announce);
    free(S.load);
    free(S.rng);
    free(S.known);
    free(S.batch);
    free(S.member);
    lb_by_rank_free(&grp);
    if (rc == TIDE_PLAN_OK && report != NULL) *report = rep;
    return rc;
}

int tide_global_packdrop(const tide_global_input *in, const tide_global_params *params,
                         int32_t *new_owner)
{
    return tide_global_packdrop_sim(in, params, new_owner, NULL);
}
