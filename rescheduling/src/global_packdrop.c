/*
 * global_packdrop.c - PackDrop: what one rank computes (globals, BatchAssembly, the target's
 * acceptance rule), one rank's side of the protocol as steps, and a sequential simulation of a
 * whole round over all ranks.
 *
 * One rank: two reductions give the average load and the total object count ttc; an overloaded
 * rank (load > ub(avg)) assembles batches locally; underloaded ranks (load < avg) announce
 * themselves by gossip; an overloaded rank proposes each batch to a random announced target,
 * which accepts only if it stays within ub(avg) (three-way handshake: propose, accept or refuse,
 * confirm and migrate); a refused batch is proposed to another announced target, never the same
 * one twice, and stays home when every known target refused. No rank gathers all loads.
 */
#include "global_internal.h"
#include "tide_global_rank.h"

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
 * One rank's side of the protocol as step functions (tide_global_rank.h): the control flow that
 * libtide's message protocol (runtime/objects/dlb.c), tide-sim's (sim/src/global_dlb.cpp) and the
 * sequential simulation below all run.
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
 * Sequential simulation of one PackDrop round over all ranks: every rank runs the steps of
 * tide_global_rank.h; gossip is lb_gossip_simulate (targets in ascending rank order), the
 * handshake lb_handshake_run (a seeded arrival order).
 * ------------------------------------------------------------------------------------------- */
typedef struct pd_sim {
    int32_t np;
    tide_packdrop_rank *R;
    int32_t **targets; /* np: the ranks each heard of */
} pd_sim;

static bool pd_answer(void *ctx, int32_t target, double load)
{
    return tide_packdrop_rank_answer(&((pd_sim *)ctx)->R[target], load);
}

static void pd_answered(void *ctx, int32_t from, const tide_dlb_proposal *p, bool ok)
{
    tide_packdrop_rank_answered(&((pd_sim *)ctx)->R[from], p->target, p->handle, ok);
}

/* Every rank's begin step on its own objects (grp), then gossip and the handshake rounds;
 * new_owner and the report from the ranks' states. */
static int pd_run(pd_sim *S, const tide_global_input *in, const tide_global_params *p,
                  const lb_by_rank *grp, double total, uint64_t *rng, uint64_t *known,
                  bool *announce, int32_t *new_owner, tide_global_dist_report *rep)
{
    int32_t np = S->np;
    double *w = malloc((size_t)(in->nobj + 1) * sizeof *w);
    int32_t *dest = malloc((size_t)(in->nobj + 1) * sizeof *dest);
    lb_handshake H = {0};
    int rc = TIDE_PLAN_ENOMEM;
    if (w == NULL || dest == NULL) goto out;
    for (int32_t r = 0; r < np; r++) {
        int64_t k = grp->start[r + 1] - grp->start[r];
        for (int64_t i = 0; i < k; i++)
            w[i] = in->load[grp->obj[grp->start[r] + i]];
        rc = tide_packdrop_rank_begin(&S->R[r], np, total, (double)in->nobj, p->packdrop_tolerance,
                                      k, w);
        if (rc != TIDE_PLAN_OK) goto out;
        rng[r] = lb_rank_seed(p->seed, r);
        announce[r] = tide_packdrop_rank_announces(&S->R[r]);
        rep->underloaded += announce[r];
        rep->overloaded += S->R[r].load > S->R[r].g.ub;
        rep->batches += S->R[r].nb;
    }
    if (rep->batches == 0) goto out;
    size_t words = tide_gossip_words(np);
    rc = lb_gossip_simulate(np, announce, p->gossip_fanout, rng, known, &rep->gossip_rounds,
                            &rep->gossip_messages);
    if (rc != TIDE_PLAN_OK) goto out;
    rc = TIDE_PLAN_ENOMEM;
    for (int32_t r = 0; r < np; r++) {
        if ((S->targets[r] = malloc((size_t)np * sizeof **S->targets)) == NULL) goto out;
        int64_t m = 0, heard = lb_bitset_list(np, &known[(size_t)r * words], S->targets[r]);
        for (int64_t i = 0; i < heard; i++)
            if (S->targets[r][i] != r) S->targets[r][m++] = S->targets[r][i];
        tide_packdrop_rank_targets(&S->R[r], m, S->targets[r], &rng[r]);
    }
    uint64_t order_rng = lb_rank_seed(p->seed, -1);
    for (;;) {
        for (int32_t r = 0; r < np; r++) {
            int64_t n = tide_packdrop_rank_propose(&S->R[r]);
            if (lb_handshake_add(&H, r, S->R[r].out, n) != TIDE_PLAN_OK) goto out;
        }
        if (H.n == 0) break;
        lb_handshake_run(&H, &order_rng, pd_answer, pd_answered, S);
    }
    for (int32_t r = 0; r < np; r++) {
        int64_t k = grp->start[r + 1] - grp->start[r];
        const int64_t *obj = &grp->obj[grp->start[r]];
        for (int64_t i = 0; i < k; i++)
            dest[i] = r;
        tide_packdrop_rank_dest(&S->R[r], dest);
        for (int64_t i = 0; i < k; i++) {
            new_owner[obj[i]] = dest[i];
            rep->moved_objects += dest[i] != r;
        }
        rep->proposals += S->R[r].proposals;
        rep->refused += S->R[r].refused;
        rep->unplaced += S->R[r].unplaced;
    }
    rc = TIDE_PLAN_OK;
out:
    lb_handshake_free(&H);
    free(w);
    free(dest);
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
    pd_sim S = {.np = np,
                .R = calloc((size_t)np, sizeof *S.R),
                .targets = calloc((size_t)np, sizeof *S.targets)};
    lb_by_rank grp = {0};
    bool *announce = malloc((size_t)np * sizeof *announce);
    uint64_t *rng = malloc((size_t)np * sizeof *rng);
    uint64_t *known = malloc((size_t)np * tide_gossip_words(np) * sizeof *known);
    rc = TIDE_PLAN_ENOMEM;
    if (S.R == NULL || S.targets == NULL || announce == NULL || rng == NULL || known == NULL ||
        lb_by_rank_make(in, in->owner, &grp) != TIDE_PLAN_OK)
        goto out;
    double total = 0.0;
    for (int64_t o = 0; o < in->nobj; o++)
        total += in->load[o];
    rc = pd_run(&S, in, &p, &grp, total, rng, known, announce, new_owner, &rep);
out:
    if (rc != TIDE_PLAN_OK) memcpy(new_owner, in->owner, (size_t)in->nobj * sizeof *new_owner);
    for (int32_t r = 0; r < np; r++) {
        if (S.R != NULL) tide_packdrop_rank_free(&S.R[r]);
        if (S.targets != NULL) free(S.targets[r]);
    }
    free(S.R);
    free(S.targets);
    free(announce);
    free(rng);
    free(known);
    lb_by_rank_free(&grp);
    if (rc == TIDE_PLAN_OK && report != NULL) *report = rep;
    return rc;
}

int tide_global_packdrop(const tide_global_input *in, const tide_global_params *params,
                         int32_t *new_owner)
{
    return tide_global_packdrop_sim(in, params, new_owner, NULL);
}

const tide_global_strategy tide_global_strategy_packdrop = {
    .name = "packdrop", .plan = tide_global_packdrop, .protocol = TIDE_GLOBAL_PROTO_PACKDROP};
