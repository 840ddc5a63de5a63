/* Distributed rescheduling: PackDrop and DistributedLB as message protocols between the ranks.
 *
 * The centralized strategies (objects_lb.c) allgather every object's load and run one pure core
 * on every rank. These two do what their papers describe instead. Each rank knows its own
 * objects' loads and a few global sums (allreduce). Underloaded ranks announce themselves by push
 * gossip until quiescence; every round is a sparse exchange (exchange() below) followed by a
 * one-integer allreduce that detects quiescence. Overloaded ranks then propose work to announced
 * ranks (message 1 of the handshake); each receiver accepts or refuses every proposal from its
 * own load alone (message 2); the confirmation (message 3) carries the accepted objects' states
 * and is sent once the rounds are over, one message per (sender, receiver) pair. Only the moves
 * (object id, new owner) are allgathered afterwards, to keep the replicated directory that routes
 * object messages: no rank ever holds the loads of other ranks' objects.
 *
 * The per-rank rules are the pure steps of strategies/global (tide_packdrop_*, tide_distributed_*,
 * tide_gossip_peers) with the same per-rank seeds (tide_global_rank_seed) as the simulations there
 * (tide_global_packdrop_sim, tide_global_distributed_sim). The simulations resolve the order in
 * which messages arrive differently, so a real run's mapping may differ from the simulated one.
 */
#include "dlb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * PackDrop.
 * ------------------------------------------------------------------------------------------- */
typedef struct pd_batch {
    double load;
    int32_t target;        /* accepted by, -1 while pending or unplaced */
    int64_t tries;         /* targets asked so far */
    int64_t start, stride; /* the walk through the known targets */
} pd_batch;

typedef struct pd_ctx {
    pd_batch *b;
    int64_t m;        /* known targets */
    int64_t *pending; /* batches to propose next round */
    int64_t npend;
} pd_ctx;

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void pd_answer(dlb *D, void *ctx, int target, const proposal *p, bool accepted)
{
    pd_ctx *C = ctx;
    pd_batch *B = &C->b[p->handle];
    if (accepted) {
        B->target = target;
        D->load -= B->load;
        return;
    }
    D->refused++;
    if (B->tries < C->m)
        C->pending[C->npend++] = p->handle; /* the next known target, next round */
    else
        D->unplaced++; /* every known target refused: the batch stays */
}

static void run_packdrop(dlb *D, const tide_global_params *prm, double *t_gather)
{
    double t0 = tide_now();
    double sums[2] = {D->load, (double)D->k}, total[2];
    MPI_Allreduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, D->L->comm);
    *t_gather = tide_now() - t0;
    if (total[1] < 1 || tide_packdrop_globals_make(D->np, total[0], (int64_t)total[1],
                                                   prm->packdrop_tolerance, &D->g) != TIDE_PLAN_OK)
        return;

    /* BatchAssembly from this rank's own objects. */
    int32_t *batch_of = malloc((size_t)(D->k + 1) * sizeof *batch_of);
    double *bload = malloc((size_t)(D->k + 1) * sizeof *bload);
    TIDE_OBJ_NEED(batch_of && bload);
    int64_t nb = 0;
    for (int64_t i = 0; i < D->k; i++)
        batch_of[i] = -1; /* assembly fills it only on an overloaded rank */
    if (D->load > D->g.ub &&
        tide_packdrop_assemble(D->k, D->w, 0.0, &D->g, batch_of, &nb, bload) != TIDE_PLAN_OK)
        tide_fatal("objects: packdrop rejected this rank's loads");
    if (!dlb_any_rank(D->L->comm, nb > 0)) {
        free(batch_of);
        free(bload);
        return;
    }
    dlb_gossip(D, D->load < D->g.avg, prm->gossip_fanout);

    /* BatchSend: each pending batch to its next known target, round by round. */
    int32_t *targets = malloc((size_t)D->np * sizeof *targets);
    pd_ctx C = {.b = malloc((size_t)(nb + 1) * sizeof *C.b),
                .pending = malloc((size_t)(nb + 1) * sizeof *C.pending)};
    TIDE_OBJ_NEED(targets && C.b && C.pending);
    C.m = dlb_targets_of(D, targets);
    int64_t *round = malloc((size_t)(nb + 1) * sizeof *round);
    TIDE_OBJ_NEED(round);
    for (int64_t b = 0; b < nb; b++) {
        C.b[b] = (pd_batch){.load = bload[b], .target = -1};
        if (C.m == 0) {
            D->unplaced++;
            continue;
        }
        /* A stride coprime with m visits every known target once, in a random-looking order. */
        C.b[b].start = (int64_t)tide_global_rand_below(&D->rng, (uint64_t)C.m);
        C.b[b].stride = 1 + (int64_t)tide_global_rand_below(&D->rng, (uint64_t)C.m);
        while (gcd64(C.b[b].stride, C.m) != 1)
            C.b[b].stride = C.b[b].stride % C.m + 1;
        C.pending[C.npend++] = b;
    }
    while (dlb_any_rank(D->L->comm, C.npend > 0)) {
        D->handshake_rounds++;
        int64_t n = C.npend;
        memcpy(round, C.pending, (size_t)n * sizeof *round);
        C.npend = 0;
        for (int64_t i = 0; i < n; i++) {
            pd_batch *B = &C.b[round[i]];
            int32_t t = targets[(B->start + B->tries * B->stride) % C.m];
            B->tries++;
            D->proposals++;
            proposal p = {round[i], B->load};
            dlb_buf_put(&D->out[t], &p, sizeof p);
        }
        dlb_handshake(D, pd_answer, &C);
    }
    for (int64_t i = 0; i < D->k; i++)
        if (batch_of[i] >= 0 && C.b[batch_of[i]].target >= 0) D->dest[i] = C.b[batch_of[i]].target;
    free(round);
    free(targets);
    free(C.b);
    free(C.pending);
    free(batch_of);
    free(bload);
}

/* ---------------------------------------------------------------------------------------------
 * DistributedLB.
 * ------------------------------------------------------------------------------------------- */
typedef struct dist_ctx {
    int32_t *slot; /* np: index of a rank among the targets, -1 otherwise */
    double *sent;  /* per target: load it accepted from this rank so far */
    bool *full;    /* per target: refused a proposal: no more proposals this round */
} dist_ctx;

static void dist_answer(dlb *D, void *ctx, int target, const proposal *p, bool accepted)
{
    dist_ctx *C = ctx;
    if (!accepted) {
        D->refused++;
        /* The negative acknowledgement: this sender asks that target no more in this round
         * (without it, the next phase's view would forget the refusal and ask again). */
        C->full[C->slot[target]] = true;
        return;
    }
    D->dest[p->handle] = target;
    D->load -= p->load;
    C->sent[C->slot[target]] += p->load;
}

typedef struct by_load {
    double w;
    int64_t i;
} by_load;

static int cmp_by_load(const void *a, const void *b)
{
    const by_load *x = a, *y = b;
    if (x->w != y->w) return (x->w > y->w) - (x->w < y->w);
    return (x->i > y->i) - (x->i < y->i);
}

static void run_distributed(dlb *D, const tide_global_params *prm, double *t_gather)
{
    double t0 = tide_now();
    double sum, max;
    MPI_Allreduce(&D->load, &sum, 1, MPI_DOUBLE, MPI_SUM, D->L->comm);
    MPI_Allreduce(&D->load, &max, 1, MPI_DOUBLE, MPI_MAX, D->L->comm);
    *t_gather = tide_now() - t0;
    double avg = sum / D->np, goal = prm->dist_target_ratio * avg;
    /* Every rank must take the same branch before a collective: a floating-point sum is not
     * guaranteed bit-identical on all ranks, so the decision itself is reduced. */
    if (dlb_any_rank(D->L->comm, !(avg > 0.0) || max <= goal)) return;
    dlb_gossip(D, D->load < goal, prm->gossip_fanout);

    int32_t *targets = malloc((size_t)D->np * sizeof *targets);
    double *view = malloc((size_t)D->np * sizeof *view), *cdf = malloc((size_t)D->np * sizeof *cdf);
    by_load *objs = malloc((size_t)(D->k + 1) * sizeof *objs);
    dist_ctx C = {.slot = malloc((size_t)D->np * sizeof *C.slot),
                  .sent = calloc((size_t)D->np, sizeof *C.sent),
                  .full = calloc((size_t)D->np, sizeof *C.full)};
    TIDE_OBJ_NEED(targets && view && cdf && objs && C.slot && C.sent && C.full);
    int64_t m = dlb_targets_of(D, targets);
    for (int r = 0; r < D->np; r++)
        C.slot[r] = -1;
    for (int64_t i = 0; i < m; i++)
        C.slot[targets[i]] = (int32_t)i;
    for (int64_t i = 0; i < D->k; i++)
        objs[i] = (by_load){D->w[i], i};
    /* Smallest first: small objects make probabilistic transfers land more evenly. */
    if (D->k > 1) qsort(objs, (size_t)D->k, sizeof *objs, cmp_by_load);

    double threshold = (max + avg) / 2.0, ratio = max / avg;
    for (int32_t phase = 1;; phase++) {
        D->handshake_rounds++;
        D->threshold = threshold;
        if (D->load > threshold && m > 0) {
            for (int64_t i = 0; i < m; i++)
                view[i] = C.full[i] ? threshold : D->heard[targets[i]] + C.sent[i];
            tide_distributed_cdf(m, view, avg, cdf);
            double projected = D->load;
            for (int64_t j = 0; j < D->k && projected > threshold; j++) {
                int64_t o = objs[j].i;
                double w = objs[j].w;
                if (D->dest[o] != D->me || w <= 0.0) continue; /* already gone */
                int64_t i = tide_distributed_pick(m, view, cdf, w, threshold, prm->dist_max_trials,
                                                  &D->rng, NULL, NULL);
                if (i < 0) {
                    D->unplaced++;
                    break; /* as DistributedLB: no room found, this sender is done this phase */
                }
                proposal p = {o, w};
                dlb_buf_put(&D->out[targets[i]], &p, sizeof p);
                D->proposals++;
                view[i] += w;
                projected -= w;
            }
        }
        dlb_handshake(D, dist_answer, &C);
        double new_max;
        MPI_Allreduce(&D->load, &new_max, 1, MPI_DOUBLE, MPI_MAX, D->L->comm);
        double old_ratio = ratio;
        ratio = new_max / avg;
        if (dlb_any_rank(D->L->comm, ratio <= prm->dist_target_ratio || threshold <= goal ||
                                         phase >= prm->dist_max_phases))
            break;
        threshold = tide_distributed_next_threshold(threshold, new_max, avg, old_ratio, ratio);
    }
    free(targets);
    free(view);
    free(cdf);
    free(objs);
    free(C.slot);
    free(C.sent);
    free(C.full);
}

/* ---------------------------------------------------------------------------------------------
 * Confirmation with the states, then the directory.
 * ------------------------------------------------------------------------------------------- */
static double crossing_volume(const tide_objects_layer *L)
{
    double v = 0;
    for (int64_t i = 0; i < L->nedges; i++) {
        int64_t a = tide_objdir_find(L, L->edges[i].from), b = tide_objdir_find(L, L->edges[i].to);
        if (a >= 0 && b >= 0 && L->dir_owner[a] != L->dir_owner[b]) v += L->edges[i].bytes;
    }
    return L->window > 0 ? v / (double)L->window : v;
}

/* This rank's objects, their loads (mean over the window) and the buffers of the protocol. */
static void dlb_setup(dlb *D, tide_objects_layer *L, uint64_t seed)
{
    int np = L->size;
    *D = (dlb){
        .L = L, .np = np, .me = L->rank, .packdrop = L->lb->protocol == TIDE_GLOBAL_PROTO_PACKDROP};
    D->k = L->nloc;
    D->w = malloc((size_t)(D->k + 1) * sizeof *D->w);
    D->dest = malloc((size_t)(D->k + 1) * sizeof *D->dest);
    D->out = calloc((size_t)np, sizeof *D->out);
    D->reply = calloc((size_t)np, sizeof *D->reply);
    D->heard = malloc((size_t)np * sizeof *D->heard);
    D->known = malloc((size_t)np * sizeof *D->known);
    D->asked = malloc((size_t)np * sizeof *D->asked);
    D->from = calloc((size_t)np, sizeof *D->from);
    TIDE_OBJ_NEED(D->w && D->dest && D->out && D->reply && D->heard && D->known && D->asked &&
                  D->from);
    for (int64_t i = 0; i < D->k; i++) {
        const tide_obj *o = L->loc[i];
        D->w[i] = o->load_n ? o->load_sum / (double)o->load_n : 0.0;
        D->dest[i] = L->rank;
        D->load += D->w[i];
    }
    D->rng = tide_global_rank_seed(seed, L->rank);
}

static void dlb_free(dlb *D)
{
    free(D->w);
    free(D->dest);
    for (int r = 0; r < D->np; r++) {
        free(D->out[r].data);
        free(D->reply[r].data);
    }
    free(D->out);
    free(D->in.data);
    free(D->reply);
    free(D->heard);
    free(D->known);
    free(D->asked);
    free(D->from);
}

/* What this rank measured of one rescheduling. */
typedef struct dlb_measured {
    double gather_s, decision_s, migrate_s;
    double load_before;
    int64_t nmoves, bytes;
    double comm_before, comm_after;
} dlb_measured;

/* Collective: the maxima and sums over the ranks, checked against the directory, recorded. */
static void dlb_record(tide_objects_layer *L, const dlb *D, const dlb_measured *m)
{
    double mx[5] = {m->gather_s, m->decision_s, m->migrate_s, m->load_before, D->load}, most[5];
    MPI_Allreduce(mx, most, 5, MPI_DOUBLE, MPI_MAX, L->comm);
    double sm[9] = {(double)m->nmoves,    (double)m->bytes,   m->comm_before,
                    m->comm_after,        m->load_before,     (double)D->gossip_messages,
                    (double)D->proposals, (double)D->refused, (double)D->unplaced},
           sum[9];
    MPI_Allreduce(sm, sum, 9, MPI_DOUBLE, MPI_SUM, L->comm);
    int64_t held = L->nloc, all_held;
    MPI_Allreduce(&held, &all_held, 1, MPI_INT64_T, MPI_SUM, L->comm);
    if (all_held != L->ndir)
        tide_fatal("objects: %lld objects live on the ranks after %s, the directory has %lld",
                   (long long)all_held, L->lb->name, (long long)L->ndir);
    tide_objects_lb_record rec = {.iteration = L->iteration,
                                  .gather_s = most[0],
                                  .decision_s = most[1],
                                  .migrate_s = most[2],
                                  .moved = (int64_t)sum[0],
                                  .bytes_moved = (int64_t)sum[1],
                                  .max_before = most[3],
                                  .avg = sum[4] / D->np,
                                  .max_after = most[4],
                                  .comm_before = sum[2],
                                  .comm_after = sum[3],
                                  .gossip_rounds = D->gossip_rounds,
                                  .handshake_rounds = D->handshake_rounds,
                                  .gossip_messages = (int64_t)sum[5],
                                  .proposals = (int64_t)sum[6],
                                  .refused = (int64_t)sum[7],
                                  .unplaced = (int64_t)sum[8]};
    tide_objlb_finish(L, &rec);
}

void tide_objdlb_run(tide_objects_layer *L, uint64_t seed)
{
    dlb D;
    dlb_setup(&D, L, seed);
    dlb_measured m = {.load_before = D.load};
    tide_global_params prm = tide_rt_global->cfg.global;
    prm.seed = seed;

    double t0 = tide_now(), t_gather = 0;
    if (D.packdrop)
        run_packdrop(&D, &prm, &t_gather);
    else
        run_distributed(&D, &prm, &t_gather);
    double t1 = tide_now();
    tide_objstats_keep_last(L, D.w, D.dest);
    m.comm_before = crossing_volume(L);
    move *mv = dlb_confirm_and_migrate(&D, &m.nmoves, &m.bytes);
    dlb_update_directory(L, mv, m.nmoves);
    double t2 = tide_now();
    m.comm_after = crossing_volume(L);
    m.gather_s = t_gather;
    m.decision_s = t1 - t0 - t_gather;
    m.migrate_s = t2 - t1;
    dlb_record(L, &D, &m);
    free(mv);
    dlb_free(&D);
}
