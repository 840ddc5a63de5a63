/* Internal structures of the Tide runtime. Nothing here is part of the public API. */
#ifndef TIDE_INTERNAL_H
#define TIDE_INTERNAL_H

#include "tide.h"
#include "tide_mpi.h"
#include "tide_lb.h"
#include "tide_global.h"
#include "tide_predictor.h"
#include "tide_core_backoff.h"
#include "tide_core_config.h"
#include "tide_core_feed.h"
#include "tide_core_host.h"
#include "tide_core_proto.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TIDE_CACHELINE 64

/* ---- errors (error.c) ------------------------------------------------------------------------ */

/* Records a printf-style detail for tide_last_error_message() and returns `code`. */
int tide_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a message naming this rank and aborts the whole job. For broken invariants and
 * malformed messages from other ranks, where continuing could corrupt application data. */
_Noreturn void tide_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the clock (clock.c) --------------------------------------------------------------------- */

/* CLOCK_MONOTONIC's seconds; from the TSC where tide_clock_setup chose it. Any thread. */
double tide_now(void);
/* TIDE_CLOCK (tide_clock_mode): chooses how tide_now reads, at init before the runtime's threads
 * start. TIDE_ERR_CONFIG (why in err) where `tsc` was asked for and cannot be trusted here. */
int tide_clock_setup(int mode, char *err, size_t len);
const char *tide_clock_name(void); /* "tsc" or "monotonic": what tide_now reads */

/* ---- configuration (config.c) ---------------------------------------------------------------- */

/* tide_config, its tables and its parser are the engine core's (tide_core_config.h). */

void tide_config_defaults(tide_config *cfg);
/* Applies one knob by its variable name; on error fills err with one line and returns
 * TIDE_ERR_CONFIG. */
int tide_config_apply(tide_config *cfg, const char *name, const char *value, char *err, size_t len);
/* Defaults, then values set through tide_config_set, then the environment. An unknown TIDE_*
 * name in the environment fails when it is a misspelt knob or TIDE_STRICT=1; otherwise it is
 * ignored and named in warn (one line, "" when none) for rank 0 to print. */
int tide_config_load(tide_config *cfg, char *err, size_t len, char *warn, size_t wlen);
void tide_config_forget_api_values(void);
/* Every knob table (tide_knob.h) the configuration reads, in the docs' order, count in *n. */
struct tide_knob_table;
const struct tide_knob_table *const *tide_config_tables(size_t *n);

/* ---- output files (outfile.c) ---------------------------------------------------------------- */

/* A file a knob names, opened at tide_init by the rank that writes it. Zero-initialized: none. */
typedef struct tide_outfile {
    const char *var, *path; /* the knob and its value, for messages */
    int fd;
    bool regular; /* a regular file: emptied before each document */
} tide_outfile;

/* Creates (or opens) path for writing and checks that it takes a write; on failure one line
 * naming var, path and the reason, and TIDE_ERR_CONFIG. */
int tide_outfile_open(tide_outfile *o, const char *var, const char *path);
/* A stream over the emptied file for one document (NULL and a message on failure)... */
FILE *tide_outfile_begin(tide_outfile *o);
/* ... checked when it ends: every write, the flush and the close. */
int tide_outfile_end(tide_outfile *o, FILE *f);
int tide_outfile_close(tide_outfile *o);

/* ---- tasks and queues (task.c, queue.c) -------------------------------------------------------
 */

typedef struct tide_rbuf {
    atomic_int refs; /* tasks still pointing into data */
    size_t len;
    unsigned char *data;
} tide_rbuf;

/* What a phase-start plan needs of an own task once it may have started (tide_rt.marks). */
typedef struct tide_task_mark {
    long sample; /* its predictor sample (tide_task.sample) */
    double cost; /* its cost hint, -1: none */
    bool pinned;
} tide_task_mark;

struct tide_task {
    struct tide_task *next, *prev;
    tide_task_fn fn;
    int nargs, nfeat;
    int origin;      /* rank whose application created the task */
    uint64_t seq;    /* id of the task within its origin */
    bool remote;     /* executing here on behalf of `origin` */
    bool queued;     /* in a queue (changed under that queue's lock) */
    bool replicated; /* a copy runs speculatively on rank `holder` */
    bool pinned;     /* tide_task_set_pinned: never leaves its origin (no strategy moves it) */
    bool large;      /* its block is beyond task.c's recycled size: its own malloc, whose free may
                      * be a system call (else the block returns to the spare blocks, but under ASan) */
    int priority;    /* tide_task_set_priority: higher runs first; the queue's order */
    double cost;     /* tide_task_set_cost: seconds, -1 without a hint */
    int holder;
    atomic_int refs;  /* replicated tasks: the local side and the replica table each hold one */
    double exec_time; /* measured, seconds */
    long sample;      /* index of the task's predictor sample in its phase, -1: none */
    long pos;         /* own tasks: its position among its phase's submissions (tide_task_mark) */
    double features[TIDE_MAX_FEATURES];
    tide_arg *args; /* nargs descriptors; VALUE ptrs point into this allocation */
    void **argv;    /* what the task function receives */
    /* Remote tasks only: the received message they read from (shared by a packed message)
     * and the result message their OUT/INOUT arguments are written into. */
    tide_rbuf *rbuf;
    unsigned char *result;
    size_t result_len;
};

typedef struct tide_rt tide_rt; /* the runtime's state, below */

/* Allocates a task with room for nargs descriptors and `extra` bytes of inline storage. */
tide_task *tide_task_alloc(int nargs, size_t extra, unsigned char **extra_out);
void tide_task_free(tide_task *t);
/* Frees the spare task blocks kept for reuse: the process's and the calling thread's
 * (tide_finalize, after the other threads have ended and returned theirs). */
void tide_task_spares_free(void);
/* Frees a task, or drops one reference to a replicated one. */
void tide_task_release(tide_task *t);
/* Admits the tasks submitted since the last call (rt->incoming), under local.lock
 * (tide_taskwait, tide_finalize): their seq, their position in the phase, their predictor sample
 * and mark, the phase's cost hints. Returns them in submission order, linked by `next`, and
 * their number in *count; the caller queues them (tide_queue_push_list_locked) or deals them to
 * a lone worker (tide_workers_deal_lone). */
tide_task *tide_task_admit(tide_rt *rt, long *count);
void tide_rbuf_release(tide_rbuf *b);

/* One priority present in a queue and its last task (queue.c). */
typedef struct tide_queue_level {
    int prio;
    tide_task *last;
} tide_queue_level;

/* Adds d to a counter that changes only under one lock, and returns what it held: a load and
 * a store, where an atomic add is a locked instruction (about 20 cycles, several a task); readers
 * without the lock still see whole values. */
static inline long tide_locked_add(atomic_long *c, long d)
{
    long v = atomic_load_explicit(c, memory_order_relaxed);
    atomic_store_explicit(c, v + d, memory_order_relaxed);
    return v;
}

typedef struct tide_queue {
    pthread_mutex_t lock;
    tide_task *head, *tail;   /* descending priority, FIFO among equals */
    atomic_long count;        /* changed under lock only (tide_locked_add) */
    tide_queue_level *levels; /* the priorities present, descending */
    int nlevels, cap_levels;
} tide_queue;

void tide_queue_init(tide_queue *q);
void tide_queue_destroy(tide_queue *q);
void tide_queue_push(tide_queue *q, tide_task *t);
void tide_queue_push_locked(tide_queue *q, tide_task *t); /* the caller holds q->lock */
/* Each task of a list linked by `next`, in list order (tide_task_admit's). */
void tide_queue_push_list_locked(tide_queue *q, tide_task *first);
tide_task *tide_queue_pop_front(tide_queue *q);
/* Up to n tasks off the front into out[], in queue order, under one lock; how many. */
int tide_queue_pop_front_n(tide_queue *q, tide_task **out, int n);
/* Empties the queue at once: its tasks in queue order, linked by `next` (an inline phase's deal,
 * worker.c; one pass, where unlinking each task would search its level). _locked: the caller
 * holds q->lock. */
tide_task *tide_queue_take_all(tide_queue *q);
tide_task *tide_queue_take_all_locked(tide_queue *q);
/* Takes up to n tasks from the back (the ones a worker would start last) into out[], skipping
 * replicated and pinned ones. */
int tide_queue_take_back(tide_queue *q, tide_task **out, int n);
/* Unlinks t if it is still in q; true when this call took it (no worker will run it). */
bool tide_queue_remove(tide_queue *q, tide_task *t);
/* Unlinks and returns the first task for which match(task, arg) holds, or NULL. */
tide_task *tide_queue_remove_if(tide_queue *q, bool (*match)(const tide_task *, const void *),
                                const void *arg);
/* Calls visit(q, task, arg) for each task, front to back (or back to front), under q's lock,
 * until visit returns false; visit may unlink the task it is given (tide_queue_unlink_locked)
 * and must not take q's lock. The only way other files walk a queue. */
void tide_queue_visit(tide_queue *q, bool backwards,
                      bool (*visit)(tide_queue *, tide_task *, void *), void *arg);
void tide_queue_unlink_locked(tide_queue *q, tide_task *t);
/* size_of(first task) under the lock, 0 when empty. */
size_t tide_queue_front_size(tide_queue *q, size_t (*size_of)(const tide_task *));

/* ---- portable function identity (fnid.c) ------------------------------------------------------
 */

typedef struct tide_fnid {
    uint64_t module; /* hash of the file name of the object that contains the function */
    uint64_t offset; /* offset of the function from that object's base address */
} tide_fnid;

int tide_fnid_init(void);
void tide_fnid_finalize(void);
int tide_fnid_of(tide_task_fn fn, tide_fnid *out);
/* Returns NULL when this process has no object with that identity. */
tide_task_fn tide_fnid_resolve(tide_fnid id);
/* 64-bit hash of this process's executable file (same file on all ranks = same hash). */
int tide_exe_hash(uint64_t *out, char *path, size_t pathlen);
/* Whether every rank of comm holds the same n (at most 16) values: one allreduce of each value
 * and its negative (MPI_MAX). lo[k] and hi[k] (either may be NULL) receive the smallest and the
 * largest over the ranks. Returns the index of the first value that differs, or -1. Collective;
 * tide.c. */
int tide_agree_values(MPI_Comm comm, const long long *v, int n, long long *lo, long long *hi);
/* FNV-1a, 64 bit: h is TIDE_HASH_INIT or an earlier result (to hash several pieces). */
#define TIDE_HASH_INIT 0xcbf29ce484222325ull
uint64_t tide_hash_bytes(uint64_t h, const void *data, size_t len);

/* ---- wire format (wire.c) ---------------------------------------------------------------------
 */

#define TIDE_WIRE_MAGIC 0x45444954u /* "TIDE" */
#define TIDE_WIRE_VERSION 2
enum { TIDE_MSG_TASKS = 1, TIDE_MSG_RESULT = 2, TIDE_MSG_CONTROL = 3 };

typedef struct tide_wire_header {
    uint32_t magic;
    uint16_t version;
    uint16_t kind;
    uint32_t count; /* records in the payload */
    uint32_t phase;
    uint64_t payload_len;
    int32_t src;
    uint32_t reserved;
} tide_wire_header;

/* Bytes a task record occupies on the wire. */
size_t tide_wire_task_size(const tide_task *t);
/* Writes the record of t (whose function identity is id) at dst; returns bytes written. */
size_t tide_wire_put_task(unsigned char *dst, const tide_task *t, tide_fnid id);
void tide_wire_put_header(unsigned char *dst, int kind, uint32_t count, uint32_t phase,
                          uint64_t payload_len, int src);
/* Validates a received message's header against its length. */
int tide_wire_check_header(const unsigned char *buf, size_t len, tide_wire_header *h, char *err,
                           size_t errlen);
/* Decodes every task record of a validated TASKS message into remote tasks that read their
 * IN/VALUE data from the buffer and write OUT/INOUT data to their own result message. On
 * error, frees what it built and describes the problem. */
int tide_wire_decode_tasks(tide_rbuf *b, const tide_wire_header *h, tide_task **out, char *err,
                           size_t errlen);
/* Builds nothing: checks a RESULT message against the task it answers and copies the outputs
 * into the task's (application) buffers. */
int tide_wire_apply_result(const unsigned char *buf, const tide_wire_header *h, tide_task *t,
                           char *err, size_t errlen);
/* Reads the (origin, seq) a RESULT message answers. */
int tide_wire_result_id(const unsigned char *buf, const tide_wire_header *h, int *origin,
                        uint64_t *seq, char *err, size_t errlen);
/* Fills the result header and execution time of a remote task after it ran. */
void tide_wire_finish_result(tide_task *t, uint32_t phase, int me);

/* ---- the task strategy's host (lb_host.c) --------------------------------------------------- */

/* The strategy chosen by TIDE_LB (offload, tide_lb.h), its state and knob values, and
 * the actions that give it the engine's services. Comm thread only after init. */
int tide_lb_host_init(tide_rt *rt, char *err, size_t len);
void tide_lb_host_free(tide_rt *rt);
/* Whether the application thread runs each phase, for this configuration on `ranks` ranks
 * (tide_proto_inline_phases: TIDE_PHASE_DRIVER=auto and a strategy that cannot act at all, or
 * a single rank). */
bool tide_lb_inline_phases(const tide_config *cfg, int ranks);
/* The strategy's callbacks, each with a view made from the runtime (all: NULL when absent). */
void tide_lb_phase_begin(tide_rt *rt, const tide_rank_status *all);
void tide_lb_round(tide_rt *rt, const tide_rank_status *all);
void tide_lb_progress(tide_rt *rt);
void tide_lb_control(tide_rt *rt, int src, const tide_control *msg);

/* Engine service for phase_begin (every rank calls it at the same point): blocking allgather
 * of n doubles per rank, counts[i] from rank i, into out (displacements are the prefix sums). */
void tide_coll_allgatherv(tide_rt *rt, const double *mine, int n, const int *counts, double *out);
/* Engine service: moves the not-yet-started local tasks whose queue position k at phase start
 * has dest[k] != this rank to rank dest[k]. Returns how many moved. */
int tide_offload_selected(tide_rt *rt, const int32_t *dest, long n);

/* Engine service: sends a control message to dest. */
void tide_send_control(tide_rt *rt, int dest, const tide_control *msg);

/* Engine service for strategies: moves up to n not-yet-started local tasks to rank dest.
 * Returns how many were taken. */
int tide_offload_tasks(tide_rt *rt, int dest, int n);

/* Replication (replica.c), an engine service: sends copies of up to n not-yet-started local
 * tasks to rank dest while the originals stay queued; whichever copy completes first wins and
 * the other is cancelled or its result discarded. Returns how many were replicated. */
int tide_replicate_tasks(tide_rt *rt, int dest, int n);
/* Comm thread: a result for a task that was not offloaded; true when it answered a replica. */
bool tide_replica_result(tide_rt *rt, const unsigned char *buf, const tide_wire_header *h,
                         uint64_t seq);
/* Engine control operations (strategies use values below TIDE_LB_OP_ENGINE). */
enum { TIDE_CTRL_CANCEL = TIDE_LB_OP_ENGINE, TIDE_CTRL_CANCEL_ACK };
void tide_replica_control(tide_rt *rt, int src, const tide_control *msg);
/* Comm thread: sends the cancels workers asked for. Returns true if it sent any. */
bool tide_replica_flush_cancels(tide_rt *rt);
size_t tide_replica_open(const tide_rt *rt);
void tide_replica_finalize(tide_rt *rt);
/* ---- transport (transport.c) ------------------------------------------------------------------
 */

typedef struct tide_transport tide_transport;

/* Handlers of the messages the transport does not own, given by the comm thread. */
typedef struct tide_dispatch {
    /* A result no offloaded task awaits: true when it answered a replica. */
    bool (*other_result)(tide_rt *rt, const unsigned char *buf, const tide_wire_header *h,
                         uint64_t seq);
    void (*control)(tide_rt *rt, int src, const tide_control *msg);
} tide_dispatch;

int tide_transport_create(tide_rt *rt);
/* Aborts if an offloaded task never got its result. */
void tide_transport_destroy(tide_rt *rt);
/* Starts sending buf (a whole message; the transport owns and frees it). */
void tide_transport_send(tide_rt *rt, int dest, unsigned char *buf, size_t len);
/* The in-flight bound admits a message of len bytes (or nothing else is in flight). */
bool tide_transport_fits(const tide_rt *rt, size_t len);
/* Comm-thread loop steps; each returns whether it did something. */
bool tide_transport_poll(tide_rt *rt, const tide_dispatch *d);
bool tide_transport_send_results(tide_rt *rt);
bool tide_transport_send_tasks(tide_rt *rt);
bool tide_transport_complete(tide_rt *rt);
/* No send in progress. */
bool tide_transport_idle(const tide_rt *rt);
/* Own tasks chosen to move whose message has not been posted. */
long tide_transport_outgoing(const tide_rt *rt);
/* Takes back up to n of them, the last the transport would send, into the local queue. */
int tide_transport_reclaim(tide_rt *rt, int n);
/* The rate at which this rank's task messages drained lately, bytes/s (0: not measured). */
double tide_transport_send_bw(const tide_rt *rt);
/* 1 while tasks of this rank's plan are on their way (the status's plan_moving), else 0. */
double tide_transport_plan_moving(const tide_rt *rt);
/* At phase end: folds the phase's drain into the estimate and returns it, and when (seconds
 * after the phase start) the phase's last task message completed (0: none left). */
void tide_transport_phase_end(tide_rt *rt, double now, double *send_bw, double *sent_last);
/* Applies a result message to its own task t (outputs, measured time, accounting); every result
 * of an own task, offloaded or replicated, goes through here. The caller completes the task. */
void tide_result_apply(tide_rt *rt, tide_task *t, const unsigned char *buf,
                       const tide_wire_header *h);

/* ---- the phase collectives through shared memory (nodecoll.c) ---------------------------------
 * An allgather of up to `bytes` per rank, for a communicator whose ranks all share one node. Each
 * exchange: tide_nodecoll_publish this rank's element, then read every rank's with
 * tide_nodecoll_peer (it waits for that rank's element of the same exchange; the pointer stays
 * valid until this rank publishes again), or, without waiting, ask tide_nodecoll_done until
 * every rank's is in and read them then. Every rank of the communicator joins every exchange,
 * in the same order, and reads all of it before it publishes its next. */

typedef struct tide_nodecoll tide_nodecoll;

/* Collective over comm. *out: the collective, or NULL where comm spans more than one node (the
 * same on every rank); on every rank alike, TIDE_ERR_NOMEM where memory is short on a rank and
 * TIDE_ERR_CONFIG where MPI cannot allocate the shared window (each with its line). */
int tide_nodecoll_create(MPI_Comm comm, size_t bytes, tide_nodecoll **out);
/* Copies this rank's element (`bytes`, at most the size created) into its slot of the next
 * exchange. */
void tide_nodecoll_publish(tide_nodecoll *c, const void *mine, size_t bytes);
/* Whether every rank has published the exchange this rank last published; never waits. */
bool tide_nodecoll_done(tide_nodecoll *c);
const void *tide_nodecoll_peer(tide_nodecoll *c, int rank);
/* Collective over comm, as create was. NULL: nothing. */
void tide_nodecoll_destroy(tide_nodecoll *c);

/* ---- the phase protocol (phase.c) -------------------------------------------------------------
 */

typedef struct tide_protocol tide_protocol;

/* Collective over the ranks (the phase collective's shared window): TIDE_OK and *out, or an
 * error code with its line (tide_fail). */
int tide_protocol_create(tide_rt *rt, tide_protocol **out);
void tide_protocol_destroy(tide_protocol *p);
/* One step of the state machine; whether it did something. */
bool tide_protocol_step(tide_protocol *p);
/* No phase runs. */
bool tide_protocol_idle(const tide_protocol *p);
/* tide_finalize: the closing allgather is done and every send completed. */
bool tide_protocol_closing_done(tide_protocol *p);
/* With rt->inline_phases, on the application thread in tide_taskwait: begin before the
 * workers run the phase's tasks, end once they all returned (one allgather of every rank's
 * status and record, the statistics, the model's observation). */
void tide_protocol_inline_begin(tide_protocol *p);
void tide_protocol_inline_end(tide_protocol *p);

/* ---- replica cancels (worker.c) ----------------------------------------------------------------
 */

void tide_cancels_init(tide_rt *rt);
void tide_cancels_destroy(tide_rt *rt);
/* Hands every pending cancel to send(rt, seq, holder) and clears the list; returns how many. */
size_t tide_cancels_drain(tide_rt *rt, void (*send)(tide_rt *, uint64_t seq, int holder));

/* ---- statistics (stats.c) ---------------------------------------------------------------------
 */

/* What one rank reports about one phase; all ranks' records are allgathered. */
typedef struct tide_rank_record {
    double W, L, L_pred, task_max, time;
    double tasks, offloaded, received, bytes_sent;
    double L_unc;         /* uncertainty of L_pred (-1 without a prediction) */
    double L_suspect;     /* how far a suspect last load is from L_pred (0: none) */
    double pred_source;   /* tide_pred_source of L_pred */
    double pred_model;    /* which model served when pred_source is "model": tide_feed_model */
    double plan_residual; /* proact: predicted load above the average after the plan */
    double plan_limit;    /* why it stayed (tide_lb_limit), -1 when no plan was made */
    double cancelled;     /* replica copies that arrived here and were dropped before they ran */
    double send_bw;       /* bytes/s its task messages drained at, including this phase */
    double sent_last;     /* seconds after phase start its last task message completed (0: none) */
    double plan_transfer; /* seconds after phase start its plan's last move should arrive, -1 */
    double reclaimed;     /* tasks chosen to move that it took back and ran itself */
    double replicated;    /* replica copies of its own tasks it sent (replica.c) */
    double L_run;         /* execution times of the tasks run here: own, received, replica copies */
    double threads;       /* its workers */
    double protocol;      /* 1: the phase ran the comm thread's protocol; 0: inline */
    double gate_tail; /* its last phase of this kind after the last record (tide_plan_gate_tail) */
} tide_rank_record;

#define TIDE_RECORD_DOUBLES (sizeof(tide_rank_record) / sizeof(double))

/* A phase's numbers over the ranks: what the statistics (tide_stats_last_phase, the run's
 * totals) need from every rank, summed, then maximised. One rank's from its record
 * (tide_phase_sums_of), combined by tide_phase_sums_add: the phase-end allreduce's operation, so
 * that no rank needs every record (an allgather of P records; phase.c). */
typedef struct tide_phase_sums {
    double W, L, tasks, offloaded, bytes, replicated;
    double sq_err, n_err, ape_err, n_ape; /* prediction errors (where L_pred >= 0) */
    double served[TIDE_SERVED_EXACT];     /* rank-phases by who served the prediction */
    double limits[TIDE_LB_LIMIT_COUNT];   /* rank-phases with a plan, by what stayed */
    /* exact (integers) and so the same on every rank, whatever order the allreduce adds in:
     * what the plan gate reads (tide_plan_gate_end) */
    double L_ns, workers, predicted; /* L in whole nanoseconds; threads; ranks with an L_pred */
    /* maxima from here (TIDE_PHASE_SUMS_MAX_FROM) */
    double W_max, task_max, time;
    double gate_tail;         /* the plan gate's (tide_gate_phase.tail) */
    double own_load;          /* a rank's own load per worker, L / threads */
    double step_hi, step_neg; /* inline phases: the highest step and minus the lowest (phase.c) */
} tide_phase_sums;

#define TIDE_PHASE_SUMS_DOUBLES (sizeof(tide_phase_sums) / sizeof(double))
#define TIDE_PHASE_SUMS_MAX_FROM (offsetof(tide_phase_sums, W_max) / sizeof(double))
_Static_assert(TIDE_PHASE_SUMS_DOUBLES == TIDE_PROTO_SUMS_DOUBLES,
               "tide_core_proto.h's TIDE_PROTO_SUMS_DOUBLES (tide-sim's cost of the phase-end "
               "allreduce) must count the doubles of tide_phase_sums");

/* One rank's (its record's threads, or `threads` where the record has none). */
void tide_phase_sums_of(const tide_rank_record *r, int threads, tide_phase_sums *out);
/* Every rank's records folded in rank order. */
void tide_phase_sums_of_all(const tide_rank_record *r, int n, int threads, tide_phase_sums *out);
void tide_phase_sums_add(tide_phase_sums *into, const tide_phase_sums *s);

/* The run's totals so far (stats.c, tide_stats_totals, from the log's running sums): what the
 * summary line, the verdict and TIDE_STATS' summary report, without keeping every phase. */
typedef struct tide_run_totals {
    double W_par, W_avg, time, ideal, unbalanced;
    int64_t tasks, offloaded, replicated, bytes;
    double sq_err, ape_err; /* prediction errors: squared, and relative (where L > 0) */
    long n_err, n_ape;
    long served[TIDE_SERVED_EXACT], predicted; /* rank-phases by who served (tide_core_feed.h) */
    long limits[TIDE_LB_LIMIT_COUNT], planned; /* rank-phases with a plan, by what stayed */
    long inline_phases;
} tide_run_totals;

/* Every rank's records of the phases: all of them where they are written at finalize (rank 0
 * with TIDE_STATS or a trace: keep_all), else only the last phase's (tide_stats_last_phase),
 * so that a rank's memory does not grow with phases x ranks (1024 ranks x 10,000 phases would
 * be 1.8 GB a rank). The totals cover every phase either way. */
typedef struct tide_phase_log {
    int nphases, cap, nranks;
    int threads;               /* workers per rank: the phases' ideal times */
    bool keep_all;             /* set before the first phase */
    bool gather;               /* every rank allgathers the records (rank 0 keeps them all);
                                * else the phase's sums are allreduced (the same on every rank) */
    bool node_coll;            /* the inline phases' collective goes through shared memory */
    tide_rank_record *records; /* keep_all: nphases * nranks; else the last phase's nranks */
    /* The running totals, added as the phases end: every phase's sums added field by field (the
     * maxima too: their sum over the phases), and the terms that are not sums of the phases'
     * sums: the ideal times and what each phase would take without balancing. */
    tide_phase_sums sum;
    double ideal, unbalanced;
    long inline_phases; /* phases run without the comm thread's protocol (every phase under
                         * `none`; those the plan gate held idle under proact) */
} tide_phase_log;

/* Records a phase's records (every rank's), adds them to the run's totals and, with out, gives
 * the phase's statistics as rank me sees them (tide_stats_compute of the phase). */
int tide_stats_add_phase(tide_phase_log *log, const tide_rank_record *all, int me,
                         tide_phase_stats *out);
/* The same from the phase's sums (the allreduce's) and this rank's record: a log that keeps
 * no records (not keep_all). */
int tide_stats_add_sums(tide_phase_log *log, const tide_phase_sums *sums,
                        const tide_rank_record *mine, tide_phase_stats *out);
/* The same for a lone rank (nranks 1, not keep_all), whose record is its phase's sums: added
 * field by field, without the sums between (the same totals and statistics, test_stats). */
void tide_stats_add_lone(tide_phase_log *log, const tide_rank_record *r, tide_phase_stats *out);
/* The record of a lone rank's last inline phase (until the next one ends). */
const tide_rank_record *tide_protocol_lone_record(const tide_protocol *p);
/* The statistics tide_stats_add_lone gives, of the last phase it added, from the same record. */
void tide_stats_lone_last(const tide_phase_log *log, const tide_rank_record *r,
                          tide_phase_stats *out);
void tide_stats_compute(const tide_phase_log *log, int phase, int threads, int me,
                        tide_phase_stats *out);
tide_run_totals tide_stats_totals(const tide_phase_log *log);
/* The node with the most workers per core (node.c): its ranks' workers and the cores they may
 * use. */
typedef struct tide_node_load {
    int workers, cores, ranks;
} tide_node_load;

/* Writes the TIDE_STATS document to f (the caller checks the writes: tide_outfile_end). */
void tide_stats_write_json(const tide_phase_log *log, const tide_config *cfg,
                           const tide_node_load *node, FILE *f);
/* The finalize lines (docs/stats.md, "What finalize prints"): the summary and the verdict, the
 * lines that warn (oversubscription, proact never planned), and at TIDE_VERBOSE >= 1 the
 * predictions and the plans. */
void tide_stats_print_summary(const tide_phase_log *log, const tide_config *cfg,
                              const tide_node_load *node, FILE *out);
void tide_stats_free(tide_phase_log *log);

/* ---- timeline traces (trace.c, trace_json.c, trace_otf2.c) ------------------------------------
 */

/* TIDE_PREDICT (tide_config.predict), in the order of its choices. */
typedef enum { TIDE_PREDICT_AUTO = 0, TIDE_PREDICT_ON = 1 } tide_predict_mode;
typedef enum { TIDE_TRACE_AUTO = 0, TIDE_TRACE_JSON = 1, TIDE_TRACE_OTF2 = 2 } tide_trace_format;

typedef struct tide_trace tide_trace;

/* tide_init, every rank: resolves the format, allocates the per-thread buffers, and on rank 0
 * opens the output (a path it cannot write, or OTF2 asked of a build without it, fails here with
 * one line). Local only: the caller agrees on the result across ranks. */
int tide_trace_create(tide_rt *rt);
/* tide_init, every rank, once coll_comm exists and before the comm thread starts: the first clock
 * comparison with rank 0. */
void tide_trace_start(tide_rt *rt);
/* The recording hooks; each is reached only through `if (rt->trace)`. A worker (slot): */
void tide_trace_task(tide_trace *tr, int slot, const tide_task *t, int phase, double t0, double t1);
/* Comm thread: a message posted (buf starts with its wire header) or received and handled. */
void tide_trace_send(tide_trace *tr, int dest, const unsigned char *buf, size_t len, double t0,
                     double t1);
void tide_trace_recv(tide_trace *tr, const tide_wire_header *h, size_t len, double t0, double t1);
/* Comm thread: the strategy moved n tasks to dest (planned: during phase_begin, i.e. the plan),
 * or sent a copy of own task seq to dest. */
void tide_trace_move(tide_trace *tr, int phase, int dest, int n, bool planned);
void tide_trace_replica(tide_trace *tr, int phase, int dest, uint64_t seq);
/* Application thread: one tide_taskwait (phase, its own tasks) from its start to its return. */
void tide_trace_phase(tide_trace *tr, int phase, long tasks, double t0, double t1);
/* tide_finalize, every rank, after the comm thread stopped: the last clock comparison, every
 * rank's events to rank 0, which writes the file and says what it wrote. Returns rank 0's
 * error (TIDE_OK elsewhere) and frees the trace. */
int tide_trace_finish(tide_rt *rt);
/* Frees the trace of a run that ends without tide_trace_finish (a failed tide_init). */
void tide_trace_discard(tide_rt *rt);

/* The verdict's floors (docs/stats.md, "The verdict"): a run shorter than MIN_TIME, or whose
 * ranks' own work is under MIN_PHASE a phase, is too short to judge (a phase costs the runtime a
 * fixed few hundred microseconds of collectives and wake-ups); below BALANCED of the unbalanced
 * time the saving is noise and no recovery ratio is meaningful. */
#define TIDE_VERDICT_MIN_TIME 0.05
#define TIDE_VERDICT_MIN_PHASE 1e-3
#define TIDE_VERDICT_BALANCED 0.02

/* The finalize verdict (verdict.c, docs/stats.md "The verdict"): run totals in seconds. */
typedef struct tide_verdict {
    double unbalanced; /* sum over phases of max(max_i L_i / threads, ideal): no balancing */
    double ideal;      /* sum of the phases' ideal times */
    double achieved;   /* sum of the phases' times: the summary line's time */
    double saving;     /* (unbalanced - ideal) / unbalanced: what perfect balance would save */
    double recovered;  /* (unbalanced - achieved) / (unbalanced - ideal); 0 when balanced */
    bool balanced;     /* saving below 2%: recovered is not meaningful */
    bool too_short;    /* below the floors (stats.c): the run's own costs weigh like its work */
    int phases;
    int64_t moved; /* tasks executed away from their origin */
} tide_verdict;

tide_verdict tide_stats_verdict(const tide_phase_log *log);
/* One line "tide: verdict: ..." (no newline) for lb. */
void tide_verdict_format(const tide_verdict *v, const char *lb, char *out, size_t len);

/* ---- the runtime ------------------------------------------------------------------------------
 */

/* Per-worker counters, one cache line each, summed at phase end. */
typedef struct tide_worker_slot {
    double L_local;   /* own tasks executed here */
    double L_run;     /* every task executed here: own, received, replica copies */
    double last_done; /* time the latest task finished */
    double task_max;
    long executed;
    char pad[TIDE_CACHELINE - 4 * sizeof(double) - sizeof(long)];
} tide_worker_slot;

/* One worker's share of an inline phase's own tasks, dealt round-robin in queue order when the
 * phase has one worker, or several and many tasks (worker.c, tide_workers_deal): any worker
 * claims the next one with an atomic increment of `next` (a lone one with a plain one), its own
 * share first, then the others'. */
typedef struct tide_deal {
    atomic_long next; /* the next index to claim (>= n: none left) */
    long n, cap;
    tide_task **at;
} __attribute__((aligned(TIDE_CACHELINE))) tide_deal;

/* Cancels of replica copies that workers ask for and the comm thread sends (worker.c). */
typedef struct tide_cancels {
    pthread_mutex_t lock;
    uint64_t *seq;
    int *dest;
    size_t n, cap;
} tide_cancels;

/* Collective, at init once rt->threads is known: fills rt->node. */
void tide_node_probe(tide_rt *rt);

struct tide_rt {
    tide_config cfg;
    int rank, size, threads;
    tide_node_load node; /* node.c */
    bool mpi_owned;      /* tide_init initialized MPI */
    /* Tide's duplicate of the communicator it runs on (tide_init_comm), the parent of data_comm
     * and coll_comm (the comm thread's) and of the objects layer's. */
    MPI_Comm mpi_comm, data_comm, coll_comm;
    tide_host lb; /* the task strategy (lb_host.c drives the core's host) */

    /* own tasks of the phase not yet started (tide_taskwait queues the submitted ones) */
    tide_queue local;
    /* Tasks submitted since the last taskwait, newest first, linked by `next`: a submission is
     * one compare-and-swap, where the queue's lock pair cost two locked instructions and a tenth
     * of a fine-grained task. tide_taskwait takes the list at its start and queues it in
     * submission order (tide_task_admit); a submission that races with that start runs in
     * this phase or the next. */
    _Atomic(tide_task *) incoming;
    tide_queue remote;  /* other ranks' tasks, executed first */
    tide_queue results; /* executed remote tasks whose results await sending */

    uint64_t next_seq; /* the next own task's seq (tide_task_admit, under local.lock) */
    /* Cost hints of the phase's own tasks (tide_task_admit): predict.c serves them when every
     * own task of the phase has one. */
    struct {
        long n;
        double sum;
    } phase_hints;
    atomic_long outstanding; /* own tasks of the phase not completed yet */
    atomic_bool in_taskwait;
    atomic_int phase_requested; /* set by taskwait; the comm thread answers phase_done */
    atomic_int phase_done;
    atomic_int plan_ready; /* phases whose strategy has chosen what moves (phase_sync only) */
    /* This phase's own tasks wait for plan_ready (tide_proto_hold_own: the strategy plans at
     * phase start, and without TIDE_LB_START_EARLY or with a plan that came soon enough). Set by
     * taskwait before the phase starts. */
    bool hold_own;
    double last_phase_s; /* how long this rank's last phase took (taskwait to its end; an
                          * inline phase without a trace nor the plan gate: to its record, before
                          * the allreduce) */
    /* What a plan needs of each own task of the phase, by its position (tide_task.pos), also
     * once the task started: written by tide_task_admit at the phase's start, read by the comm
     * thread while the phase runs (predict.c: tide_predict_task_times). n: marks recorded for
     * the phase's own tasks (fewer than them when out of memory). */
    struct {
        tide_task_mark *at;
        long n, cap;
        long *queued, queued_cap; /* scratch: the queued tasks' positions, in queue order */
    } marks;
    double plan_at; /* seconds after phase_start at which the last phase_begin returned */
    /* The application thread runs each phase's protocol itself (TIDE_PHASE_DRIVER=auto under a
     * strategy that never acts): no task moves, so the comm thread has no part in a phase. */
    bool inline_phases;
    /* This phase runs on the application thread (inline): inline_phases, or the plan gate holds
     * the strategy idle (tide_core_proto.h, "the plan gate"). tide_taskwait sets it before the
     * phase starts; workers and the comm thread read it. */
    atomic_bool inline_now;
    /* This phase's own tasks are in deal[], not in local: written only where it changes, before
     * the workers start (here, in a hole beside inline_now, whose line they read then anyway:
     * tide_rt's layout moves a 2-worker fine-grained step by 5-18%, performance.md section 14). */
    bool dealt;
    /* inline phases ended so far: written by the thread that runs them alone (a plain store, no
     * locked instruction), read by the comm thread, which counts the new ones (phase.c); wraps */
    atomic_uint inline_ended;
    /* Written where a phase ends (tide_plan_gate_end) and when tide_taskwait returns
     * (tide_plan_gate_ended), read by the next tide_taskwait and the next record. */
    tide_plan_gate gate;
    /* The load model runs (TIDE_PREDICT; tide_predict_init): someone reads its predictions. */
    bool predicting;
    /* Set by a layer above the engine (the objects layer) that must be finalized first. */
    int (*finalize_layer)(void);
    atomic_bool stop;
    int phase;          /* current phase number (taskwait count) */
    double phase_start; /* tide_now() when taskwait began */
    double phase_end;   /* tide_now() when this rank's record of the phase was made */
    long phase_tasks;

    tide_worker_slot *slots; /* threads entries */
    tide_trace *trace;       /* TIDE_TRACE: NULL when off (the hooks' one branch) */
    struct tide_pool *pool;  /* pool.c: the workers besides the application thread */

    /* Comm-thread-only state. */
    pthread_t comm;
    struct tide_transport *transport; /* transport.c */
    struct tide_protocol *protocol;   /* phase.c */
    uint64_t inflight_bytes;
    double L_offloaded, offload_task_max;
    long n_offloaded, n_received; /* n_received: every task that arrived, copies included */
    long n_cancelled;             /* replica copies dropped here unrun (replica.c) */
    long n_replicated;            /* replica copies of own tasks sent (replica.c) */
    long n_reclaimed;             /* tasks chosen to move, taken back before they left */
    double plan_transfer;         /* report_transfer of the phase's plan (-1: none) */
    uint64_t bytes_sent;
    double plan_residual, plan_limit; /* what this phase's plan left here (plan_limit -1: none) */
    int cphase;                       /* the phase the comm thread is in (or was last in) */
    bool running;                     /* cphase is running: tasks of it may still move */
    bool stopping;                    /* tide_finalize is in progress: no new requests */

    /* Who runs the comm loop's turns (not the comm thread's alone: see each field). */
    /* One turn of the comm thread's loop at a time: the comm thread's own, or the application
     * thread's while it waits in a protocol phase with nothing to run (TIDE_WAIT_PROGRESS;
     * commthread.c, worker.c). drive_step: that thread's step, NULL where it never drives (set
     * before the comm thread starts, so that worker.c needs no call up into commthread.c). */
    pthread_mutex_t turn_lock;
    bool (*drive_step)(struct tide_rt *rt, tide_backoff *b);
    bool drive_sends;        /* application thread only: its last turn left sends in flight */
    unsigned drive_fails;    /* application thread only: turns it found the lock taken */
    long drive_turns;        /* application thread only: its turns that did something (tests) */
    bool driven;             /* application thread only: it drives this phase (tide_taskwait) */
    atomic_bool app_driving; /* it runs the turns: the comm thread waits on drive_cv */
    bool comm_drive_waits;   /* under idle_lock: the comm thread waits on drive_cv */

    /* Workers sleep here when idle; the comm thread sleeps on comm_cv between polls. */
    pthread_mutex_t idle_lock;
    pthread_cond_t work_cv, comm_cv;
    pthread_cond_t drive_cv; /* the comm thread waits here while the application thread drives */
    atomic_int idle_workers;
    bool comm_wake_pending; /* under idle_lock: a tide_comm_wake the comm thread did not see */
    /* tide_comm_call: a function the comm thread runs for the application thread between
     * phases (fields under idle_lock; call_pending published with release). */
    void (*call_fn)(void *);
    void *call_arg;
    bool call_done;
    atomic_bool call_pending;
    pthread_cond_t call_cv;

    tide_phase_log log;
    tide_phase_stats last;
    /* `last` is left to tide_stats_last_phase to compute, from the lone rank's record of the
     * phase just ended (phase.c, tide_protocol_lone_record): most programs never ask, and the
     * statistics cost a tenth of a one-rank phase's own work. Application thread only. */
    bool last_deferred;
    tide_outfile stats_file, objects_stats_file; /* rank 0: TIDE_STATS, TIDE_OBJECTS_STATS */

    struct tide_replicas *replicas; /* replica.c */
    tide_cancels cancels;
    /* Load prediction (predict.c), comm thread only: the model and the prediction for the
     * running phase (feed.load, -1: none). */
    tide_feed feed;
    tide_tool tool;
    bool have_tool;
    bool warned_fallback;
    tide_deal *deal; /* threads entries: the shares of a dealt inline phase (worker.c) */
};

/* ---- load prediction (predict.c) --------------------------------------------------------------
 */

int tide_predict_init(tide_rt *rt, char *err, size_t len);
void tide_predict_finalize(tide_rt *rt);
/* Predicts the phase about to run: sets rt->feed's load (-1 when there is none yet), unc,
 * source, model_code and per-task weights (a fitted task model gives them, whichever source
 * serves the total); cost hints on every own task replace the model's. */
void tide_predict_phase(tide_rt *rt);
/* Per-task predictions of the phase exist (the task model's, or the cost hints). */
bool tide_predict_task_ready(const tide_rt *rt);
/* Feeds the finished phase's measured own load to the model (may retrain); count: the phases
 * this rank has ended, this one included (the tool's phase index). */
void tide_predict_observe(tide_rt *rt, double load, long count);
void tide_predict_phase_ended(void);
/* Per-task predicted times of the phase about to run, in local queue order, for the n queued
 * tasks. Returns false when there are none (not the task model, not trained, fell back). */
bool tide_predict_task_times(tide_rt *rt, double *times, long n);
/* Task hooks: features as the phase queues the task (tide_task_admit), the measured time at
 * completion. */
void tide_predict_capture(tide_task *t);
void tide_predict_record_time(tide_task *t);

extern tide_rt *tide_rt_global;

/* tide_init: whether the comm thread can be pinned to TIDE_COMM_CPU here (TIDE_ERR_CONFIG and
 * one line if not). */
int tide_comm_cpu_check(const tide_rt *rt);
int tide_comm_start(tide_rt *rt);
void tide_comm_stop(tide_rt *rt);
void tide_comm_wake(tide_rt *rt);
/* The application thread stops driving (worker.c): it starts a task, or the phase is over. */
void tide_comm_drive_end(tide_rt *rt, bool phase_over);
/* Runs fn(arg) on the comm thread, between phases, and returns when it is done: how the rest of
 * the runtime (the objects layer) uses MPI outside the comm loop's turns and inline phases.
 * From the application thread outside tide_taskwait only; fn may block in collectives that every
 * rank's comm thread enters the same way. */
void tide_comm_call(tide_rt *rt, void (*fn)(void *), void *arg);
void tide_workers_wake(tide_rt *rt);
/* The worker pool (pool.c): threads - 1 pthreads that sleep between phases. */
typedef struct tide_pool tide_pool;
int tide_pool_start(tide_rt *rt);
void tide_pool_stop(tide_rt *rt);
/* taskwait: runs the phase on every worker and this thread (slot 0); returns when all left it.
 * since: a clock reading (tide_now) this thread made just before, with nothing run since, that
 * may start its first task when it is the only worker; 0: none. */
void tide_pool_run_phase(tide_rt *rt, double since);
/* Runs tasks on this thread until the phase is done everywhere; since as above (0: none). */
void tide_worker_loop(tide_rt *rt, int slot, double since);
/* Before an inline phase with one worker, or several and many own tasks, under local.lock (the
 * admission's: tide_taskwait): deals the queued tasks to the workers' shares (rt->deal) and
 * returns true (the caller sets rt->dealt for the phase), or leaves them queued (few tasks for
 * several workers, out of memory). */
bool tide_workers_deal(tide_rt *rt);
/* Before an inline phase with one worker, under local.lock: the n admitted tasks from `first`
 * (tide_task_admit's list) into its share, in list order, and true (the caller sets rt->dealt);
 * false where the queue would order them otherwise (priorities that differ, or tasks already
 * queued) or out of memory: the caller queues them. */
bool tide_workers_deal_lone(tide_rt *rt, tide_task *first, long n);
/* Counts one own task of the phase as complete (it ran here, or its result was applied);
 * returns how many remain. Aborts if a task would complete twice. */
long tide_task_completed(tide_rt *rt);
/* rt->outstanding += d; the new count. `alone`: one thread admits, runs and completes every task
 * of the phase (a lone worker's inline phase: none arrives, the comm thread only reads the
 * count), so a load and a store, where an atomic add is a locked instruction. */
static inline long tide_outstanding_add(tide_rt *rt, bool alone, long d)
{
    return alone ? tide_locked_add(&rt->outstanding, d) + d
                 : atomic_fetch_add_explicit(&rt->outstanding, d, memory_order_acq_rel) + d;
}
/* Executes one task and accounts for it. The task's time starts at since, the reading that ended
 * what this worker did just before (its previous task, with only that task's bookkeeping and the
 * queue's pop between them), or where since is 0 at a reading of its own: a worker going from
 * task to task reads the clock once per task, not twice (performance.md). Returns the reading
 * that ended the task where the worker's next task may start at it (worker.c says when), else 0. */
double tide_task_execute(tide_rt *rt, tide_task *t, int slot, double since);

#endif
