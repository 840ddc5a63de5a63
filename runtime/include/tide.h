/* Tide: a task runtime for iterative hybrid MPI+OpenMP applications.
 *
 * This header is the whole public surface. An application:
 *   tide_init(&argc, &argv);
 *   for each iteration:
 *       for each piece of work: tide_task_create(...); tide_task_submit(t);
 *       tide_taskwait();          // runs the tasks; balances load between ranks
 *   tide_finalize();
 *
 * Every function returns TIDE_OK (0) or a negative tide_error; tide_strerror() names it and
 * tide_last_error_message() gives the detail of the most recent failure on this thread.
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
    TIDE_ERR_INVALID = -1,    /* a bad argument (null pointer, size/mode mismatch, ...) */
    TIDE_ERR_STATE = -2,      /* called at the wrong time (before init, after finalize, ...) */
    TIDE_ERR_CONFIG = -3,     /* a configuration value is invalid */
    TIDE_ERR_NOMEM = -4,      /* an allocation failed */
    TIDE_ERR_MPI = -5,        /* MPI failed or offers too low a thread level */
    TIDE_ERR_MISMATCH = -6,   /* ranks run different executables */
    TIDE_ERR_UNSUPPORTED = -7 /* a function cannot be offloaded (no portable identity) */
} tide_error;

/* How a task uses one argument. IN data is read, OUT data is written, INOUT both. VALUE copies
 * `size` bytes at creation time: the task sees its own copy, the caller's buffer may be reused. */
typedef enum tide_arg_mode { TIDE_IN = 1, TIDE_OUT = 2, TIDE_INOUT = 3, TIDE_VALUE = 4 } tide_arg_mode;

typedef struct tide_arg {
    void *ptr;
    size_t size; /* bytes; 0 is allowed (ptr may then be NULL) */
    tide_arg_mode mode;
} tide_arg;

/* A task function receives one pointer per argument, in creation order. On the origin rank IN,
 * OUT and INOUT pointers are the application's own buffers; on a remote rank they point to copies
 * of the same size. A task must touch nothing else that is rank-local. */
typedef void (*tide_task_fn)(void **args);

typedef struct tide_task tide_task;

/* ---- life cycle ---------------------------------------------------------------------------- */

/* Initializes MPI when the application has not (with MPI_THREAD_MULTIPLE), reads the TIDE_*
 * environment, checks that every rank runs the same executable, and starts the comm thread.
 * Collective over MPI_COMM_WORLD. argc/argv may be NULL. */
TIDE_API int tide_init(int *argc, char ***argv);

/* Stops the comm thread, writes statistics (TIDE_STATS) and the summary (unless TIDE_QUIET),
 * and finalizes MPI when tide_init initialized it. Collective. */
TIDE_API int tide_finalize(void);

/* Sets a configuration knob before tide_init, by its environment name ("TIDE_LB", "random").
 * The same parser as the environment validates it; TIDE_ERR_CONFIG names what is allowed.
 * A variable set in the environment overrides the value set here (the operator has the last
 * word). */
TIDE_API int tide_config_set(const char *name, const char *value);

TIDE_API int tide_rank(void);
TIDE_API int tide_size(void);
TIDE_API int tide_num_threads(void);

/* ---- tasks --------------------------------------------------------------------------------- */

/* Creates a task of `fn` over `nargs` arguments (0..TIDE_MAX_ARGS). VALUE arguments are copied
 * now. Thread-safe. On success *out receives the task, which belongs to the caller until it is
 * submitted. */
TIDE_API int tide_task_create(tide_task **out, tide_task_fn fn, int nargs, const tide_arg *args);

/* Attaches numeric feature `index` (0..TIDE_MAX_FEATURES-1) to a task before submission; the
 * predictor may use it. */
TIDE_API int tide_task_set_feature(tide_task *task, int index, double value);

/* Hands the task to Tide; it runs during the next tide_taskwait(). Thread-safe. */
TIDE_API int tide_task_submit(tide_task *task);

/* Frees a task that was created but not submitted. */
TIDE_API int tide_task_discard(tide_task *task);

/* Ends an iteration (a phase): executes the submitted tasks on this rank's workers, lets the
 * balancing strategy move tasks between ranks, and returns on every rank only when every task
 * of the phase on every rank has completed and its outputs are back in the origin's buffers.
 * Collective; call it from one thread per rank, outside any task. */
TIDE_API int tide_taskwait(void);

/* ---- errors and statistics ----------------------------------------------------------------- */

TIDE_API const char *tide_strerror(int code);
/* Detail of the last failure returned to this thread ("" when none). */
TIDE_API const char *tide_last_error_message(void);

/* What the last completed phase measured; identical on every rank. Times in seconds. */
typedef struct tide_phase_stats {
    int phase;              /* 0-based */
    double W_max, W_avg;    /* wallclock until workers ran out of work: max and mean over ranks */
    double R_imb;           /* W_max / W_avg - 1 (0 when W_avg is 0) */
    double L_total;         /* sum of all tasks' execution times */
    double ideal;           /* max(L_total / all workers, longest task) */
    double time;            /* the taskwait's duration on rank 0 */
    int64_t tasks;          /* tasks of the phase, all ranks */
    int64_t offloaded;      /* tasks executed away from their origin */
    int64_t bytes_moved;    /* task and result bytes sent over MPI, all ranks */
    /* This rank's own values. */
    double W_self, L_self;
    double L_pred_self;     /* this rank's predicted load for the phase; -1 before a model exists */
    int64_t tasks_self, offloaded_self, received_self;
} tide_phase_stats;

TIDE_API int tide_stats_last_phase(tide_phase_stats *out);

#ifdef __cplusplus
}
#endif

#endif
