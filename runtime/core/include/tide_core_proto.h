/*
 * tide_core_proto.h - the phase protocol (termination), written once for libtide and tide-sim.
 *
 * One phase, on every rank, every collective in the same order:
 *   IDLE ─ a phase is requested ─ OPEN ─┬─ strategy plans at start (TIDE_LB_PHASE_SYNC):
 *                                       │  status allgather (start) ─ START_SYNC ─ BEGIN(all)
 *                                       └─ BEGIN(NULL) ─────────────────────────────────────► RUN
 *   RUN with rounds (TIDE_LB_ROUNDS): a status allgather when own work is done or the round is
 *       due (TIDE_ROUND_US after the strategy's last say) ─ ROUND: no outstanding work on any
 *       rank ─ records allgather (GATHER); else the strategy's ROUND(all) and back to RUN
 *   RUN without rounds: one status allgather once own work is done ─ END ─ records allgather;
 *       with the start sync, a barrier instead of that status allgather: the start sync's
 *       statuses already agreed on the phase, and no rank reads the end's
 *       (0.9 ms against 0.45 ms at 512 simulated ranks on 1 GbE). The same barrier ends a
 *       phase with rounds that needs none, when the ranks agree on that by construction
 *       (TIDE_LB_ROUNDS_AGREED and no round yet: every rank's first collective after BEGIN
 *       is then its closing one)
 *   GATHER: the records arrived ─ FINISH (statistics, workers released, the model observes)
 * Every status record carries the rank's phase number (or, in the closing allgather only
 * libtide makes, the finalizing step: tide_proto_finalizing_step), and every arrived status set is
 * checked for agreement: a rank that called tide_taskwait more or fewer times meets the others in a
 * collective of the same shape, and every rank sees the same MISMATCH.
 *
 * The core decides; the driver does. A driver asks tide_proto_needs() which inputs the state
 * reads, fills them, calls tide_proto_step() and carries out the returned actions in the order
 * of their bits (OPEN, BEGIN, ROUND, the posts, FINISH). What a driver keeps: posting and testing
 * the collectives (libtide: MPI_Iallgather on coll_comm; tide-sim: its collective model), the
 * clock, waking, the strategy's calls, statistics and the prediction at open and finish.
 * libtide's comm thread steps once per loop turn; tide-sim's comm actor steps until nothing is
 * left to do and then waits for what tide_proto_wait_for() names: the posted collective, or the
 * next round, or (neither) an event of its own (own work done).
 *
 * Pure code: no clock, no threads, no globals, no allocation (every rank's statuses are the
 * driver's: the collective's result buffer).
 */
#ifndef TIDE_CORE_PROTO_H
#define TIDE_CORE_PROTO_H

#include "tide_lb.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tide_proto_state {
    TIDE_PROTO_IDLE,       /* between phases */
    TIDE_PROTO_START_SYNC, /* the start status allgather is posted */
    TIDE_PROTO_RUN,        /* the phase runs; no collective posted */
    TIDE_PROTO_ROUND,      /* a round's status allgather is posted */
    TIDE_PROTO_END,        /* the end status allgather is posted (no rounds) */
    TIDE_PROTO_GATHER      /* the records allgather is posted */
} tide_proto_state;

/* What a step asks of the driver (bits of tide_proto_action.what, carried out in this order). */
enum {
    TIDE_PROTO_DO_OPEN = 1u << 0,  /* a phase opens: its counters to zero, the prediction */
    TIDE_PROTO_DO_BEGIN = 1u << 1, /* the strategy's phase_begin(all) (all NULL without start sync),
                                    * the plan released; then tide_proto_round_next */
    TIDE_PROTO_DO_ROUND = 1u << 2, /* the strategy's round(all); then tide_proto_round_next */
    TIDE_PROTO_DO_POST_START =
        1u << 3, /* post tide_proto_status(start numbers), TIDE_STATUS_DOUBLES */
    TIDE_PROTO_DO_POST_STATUS = 1u
                                << 4, /* the same, a round's or the end's (task_bytes not asked) */
    TIDE_PROTO_DO_POST_RECORDS = 1u << 5, /* fill this rank's record, post the records allgather */
    TIDE_PROTO_DO_FINISH = 1u << 6,       /* the records arrived: the phase is over here */
    TIDE_PROTO_DO_MISMATCH = 1u << 7,     /* the statuses disagree on the phase: end the job
                                           * (tide_proto_mismatch_line says it) */
    TIDE_PROTO_DO_POST_BARRIER = 1u << 8  /* the end of a phase with the start sync and without
                                           * rounds: post a barrier (in.all unread when done) */
};

/* What the state reads (bits of tide_proto_needs); the driver fills only these inputs. */
enum {
    TIDE_PROTO_NEED_REQUESTED = 1u << 0, /* in.requested */
    TIDE_PROTO_NEED_COLL = 1u << 1,      /* in.coll_done, and in.all when done */
    TIDE_PROTO_NEED_OPEN = 1u << 2,      /* in.own_open */
    TIDE_PROTO_NEED_NOW = 1u << 3        /* in.now */
};

typedef struct tide_proto_input {
    long requested;              /* phases the application asked for (tide_taskwait calls) */
    bool coll_done;              /* the posted collective completed */
    const tide_rank_status *all; /* with coll_done of a status allgather: every rank's status */
    long own_open; /* own work not over: tasks not completed + replicas not answered */
    double now;    /* the driver's clock (seconds) */
} tide_proto_input;

typedef struct tide_proto_action {
    unsigned what;               /* TIDE_PROTO_DO_OPEN | ... (0: nothing to do now) */
    const tide_rank_status *all; /* BEGIN (NULL without start sync), ROUND, MISMATCH */
} tide_proto_action;

/* This rank's numbers for its status record (the driver's view; tide_proto_status adds the
 * protocol's fields). task_bytes is read for the start status only. */
typedef struct tide_proto_numbers {
    double ntasks, L_pred, queued, queued_in, outstanding, task_pred, L_unc, L_suspect, threads;
    double task_bytes; /* mean wire bytes of the queued own tasks */
    double send_bw;
    double plan_moving; /* 1: tasks of this rank's plan are still on their way */
    double plan_at;     /* seconds after its phase opened at which its last phase_begin returned */
} tide_proto_numbers;

/* When a driver that does not run every turn of its loop would see a round due at time t: the
 * time of its first turn at or after t (tide-sim: the poll back-off's grid). NULL: at t. */
typedef double (*tide_proto_turn_fn)(void *ctx, double t);

typedef struct tide_proto {
    tide_proto_state state;
    int size;       /* ranks */
    bool sync;      /* TIDE_LB_PHASE_SYNC: a status allgather before phase_begin */
    bool rounds;    /* TIDE_LB_ROUNDS */
    bool agreed;    /* TIDE_LB_ROUNDS_AGREED, with the start sync and rounds */
    bool rounded;   /* a round's allgather was posted in this phase */
    double round_s; /* TIDE_ROUND_US, in seconds */
    tide_proto_turn_fn turn;
    void *turn_ctx;
    int nphases;           /* phases finished */
    double next_round;     /* the driver's clock at which the next round is due */
    tide_rank_status mine; /* this rank's last status: what the driver posts (it stays put) */
} tide_proto;

/* size ranks; lb_flags the strategy's TIDE_LB_* flags; turn NULL unless the driver needs it. */
void tide_proto_init(tide_proto *p, int size, unsigned lb_flags, double round_us,
                     tide_proto_turn_fn turn, void *turn_ctx);

/* The inputs the current state reads. */
static inline unsigned tide_proto_needs(const tide_proto *p)
{
    switch (p->state) {
    case TIDE_PROTO_IDLE:
        return (unsigned)TIDE_PROTO_NEED_REQUESTED;
    case TIDE_PROTO_RUN:
        return (unsigned)TIDE_PROTO_NEED_OPEN | (p->rounds ? (unsigned)TIDE_PROTO_NEED_NOW : 0u);
    default:
        return (unsigned)TIDE_PROTO_NEED_COLL;
    }
}

/* One step: at most one transition. */
tide_proto_action tide_proto_step(tide_proto *p, const tide_proto_input *in);

/* After BEGIN and ROUND, once the strategy has had its say: the next round is due round_s on. */
static inline void tide_proto_round_from(tide_proto *p, double now)
{
    p->next_round = now + p->round_s;
}

/* Whether a rank's own tasks wait for this phase's plan (flags: the strategy's). A strategy
 * that does not plan at phase start (no TIDE_LB_PHASE_SYNC) makes none to wait for; one that
 * does holds them until it did, so that what moves is exactly what it chose. Under
 * TIDE_LB_START_EARLY only when the rank has fewer than 4 tasks per worker and its last plan
 * was applied within 5% of its last phase (plan_at, last_phase: seconds from the phase start).
 * Starting would then let the workers take a large part of the tasks the plan needs (the samoa
 * study's 32 sections on 14 workers: 14 of 32) to save little. With many tasks per worker (MxM's
 * 560 on 7) they take few, and a plan that comes late (1 GbE, many ranks) no longer holds them.
 * Each rank decides for itself: the plan marks what started (tide_plan_freeze). */
static inline bool tide_proto_hold_own(unsigned flags, double tasks, double workers, double plan_at,
                                       double last_phase)
{
    if (!(flags & TIDE_LB_PHASE_SYNC)) return false;
    if (!(flags & TIDE_LB_START_EARLY)) return true;
    return tasks < 4 * workers && plan_at <= 0.05 * last_phase;
}

/* After BEGIN or ROUND: the next round at TIDE_ROUND_US from now when the strategy needs rounds
 * (tide_host_rounds_needed), otherwise only once this rank's own work is done. */
static inline void tide_proto_round_next(tide_proto *p, double now, bool needed)
{
    p->next_round = needed ? now + p->round_s : INFINITY;
}

/* The status record to post for POST_START / POST_STATUS, in p->mine (phase number included). */
const tide_rank_status *tide_proto_status(tide_proto *p, const tide_proto_numbers *n);

/* A collective is posted and not yet through the step that takes it. */
static inline bool tide_proto_posted(const tide_proto *p)
{
    return p->state != TIDE_PROTO_IDLE && p->state != TIDE_PROTO_RUN;
}

/* Whether the strategy's progress callback runs now: while the phase runs, not during the start
 * sync (no plan yet) nor while records are gathered (every rank's work is done, and a steal
 * request sent then could still travel when its target leaves tide_finalize). */
static inline bool tide_proto_progress(const tide_proto *p)
{
    return p->state == TIDE_PROTO_RUN || p->state == TIDE_PROTO_ROUND || p->state == TIDE_PROTO_END;
}

static inline bool tide_proto_idle(const tide_proto *p)
{
    return p->state == TIDE_PROTO_IDLE;
}

/* What a waiting driver waits for besides its events: the collective (posted; blocking when
 * tide_proto_progress is false: nothing else happens on the protocol's side meanwhile), or the
 * next round's time (INFINITY: none; own work done is the driver's event). */
typedef struct tide_proto_wait {
    bool posted;
    double next;
} tide_proto_wait;

static inline tide_proto_wait tide_proto_wait_for(const tide_proto *p)
{
    tide_proto_wait w = {tide_proto_posted(p), INFINITY};
    if (p->state == TIDE_PROTO_RUN && p->rounds) w.next = p->next_round;
    return w;
}

/* The doubles of the phase-end allreduce of libtide's statistics (runtime/engine/internal.h,
 * tide_phase_sums, which checks the count): what a phase's end costs beside the end status, unless
 * rank 0 keeps every record (TIDE_STATS, TIDE_TRACE) and the records are allgathered. */
#define TIDE_PROTO_SUMS_DOUBLES 32

/* ---- the plan gate: phases without the strategy's protocol where it does not pay ------------ *
 *
 * A strategy that balances (TIDE_LB_GATED: proact and proact_react, which plan at phase start,
 * and the reactive react, ws, rep, react_rep) pays for its protocol in every phase: the start
 * status allgather, its rounds, the end status allgather (0.9 ms each at 512 ranks on 1 GbE; 17 us
 * for a whole protocol phase on 2 ranks of a 2-core machine), while a phase without it (libtide's
 * inline phase) ends with one allreduce. A reactive strategy has no predictions: for it every
 * settled protocol phase is a plan sample (tide_plan_gate.plans false). Where its plans gain less
 * than that, the gate runs phases without the protocol ("idle" phases: as under none, nothing
 * moves, the load model still learns every rank's load). It judges a phase by its score: its
 * time minus its heaviest rank's own load per worker (what no balancing avoids), maxima over
 * the ranks that every rank has after the phase's allreduce, so that all ranks decide alike. The
 * time is the phase's as the application sees it: the longest rank's time until its record plus
 * the tail, how long the last phase of the same kind went on after the last record (the
 * phase-end allreduce, which a protocol phase's comm thread sees done at one of its turns;
 * tide_gate_phase). Without the tail the two kinds were measured unlike: 0.65 ms followed the
 * record in a protocol phase against 0.42 in an idle one at 256 simulated ranks on 1 GbE,
 * enough for plans that lost to none to look ahead.
 *
 * - Only a settled phase is a sample: one after a phase of its own kind (a plan after idle
 *   phases has no fresh transfer rates nor plan costs, and the first idle phase follows a plan's
 *   moves; at 256 simulated ranks on 1 GbE such phases scored 0.1-1 ms worse).
 * - It starts with protocol phases. Once it has two plan samples (protocol phases in which every
 *   rank had a prediction) it runs a block of idle phases until it has two idle samples (three
 *   phases); then, if the mean score of the last two plan samples is above that of the last two
 *   idle samples, it stays idle, else it returns to the protocol, with another idle block after
 *   every TIDE_GATE_EXPLORE protocol phases to keep its idle samples current.
 * - It takes no idle block while one of the last two plan samples is promising: it scored below
 *   TIDE_GATE_WASTE times the imbalance a plan could remove (the heaviest rank's own load per
 *   worker minus the mean). A score below 0 wins for sure, since a phase without the protocol
 *   takes at least the heaviest rank's own load per worker (the paper's MxM: its plans score
 *   -2.9 s, an idle phase would take 4 s instead of 1); an idle block costs up to the whole
 *   imbalance per phase where the plans win. The fraction sits between measured cases in
 *   tide-sim's Fig. 4 study and sim_slow_net_proact_256 (docs/sim.md): plans in training that
 *   went on to win scored -0.5 to 0.26 on FDR and Omni-Path (256 and 512 ranks) and 0.15,
 *   -0.02, 0.37, 0.25 on 1 GbE (256 ranks), never two in a row at 0.3 or above; plans that lost
 *   to none scored 0.49 and 0.65 (1 GbE, 512 ranks), 0.66 and 0.35 (the test's 256 ranks).
 * - It goes idle at once, without samples, after a protocol phase whose protocol alone cost more
 *   than any plan could gain: time + tail - busy (the phase beyond its longest-working rank's
 *   workers: the status allgathers, rounds, the records) above own - mean (the imbalance a plan
 *   could remove). A plan phase takes at least the mean load per worker plus its protocol, so it
 *   cannot beat a phase without one (at least own). tide-sim at 1024 ranks on 1 GbE: the first
 *   phase (the reactive fallback, no moves) took 6.27 ms, its workers 2.56 ms, against an
 *   imbalance of 1.68 ms; its plan samples then cost 1.4x none's phases each. At 256 and 512
 *   ranks the first phase's protocol cost 1.6 and 1.85 ms against 5.33 and 3.05: no change.
 * - While idle it probes (protocol phases until one settled plan sample) only when the imbalance
 *   a plan could remove (the heaviest rank's own load per worker minus the mean) has grown by
 *   TIDE_GATE_GROWTH since it went idle or last probed, and beyond the last protocol phase's
 *   protocol alone (overhead: time + tail - busy; by the rule above no plan wins below it): an
 *   idle phase is never slower than the same phase under none, a probe may be. Without the
 *   second condition, phases of a few microseconds probed on noise: Task Bench's `trivial` on 2
 *   ranks (equal loads, imbalances of nanoseconds) ran 307 of 4000 phases through the protocol,
 *   17 us each against 0.8 us idle. The probe's score against the idle samples decides
 *   again. A probe is also due, beyond the protocol alone as well, after TIDE_GATE_EXPLORE idle
 *   phases, a wait that doubles with each probe that lost (up to TIDE_GATE_PROBE_MAX) and
 *   returns to TIDE_GATE_EXPLORE when one wins: without it, two protocol phases slowed by the
 *   machine (samoa_proxy, 8 ranks x 1 worker under react: 34.8 ms against 28-29.4 ms before)
 *   held a strategy that wins idle for the 76 phases left, where the imbalance never grew.
 * tide_plan_gate_end takes each phase's numbers; idle_next says how the next phase runs.
 * tide_plan_gate_ended takes this rank's time of the phase as the application saw it, from which
 * the gate keeps the rank's tail of each kind for the next phase's sums (tide_plan_gate_tail). */
enum { TIDE_GATE_EXPLORE = 32, TIDE_GATE_PROBE_MAX = 1024 };
#define TIDE_GATE_GROWTH 1.5
#define TIDE_GATE_WASTE 0.3

typedef struct tide_plan_gate {
    bool on;        /* the driver may run phases without the strategy's protocol */
    bool plans;     /* the strategy plans from predictions (TIDE_LB_PLANS): only a protocol
                     * phase in which every rank had one is a plan sample; for a reactive
                     * strategy every settled protocol phase is */
    bool alternate; /* TIDE_PLAN_GATE=alternate: every other phase idle, whatever the scores */
    bool idle;      /* idle mode: the plans measured slower than phases without them */
    bool idle_next; /* how the next phase runs */
    double plan[2], idle_s[2]; /* the last two scores of each kind, newest first */
    bool promising[2];         /* the last two plan samples scored below TIDE_GATE_WASTE x the
                                * imbalance (tide_plan_gate_end) */
    int nplan, nidle;
    int since_idle;   /* protocol phases since the last idle block began */
    int block;        /* idle samples of the current idle block */
    bool last_idle;   /* the last phase's kind (the first phase follows a protocol one) */
    double potential; /* the imbalance when it went idle or last probed */
    int idle_run;     /* idle phases since it went idle or last probed */
    int probe_every;  /* idle phases after which a probe is due: TIDE_GATE_EXPLORE, doubled by
                       * each probe that lost, up to TIDE_GATE_PROBE_MAX */
    double overhead;  /* the last protocol phase beyond its longest-working rank's workers:
                       * time + tail - busy (its protocol: status allgathers, rounds, records) */
    double record;    /* the last phase's time until the last rank's record (tide_gate_phase) */
    double tail[2];   /* this rank's last phase of each kind (protocol, idle) after the last
                       * record: what it adds to the phase's sums (tide_plan_gate_tail) */
} tide_plan_gate;

/* One phase's numbers, the same on every rank (maxima and integer sums of its allreduce). */
typedef struct tide_gate_phase {
    bool idle;      /* it ran without the protocol */
    bool predicted; /* every rank had a predicted load */
    double time;    /* the longest rank's time until its record (before the allreduce) */
    double tail;    /* the longest a rank's last phase of this kind went on after the last
                     * record (the phase-end allreduce): the gate judges time + tail. One
                     * phase late, 0 before the first of its kind */
    double own;     /* the heaviest rank's own load per worker */
    double mean;    /* all ranks' load per worker, L_total / workers */
    double busy;    /* the longest a rank's workers had work (W, from the phase's start) */
} tide_gate_phase;

/* Whether the driver runs every phase without the comm thread's protocol (libtide's inline
 * phases, which tide-sim models): with TIDE_PHASE_DRIVER=auto, under a strategy that never acts
 * (tide_host_acts) or on a single rank, where no strategy has another rank to move a task to
 * (a one-rank phase through the protocol cost 17-19 us under react and proact against 0.3 us
 * inline: docs/performance.md, section 15). */
bool tide_proto_inline_phases(const tide_lb_ops *ops, int phase_driver, int ranks);

/* on: the strategy's flags have TIDE_LB_GATED, the phase driver is auto, TIDE_PLAN_GATE is not
 * off and there is more than one rank (tide_plan_gate_wanted); plans: its flags have
 * TIDE_LB_PLANS. */
void tide_plan_gate_init(tide_plan_gate *g, bool on, bool alternate, bool plans);
bool tide_plan_gate_wanted(unsigned lb_flags, int phase_driver, int plan_gate, int ranks);
/* The gate a driver runs a strategy with (lb_flags) under the configuration's phase driver and
 * TIDE_PLAN_GATE: tide_plan_gate_init from tide_plan_gate_wanted (libtide and tide-sim). */
void tide_plan_gate_setup(tide_plan_gate *g, unsigned lb_flags, int phase_driver, int plan_gate,
                          int ranks);
void tide_plan_gate_end(tide_plan_gate *g, const tide_gate_phase *ph);
/* The phase that tide_plan_gate_end judged is over on this rank after `phase_time` seconds (from
 * its start to where the application goes on; idle: it ran without the protocol). */
void tide_plan_gate_ended(tide_plan_gate *g, bool idle, double phase_time);

/* What this rank adds to a phase's sums for the gate's tail (max over the ranks): how long its
 * last phase of the same kind went on after the last rank's record, 0 before the first. */
static inline double tide_plan_gate_tail(const tide_plan_gate *g, bool idle)
{
    return g->tail[idle];
}

/* ---- phase agreement (also libtide's inline phases and tide_finalize's closing allgather) --- */

/* The status's phase field in tide_finalize after `phases` phases: the count plus one half, so
 * that no phase number equals it and one double says both. */
static inline double tide_proto_finalizing_step(long phases)
{
    return (double)phases + 0.5;
}

static inline bool tide_proto_step_finalizing(double phase)
{
    return phase != floor(phase);
}

/* Every rank of all (n) is at the same step: the same phase field (a phase number, or
 * tide_proto_finalizing_step in tide_finalize). */
bool tide_proto_steps_agree(const tide_rank_status *all, int n);

/* The one line that names a mismatch ("rank 2 is in phase 3, the others in phase 2"); the
 * others are the ranks at the most common step (ties: the lowest rank's). */
void tide_proto_mismatch_line(const tide_rank_status *all, int n, char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
