/* tide_core_config.h - the engine's knobs: tide_config, every TIDE_* value the engine reads, and
 * the knob tables (tide_knob.h) it is parsed with, in one place for both drivers. libtide reads
 * them at tide_init (runtime/engine/config.c adds tide_config_set's values and the MPI checks);
 * tide-sim reads the same rows from its environment, so a name, default, range or error line
 * cannot differ between the two (docs/config.md, docs/sim.md "Configuration").
 *
 * No MPI, no threads, no globals: the tables that depend on the registries (the task
 * strategies' knobs, the global strategies' names) are built into a tide_config_knobs the
 * caller owns, once, before the first parse. */
#ifndef TIDE_CORE_CONFIG_H
#define TIDE_CORE_CONFIG_H

#include "tide_global.h"
#include "tide_knob.h"
#include "tide_lb.h"
#include "tide_predictor.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TIDE_OFFLOAD_RR = 0, TIDE_OFFLOAD_PACKED = 1 } tide_offload_kind;
/* TIDE_PHASE_DRIVER (tide_config.phase_driver), in the order of its choices. */
typedef enum { TIDE_PHASE_DRIVER_AUTO = 0, TIDE_PHASE_DRIVER_COMM = 1 } tide_phase_driver;
/* TIDE_PLAN_GATE (tide_config.plan_gate), in the order of its choices. */
typedef enum {
    TIDE_PLAN_GATE_AUTO = 0,
    TIDE_PLAN_GATE_OFF = 1,
    TIDE_PLAN_GATE_ALTERNATE = 2
} tide_plan_gate_mode;
/* TIDE_WAIT_PROGRESS (tide_config.wait_progress), in the order of its choices. */
typedef enum {
    TIDE_WAIT_PROGRESS_AUTO = 0,
    TIDE_WAIT_PROGRESS_APP = 1,
    TIDE_WAIT_PROGRESS_COMM = 2
} tide_wait_progress_mode;

/* TIDE_CLOCK (tide_config.clock), in the order of its choices. */
typedef enum { TIDE_CLOCK_AUTO = 0, TIDE_CLOCK_TSC = 1, TIDE_CLOCK_MONOTONIC = 2 } tide_clock_mode;

/* TIDE_PHASE_COLL (tide_config.phase_coll), in the order of its choices. */
typedef enum { TIDE_PHASE_COLL_AUTO = 0, TIDE_PHASE_COLL_MPI = 1 } tide_phase_coll_mode;

/* TIDE_COMM_CPU=last: the highest CPU of the rank's own affinity mask. */
#define TIDE_COMM_CPU_LAST (-2)

#define TIDE_LB_KNOBS_MAX 32

typedef struct tide_config {
    int threads; /* TIDE_THREADS; 0 = take OpenMP's default */
    char lb[32]; /* TIDE_LB: a registered strategy name */
    tide_offload_kind offload;
    uint64_t max_inflight; /* TIDE_MAX_INFLIGHT bytes */
    uint64_t pack_max;     /* TIDE_PACK_MAX: bytes of one package (packed offload) */
    int poll_spin;         /* TIDE_POLL_SPIN: empty polls before sleeping */
    int poll_sleep_max_us; /* TIDE_POLL_SLEEP_MAX_US: longest back-off sleep */
    int comm_cpu;          /* TIDE_COMM_CPU: -1 = not pinned, or TIDE_COMM_CPU_LAST */
    char stats_path[1024]; /* TIDE_STATS; "" = none */
    int quiet;             /* TIDE_QUIET */
    int verbose;           /* TIDE_VERBOSE */
    uint64_t seed;         /* TIDE_SEED */
    int check_exe;         /* TIDE_CHECK_EXE */
    int strict;            /* TIDE_STRICT: an unknown TIDE_* name in the environment is an error */
    int round_us;          /* TIDE_ROUND_US: interval of status rounds */
    int phase_driver;      /* TIDE_PHASE_DRIVER: tide_phase_driver */
    int plan_gate;         /* TIDE_PLAN_GATE: tide_plan_gate_mode */
    int phase_coll;        /* TIDE_PHASE_COLL: tide_phase_coll_mode */
    int wait_progress;     /* TIDE_WAIT_PROGRESS: tide_wait_progress_mode */
    int clock;             /* TIDE_CLOCK: tide_clock_mode */
    int predict;           /* TIDE_PREDICT: tide_predict_mode */
    int sync_every;        /* TIDE_SYNC_EVERY: inline phases per agreement collective */
    /* The task strategies' knobs, in tide_lb_all_knobs() order (TIDE_WS_THRESHOLD, ...). */
    double lb_knob[TIDE_LB_KNOBS_MAX];
    tide_model_params pred; /* TIDE_PRED_*: the load model */
    char tool_path[1024];   /* TIDE_TOOL */
    char global_lb[32];     /* TIDE_GLOBAL_LB: objects' global strategy (tide_global_find name) */
    int lb_period;          /* TIDE_LB_PERIOD: iterations between reschedulings */
    tide_global_params global; /* TIDE_REFINE_THRESHOLD ... TIDE_DIST_MAX_PHASES (seed unused) */
    char objects_stats_path[1024]; /* TIDE_OBJECTS_STATS; "" = none */
    char trace_path[1024];         /* TIDE_TRACE; "" = no trace */
    int trace_format;              /* TIDE_TRACE_FORMAT: tide_trace_format */
    int trace_max_events;          /* TIDE_TRACE_MAX_EVENTS: per thread */
    int throttle_rank;             /* TIDE_THROTTLE_RANK: the rank whose task sends are slowed */
    uint64_t throttle_bw;          /* TIDE_THROTTLE_BW: to this many bytes per second */
} tide_config;

/* The runtime's, the task strategies', the predictor's, the objects layer's and the global
 * strategies' rows, in the docs' order, and where in tide_config each table's offsets point. */
enum { TIDE_CONFIG_NTABLES = 5 };

typedef struct tide_config_knobs {
    const tide_knob_table *table[TIDE_CONFIG_NTABLES];
    size_t at[TIDE_CONFIG_NTABLES];
    /* the task strategies' knobs (tide_lb_knob) as rows into tide_config.lb_knob */
    tide_knob lb_rows[TIDE_LB_KNOBS_MAX];
    char lb_def[TIDE_LB_KNOBS_MAX][32];
    char lb_owner[TIDE_LB_KNOBS_MAX][192];
    tide_knob_table lb_table;
} tide_config_knobs;

/* Builds the tables from the registries. More than TIDE_LB_KNOBS_MAX strategy knobs is a build
 * error the config_knobs test reports (the rows past it are left out). */
void tide_config_knobs_build(tide_config_knobs *t);
/* Every row's default (the memory of c zeroed first, padding included). */
void tide_config_init(const tide_config_knobs *t, tide_config *c);
/* One knob by its variable name: the row's parser, or "NAME is not a Tide variable ..." with a
 * did-you-mean; on error c keeps its values, err gets one line, and TIDE_KNOB_ERR_CONFIG. */
int tide_config_parse(const tide_config_knobs *t, tide_config *c, const char *name,
                      const char *value, char *err, size_t len);
/* The TIDE_* entries of env ("NAME=value", NULL-terminated), then the checks across knobs (the
 * load model's parameters together). The knobs first, so that TIDE_STRICT may follow a name;
 * an unknown name then fails when it is a misspelt knob or TIDE_STRICT=1, else it is named in
 * warn ("ignoring NAME, ...: not Tide variables ...", "" when none). */
int tide_config_read_env(const tide_config_knobs *t, tide_config *c, char *const *env, char *err,
                         size_t len, char *warn, size_t wlen);
/* The row of name and the table it is in (NULL: none). */
const tide_knob *tide_config_row(const tide_config_knobs *t, const char *name, size_t *table);

const char *tide_offload_name(tide_offload_kind k);
/* A TIDE_PHASE_DRIVER / TIDE_PLAN_GATE value's name (NULL for a value that is not one). */
const char *tide_phase_driver_name(int v);
const char *tide_plan_gate_name(int v);
const char *tide_phase_coll_name(int v);
const char *tide_wait_progress_name(int v);
/* Name of the i-th strategy knob of tide_config.lb_knob (NULL past the last). */
const char *tide_config_lb_knob_name(int i);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_CORE_CONFIG_H */
