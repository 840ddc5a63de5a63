/*
 * tide_global.h - pure cores of Tide's global rescheduling strategies for persistent objects.
 *
 * A global strategy is given the measured load of every migratable object, its current owner
 * and, optionally, its state size, the communication volume between objects and the relative
 * speed of every rank; it returns a new owner for every object. Like tide_plan.h, every function
 * here is deterministic given its arguments (randomised strategies take a seed): no MPI, no
 * threads, no globals, no clocks, so every rank of a job and a simulator of thousands of virtual
 * ranks obtain the same mapping from the same bytes.
 *
 * The distributed strategies (packdrop, distributed) are offered twice: as per-rank step
 * functions (what one rank computes from what it knows: tide_packdrop_*, tide_gossip_*,
 * tide_distributed_*), and as a sequential simulation of a whole round over all ranks
 * (tide_global_packdrop, tide_global_distributed) that fits the common strategy signature.
 *
 * A mapping becomes a tide_move_plan (tide_plan.h) with named units through
 * tide_global_plan_from_mapping, so offloading and persistent migration share one transport.
 * Algorithms, interpretations of the papers and complexities: docs/global-strategies.md.
 *
 * Return values: TIDE_PLAN_OK, TIDE_PLAN_EINVAL (bad argument) or TIDE_PLAN_ENOMEM.
 */
#ifndef TIDE_GLOBAL_H
#define TIDE_GLOBAL_H

#include "tide_plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What every strategy sees. Objects are numbered 0 .. nobj-1; the caller keeps the table from
 * these indices to its own object ids. */
typedef struct tide_global_input {
    int32_t np;           /* ranks, >= 1 */
    int64_t nobj;         /* objects, >= 0 */
    const double *load;   /* nobj: work of each object per iteration, at speed 1 (finite, >= 0) */
    const int32_t *owner; /* nobj: current rank of each object, in [0, np) */
    const double *bytes;  /* nobj or NULL: state size (migration cost); only reported */
    /* np or NULL (all 1): relative speed (> 0). Rank r needs work / speed[r] time for its
     * objects; a runtime that measures wall time t of an object on rank r passes t * speed[r].
     * packdrop and distributed assume equal speeds and reject a non-NULL speed. */
    const double *speed;
    /* Optional communication graph, CSR over objects (all three NULL when absent): the edges of
     * object o are comm_adj[comm_off[o] .. comm_off[o+1]), comm_vol[e] the volume o sends to
     * comm_adj[e] per iteration. Direction does not matter: the comm strategies add u->v and
     * v->u. Self edges are ignored. Only greedy_comm and refine_comm read it. */
    const int64_t *comm_off; /* nobj + 1 */
    const int64_t *comm_adj;
    const double *comm_vol;
} tide_global_input;

typedef struct tide_global_params {
    uint64_t seed;             /* random, packdrop, distributed (default 1) */
    double refine_threshold;   /* refine(_comm): overloaded above threshold x average (1.05) */
    double smart_threshold;    /* smartlb acts only if (max - min) / max > this (0.05) */
    double comm_alpha;         /* *_comm: load units per volume unit paid at both ends (1e-9) */
    double packdrop_tolerance; /* v of ub(x) = (1 + v) x (0.05) */
    int32_t gossip_fanout;     /* peers per gossip send (2) */
    double dist_target_ratio;  /* distributed: done when max <= ratio x avg (1.05) */
    int32_t dist_max_trials;   /* distributed: random targets tried per object (8) */
    int32_t dist_max_phases;   /* distributed: transfer phases at most (10) */
} tide_global_params;

void tide_global_params_default(tide_global_params *params);

/* Every strategy has this signature: new_owner receives nobj ranks. params may be NULL
 * (defaults). Inputs are validated first (TIDE_PLAN_EINVAL). */
typedef int (*tide_global_fn)(const tide_global_input *in, const tide_global_params *params,
                              int32_t *new_owner);

int tide_global_none(const tide_global_input *in, const tide_global_params *params,
                     int32_t *new_owner);
/* GreedyLB: heaviest object first to the rank with the least time so far (binary heap),
 * ignoring the current mapping. O(n log n + n log np). */
int tide_global_greedy(const tide_global_input *in, const tide_global_params *params,
                       int32_t *new_owner);
/* RefineLB: the most loaded rank above refine_threshold x average gives its heaviest object
 * that keeps the least loaded rank within the threshold, until no rank is overloaded or no
 * such move exists. Never increases the maximum time. */
int tide_global_refine(const tide_global_input *in, const tide_global_params *params,
                       int32_t *new_owner);
/* RandCentLB: every object to a uniformly random rank (a control). */
int tide_global_random(const tide_global_input *in, const tide_global_params *params,
                       int32_t *new_owner);
/* Greedy / Refine with cost(rank) = time + comm_alpha x (volume crossing the rank boundary). */
int tide_global_greedy_comm(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner);
int tide_global_refine_comm(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner);
/* SmartLB: if (max - min) / max > smart_threshold, walk the objects of ranks at or above the
 * average (heaviest rank and heaviest object first) and move an object to the currently least
 * loaded rank when that keeps the receiver at or below the average. Never increases the max. */
int tide_global_smartlb(const tide_global_input *in, const tide_global_params *params,
                        int32_t *new_owner);
/* AverageLB (a baseline of the SmartLB paper; our reading): ranks above the average, heaviest
 * first, give their lightest objects to the currently least loaded rank while it is below the
 * average and the donor stays at or above it. No threshold. Never increases the max. */
int tide_global_average(const tide_global_input *in, const tide_global_params *params,
                        int32_t *new_owner);

/* Reports of the simulated distributed rounds (all counters over the whole simulated job). */
typedef struct tide_global_dist_report {
    int32_t gossip_rounds;   /* rounds until quiescence (message latency of the gossip) */
    int64_t gossip_messages; /* point-to-point gossip messages */
    int32_t overloaded;      /* ranks that tried to give work */
    int32_t underloaded;     /* ranks that announced themselves */
    int64_t batches;         /* packdrop: batches assembled; distributed: phases run */
    int64_t proposals;       /* handshake proposals (distributed: objects offered) */
    int64_t refused;         /* proposals refused by the target (negative acknowledgements) */
    int64_t unplaced;        /* packdrop: batches that found no target and stayed home;
                                distributed: objects for which no draw fitted */
    int64_t moved_objects;
} tide_global_dist_report;

/* Whole PackDrop / DistributedLB round simulated over all ranks (report may be NULL). */
int tide_global_packdrop_sim(const tide_global_input *in, const tide_global_params *params,
                             int32_t *new_owner, tide_global_dist_report *report);
int tide_global_distributed_sim(const tide_global_input *in, const tide_global_params *params,
                                int32_t *new_owner, tide_global_dist_report *report);
int tide_global_packdrop(const tide_global_input *in, const tide_global_params *params,
                         int32_t *new_owner);
int tide_global_distributed(const tide_global_input *in, const tide_global_params *params,
                            int32_t *new_owner);

/* ---------------------------------------------------------------------------------------------
 * Registry: the strategies by name, in the order of rescheduling/registry.cmake. A strategy
 * is its file, which defines `const tide_global_strategy tide_global_strategy_<name>`, and its
 * name in that list.
 * ------------------------------------------------------------------------------------------- */
/* How a runtime runs a strategy: centrally (every rank computes `plan` on the gathered loads), or
 * as one of the decentralized message protocols built from the per-rank steps above, of which
 * `plan` is then the sequential simulation. */
typedef enum tide_global_protocol {
    TIDE_GLOBAL_CENTRAL = 0,
    TIDE_GLOBAL_PROTO_PACKDROP,   /* gossip of underloaded ranks, then the batch handshake */
    TIDE_GLOBAL_PROTO_DISTRIBUTED /* gossip, then per-object probabilistic transfers */
} tide_global_protocol;

typedef struct tide_global_strategy {
    const char *name;
    tide_global_fn
        plan; /* the whole mapping from every object's load (a simulation when distributed) */
    tide_global_protocol protocol;
} tide_global_strategy;

const tide_global_strategy *tide_global_find(const char *name); /* NULL when unknown */
/* Every registered strategy, *n of them, in the registry's order. */
const tide_global_strategy *const *tide_global_strategies(size_t *n);
/* The strategies' names, ", "-separated, into buf (len bytes, truncated if short; always
 * terminated when len > 0): the list an error message offers. Returns the length the whole list
 * needs, as snprintf does. */
size_t tide_global_names(char *buf, size_t len);
/* The same list as one string, built on the first call as tide_lb_names's: what the
 * TIDE_GLOBAL_LB row offers (tide_core_config.h). */
const char *tide_global_name_list(void);

/* ---------------------------------------------------------------------------------------------
 * Results.
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_global_summary {
    double max_before, max_after;   /* max over ranks of time = work / speed */
    double avg;                     /* total work / total speed: the balanced time */
    int64_t moved;                  /* objects whose owner changed */
    double bytes_moved;             /* sum of their bytes (0 when bytes == NULL) */
    double comm_before, comm_after; /* volume between objects on different ranks (0 if no graph) */
} tide_global_summary;

int tide_global_summarize(const tide_global_input *in, const int32_t *new_owner,
                          tide_global_summary *out);

/* Plan with named units: one move per (from, to) pair with the moved object indices, ascending,
 * in plan->ids (room for nobj ids); plan->moves needs room for every (from, to) pair that occurs
 * (nobj always suffices). plan->np must equal np. EINVAL when a capacity is too small. */
int tide_global_plan_from_mapping(int32_t np, int64_t nobj, const int32_t *owner,
                                  const int32_t *new_owner, tide_move_plan *plan);

/* ---------------------------------------------------------------------------------------------
 * PackDrop, what one rank computes (Freitas, Pilla et al., "PackDrop: A Batch Task Migration
 * Approach for Decentralized Global Rescheduling").
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_packdrop_globals {
    double avg;  /* average rank load (first reduction / np) */
    int64_t ttc; /* total object count (second reduction) */
    double ub;   /* ub(avg) = (1 + v) avg */
    double ps;   /* batch size in objects: 2 - np / ttc */
    double s;    /* batch load threshold: ps x mean object load (total / ttc) */
} tide_packdrop_globals;

/* From the two reductions (sum of loads, sum of object counts). EINVAL on bad values. */
int tide_packdrop_globals_make(int32_t np, double total_load, int64_t ttc, double tolerance,
                               tide_packdrop_globals *g);

/* BatchAssembly on one rank holding k objects of loads w[0..k) (rank load = sum w plus
 * extra_load that cannot move). While the rank is above ub, take its lightest remaining object
 * into the open batch; close the batch when its load passes s; the last partial batch is sent
 * too. batch_of[i] = batch index of object i or -1 (stays); *nbatches, and batch_load[b] for
 * b < *nbatches (room for k entries). Ties of equal loads: lower index first. */
int tide_packdrop_assemble(int64_t k, const double *w, double extra_load,
                           const tide_packdrop_globals *g, int32_t *batch_of, int64_t *nbatches,
                           double *batch_load);

/* Target side of the three-way handshake: accept a batch only if the receiver's load, counting
 * batches it already accepted in this round, stays at or under ub(avg). */
bool tide_packdrop_accept(double receiver_load, double batch_load, const tide_packdrop_globals *g);

/* The generator state rank r starts a distributed round with, from the round's seed: the
 * simulations above and the runtime's message protocol (runtime/objects/dlb.c) seed alike. */
uint64_t tide_global_rank_seed(uint64_t seed, int32_t r);
/* Uniform in [0, n) from such a stream (advanced), n >= 1: the draws the strategies make. */
uint64_t tide_global_rand_below(uint64_t *state, uint64_t n);

/* ---------------------------------------------------------------------------------------------
 * Gossip of underloaded ranks (push, fanout peers, forward only what is new, until quiescence).
 * A rank's knowledge is a bitset of np bits (words of 64): bit r = rank r is underloaded.
 * ------------------------------------------------------------------------------------------- */
size_t tide_gossip_words(int32_t np);
/* fanout distinct peers != me, uniformly, drawn with *rng (advanced); returns how many (fewer
 * when np - 1 < fanout). */
int32_t tide_gossip_peers(int32_t np, int32_t me, int32_t fanout, uint64_t *rng, int32_t *peers);
/* known |= msg; returns the number of newly learned ranks (> 0: forward next round). */
int64_t tide_gossip_merge(int32_t np, uint64_t *known, const uint64_t *msg);

/* ---------------------------------------------------------------------------------------------
 * DistributedLB (Charm++'s DistributedLB, after Grapevine), what one rank computes once gossip
 * told it the loads of some underloaded ranks. The round runs in phases with a transfer
 * threshold T that starts at (max + avg) / 2 and relaxes towards ratio x avg.
 * ------------------------------------------------------------------------------------------- */
/* Cumulative selection weights over m known targets: weight of target i = avg - tload[i]
 * (its free room, 0 if none); cdf[m-1] is the total. */
void tide_distributed_cdf(int64_t m, const double *tload, double avg, double *cdf);
/* Sender side for one object of work w: draw up to max_trials targets from the cdf and return
 * the first whose load as this sender sees it (tview) plus w stays below threshold, or -1.
 * Counters (may be NULL) add the draws and the draws that did not fit. */
int64_t tide_distributed_pick(int64_t m, const double *tview, const double *cdf, double w,
                              double threshold, int32_t max_trials, uint64_t *rng, int64_t *draws,
                              int64_t *misses);
/* Receiver side (the acknowledgement): accept the object only if its own load plus w stays at or
 * under the threshold; otherwise the sender keeps it (negative acknowledgement). */
bool tide_distributed_accept(double receiver_load, double w, double threshold);
/* Next phase's threshold after a phase that took the max/avg ratio from old_ratio to ratio. */
double tide_distributed_next_threshold(double threshold, double max_load, double avg,
                                       double old_ratio, double ratio);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_GLOBAL_H */
