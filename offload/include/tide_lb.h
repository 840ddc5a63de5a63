/* tide_lb.h - the interface of Tide's task strategies (TIDE_LB): a struct of callbacks that sees
 * a narrow view of its rank and acts through a table of actions. No MPI, no threads, no access
 * to the runtime: the same strategy runs inside libtide (the actions are the engine's transport),
 * in a unit test (the actions are fakes that record what was asked) and in a simulator.
 *
 * A strategy is one file plus its name in registry.cmake (registry.c's table is generated from it):
 *
 *   typedef struct { double next_try; } my_state;
 *   static const tide_lb_knob *const my_knobs[] = {&my_threshold, NULL};
 *   static void my_round(const tide_lb_view *v, const tide_lb_actions *a) {
 *       if (v->all[v->rank].queued > v->knob[0]) a->offload(a->ctx, (v->rank + 1) % v->size, 1);
 *   }
 *   const tide_lb_ops tide_lb_mine = {.name = "mine", .flags = TIDE_LB_ROUNDS,
 *                                     .state_size = sizeof(my_state), .knobs = my_knobs,
 *                                     .round = my_round};
 *
 * Every callback runs on the rank's communication thread, one at a time. docs/strategies.md walks
 * through adding one. */
#ifndef TIDE_LB_H
#define TIDE_LB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What every rank tells the others at phase start and at each round. Doubles only, so one
 * MPI_DOUBLE allgather carries it. */
typedef struct tide_rank_status {
    double ntasks;      /* own tasks of the phase */
    double L_pred;      /* predicted load of the phase (-1: no model yet) */
    double queued;      /* own tasks not started (movable) */
    double queued_in;   /* received tasks not started */
    double outstanding; /* own tasks not completed (0 everywhere = the phase is over) */
    double task_pred;   /* 1: per-task predictions of this phase's tasks exist (task model) */
    double L_unc;       /* uncertainty of L_pred (load units): the planner's margin */
    double L_suspect;   /* how far a suspect last load is from L_pred (tide_prediction.suspect):
                         * widens the margin of a rank-level prediction */
    /* What moving this rank's tasks costs (transfer-aware plans, docs/offload-planner.md): */
    double threads;     /* its workers */
    double task_bytes;  /* mean wire bytes of its queued own tasks (phase start; 0 elsewhere) */
    double send_bw;     /* bytes per second its sends drained at lately (0: not measured yet) */
    double plan_moving; /* 1: tasks of its plan are still on their way (tide_drain_busy) */
    double plan_at;     /* seconds after its phase opened at which its last phase_begin returned
                         * (TIDE_LB_START_EARLY: its workers ran meanwhile; 0: none yet) */
    /* The engine's phase check: the phase the rank is in (1 for its first tide_taskwait) or, in
     * tide_finalize, the phases it completed plus one half (tide_proto_finalizing_step). One
     * double for both, so that the record stays 14 doubles: every round allgathers it, 0.9 ms
     * at 512 simulated ranks on 1 GbE (docs/sim.md). */
    double phase;
} tide_rank_status;

#define TIDE_STATUS_DOUBLES (sizeof(tide_rank_status) / sizeof(double))

/* A control message of a strategy's own protocol (steal requests and answers). The engine
 * reserves op values from TIDE_LB_OP_ENGINE up. */
typedef struct tide_control {
    uint32_t op;    /* strategy-defined */
    uint32_t phase; /* the sender's phase */
    int64_t value;
    uint64_t seq;
} tide_control;

enum { TIDE_LB_OP_ENGINE = 1000 };

/* A strategy's knob: an environment variable TIDE_<...> with a documented default and range.
 * Values reach the strategy as doubles (choices as their index). */
typedef struct tide_lb_knob {
    const char *name; /* "TIDE_WS_THRESHOLD" */
    double def, min, max;
    bool integer;               /* only whole numbers */
    const char *const *choices; /* NULL, or the names of values 0, 1, ... (NULL-terminated) */
    const char *help;           /* one line for docs/config.md */
} tide_lb_knob;

/* The keys by which a strategy orders the ranks for its planner (tide_plan_order). */
typedef enum tide_lb_key {
    TIDE_LB_KEY_PRED,    /* L_pred: the predicted load (proact's plans) */
    TIDE_LB_KEY_BACKLOG, /* queued + queued_in: the tasks not started (react's pairing) */
    TIDE_LB_KEYS
} tide_lb_key;

/* A rank's value of a key: the load a strategy gives its planner for that rank. */
static inline double tide_lb_key_value(const tide_rank_status *s, tide_lb_key key)
{
    return key == TIDE_LB_KEY_PRED ? s->L_pred : s->queued + s->queued_in;
}

/* The rank orders of one status collective, made when first asked (tide_lb_order) and shared by
 * every view of its result: every rank plans from the same allgathered statuses, and in tide-sim
 * all simulated ranks share one process, so one sort serves them all. The host owns it, forgets
 * its orders whenever the statuses change (tide_lb_orders_forget) and frees it at the end
 * (tide_lb_orders_free). Zeroed, it is empty. */
typedef struct tide_lb_orders {
    int size;                     /* ranks the arrays have room for */
    bool made[TIDE_LB_KEYS];      /* order[k] holds the order of the current statuses */
    int32_t *order[TIDE_LB_KEYS]; /* ranks ascending by (key value, rank) */
    double *value;                /* room for one key's values */
} tide_lb_orders;

void tide_lb_orders_forget(tide_lb_orders *o);
void tide_lb_orders_free(tide_lb_orders *o);

/* What a strategy sees of its rank, made afresh for each callback. */
typedef struct tide_lb_view {
    int rank, size;
    int phase;        /* the phase this rank runs (or last ran) */
    bool running;     /* the phase runs: its tasks may still move */
    bool stopping;    /* tide_finalize is in progress: send no new requests */
    double now;       /* seconds, monotonic (simulated time in a simulator) */
    long phase_tasks; /* own tasks of the phase */
    long queued;      /* own tasks not started, now */
    long queued_in;   /* received tasks not started, now */
    long outgoing;    /* own tasks chosen to move whose message has not been posted yet */
    int threads;      /* this rank's workers */
    /* Every rank's status: at phase_begin (strategies with TIDE_LB_PHASE_SYNC) and round; NULL
     * in progress and control. */
    const tide_rank_status *all;
    tide_lb_orders *orders; /* with all: the cache of its orders (NULL: none, planners sort) */
    const double *knob;     /* the strategy's knobs, in the order of its `knobs` list */
    void *state;            /* state_size bytes, zeroed when the run starts, the strategy's own */
    uint64_t *rng;          /* this rank's random stream (tide_lb_rng) */
} tide_lb_view;

/* What a strategy can do. ctx is passed back to every action. */
typedef struct tide_lb_actions {
    void *ctx;
    /* Moves up to n not-yet-started own tasks to rank dest (from the back of the queue); returns
     * how many were taken. */
    int (*offload)(void *ctx, int dest, int n);
    /* Moves the own tasks whose position k when the phase opened has dest[k] != rank and that
     * are still queued; returns how many moved. n is the phase's own tasks (all[rank].ntasks). */
    int (*offload_selected)(void *ctx, const int32_t *dest, long n);
    /* Sends copies of up to n not-yet-started own tasks to dest; the first copy to complete wins.
     * Returns how many were replicated. */
    int (*replicate)(void *ctx, int dest, int n);
    void (*send_control)(void *ctx, int dest, const tide_control *msg);
    /* phase_begin only, every rank at the same point: gathers n doubles from each rank, counts[i]
     * from rank i, into out in rank order. */
    void (*allgatherv)(void *ctx, const double *mine, int n, const int *counts, double *out);
    /* Predicted times of the phase's n own tasks in their order when it opened (the task model's
     * weights, scaled to the served prediction); a task that started, or that the workers will
     * start before the plan is applied (TIDE_LB_START_EARLY), weighs minus its time
     * (tide_plan_freeze). False when there are none. */
    bool (*task_times)(void *ctx, double *times, long n);
    /* A broken protocol: ends the run with the message (does not return). */
    void (*fatal)(void *ctx, const char *msg);
    /* What a plan leaves on this rank, for the statistics: the predicted load above the average
     * after the plan (negative: below) and why it was not moved (tide_lb_limit). May be NULL. */
    void (*report_plan)(void *ctx, double residual, int limit);
    /* Takes back up to n own tasks that were chosen to move but whose message has not been
     * posted (the last ones the transport would send first); they run here. Returns how many. */
    int (*reclaim)(void *ctx, int n);
    /* For the statistics: seconds after the phase start at which the plan expects this rank's
     * last moved task to arrive (-1: it moves none). May be NULL. */
    void (*report_transfer)(void *ctx, double seconds);
    /* phase_begin only: this rank's task-model coefficients (at most max, TIDE_LB_COEF_MAX is
     * enough; 0 while its task model has no fit). May be NULL, with adopt_task_coef. */
    int (*task_coef)(void *ctx, double *out, int max);
    /* phase_begin only: weighs this rank's tasks with another task model's coefficients and
     * serves their sum as its prediction (*load; task_times then gives those weights); the last
     * call wins. False, nothing changed, when the coefficients do not fit its tasks (a NaN one
     * where a task's column is not 0) or it has none. May be NULL, with task_coef. */
    bool (*adopt_task_coef)(void *ctx, const double *coef, int n, double *load);
} tide_lb_actions;

/* The most coefficients a task model has: an intercept and 4 powers of 16 feature columns (8 of
 * the application's, 8 of a tool's). */
#define TIDE_LB_COEF_MAX 65

/* Why a planned rank keeps a predicted surplus. */
typedef enum tide_lb_limit {
    TIDE_LB_LIMIT_NONE = 0,    /* no surplus left (or no plan) */
    TIDE_LB_LIMIT_GRANULARITY, /* smaller than its lightest movable task: finer tasks would help */
    TIDE_LB_LIMIT_UNCERTAINTY, /* within the prediction's margin (TIDE_PROACT_MARGIN) */
    TIDE_LB_LIMIT_CAPACITY,    /* the underloaded ranks (beyond their margins) were full */
    TIDE_LB_LIMIT_COUNT
} tide_lb_limit;

enum {
    /* Every rank enters the phase before anything moves: a status allgather at phase start gives
     * phase_begin all ranks' status (and the engine holds workers until it returns). */
    TIDE_LB_PHASE_SYNC = 1u << 0,
    /* Status allgathers every TIDE_ROUND_US during the phase; round() sees each. */
    TIDE_LB_ROUNDS = 1u << 1,
    /* It plans from the load predictions (proact): finalize says when a run ended before any
     * phase had a prediction for every rank, so that no plan was ever made. */
    TIDE_LB_PLANS = 1u << 2,
    /* With TIDE_LB_PHASE_SYNC: the workers start the own tasks when the phase opens instead of
     * waiting for phase_begin, so that the status allgather and the strategy's own collectives
     * cost no worker time. phase_begin then moves only what is still queued: offload takes from
     * the back, and offload_selected names tasks by their position when the phase opened, skipping
     * those that started (task_times marks them with negative weights, tide_plan_freeze). */
    TIDE_LB_START_EARLY = 1u << 3,
    /* With TIDE_LB_PHASE_SYNC and TIDE_LB_ROUNDS: rounds_needed after phase_begin gives the same
     * answer on every rank (a function of the start statuses, which every rank has alike). A
     * phase that needs no rounds then ends with a barrier instead of a closing status
     * allgather: once every rank has joined it, every rank's own work is done, which is all
     * that allgather told (0.45 against 0.9 ms at 512 simulated ranks on 1 GbE). */
    TIDE_LB_ROUNDS_AGREED = 1u << 4,
    /* Its protocol pays only through the phase's time (it moves or copies tasks so that the
     * phase ends sooner): the plan gate may run phases without the protocol where it costs more
     * than it gains (tide_core_proto.h, "the plan gate"). Not for a strategy whose moves are
     * the point (random: benchmarks and tests that force offloads). */
    TIDE_LB_GATED = 1u << 5
};

typedef struct tide_lb_ops {
    const char *name;
    unsigned flags;
    size_t state_size;
    const tide_lb_knob *const *knobs; /* NULL-terminated, or NULL */
    const char *help;                 /* one line for docs */
    void (*phase_begin)(const tide_lb_view *v, const tide_lb_actions *a);
    void (*round)(const tide_lb_view *v, const tide_lb_actions *a);
    /* Every comm-thread loop turn while the phase runs. */
    void (*progress)(const tide_lb_view *v, const tide_lb_actions *a);
    /* Optional, with progress: the earliest time at which progress may act while the view
     * stays as it is (its queues, its state); INFINITY when only a change of the view can make
     * it act. It must never be late: progress called with this view at any earlier v->now does
     * nothing. libtide calls progress at every turn regardless; tide-sim skips the idle turns
     * before it, which gives the same run for a fraction of the simulation's work. */
    double (*quiet_until)(const tide_lb_view *v);
    /* Optional, with TIDE_LB_ROUNDS: after phase_begin and each round, whether the phase still
     * needs rounds every TIDE_ROUND_US (NULL: always). When false, this rank joins the next
     * round only once its own work is done, which is how a phase ends: a strategy whose round
     * would do nothing spares the ranks a status allgather per interval (on a slow network they
     * delay the tasks' data and results). Ranks may answer differently (a round completes when
     * the last rank joins it), except after phase_begin under TIDE_LB_ROUNDS_AGREED. */
    bool (*rounds_needed)(const tide_lb_view *v);
    /* A control message from rank src; may arrive in any phase (stale ones included), or after
     * the last one (v->running false). */
    void (*control)(const tide_lb_view *v, const tide_lb_actions *a, int src,
                    const tide_control *msg);
} tide_lb_ops;

/* ---- the registry (registry.c) ----------------------------------------------------------- */

/* The registered strategies, count in *n. */
const tide_lb_ops *const *tide_lb_all(size_t *n);
const tide_lb_ops *tide_lb_ops_find(const char *name);
/* Comma-separated names, for error messages and docs. */
const char *tide_lb_names(void);
/* Every distinct knob of every registered strategy (shared knobs once), count in *n. */
const tide_lb_knob *const *tide_lb_all_knobs(size_t *n);
/* Number of knobs of one strategy. */
size_t tide_lb_knob_count(const tide_lb_ops *ops);

/* The ranks of v->all in ascending (key value, rank) order, as the planners' _ordered forms take
 * it (tide_plan.h), made once per status collective; NULL without v->all or v->orders, or when
 * it cannot be made (no memory, a value the planners reject): the planner then sorts, and
 * rejects, itself. */
const int32_t *tide_lb_order(const tide_lb_view *v, tide_lb_key key);

/* splitmix64: the random stream strategies draw from (deterministic for a seed). */
static inline uint64_t tide_lb_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Shared between strategies: the reactive decision of one round (react.c), also used by
 * proact_react and the replication strategies. Knobs: tide_lb_knob_react_threshold and
 * tide_lb_knob_react_max_tasks, passed as values. Returns the partner and how many tasks this
 * rank should send it (0: none). */
typedef struct tide_lb_pair {
    int partner;
    int send;
} tide_lb_pair;
tide_lb_pair tide_lb_react_pair(const tide_lb_view *v, double threshold, double max_tasks);
extern const tide_lb_knob tide_lb_knob_react_threshold, tide_lb_knob_react_max_tasks;

#ifdef __cplusplus
}
#endif

#endif /* TIDE_LB_H */
