/* Tide: a task runtime for iterative hybrid MPI+OpenMP applications.
 *
 * This header is the whole public surface. An application:
 *   tide_init(&argc, &argv);
 *   for each iteration:
 *       for each piece of work: tide_task_create(...); tide_task_submit(t);
 *       tide_taskwait();          // runs the tasks; balances load between ranks
 *   tide_finalize();
 *
 * Every function returns TIDE_OK (0) or a negative tide_error, except the three queries
 * tide_rank, tide_size and tide_num_threads, which return a count (>= 0) or TIDE_ERR_STATE
 * before tide_init; tide_strerror() names an error and tide_last_error_message() gives the
 * detail of the most recent failure on this thread. The predictor (tide_predictor.h) and the
 * planners (tide_plan.h, tide_global.h) use the same negative values for the same errors.
 */
#ifndef TIDE_H
#define TIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIDE_API __attribute__((visibility("default")))

#define TIDE_VERSION_MAJOR 0
#define TIDE_VERSION_MINOR 1

/* Most arguments a task may take, and most numeric features it may carry. */
#define TIDE_MAX_ARGS 32
#define TIDE_MAX_FEATURES 8

typedef enum tide_error {
    TIDE_OK = 0,
    TIDE_ERR_INVALID = -1,     /* a bad argument (null pointer, size/mode mismatch, ...) */
    TIDE_ERR_STATE = -2,       /* called at the wrong time (before init, after finalize, ...) */
    TIDE_ERR_CONFIG = -3,      /* a configuration value is invalid */
    TIDE_ERR_NOMEM = -4,       /* an allocation failed */
    TIDE_ERR_MPI = -5,         /* MPI failed or offers too low a thread level */
    TIDE_ERR_MISMATCH = -6,    /* ranks run different executables */
    TIDE_ERR_UNSUPPORTED = -7, /* a function cannot be offloaded (no portable identity) */
    TIDE_ERR_TOOL = -8         /* a tool library (TIDE_TOOL) could not be loaded */
} tide_error;

/* How a task uses one argument. IN data is read, OUT data is written, INOUT both. VALUE copies
 * `size` bytes at creation time: the task sees its own copy, the caller's buffer may be reused.
 *
 * Buffer lifetime: Tide does not copy IN, OUT or INOUT buffers at creation; it reads and writes
 * them during the tide_taskwait that runs the task (when the task runs here, when it is packed
 * to be sent, when its result comes home; a replicated task's inputs may be read twice). From
 * tide_task_create until that tide_taskwait returns, an IN or INOUT buffer must stay valid and
 * unchanged, and an OUT or INOUT buffer must stay valid and be neither read nor written by the
 * application. Tasks of one phase run in no particular order, concurrently and on any rank: no
 * task may write a buffer another task of the same phase reads or writes. */
typedef enum tide_arg_mode {
    TIDE_IN = 1,
    TIDE_OUT = 2,
    TIDE_INOUT = 3,
    TIDE_VALUE = 4
} tide_arg_mode;

typedef struct tide_arg {
    void *ptr;
    size_t size; /* bytes; 0 is allowed (ptr may then be NULL) */
    tide_arg_mode mode;
} tide_arg;

/* A task function receives one pointer per argument, in creation order. On the origin rank IN,
 * OUT and INOUT pointers are the application's own buffers; on a remote rank they point to copies
 * of the same size. A task must touch nothing else that is rank-local.
 *
 * Alignment: a copy on a remote rank, and a VALUE copy anywhere, is 16-byte aligned (as malloc
 * aligns: any C type, SSE), not 32 or 64; on the origin rank IN/OUT/INOUT pointers are the
 * application's, aligned as it aligned them. An OUT argument's copy on a remote rank starts with
 * undefined bytes, and all of it is copied home: a task must write every byte of an OUT argument
 * (use INOUT to start from the application's data).
 *
 * MPI: a task must not call MPI. It may run on another rank, at any time during the phase and
 * concurrently with other tasks, so a message it waits for may never be sent (the matching call
 * may sit in a task not yet started); it must not call tide_taskwait either. */
typedef void (*tide_task_fn)(void **args);

typedef struct tide_task tide_task;

/* ---- life cycle ---------------------------------------------------------------------------- */

/* Initializes MPI when the application has not (with MPI_THREAD_MULTIPLE), reads the TIDE_*
 * environment, checks that every rank runs the same executable, and starts the comm thread.
 * Collective over MPI_COMM_WORLD. argc/argv may be NULL. To run Tide on a communicator of the
 * application's (one component of a coupled code), use tide_init_comm of tide_mpi.h instead. */
TIDE_API int tide_init(int *argc, char ***argv);

/* Stops the comm thread, writes statistics (TIDE_STATS) and the summary line (unless
 * TIDE_QUIET), and finalizes MPI when tide_init initialized it. Collective. The summary's time is
 * the sum of the phases' durations (each tide_taskwait on rank 0), not the run's wall time: what
 * the application does between phases, init and finalize are not in it. */
TIDE_API int tide_finalize(void);

/* Sets a configuration knob before tide_init, by its environment name ("TIDE_LB", "random";
 * "TIDE_TRACE", "run.json" for a timeline of the run, docs/trace.md).
 * The same parser as the environment validates it; TIDE_ERR_CONFIG names what is allowed.
 * A variable set in the environment overrides the value set here (the operator has the last
 * word). */
TIDE_API int tide_config_set(const char *name, const char *value);

/* This rank, the number of ranks (in MPI_COMM_WORLD, or in the communicator given to
 * tide_init_comm), the worker threads per rank; TIDE_ERR_STATE before tide_init. */
TIDE_API int tide_rank(void);
TIDE_API int tide_size(void);
TIDE_API int tide_num_threads(void);

/* ---- tasks --------------------------------------------------------------------------------- */

/* Creates a task of `fn` over `nargs` arguments (0..TIDE_MAX_ARGS). VALUE arguments are copied
 * now. Thread-safe. On success *out receives the task, which belongs to the caller until it is
 * submitted. A task moves to another rank as fn's offset in its executable or shared library
 * (its portable identity); an fn in no loaded object (code written at run time, such as the
 * trampoline of a Fortran internal procedure) is accepted, but its tasks only run here: the
 * first one a balancer tried to move says so, once per rank (docs/fortran.md). */
TIDE_API int tide_task_create(tide_task **out, tide_task_fn fn, int nargs, const tide_arg *args);

/* Attaches numeric feature `index` (0..TIDE_MAX_FEATURES-1) to a task before submission: what
 * makes the task expensive (a matrix size, a cell count), the same index for the same quantity in
 * every task. Features are collected with TIDE_PRED_MODEL=auto (the default: a per-task model
 * competes with the per-rank one) or task, and ignored with TIDE_PRED_MODEL=rank (unless a
 * TIDE_TOOL library computes features from them). Predictions steer only the strategies that
 * plan from them (TIDE_LB=proact, proact_react); with any other TIDE_LB they appear in the
 * statistics (L_pred, pred_mape) and change nothing (docs/predictor.md). Under another TIDE_LB
 * without statistics, trace or tool the model does not run at all (TIDE_PREDICT=auto, the
 * default; TIDE_PREDICT=on runs it). */
TIDE_API int tide_task_set_feature(tide_task *task, int index, double value);

/* Hints, set on a task before submission (docs/strategies.md, "Per-task hints").
 *
 * Pinned: the task runs on this rank. No strategy offloads, steals, replicates or migrates it
 * (the engine refuses to move it, whatever the strategy asks); use it for a task that touches
 * rank-local state. Its load still counts in the rank's.
 *
 * Cost: the task's expected run time in seconds (finite, >= 0). In a phase where every own task
 * of the rank has a cost, the rank's predicted load is the sum of the costs (uncertainty 0, the
 * statistics' pred_source "hint") and the costs are the per-task weights the proactive planner
 * chooses from, from the first phase on, without training. When only some tasks have one, the
 * costs are ignored and the load model serves as without hints.
 *
 * Priority: higher runs first on its rank, FIFO among equal priorities (default 0). Strategies
 * that move "tasks from the back of the queue" (react, ws, rep, random, proact's uniform plan)
 * therefore offload the lowest-priority tasks first; proact's per-task plan chooses by weight and,
 * among equal weights, the lower priority. A task that left its rank runs among the tasks received
 * there, in arrival order. */
TIDE_API int tide_task_set_pinned(tide_task *task);
TIDE_API int tide_task_set_cost(tide_task *task, double seconds);
TIDE_API int tide_task_set_priority(tide_task *task, int priority);

/* Hands the task to Tide; it runs during the next tide_taskwait(). Thread-safe: while a
 * tide_taskwait runs, a submission returns TIDE_ERR_STATE (tasks may not create tasks); one
 * from another thread as a tide_taskwait starts runs in that phase or the next. */
TIDE_API int tide_task_submit(tide_task *task);

/* Frees a task that was created but not submitted. */
TIDE_API int tide_task_discard(tide_task *task);

/* Ends an iteration (a phase): executes the submitted tasks on this rank's workers, lets the
 * balancing strategy move tasks between ranks, and returns on every rank only when every task
 * of the phase on every rank has completed and its outputs are back in the origin's buffers.
 * Collective; call it from one thread per rank, outside any task.
 *
 * Under a strategy that never moves a task (TIDE_LB=none) with TIDE_SYNC_EVERY=N > 1, it returns
 * once this rank's tasks have completed, and the ranks agree (steps and statistics) every N
 * phases instead (docs/config.md).
 *
 * Between phases (after tide_taskwait returns, before the next one) the application may call MPI
 * as it likes, e.g. its own halo exchange, on any communicator: Tide needs MPI_THREAD_MULTIPLE
 * because its comm thread calls MPI at the same time, and it uses only its own duplicates of
 * the communicator it runs on, so its messages never match the application's. Other threads of
 * the application may call MPI during a phase too; tasks may not (see tide_task_fn).
 *
 * The workers are the calling thread and TIDE_THREADS - 1 threads of Tide's own (placed as
 * OMP_PROC_BIND would place OpenMP's threads), not an OpenMP parallel region: they cost no CPU
 * between taskwaits whatever OMP_WAIT_POLICY says, and a task that opens its own parallel region
 * gets a team of its own (omp_get_thread_num() in a task outside such a region is 0). */
TIDE_API int tide_taskwait(void);

/* ---- errors and statistics ----------------------------------------------------------------- */

TIDE_API const char *tide_strerror(int code);
/* Detail of the last failure returned to this thread ("" when none). */
TIDE_API const char *tide_last_error_message(void);

/* What the last completed phase measured; identical on every rank. Times in seconds. With
 * TIDE_SYNC_EVERY=N > 1 (TIDE_LB=none) the last phase the ranks agreed on, every N phases: `phase`
 * says which, and before the first agreement it fails with TIDE_ERR_STATE. */
typedef struct tide_phase_stats {
    int phase;           /* 0-based */
    double W_max, W_avg; /* wallclock until workers ran out of work: max and mean over ranks */
    double R_imb;        /* W_max / W_avg - 1 (0 when W_avg is 0) */
    double L_total;      /* sum of all tasks' execution times */
    double ideal;        /* max(L_total / all workers, longest task) */
    double time;         /* the taskwait's duration on rank 0 (not the time between phases) */
    int64_t tasks;       /* tasks of the phase, all ranks */
    int64_t offloaded;   /* tasks executed away from their origin */
    int64_t bytes_moved; /* task and result bytes sent over MPI, all ranks */
    /* This rank's own values. */
    double W_self, L_self;
    double L_pred_self; /* this rank's predicted load for the phase; -1 before a model exists,
                         * and when the model does not run (TIDE_PREDICT=auto and nothing
                         * reads it: a strategy other than proact, no TIDE_STATS, TIDE_TRACE
                         * or TIDE_TOOL; TIDE_PREDICT=on runs it always) */
    double L_unc_self;  /* its uncertainty (docs/predictor.md); -1 without a prediction */
    int64_t tasks_self, offloaded_self, received_self;
} tide_phase_stats;

TIDE_API int tide_stats_last_phase(tide_phase_stats *out);

/* ==== persistent migratable objects (runtime/objects/; docs/objects.md) ================ *
 *
 * A persistent object (a Charm++ chare) is a state buffer plus an iteration function. It lives on
 * one rank at a time; tide_objects_iterate() runs every object's function once, as a Tide task on
 * the object's current owner, and every TIDE_LB_PERIOD iterations the global strategy
 * TIDE_GLOBAL_LB (a name of rescheduling/registry.cmake; docs/config.md lists them) computes
 * a new mapping from the measured object loads, and objects migrate
 * with their state. Objects send each other messages by id; a message sent during iteration k is
 * delivered to the target at its iteration k+1, wherever it lives by then.
 *
 *   tide_init(...);
 *   for each object this rank starts with: tide_object_create(id, &state, sizeof state, fn);
 *   for each iteration: tide_objects_iterate();    // collective
 * tide_objects_finalize();                       // collective (tide_finalize does it if not)
 *   tide_finalize();
 */

/* One message in an object's inbox. data is valid only during the iteration function and has
 * no alignment guarantee (copy it out with memcpy). */
typedef struct tide_object_msg {
    int64_t from;     /* id of the sending object */
    const void *data; /* NULL when size is 0 */
    size_t size;
} tide_object_msg;

/* What an iteration function knows about the call. */
typedef struct tide_object_info {
    int64_t id;        /* the object being iterated */
    int64_t iteration; /* 0-based count of tide_objects_iterate calls */
    int rank;          /* the rank executing it (the owner, unless TIDE_LB offloaded the task) */
} tide_object_info;

/* An object's iteration function. It may read and write its state (state_size bytes, the
 * object's own buffer or a copy of it), read the ninbox messages delivered to it (sorted by
 * sender id, then by the order the sender sent them), and call tide_object_send(info->id, ...).
 * Like a task, it must touch nothing else that is rank-local. Runs on a worker thread. */
typedef void (*tide_object_fn)(void *state, size_t state_size, const tide_object_msg *inbox,
                               size_t ninbox, const tide_object_info *info);

/* Creates object `id` (unique over all ranks; checked collectively at the next iterate) on this
 * rank, copying state_size bytes of `state` (state may be NULL when state_size is 0). Between
 * iterations, after tide_init. Thread-safe. TIDE_ERR_INVALID: id already known, fn NULL, ...;
 * TIDE_ERR_UNSUPPORTED: fn has no portable identity (see tide_task_create). */
TIDE_API int tide_object_create(int64_t id, const void *state, size_t state_size,
                                tide_object_fn fn);

/* Sends `size` bytes (copied now) from object from_id to object to_id. Only inside from_id's
 * iteration function; thread-safe. TIDE_ERR_STATE outside an iteration function,
 * TIDE_ERR_INVALID when from_id is not the object being iterated or to_id is unknown. */
TIDE_API int tide_object_send(int64_t from_id, int64_t to_id, const void *data, size_t size);

/* One iteration of every object: registers the objects created since the last call (fails on
 * every rank alike with TIDE_ERR_INVALID when an id was created twice), runs the objects as
 * tasks and waits for them (tide_taskwait, so tasks the application submitted run too), then,
 * when a rescheduling is due, migrates objects, and finally routes the messages sent in this
 * iteration to the targets' owners. Collective; from the application thread, outside tasks. */
TIDE_API int tide_objects_iterate(void);

/* The state buffer of a local object, between iterations (valid until the next iterate).
 * TIDE_ERR_INVALID when the object does not live on this rank (or does not exist). */
TIDE_API int tide_object_state(int64_t id, void **state, size_t *state_size);

/* Ids of the objects living on this rank, ascending: *n receives how many there are; at most
 * cap of them are written to ids (ids may be NULL when cap is 0). */
TIDE_API int tide_objects_local(int64_t *ids, size_t cap, size_t *n);

/* Replaces TIDE_GLOBAL_LB / TIDE_LB_PERIOD from now on (period >= 1; the count of iterations
 * towards the next rescheduling restarts). Every rank must make the same call between the same
 * iterations: the next tide_objects_iterate checks it and, where the ranks differ, fails with
 * TIDE_ERR_INVALID on every rank (the layer then refuses further calls). TIDE_ERR_INVALID here
 * names the allowed strategies. */
TIDE_API int tide_objects_set_lb(const char *strategy, int period);

/* One rescheduling. Loads are seconds per iteration of a rank's objects (the mean over the
 * iterations since the previous rescheduling); identical on every rank. */
typedef struct tide_objects_lb_record {
    int64_t iteration;              /* the 0-based iteration after which it ran */
    double decision_s;              /* the strategy's own run time (max over ranks) */
    double gather_s;                /* collecting loads, owners and the communication graph (max) */
    double migrate_s;               /* moving the state buffers (max over ranks) */
    int64_t moved;                  /* objects whose owner changed */
    int64_t bytes_moved;            /* their state bytes */
    double max_before, avg;         /* max and mean rank load under the old mapping */
    double max_after;               /* max rank load the new mapping gives to the measured loads */
    double comm_before, comm_after; /* message bytes per iteration between objects on different
                                       ranks, old and new mapping */
    /* The distributed protocols (packdrop, distributed); zero for the centralized strategies. */
    int64_t gossip_rounds;    /* gossip rounds until quiescence */
    int64_t gossip_messages;  /* gossip messages, all ranks */
    int64_t handshake_rounds; /* packdrop: BatchSend rounds; distributed: transfer phases */
    int64_t proposals;        /* batches (packdrop) or objects (distributed) proposed */
    int64_t refused;          /* proposals the target refused */
    int64_t unplaced;         /* batches / objects that found no target and stayed home */
} tide_objects_lb_record;

typedef struct tide_objects_stats {
    int64_t iterations;          /* tide_objects_iterate calls completed */
    int64_t objects;             /* registered objects, all ranks */
    int64_t objects_self;        /* living on this rank */
    int64_t reschedules;         /* strategy runs (none never runs) */
    tide_objects_lb_record last; /* the latest one (all zero before the first) */
    double decision_s_total, gather_s_total, migrate_s_total;
    int64_t moved_total, bytes_moved_total;
    int64_t messages, message_bytes; /* delivered, all ranks, all iterations */
    /* Measured in the last iteration: rank load = sum of its objects' execution times. */
    double load_max, load_avg, load_self;
} tide_objects_stats;

TIDE_API int tide_objects_stats_get(tide_objects_stats *out);

/* Writes TIDE_OBJECTS_STATS (JSON, rank 0), prints a summary on rank 0 unless TIDE_QUIET, and
 * frees every object and buffer. Collective; tide_finalize calls it when the program did not.
 * Objects may be created again afterwards (a new layer starts at the next iterate). */
TIDE_API int tide_objects_finalize(void);

#ifdef __cplusplus
}
#endif

#endif
