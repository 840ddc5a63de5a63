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
 * The per-rank rules are the pure steps of rescheduling (tide_packdrop_*, tide_distributed_*,
 * tide_gossip_peers) with the same per-rank seeds (tide_global_rank_seed) as the simulations there
 * (tide_global_packdrop_sim, tide_global_distributed_sim). The simulations resolve the order in
 * which messages arrive differently, so a real run's mapping may differ from the simulated one.
 */
#include "dlb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The proposals a step wrote, into this round's messages. */
static void put_proposals(dlb *D, const tide_dlb_proposal *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        proposal p = {out[i].handle, out[i].load};
        dlb_buf_put(&D->out[out[i].target], &p, sizeof p);
    }
}

/* This rank's counters from a protocol's state. */
static void take_counters(dlb *D, double load, int64_t proposals, int64_t refused, int64_t unplaced)
{
    D->load = load;
    D->proposals += proposals;
    D->refused += refused;
    D->unplaced += unplaced;
}

/* ---------------------------------------------------------------------------------------------
 * PackDrop: the steps of tide_global_rank.h over MPI.
 * ------------------------------------------------------------------------------------------- */
static void pd_answered(dlb *D, void *ctx, int target, const proposal *p, bool accepted)
{
    (void)ctx;
    tide_packdrop_rank_answered(&D->pd, target, p->handle, accepted);
}

static void run_packdrop(dlb *D, const tide_global_params *prm, double *t_gather)
{
    double t0 = tide_now();
    double sums[2] = {D->load, (double)D->k}, total[2];
    MPI_Allreduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, D->L->comm);
    *t_gather = tide_now() - t0;
    tide_packdrop_rank *R = &D->pd;
    if (tide_packdrop_rank_begin(R, D->np, total[0], total[1], prm->packdrop_tolerance, D->k,
                                 D->w) != TIDE_PLAN_OK)
        tide_fatal("objects: packdrop rejected this rank's loads");
    if (!R->run || !dlb_any_rank(D->L->comm, R->nb > 0)) return;
    dlb_gossip(D, tide_packdrop_rank_announces(R), prm->gossip_fanout);
    int32_t *targets = malloc((size_t)D->np * sizeof *targets);
    TIDE_OBJ_NEED(targets);
    tide_packdrop_rank_targets(R, dlb_targets_of(D, targets), targets, &D->rng);
    while (dlb_any_rank(D->L->comm, tide_packdrop_rank_pending(R))) {
        D->handshake_rounds++;
        put_proposals(D, R->out, tide_packdrop_rank_propose(R));
        dlb_handshake(D, pd_answered, NULL);
    }
    tide_packdrop_rank_dest(R, D->dest);
    take_counters(D, R->load, R->proposals, R->refused, R->unplaced);
    free(targets);
}

/* ---------------------------------------------------------------------------------------------
 * DistributedLB: the steps of tide_global_rank.h over MPI.
 * ------------------------------------------------------------------------------------------- */
static void dist_answered(dlb *D, void *ctx, int target, const proposal *p, bool accepted)
{
    (void)ctx;
    tide_distributed_rank_answered(&D->dist, target, p->handle, accepted);
}

static void run_distributed(dlb *D, const tide_global_params *prm, double *t_gather)
{
    double t0 = tide_now();
    double sum, max;
    MPI_Allreduce(&D->load, &sum, 1, MPI_DOUBLE, MPI_SUM, D->L->comm);
    MPI_Allreduce(&D->load, &max, 1, MPI_DOUBLE, MPI_MAX, D->L->comm);
    *t_gather = tide_now() - t0;
    tide_distributed_rank *R = &D->dist;
    if (tide_distributed_rank_begin(R, D->me, D->np, sum, max, D->k, D->w, D->dest, prm) !=
        TIDE_PLAN_OK)
        tide_fatal("objects: distributed rejected this rank's loads");
    /* Every rank must take the same branch before a collective: a floating-point sum is not
     * guaranteed bit-identical on all ranks, so the decision itself is reduced. */
    if (dlb_any_rank(D->L->comm, R->stop)) return;
    dlb_gossip(D, tide_distributed_rank_announces(R), prm->gossip_fanout);
    int32_t *targets = malloc((size_t)D->np * sizeof *targets);
    double *heard = malloc((size_t)D->np * sizeof *heard);
    TIDE_OBJ_NEED(targets && heard);
    int64_t m = dlb_targets_of(D, targets);
    for (int64_t i = 0; i < m; i++)
        heard[i] = D->heard[targets[i]];
    TIDE_OBJ_NEED(tide_distributed_rank_targets(R, m, targets, heard) == TIDE_PLAN_OK);
    do {
        D->handshake_rounds++;
        put_proposals(D, R->out, tide_distributed_rank_propose(R, &D->rng));
        dlb_handshake(D, dist_answered, NULL);
        double new_max;
        MPI_Allreduce(&R->load, &new_max, 1, MPI_DOUBLE, MPI_MAX, D->L->comm);
        tide_distributed_rank_end(R, new_max);
    } while (!dlb_any_rank(D->L->comm, R->stop));
    take_counters(D, R->load, R->proposals, R->refused, R->unplaced);
    free(targets);
    free(heard);
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
    tide_packdrop_rank_free(&D->pd);
    tide_distributed_rank_free(&D->dist);
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
