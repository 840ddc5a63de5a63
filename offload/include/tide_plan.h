/*
 * tide_plan.h - pure planning cores of Tide's balancing strategies.
 *
 * Every function here is a deterministic function of its arguments: no MPI, no threads, no
 * globals, no clocks. The runtime allgathers the inputs, and every rank calls the same function on
 * the same bytes, so every rank obtains the same plan without a second round of communication.
 * A simulator can call the same functions for thousands of virtual ranks.
 *
 * Error values are negative and equal to the matching tide_error values of tide.h
 * (TIDE_ERR_INVALID, TIDE_ERR_NOMEM), so the runtime can pass them through unchanged.
 *
 * The algorithms, the rounding rule and the tie-breaking are documented in docs/offload-planner.md.
 */
#ifndef TIDE_PLAN_H
#define TIDE_PLAN_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TIDE_PLAN_OK = 0,
    TIDE_PLAN_EINVAL = -1, /* bad argument: np < 1, null pointer, negative/NaN load or count */
    TIDE_PLAN_ENOMEM = -4  /* scratch == NULL and the internal allocation failed */
};

/* ---------------------------------------------------------------------------------------------
 * Move plans: the one representation every planner produces.
 *
 * A plan is a list of moves "rank `from` hands `count` units to rank `to`". A unit is whatever
 * the strategy balances: a not-yet-started task of the current phase (per-iteration offloading,
 * where any `count` tasks from the end of the queue will do and `unit_ids` is NULL), or a named
 * persistent object (migration of chare-like objects, where `unit_ids` lists exactly which
 * `count` objects leave). The same list drives the transport in both cases; a strategy that
 * needs named units fills `unit_ids`, one that counts leaves it NULL.
 *
 * Moves are ordered by (from, to) ascending and never have from == to or count == 0, so two
 * ranks that build the same plan hold byte-identical lists, and a rank finds its outgoing moves
 * as one contiguous run (tide_plan_moves_from).
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_move {
    int32_t from;
    int32_t to;
    int64_t count;
    /* NULL: any `count` movable units of `from`. Otherwise `count` ids owned by the plan's
     * id storage (see tide_move_plan), meaningful to the strategy that made the plan. */
    const int64_t *unit_ids;
} tide_move;

typedef struct tide_move_plan {
    int32_t np;       /* ranks the plan is about */
    size_t nmoves;    /* moves[0 .. nmoves) are valid */
    size_t capacity;  /* room in moves[] */
    tide_move *moves; /* caller-owned; np - 1 entries always suffice for tide_plan_proact */
    int64_t *ids;     /* caller-owned id storage for named units, NULL when units are counted */
} tide_move_plan;

/* Index of the first move whose from == rank, and the number of such moves (*n). */
size_t tide_plan_moves_from(const tide_move_plan *plan, int32_t rank, size_t *n);

/* Expand a plan into the dense tracking table TB (np x np, row-major): TB[i*np+j] = units i sends
 * to j, and the diagonal TB[i*np+i] = kept[i] - the units i keeps. With kept[i] = N_i minus the
 * units i sends, every row sums to N_i. Returns TIDE_PLAN_OK or TIDE_PLAN_EINVAL. */
int tide_plan_table(const tide_move_plan *plan, const int64_t *n_tasks, int64_t *tb);

/* The row of `me` only (np entries): what the runtime needs on rank `me`. Same semantics as one
 * row of tide_plan_table; O(np) instead of O(np^2). */
int tide_plan_row(const tide_move_plan *plan, const int64_t *n_tasks, int32_t me, int64_t *row);

/* ---------------------------------------------------------------------------------------------
 * The load order: every planner below starts by sorting the ranks by (load[i], i) ascending.
 * A caller that plans from the same loads many times (every rank of a collective plans from the
 * same allgathered loads, and tide-sim runs all of them in one process) sorts once with
 * tide_plan_order and passes the order to a planner's _ordered form, which checks it in O(np)
 * instead of sorting: an order that is not exactly that sort of `load` is TIDE_PLAN_EINVAL.
 * order == NULL: the planner sorts. The plan is the same either way.
 * ------------------------------------------------------------------------------------------- */
/* order receives np ranks in ascending (load, rank) order. Returns TIDE_PLAN_OK,
 * TIDE_PLAN_EINVAL (np < 1, a null pointer, a negative or non-finite load) or TIDE_PLAN_ENOMEM. */
int tide_plan_order(int32_t np, const double *load, int32_t *order);

/* ---------------------------------------------------------------------------------------------
 * Proactive planner (Algorithm 1 of Chung, Schulz et al., "Proactive task offloading for load
 * balancing in iterative applications"), uniform task weights.
 *
 * load[i]    predicted load of rank i for the coming phase (>= 0, finite)
 * n_tasks[i] movable (not-yet-started) tasks of rank i (>= 0); w_hat_i = load[i] / n_tasks[i]
 *
 * Ranks above the mean L_avg give whole tasks to ranks below it, the most loaded offloader
 * first, the least loaded victim first. Guarantees (docs/offload-planner.md proves them):
 *   - only ranks with load > L_avg send, only ranks with load < L_avg receive;
 *   - a sender never drops below L_avg and never sends more than it has;
 *   - predicted max load after the plan < L_avg + max w_hat (over ranks that have tasks);
 *   - at most np - 1 moves; O(np log np) for the sort plus O(K + V) for the walk.
 *   - the plan depends only on the (load, n_tasks) pairs: relabelling ranks with distinct loads
 *     relabels the plan; equal loads are ordered by rank id.
 *
 * scratch: NULL (allocated internally) or tide_plan_proact_scratch_bytes(np) bytes, aligned for
 * double. plan->moves needs capacity >= np - 1 (np >= 1); plan->ids is not used.
 * Returns TIDE_PLAN_OK, TIDE_PLAN_EINVAL or TIDE_PLAN_ENOMEM. */
size_t tide_plan_proact_scratch_bytes(int32_t np);
int tide_plan_proact(int32_t np, const double *load, const int64_t *n_tasks, void *scratch,
                     tide_move_plan *plan);

/* The same plan for uncertain predictions. margin[i] >= 0 (finite) is rank i's uncertainty, in
 * load units: a rank sends only when its surplus exceeds margin[i], and then its whole surplus
 * (what a sender keeps is the phase's critical path), and takes only what fills its deficit
 * below L_avg - margin[i], so an under-prediction within the margin cannot make a victim a new
 * critical path. margin == NULL (or all zeros) gives exactly the plan of tide_plan_proact.
 * Guarantees (docs/offload-planner.md, "Uncertain predictions"): a sender ends at or above
 * L_avg; a victim ends below L_avg - margin[j] + w_hat of its sender; only ranks beyond their
 * margins send or receive. */
int tide_plan_proact_margin(int32_t np, const double *load, const double *margin,
                            const int64_t *n_tasks, void *scratch, tide_move_plan *plan);
/* With the load order given (tide_plan_order; NULL: sorted here). */
int tide_plan_proact_ordered(int32_t np, const double *load, const double *margin,
                             const int32_t *order, const int64_t *n_tasks, void *scratch,
                             tide_move_plan *plan);

/* ---------------------------------------------------------------------------------------------
 * Proactive planner with per-task predicted weights.
 *
 * load[i]      predicted load of rank i, including work that cannot move (running tasks)
 * task_off     CSR offsets, np + 1 entries: rank i's movable tasks are task_w[task_off[i] ..
 *              task_off[i+1]), each a predicted weight >= 0
 * dest         out, task_off[np] entries: dest[task_off[i] + t] = rank that runs task t of rank i
 *              (i itself when the task stays)
 *
 * Same walk as tide_plan_proact, but the moved load is built from real weights: for each
 * (offloader, victim) pair the offloader hands over its largest task that fits both the
 * victim's deficit and its own surplus; when none fits the deficit, its smallest task that fits
 * its surplus, and that victim is then full. Among equal weights the task with the higher
 * index (later in the queue) leaves first; zero-weight tasks never move. plan receives one move per
 * (from, to) pair with the count; plan->ids, when non-NULL (room for task_off[np] ids), receives
 * the moved task indices (local to `from`, ascending) and each move's unit_ids points into it.
 * Guarantee: predicted max load after the plan < L_avg + max task weight, for ranks whose
 * unmovable load (load minus movable weights) is <= L_avg.
 * scratch: NULL or tide_plan_proact_weighted_scratch_bytes(np, task_off[np]) bytes. */
size_t tide_plan_proact_weighted_scratch_bytes(int32_t np, int64_t ntasks_total);
int tide_plan_proact_weighted(int32_t np, const double *load, const int64_t *task_off,
                              const double *task_w, void *scratch, int32_t *dest,
                              tide_move_plan *plan);
/* With per-rank margins, as tide_plan_proact_margin: margin == NULL gives the plan above. */
int tide_plan_proact_weighted_margin(int32_t np, const double *load, const double *margin,
                                     const int64_t *task_off, const double *task_w, void *scratch,
                                     int32_t *dest, tide_move_plan *plan);
/* With the load order given (tide_plan_order; NULL: sorted here). */
int tide_plan_proact_weighted_ordered(int32_t np, const double *load, const double *margin,
                                      const int32_t *order, const int64_t *task_off,
                                      const double *task_w, void *scratch, int32_t *dest,
                                      tide_move_plan *plan);

/* ---------------------------------------------------------------------------------------------
 * Transfer-aware plans: what a plan's moves cost (docs/offload-planner.md, "What moves cost").
 *
 * A proactive plan says how many tasks leave each rank; this step decides which of those moves
 * pay for their transfer. Each sender's tasks leave one after another in the transport's order
 * from the time its plan is made (ready, seconds after the phase start: the plan's collectives
 * while its workers already run) at the rate its sends drained at lately (bw, bytes per second),
 * so its k-th task arrives at ready + k * bytes / bw after the phase start. A rank with T workers
 * and predicted load L works until L / T (a fluid model of its workers). A moved task of weight w
 * that arrives at A on rank j starts at max(end_j, A) and ends at c = max(start + w / T_j, A + w).
 * The move is made when c is earlier than the end of its sender while the sender still holds it:
 * then neither rank ends later than without the move, so under the model no rank ends later than
 * with no moves at all. A move that fails this test is dropped, with every later move of the same
 * (sender, receiver) pair (they would arrive later still); a dropped move takes no link time.
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_xfer_rank {
    double load;    /* predicted load before the plan, in task-seconds (>= 0) */
    double threads; /* workers (> 0) */
    double bw;      /* bytes per second its task messages drain at; 0: unknown (moves are free) */
    double bytes;   /* wire bytes of one of its tasks (>= 0) */
    double ready;   /* seconds after the phase start when its first send can leave (>= 0) */
} tide_xfer_rank;

typedef struct tide_xfer_send {
    int32_t from, to;
    int64_t unit;   /* the caller's name for the task, carried along */
    double weight;  /* predicted time of the task (>= 0) */
    double arrival; /* out: seconds after the phase start at which it arrives; -1: it stays */
} tide_xfer_send;

/* Reorders sends (stable within a (from, to) pair) into the order libtide's transport sends
 * them: per sender, round-robin over its receivers in ascending rank order, one task per
 * receiver per pass. Returns TIDE_PLAN_OK, TIDE_PLAN_EINVAL or TIDE_PLAN_ENOMEM. */
int tide_plan_transfer_order(int32_t np, tide_xfer_send *sends, size_t n);

/* Decides sends[k].arrival for every send, given in each sender's send order (senders may
 * interleave). finish (NULL, or np entries) receives each rank's predicted end after the kept
 * moves, seconds after the phase start: a sender can take back whatever it still holds then
 * (its tasks are late). Deterministic: every rank gets the same answer from the same input.
 * Returns TIDE_PLAN_OK, TIDE_PLAN_EINVAL (bad rank, weight, load, threads, bw, bytes or ready)
 * or TIDE_PLAN_ENOMEM. */
int tide_plan_transfer(int32_t np, const tide_xfer_rank *rank, tide_xfer_send *sends, size_t n,
                       double *finish);

/* A plan made while the workers already run (TIDE_LB_START_EARLY) may move only what is still
 * queued when its sends take it. A rank's n task weights, by the tasks' positions when the phase
 * opened (w[k] >= 0), are marked for the plan: queued[0 .. nq) are the positions of the tasks
 * still queued, in the order the workers take them; every other task started. Each started
 * task, and the first queued ones until their weights reach budget (the task-seconds its
 * workers start before the plan is applied), get -w[k]; the rest stay. The planner reads a
 * negative weight as load that cannot move. Positions outside [0, n) are ignored. */
void tide_plan_freeze(double *w, long n, const long *queued, long nq, double budget);

/* The rate a rank's burst of moves drains at (send_bw in the status and the statistics): the
 * bytes of a plan's task messages over the time from the burst's first task waiting to leave
 * until its last message completed (while tasks wait, the in-flight bound is full or a throttle
 * holds them; then the messages posted in the burst finish). That is whatever limits a burst:
 * MPI, the network, the receivers' comm threads matching the messages, the sender's own turns
 * on a busy node. A burst that MPI takes at once (small tasks, a bound that never fills) is
 * measured too, from its post to its last completion: a slow network shows there. Task
 * messages outside a plan's burst (react's moves, one partner at a time) are not counted.
 * The estimate is the best rate of
 * the last TIDE_DRAIN_PHASES phases that measured one: on a busy node the rate swings several
 * times from phase to phase, and a plan made for the slow moments keeps on the sender work that
 * the fast ones would have moved; proact's safety net covers the slow moments instead. The
 * caller passes its clock (libtide's tide_now, tide-sim's simulated time). */
#define TIDE_DRAIN_PHASES 4
typedef struct tide_drain {
    int open;     /* tasks of the burst wait to be posted */
    int burst;    /* a burst is being measured, since `since` */
    long pending; /* its posted task messages not completed yet */
    double since;
    double time, bytes; /* this phase's burst time and the burst's task bytes completed in it */
    double last_done;   /* when this phase's last task message completed; 0: none */
    double rate[TIDE_DRAIN_PHASES]; /* bytes/s of the last phases that measured one (0: none) */
    int next;                       /* where the next phase's rate goes */
    double best;                    /* the highest of rate[] (tide_drain_rate) */
} tide_drain;

/* Tasks of a plan wait to be posted: a burst begins (or goes on). Only a plan's burst is
 * measured: reactive moves go to one partner at a time, and measured 10-40x below the rate of a
 * plan's burst to many receivers. */
void tide_drain_waiting(tide_drain *d, double now);
/* None waits any more: the burst ends when its posted messages have completed. */
void tide_drain_flowing(tide_drain *d, double now);
/* A task message is posted: true when it belongs to the burst being measured (the driver keeps
 * the answer with the message and passes it to tide_drain_completed). */
bool tide_drain_posted(tide_drain *d);
/* A task message of len bytes completed; burst: what tide_drain_posted said when it was posted. */
void tide_drain_completed(tide_drain *d, double len, double now, bool burst);
/* At phase end: folds the phase in, returns the estimate (bytes/s, 0: never measured) and in
 * *last_done when the phase's last task message completed (0: none), and starts a new phase. */
double tide_drain_phase_end(tide_drain *d, double now, double *last_done);
/* The estimate: the best of the recent phases' rates (0: never measured). */
double tide_drain_rate(const tide_drain *d);
/* A plan's tasks are on their way: some wait to be posted or are posted and not completed. */
static inline bool tide_drain_busy(const tide_drain *d)
{
    return d->burst != 0;
}

/* ---------------------------------------------------------------------------------------------
 * Reactive pairing (Chameleon's react_mig decision), evaluated by every rank at each exchange.
 *
 * Ranks are ordered by (load, rank id). Upper-half rank at position p pairs with the rank at
 * position np-1-p (most loaded with least loaded, 2nd with 2nd-least, ...); with odd np the
 * median rank is unpaired. A pair moves work only if the global imbalance (max-min)/max and the
 * pair's (L_hi-L_lo)/L_hi both reach min_rel_imbalance and L_hi - L_lo >= min_abs_imbalance.
 * The sender moves k = round((L_hi-L_lo) / (2 w)) tasks (the split that equalises the pair),
 * where w = load per task of the sender (load/n_tasks, or 1 when loads are queue lengths),
 * k = 0 when the gap is not larger than one task, and k <= max_tasks and k <= its n_tasks.
 * ------------------------------------------------------------------------------------------- */
typedef struct tide_react_params {
    double min_rel_imbalance; /* e.g. 0.05 (Chameleon's default) */
    double min_abs_imbalance; /* in load units, e.g. 2 queued tasks */
    int64_t max_tasks;        /* bound per decision, >= 1 */
} tide_react_params;

typedef struct tide_react_decision {
    int32_t partner; /* the paired rank, -1 when unpaired */
    int64_t send;    /* tasks this rank sends to partner now (0 when it is the receiver) */
    int64_t recv;    /* tasks this rank should expect from partner now */
} tide_react_decision;

/* n_tasks may be NULL: loads are queue lengths and one task weighs 1.
 * scratch: NULL or tide_plan_react_scratch_bytes(np) bytes. */
size_t tide_plan_react_scratch_bytes(int32_t np);
int tide_plan_react(int32_t np, const double *load, const int64_t *n_tasks,
                    const tide_react_params *params, int32_t me, void *scratch,
                    tide_react_decision *out);
/* With the load order given (tide_plan_order; NULL: sorted here). */
int tide_plan_react_ordered(int32_t np, const double *load, const int32_t *order,
                            const int64_t *n_tasks, const tide_react_params *params, int32_t me,
                            void *scratch, tide_react_decision *out);
/* The decisions of all ranks at once (out has np entries), e.g. for a simulator or tests. */
int tide_plan_react_all(int32_t np, const double *load, const int64_t *n_tasks,
                        const tide_react_params *params, void *scratch, tide_react_decision *out);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_PLAN_H */
