/* tide-sim's internals: Tide's phase loop over P simulated ranks on SimGrid (docs/sim.md).
 *
 * The real task strategies (offload), planners and load models (predictor/) decide;
 * this program only plays the engine's part: queues, workers, the comm thread's protocol and
 * its messages, as SimGrid actors and simulated communications. C++ is confined to this
 * folder because SimGrid's S4U interface is C++; the code reads as C otherwise.
 *
 * One rank is: a comm actor (the phase protocol, status collectives, the strategy's
 * phase_begin/round/progress), a receiver actor (task, result and control messages; the
 * strategy's control callback), a sender actor (the engine's send loop: results, then tasks per
 * destination, under TIDE_MAX_INFLIGHT) and W worker actors (tasks as timed executions on the
 * rank's host). Actors are cooperative: code between two simulation calls runs atomically. */
#ifndef TIDE_SIM_H
#define TIDE_SIM_H

#include "tide_core_config.h"
#include "tide_core_backoff.h"
#include "tide_core_send.h"
#include "tide_lb.h"
#include "tide_plan.h"
#include "tide_predictor.h"
#include "tide_core_feed.h"
#include "tide_core_host.h"
#include "tide_core_proto.h"

extern "C" {
#include "noise.h" /* apps/common: mxm's seeded task noise */
}

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>
#include <string>
#include <vector>

namespace sg = simgrid::s4u;

/* ---- configuration (config.cpp) ---------------------------------------------------------- */

enum { SIM_PRED_MODEL = 0, SIM_PRED_EXACT = 1 };
enum { SIM_WL_MXM = 0, SIM_WL_REPLAY = 1, SIM_WL_SAMOA = 2, SIM_WL_CBENCH = 3 };
enum { SIM_CBENCH_LOOP = 0, SIM_CBENCH_ROUND = 1 };
#define SIM_CBENCH_SET_MAX 64
enum { SIM_NET_EXACT = 0, SIM_NET_FAST = 1, SIM_NET_FAIR = 2 };
enum { SIM_IDLE_SKIP = 0, SIM_IDLE_EVERY = 1 };

#define SIM_MAX_SLOW 64

typedef struct sim_slow {
    int rank;
    double factor;
} sim_slow;

typedef struct sim_config {
    /* the machine */
    char platform[1024];
    int ranks, ranks_per_host; /* ranks_per_host 0: the platform's tide_ranks_per_host */
    /* the workload */
    int workload, iters, imb, tasks_per_rank, ntasks_list;
    int tasks_list[4096];
    double task_ms, task_bytes, result_bytes, feature;
    sim_slow slow[SIM_MAX_SLOW];
    int nslow, slow_from;
    noise_spec noise; /* --jitter, --disturb, --noise-seed: mxm's noise, task by task */
    char replay[1024];
    int samoa_depth, samoa_steps;               /* --samoa DEPTH (0: off), --samoa-steps K */
    double samoa_cost_us[3];                    /* --samoa-cost: us per dry, wet, coast cell */
    char cbench[1024];                          /* --cbench FILE: cbench's objects (cbench.cpp) */
    const char *cbench_set[SIM_CBENCH_SET_MAX]; /* --cbench-set NAME=VALUE (argv strings) */
    int ncbench_set, cbench_mode;
    int cbench_test_twice; /* tests: this object runs twice in iteration 1 (-1: none) */
    int pred_mode;         /* --pred: SIM_PRED_MODEL or SIM_PRED_EXACT */
    int global_migrate;    /* --global-migrate: 0 times the decision only */
    int net;               /* --net: SimGrid's flows, or the endpoint model (net.cpp) */
    int idle_turns;        /* --idle-turns: SIM_IDLE_SKIP (default) or SIM_IDLE_EVERY */
    char moves[1024];      /* --moves: "phase from to count" of every offload, for tests */
    char decisions[1024];  /* --decisions: the engine core's decisions (tide_core_decisions.h) */
    int help;
    /* Tide's knobs: libtide's own tables read them (tide_core_config.h; --lb, --seed, ... and
     * --quiet set them too); the global strategies' go to them as they are (global.cpp). */
    tide_config tide;
} sim_config;

/* Workers per rank: TIDE_THREADS (--threads), else 1 (a replay's own count comes first). */
static inline int sim_threads(const sim_config *c)
{
    return c->tide.threads > 0 ? c->tide.threads : 1;
}

/* Defaults, the TIDE_* environment, then the command line. Returns 0, or -1 with one line in
 * err (the caller exits 2). */
int sim_config_load(sim_config *c, int argc, char **argv, char *err, size_t len);
extern const char sim_usage[];
const char *sim_net_name(int k); /* SIM_NET_*: "exact", "fast", "fair" */

/* ---- workload (workload.cpp, replay.cpp) -------------------------------------------------- */

/* What every rank submits in every phase: ntasks[p][r] tasks of dur[p][r] seconds each (the
 * slowdown of the executing rank comes on top), with in/out bytes on the wire. */
typedef struct sim_workload {
    int ranks, phases, threads; /* threads: a replayed run's workers per rank (0: not given) */
    std::vector<std::vector<int>> ntasks;
    std::vector<std::vector<double>> dur;
    std::vector<std::vector<std::vector<double>>> task_dur; /* [p][r][k] if tasks differ */
    double task_bytes, result_bytes;
    struct sim_cbench *cbench;   /* --cbench: the objects (cbench.cpp), else NULL */
    std::vector<double> feature; /* the features of every task (mxm: its matrix size) */
    /* Per-task features where tasks differ (samoa: a section's dry, wet and coast cells):
     * task_feat[p][r] holds ntasks[p][r] rows of nfeat values; empty: every task has `feature`. */
    int nfeat = 0;
    std::vector<std::vector<std::vector<double>>> task_feat;
    double mhz; /* the core frequency, a phase feature as libtide's (replay only; 0: none) */
    std::string name;
} sim_workload;

int sim_workload_make(const sim_config *c, sim_workload *w, char *err, size_t len);
int sim_replay_load(const char *path, sim_workload *w, char *err, size_t len);
int sim_samoa_make(const sim_config *c, sim_workload *w, char *err, size_t len);
/* Task k of rank r in phase p: its time before noise and slowdown. */
static inline double sim_task_dur(const sim_workload *w, int p, int r, int k)
{
    return w->task_dur.empty() ? w->dur[(size_t)p][(size_t)r]
                               : w->task_dur[(size_t)p][(size_t)r][(size_t)k];
}

/* ---- tasks, ranks and messages (engine.cpp) ----------------------------------------------- */

enum { T_QUEUED, T_RUNNING, T_OUTGOING, T_SENT, T_DONE };
enum { C_NONE, C_QUEUED, C_RUNNING, C_DONE, C_CANCELLED };

/* One own task of a phase: everything the engine and the exactly-once check need. */
typedef struct sim_task {
    int origin, k;
    double dur;
    int prev, next; /* links of the origin's local queue (-1: none) */
    unsigned char state, copy;
    bool replicated;
    int holder;  /* the rank that holds the replica */
    int runs;    /* executions, the copy's included */
    int applied; /* results applied at the origin: exactly 1 when the phase ends */
    double exec_time;
} sim_task;

enum { M_TASKS, M_RESULT, M_CONTROL };
/* The bytes of a message's header (tide_wire_header). */
#define SIM_HDR_BYTES 32.0

/* Engine control ops (tide_control.op from TIDE_LB_OP_ENGINE up), as in runtime/engine/replica.c */
enum { OP_CANCEL = TIDE_LB_OP_ENGINE, OP_CANCEL_ACK };

typedef struct sim_msg {
    int kind, src, dest, phase;
    std::vector<int> tasks; /* M_TASKS: task ids; M_RESULT: the one task */
    bool copy;              /* replica copies (and their results) */
    bool channel;           /* it holds its sender's channel to dest until received */
    double took;            /* M_RESULT: the measured execution time */
    tide_control ctl;       /* M_CONTROL */
    double bytes;
    bool burst; /* M_TASKS of a plan's burst (tide_drain_posted) */
} sim_msg;

/* The per-phase record every rank contributes to the statistics (runtime's tide_rank_record). */
typedef struct sim_record {
    double W, L, L_run, L_pred, L_unc, task_max, time;
    double L_suspect; /* how far a suspect last load is from L_pred (0: none) */
    double tasks, offloaded, received, cancelled, bytes_sent;
    double send_bw, sent_last, plan_transfer, reclaimed; /* transfer-aware plans (docs/stats.md) */
    int pred_kind; /* which model or baseline served L_pred (tide_feed_served), -1 none */
    bool protocol; /* the phase ran the strategy's protocol (not inline) */
} sim_record;

struct sim;

/* A message of --net fast on its way: it reaches the receiver at time at, or later when its
 * flow (shared links, net.cpp) says so when at comes. */
struct net_flow;
typedef struct sim_inbox_entry {
    double at;
    uint64_t seq; /* ties in sending order */
    sim_msg *m;
    std::shared_ptr<net_flow> flow; /* null: at is final */
    bool operator>(const sim_inbox_entry &o) const
    {
        return at > o.at || (at == o.at && seq > o.seq);
    }
} sim_inbox_entry;

typedef struct sim_rank {
    struct sim *S;
    int id;
    sg::Host *host;
    sg::Mailbox *mbox;
    sg::MutexPtr mu, cb_lock;
    sg::ConditionVariablePtr work_cv, comm_cv, send_cv;
    /* the phase */
    int phase;
    bool running, plan_ready;
    double phase_start, last_done;
    long phase_tasks;
    /* queues: own tasks not started (a list through sim_task links), received ones */
    int head, tail;
    long nlocal;
    std::deque<int> remote; /* task ids; copies are told apart by sim_task.holder == id */
    long nremote;
    long outstanding, replica_open;
    bool comm_event; /* something the comm actor waits for happened */
    long coll_seq;   /* collectives this rank posted */
    long status_seq; /* coll_seq of its last status collective, whose result the strategy reads */
    /* the comm thread's polling: its last productive turn, and who waits for its next one */
    double active_at;
    bool rx_waiting, coll_waiting;
    /* the comm actor skips idle turns (actors.cpp): a change of the strategy's view ends that */
    bool quiet_wait, view_changed;
    sg::ConditionVariablePtr poll_cv;
    /* the send loop */
    std::map<int, std::deque<int>> outgoing;
    long noutgoing;
    int next_dest;        /* where the next pass of task sends starts (round-robin) */
    tide_drain drain;     /* the rate a burst of its task messages drains at (tide_plan.h) */
    double throttle_bw;   /* TIDE_THROTTLE_*: bytes/s its task sends are held to, 0 */
    double throttle_next; /* no task message leaves before this time */
    std::deque<sim_msg *> controls, results;
    std::vector<unsigned char> busy; /* per destination: a message on its way (sender.cpp) */
    double inflight;                 /* bytes of those messages */
    bool send_kick;                  /* work or a free channel for the sender */
    /* --net fast|fair: messages on their way here, earliest first (net.cpp) */
    std::priority_queue<sim_inbox_entry, std::vector<sim_inbox_entry>,
                        std::greater<sim_inbox_entry>>
        inbox;
    sg::ConditionVariablePtr inbox_cv;
    /* the strategy (lbhost.cpp drives the core's host) */
    tide_host lb;
    /* the phase protocol's decisions (runtime/core: tide_core_proto.h; actors.cpp drives it) */
    tide_proto proto;
    tide_plan_gate gate; /* whether its next phase runs the strategy's protocol, and its tail
                          * (proto.c) */
    /* the load model and the prediction of the running phase (predict.cpp) */
    tide_feed feed;
    /* counters of the phase */
    double L, L_run, task_max, bytes_sent; /* L_run: every task run here (docs/stats.md) */
    long n_offloaded, n_received, n_cancelled;
    long n_reclaimed;     /* tasks chosen to move, taken back before they left */
    double plan_transfer; /* report_transfer of the phase's plan (-1: none) */
    double plan_at;       /* seconds after phase_start at which the last phase_begin returned */
    double last_phase_s;  /* how long its last phase took */
    bool hold_own;        /* this phase's own tasks wait for the plan (tide_proto_hold_own) */
} sim_rank;

/* The tasks of one phase, rank by rank: rank r's are [off[r], off[r+1]). Two tables
 * alternate (phase parity): a rank may start phase p+1 while another still finishes phase p,
 * but none reaches p+2 before every rank has left p (a collective of p+1 lies between). */
typedef struct sim_table {
    int phase;
    std::vector<sim_task> tasks;
    std::vector<long> off;
} sim_table;

/* What --decisions records of a rank's phase: the served prediction (the feed's scalars, no
 * weights) and the phase-start plan's moves (sel: the destination of each queued task when the
 * plan chose them). */
struct sim_decision {
    tide_feed pred;
    std::vector<long> count;
    std::vector<int32_t> sel;
};

/* The whole simulation. */
typedef struct sim {
    const sim_config *cfg;
    const sim_workload *wl;
    const tide_lb_ops *ops;
    /* libtide's inline phases (TIDE_PHASE_DRIVER=auto under a strategy that never acts): no
     * comm-thread protocol, one allgather of step and record once a rank's tasks are done */
    bool inline_phases;
    int P, W;
    std::vector<sim_rank> ranks;
    sim_table tab[2];
    std::vector<std::vector<sim_record>> log;                /* [phase][rank] */
    std::vector<std::map<std::pair<int, int>, long>> moves;  /* [phase]: --moves only */
    std::vector<std::vector<struct sim_decision>> decisions; /* [phase][rank]: --decisions */
    double coll_lat, coll_bw; /* the collective model's parameters (coll.cpp) */
    double coll_overhead;     /* seconds every collective costs beyond its messages */
    double poll_turn;         /* seconds of one empty turn of the comm thread (poll.cpp) */
    tide_backoff poll;        /* its back-off (the engine core's) */
    int ranks_per_host;
    int host_cores; /* cores of a host (of the first: a cluster's hosts are alike) */
    /* Every worker has a core of its own: a task is a sleep of its time, which costs SimGrid
     * less than an execution and gives the same times (otherwise executions share cores). */
    bool exec_sleeps;
    /* --net fast|fair (net.cpp): per host, its link out and its link in (fair: the messages
     * sharing each; fast: when each is free); routes by host pair */
    std::shared_ptr<struct net_links> net_links;
    std::vector<double> net_out_free, net_in_free;
    std::unordered_map<uint64_t, std::pair<double, double>> net_routes;
    uint64_t net_seq;
    long violations;     /* exactly-once failures found */
    char violation[256]; /* the first one */
    long turns_skipped;  /* idle comm-loop turns not run (--idle-turns skip, actors.cpp) */
} sim;

static inline int sim_host_index(const sim *S, int rank)
{
    return rank / S->ranks_per_host;
}

static inline sim_table *sim_tab(sim *S, int phase)
{
    return &S->tab[phase & 1];
}

void sim_phase_tasks(sim *S, int phase); /* builds the task table of a phase (once) */
void sim_rank_submit(sim_rank *R);       /* the application thread: own tasks queued */
sim_task *sim_task_of(sim_rank *R, int tid);
int sim_local_pop_front(sim_rank *R); /* -1 when empty */
void sim_local_unlink(sim_rank *R, int tid);
int sim_pick_task(sim_rank *R, bool *copy); /* a worker's next task, -1 none */
void sim_task_done(sim_rank *R, int tid, bool copy, double took, double end);
/* Tasks, results and the engine's controls; false for a strategy's control (the caller's). */
bool sim_engine_receive(sim_rank *R, sim_msg *m);
long sim_own_open(const sim_rank *R);
/* The receiver took m: the channel it held is free again (sender.cpp). */
void sim_channel_free(sim_rank *R, const sim_msg *m);
/* The outgoing queues (engine.cpp), as runtime/engine/transport.c's: an own task chosen to
 * move to dest; taking back up to n of them (the last ones it would send), into the local
 * queue. The transport (sender.cpp): the drain rate (bytes/s, 0: not measured); and at phase
 * end, the rate with the phase folded in and when (seconds after the phase start) its last task
 * message completed (0: none). */
void sim_outgoing_push(sim_rank *R, int dest, int tid);
int sim_reclaim(sim_rank *R, int n);
double sim_send_bw(const sim_rank *R);
void sim_transport_phase_end(sim_rank *R, double *send_bw, double *sent_last);
void sim_queue_control(sim_rank *R, int dest, const tide_control *msg);
int sim_offload(sim_rank *R, int dest, int n);
int sim_offload_selected(sim_rank *R, const int32_t *dest, long n);
int sim_replicate(sim_rank *R, int dest, int n);
/* Exactly once: every own task of the phase applied once and run once (twice at most with
 * replicas); a violation is counted and the first one described in S->violation. */
void sim_rank_check(sim_rank *R);
double sim_slowdown(const sim *S, int rank, int phase);

/* ---- actors (actors.cpp, sender.cpp) ------------------------------------------------------ */

void sim_worker_actor(sim_rank *R);
void sim_receiver_actor(sim_rank *R);
void sim_sender_actor(sim_rank *R);
void sim_comm_actor(sim_rank *R);

/* ---- --net fast|fair (net.cpp) -----------------------------------------------------------------
 */

void sim_net_init(sim *S);
void sim_net_send(sim_rank *R, sim_msg *m); /* m on its way to m->dest, without a flow */
sim_msg *sim_net_take(sim_rank *R);         /* the receiver's next arrived message; blocks */
/* A message of a batch that leaves at once (a rescheduling round's migration). */
typedef struct sim_batch_msg {
    sg::Host *from, *to;
    double bytes;
} sim_batch_msg;
/* --net fast|fair (SIM_NET_FAST, SIM_NET_FAIR): the time from the batch's start until its last
 * message has arrived, each host's link out and link in shared as for the phase loop's
 * messages (net.cpp). */
double sim_net_batch_time(int net, const std::vector<sim_batch_msg> &batch);

/* ---- global rescheduling (global.cpp) ---------------------------------------------------- */

/* One rescheduling round of objects under cfg->global_lb: rank r holds objects of load[r]
 * seconds and bytes[r] state bytes (empty: the workload's task bytes); prints and writes
 * (TIDE_STATS) its times. Returns 0 or an exit code. sim_global_run: the workload's first-phase
 * tasks as the objects (workload.cpp). */
int sim_global_run_objects(const sim_config *c, const std::vector<std::vector<double>> &load,
                           const std::vector<std::vector<double>> &bytes,
                           const std::vector<sg::Host *> &hosts, double lat, double bw, char *err,
                           size_t len);
int sim_global_run(const sim_config *c, const sim_workload *wl,
                   const std::vector<sg::Host *> &hosts, double lat, double bw, char *err,
                   size_t len);

/* The same round inside another simulation (the cbench loop, cbench.cpp): objects per rank are
 * set, then every rank's actor calls sim_global_round together; it returns the new owner of each
 * of the rank's objects. The counters add up over rounds; the times are the last round's. */
typedef struct sim_global sim_global;
typedef struct sim_global_stats {
    double decision, gather, cpu, total; /* from the round's start; gather: centralized only */
    long moved;
    double bytes_moved;
    long messages, gossip_rounds, handshake_rounds;
} sim_global_stats;
sim_global *sim_global_new(const sim_config *c, int P, const std::vector<sg::Host *> &hosts,
                           int ranks_per_host, double lat, double bw);
void sim_global_set_objects(sim_global *S, int rank, const std::vector<double> &load,
                            const std::vector<double> &bytes);
void sim_global_attach(sim_global *S, int rank, sg::ActorPtr a); /* receives the protocol's */
const std::vector<int32_t> &sim_global_round(sim_global *S, int rank, uint64_t seed);
void sim_global_stats_get(const sim_global *S, sim_global_stats *out);
void sim_global_free(sim_global *S);

/* A collective of `bytes` per rank within a sim_global's ranks (its barrier and model). */
void sim_global_collective(sim_global *S, int rank, double bytes);
/* A recursive-doubling allgather of `bytes` in all over P ranks: ceil(log2 P) latencies plus the
 * bytes each rank receives over the bandwidth (coll.cpp's model, also global.cpp's). */
double sim_allgather_time(int P, double lat, double bw, double bytes);
/* A recursive-doubling allreduce of bytes: ceil(log2 P) latencies and transfers of them. */
double sim_allreduce_time(int P, double lat, double bw, double bytes);

/* ---- cbench's persistent objects (cbench.cpp, objloop.cpp) -------------------------------- */

/* Reads and evaluates --cbench FILE with cbench's own code (w->cbench); an error is cbench's
 * one line. sim_cbench_run runs the objects loop, or one round (--cbench-mode round), and
 * reports; it returns 0, 2, or 3 when an object did not run exactly once per iteration. */
int sim_cbench_make(const sim_config *c, sim_workload *w, char *err, size_t len);
int sim_cbench_run(const sim_config *c, const sim_workload *w, const std::vector<sg::Host *> &hosts,
                   double lat, double bw, char *err, size_t len);
void sim_cbench_free(sim_workload *w);

/* ---- the comm thread's polling (poll.cpp) --------------------------------------------------- */

void sim_poll_init(sim *S, const sg::Host *h);
/* The first turn of R's comm thread at or after time t. */
double sim_next_poll(const sim_rank *R, double t);
/* A productive turn now: the back-off starts again. */
void sim_mark_active(sim_rank *R);
/* An event for the comm actor (it ends sim_wait_event), work for the sender actor. */
void sim_wake_comm(sim_rank *R);
void sim_wake_sender(sim_rank *R);
/* The comm actor waits for an event (sim_wake_comm) or the deadline; true on an event. */
bool sim_wait_event(sim_rank *R, double deadline);
/* The rank's queues (or its comm thread's last productive turn) changed: a comm actor that
 * skips idle turns must look again. */
void sim_view_changed(sim_rank *R);

/* ---- the strategy host (lbhost.cpp) ------------------------------------------------------- */

/* The rank's host of the strategy; 0, or -1 with one line in err. progress, control and
 * quiet_until go to the core's host directly (tide_host_progress, ...). */
int sim_lb_init(sim_rank *R, char *err, size_t len);
/* The strategy's phase_begin and round, with the orders every rank of the collective shares. */
void sim_lb_phase_begin(sim_rank *R, const tide_rank_status *all);
void sim_lb_round(sim_rank *R, const tide_rank_status *all);

/* ---- collectives (coll.cpp) --------------------------------------------------------------- */

void sim_coll_init(sim *S);
void sim_coll_free(void);
/* Every rank posts the same collectives in the same order: n doubles from this rank (counts[i]
 * from rank i; counts NULL: n from every rank), gathered in rank order. */
void sim_coll_post(sim_rank *R, const double *mine, int n, const int *counts);
bool sim_coll_done(const sim_rank *R);
double sim_coll_deadline(const sim_rank *R); /* completion time, INFINITY while ranks are missing */
/* The result of the completed collective, valid until this rank posts its second next one. */
const double *sim_coll_take(sim_rank *R);
/* An allreduce of n doubles, timed as such; the k doubles of mine are every rank's in the result,
 * for the rank to fold (the plan gate's numbers; the statistics read the records). */
void sim_coll_post_reduce(sim_rank *R, const double *mine, int k, int n);
const double *sim_coll_wait(sim_rank *R);  /* blocks until done, then takes */
const double *sim_coll_block(sim_rank *R); /* the same at completion, not at a comm turn */
/* The orders' cache of the collective whose result (as taken) is `result`, shared by every rank
 * that takes it (nullptr: no such collective). */
tide_lb_orders *sim_coll_orders(const double *result);
/* The blocking allgatherv of a strategy's phase_begin (tide_lb_actions.allgatherv). */
void sim_coll_allgatherv(sim_rank *R, const double *mine, int n, const int *counts, double *out);

/* ---- the load model (predict.cpp) --------------------------------------------------------- */

int sim_predict_init(sim_rank *R, char *err, size_t len);
void sim_predict_free(sim_rank *R);
void sim_predict_phase(sim_rank *R);   /* R->feed's prediction before the phase */
void sim_predict_observe(sim_rank *R); /* the measured load after it */
bool sim_predict_task_times(sim_rank *R, double *times, long n);

/* ---- statistics (stats.cpp) --------------------------------------------------------------- */

void sim_record_fill(sim_rank *R, sim_record *rec);
int sim_stats_write(const sim *S, const char *path, char *err, size_t len);
int sim_moves_write(const sim *S, const char *path, char *err, size_t len);
int sim_decisions_write(const sim *S, const char *path, char *err, size_t len);
void sim_stats_print_summary(const sim *S, FILE *out);

#endif
