/*
 * tide_global_rank.h - one rank's side of the decentralized protocols of PackDrop and
 * DistributedLB, as step functions over an explicit per-rank state.
 *
 * The per-rank rules (tide_global.h: tide_packdrop_*, tide_distributed_*) say what a rank
 * computes from what it knows; these steps say in which order, with which state carried between
 * the messages. Three drivers call them: libtide's message protocol (runtime/objects/dlb.c, MPI),
 * tide-sim's (sim/src/global_dlb.cpp, SimGrid actors) and the sequential simulations of a whole
 * round (tide_global_packdrop_sim, tide_global_distributed_sim). A driver owns the transport:
 * the reductions, gossip (it hands the targets it heard of to the state) and the handshake (it
 * carries the proposals a step wrote to their targets, asks each target's answer step, and
 * hands every verdict back to the proposer's answered step, target by target in ascending rank
 * order and in the order written for one target). Pure: no I/O, no globals; the random draws
 * come from the rank's stream the driver passes (the one its gossip draws from too).
 *
 * Return values: TIDE_PLAN_OK, TIDE_PLAN_EINVAL or TIDE_PLAN_ENOMEM.
 */
#ifndef TIDE_GLOBAL_RANK_H
#define TIDE_GLOBAL_RANK_H

#include "tide_global.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a step asks the driver to send: to `target`, the proposer's handle (a batch or an object
 * index) and the load offered. */
typedef struct tide_dlb_proposal {
    int32_t target;
    int64_t handle;
    double load;
} tide_dlb_proposal;

/* ---------------------------------------------------------------------------------------------
 * PackDrop: begin after the two sums, gossip (driver), targets, then rounds of propose / answer /
 * answered while any rank has a batch pending (the driver reduces tide_packdrop_rank_pending),
 * and dest at the end.
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_packdrop_batch {
    double load;
    int32_t target;        /* accepted by, -1 while pending or unplaced */
    int64_t tries;         /* targets asked so far */
    int64_t start, stride; /* the walk through the known targets */
} tide_packdrop_batch;

typedef struct tide_packdrop_rank {
    bool run;                /* false: no object anywhere, the round does nothing */
    tide_packdrop_globals g; /* ub(avg) is the receivers' limit */
    double load;             /* own kept + accepted, as the protocol goes */
    int64_t k;               /* this rank's objects */
    int32_t *batch_of;       /* k: batch of each object or -1 */
    int64_t nb;              /* batches this rank assembled */
    tide_packdrop_batch *b;  /* nb */
    int64_t m;               /* known targets */
    const int32_t *targets;  /* m, the driver's (kept until the last round) */
    int64_t *pending, npend; /* batches to propose next round */
    tide_dlb_proposal *out;  /* what the last propose step wrote */
    int64_t proposals, refused, unplaced;
} tide_packdrop_rank;

/* After the reductions (total load, total object count): the globals and, on a rank above
 * ub(avg), BatchAssembly of its k objects of loads w (load = their sum). */
int tide_packdrop_rank_begin(tide_packdrop_rank *R, int32_t np, double total_load, double ttc,
                             double tolerance, int64_t k, const double *w);
/* Whether this rank announces itself in the gossip (below the average). */
bool tide_packdrop_rank_announces(const tide_packdrop_rank *R);
/* After gossip: the m ranks heard of other than this one; every batch draws its walk through
 * them from rng (start, then a stride coprime with m); with m = 0 every batch stays. */
void tide_packdrop_rank_targets(tide_packdrop_rank *R, int64_t m, const int32_t *targets,
                                uint64_t *rng);
bool tide_packdrop_rank_pending(const tide_packdrop_rank *R);
/* One round: every pending batch to its next target, into R->out; returns how many. */
int64_t tide_packdrop_rank_propose(tide_packdrop_rank *R);
/* Receiver: accept (and count) the load offered if this rank stays within ub(avg). */
bool tide_packdrop_rank_answer(tide_packdrop_rank *R, double load);
/* Proposer: target's verdict on batch `handle`; a refused batch tries the next target next
 * round, or stays when every known target refused. */
void tide_packdrop_rank_answered(tide_packdrop_rank *R, int32_t target, int64_t handle,
                                 bool accepted);
/* dest[i] = the target that accepted object i's batch (other entries untouched). */
void tide_packdrop_rank_dest(const tide_packdrop_rank *R, int32_t *dest);
void tide_packdrop_rank_free(tide_packdrop_rank *R);

/* ---------------------------------------------------------------------------------------------
 * DistributedLB: begin after the sum and the max (the driver reduces R->stop: any rank's vote
 * ends the round), gossip (driver), targets, then phases of propose / answer / answered / end
 * (after the max reduction; again the driver reduces R->stop).
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_distributed_rank {
    int32_t me, np;
    bool stop;               /* this rank's vote: the round is over */
    tide_global_params prm;  /* dist_target_ratio, dist_max_trials, dist_max_phases */
    double avg, goal;        /* goal = ratio x avg */
    double threshold, ratio; /* this phase's transfer threshold, max / avg */
    int32_t phase;           /* phases begun */
    double load;             /* own kept + accepted, as the protocol goes */
    int64_t k;               /* this rank's objects */
    const double *w;         /* k: their loads (the driver's) */
    int32_t *dest;           /* k: new owner of each (the driver's; `me` while it stays) */
    int64_t *objs;           /* k: object indices, smallest load first, ties by index */
    int64_t m;               /* known targets */
    const int32_t *targets;  /* m, the driver's */
    int32_t *slot;           /* np: index of a rank among the targets, -1 otherwise */
    double *heard, *sent;    /* m: announced load, load accepted from this rank so far */
    double *view, *cdf;      /* m: this phase's view of the targets and the draw weights */
    bool *full;              /* m: refused a proposal: asked no more */
    tide_dlb_proposal *out;  /* what the last propose step wrote */
    bool sending;            /* this phase: above the threshold with a target to ask */
    int64_t proposals, refused, unplaced, moved;
} tide_distributed_rank;

/* After the reductions (sum and max of the ranks' loads): the goal, and the vote R->stop when
 * nothing is to do. dest (k entries) is set to me. prm NULL: defaults. */
int tide_distributed_rank_begin(tide_distributed_rank *R, int32_t me, int32_t np, double sum,
                                double max, int64_t k, const double *w, int32_t *dest,
                                const tide_global_params *prm);
/* Whether this rank announces itself in the gossip (below ratio x avg). */
bool tide_distributed_rank_announces(const tide_distributed_rank *R);
/* After gossip: the m ranks heard of other than this one and the loads they announced; the
 * first phase's threshold (max + avg) / 2. */
int tide_distributed_rank_targets(tide_distributed_rank *R, int64_t m, const int32_t *targets,
                                  const double *heard);
/* A phase begins (every rank calls it: a receiver answers against its threshold): a rank above
 * the threshold offers its objects, smallest first, to targets drawn by room from rng, into
 * R->out; returns how many. */
int64_t tide_distributed_rank_propose(tide_distributed_rank *R, uint64_t *rng);
/* Receiver: accept (and count) the load offered if this rank stays at or under the threshold. */
bool tide_distributed_rank_answer(tide_distributed_rank *R, double load);
/* Proposer: target's verdict on object `handle`; a refusal closes that target for this sender. */
void tide_distributed_rank_answered(tide_distributed_rank *R, int32_t target, int64_t handle,
                                    bool accepted);
/* After the phase and the max reduction: the vote R->stop and the next phase's threshold. */
void tide_distributed_rank_end(tide_distributed_rank *R, double new_max);
void tide_distributed_rank_free(tide_distributed_rank *R);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_GLOBAL_RANK_H */
