/* What the trace recorder (trace.c) hands its writers (trace_json.c, trace_otf2.c) on rank 0:
 * every rank's events, gathered, with what is needed to put them on one clock. */
#ifndef TIDE_TRACE_RUN_H
#define TIDE_TRACE_RUN_H

#include "internal.h"

/* One recorded event, 48 bytes. Times are the recording rank's tide_now(). */
typedef struct tide_trace_event {
    double t0, t1;
    uint64_t id;    /* TASK, REPLICA: task seq; SEND, RECV: k-th message between the two ranks */
    uint64_t bytes; /* SEND, RECV */
    int32_t peer;   /* TASK: origin rank; SEND, MOVE, REPLICA: destination; RECV: source */
    uint16_t kind;  /* tide_trace_kind */
    uint16_t flags; /* TASK: TIDE_TEV_*; SEND, RECV: the wire kind; MOVE: 1 = planned */
    uint32_t count; /* SEND, RECV: records; MOVE: tasks; PHASE: own tasks */
    uint32_t phase; /* 0 for the first tide_taskwait */
} tide_trace_event;

typedef enum tide_trace_kind {
    TIDE_TEV_TASK = 1,
    TIDE_TEV_SEND,
    TIDE_TEV_RECV,
    TIDE_TEV_PHASE,
    TIDE_TEV_MOVE,
    TIDE_TEV_REPLICA
} tide_trace_kind;

/* TASK flags: ran for another rank; the own original of a replicated task; a replica copy (set
 * on rank 0, from the origin's REPLICA events). */
enum { TIDE_TEV_REMOTE = 1, TIDE_TEV_REPLICATED = 2, TIDE_TEV_COPY = 4 };

/* Buffers of a rank: 0 .. threads-1 the workers, then the comm thread, then the application. */
#define TIDE_TRACE_COMM_BUF(threads) (threads)
#define TIDE_TRACE_APP_BUF(threads) ((threads) + 1)
/* Thread ids in the written trace for the comm thread and the application's phases. */
enum { TIDE_TRACE_TID_COMM = 1000, TIDE_TRACE_TID_APP = 1001 };

/* What a rank sends rank 0 before its events. */
typedef struct tide_trace_summary {
    int32_t threads, nbuf;
    double sync0, off0, sync1, off1; /* clock comparisons: local time and offset to rank 0 */
    double unc;                      /* the larger uncertainty of the two offsets */
    double cost;             /* median seconds of the sampled task recordings (-1: none sampled) */
    uint64_t tasks, dropped; /* task events recorded; events dropped (buffers full) */
} tide_trace_summary;

typedef struct tide_trace_rank {
    tide_trace_summary sum;
    uint64_t *n;              /* events per buffer */
    tide_trace_event **event; /* nbuf arrays */
} tide_trace_rank;

typedef struct tide_trace_run {
    int nranks;
    tide_trace_rank *rank;
    double origin; /* rank 0's clock as the first comparison began: time 0 of the trace */
    const tide_phase_log *log;
    int max_events;
} tide_trace_run;

/* Seconds since the trace's origin, on rank 0's clock, of a time local to rank r. */
double tide_trace_time(const tide_trace_run *run, int r, double local);
/* Recording a task, in seconds: the median over the ranks of each rank's median, and the
 * lowest and highest rank's (-1 when no recording was timed). */
double tide_trace_cost(const tide_trace_run *run, double *lo, double *hi);
/* The median of v[0 .. n) (sorts v in place); -1 when n is 0. */
double tide_trace_median(double *v, int n);
/* Wire kind names: "tasks", "result", "control". */
const char *tide_trace_msg_name(int wire_kind);
/* Task kind: "local", "offloaded", "replica". */
const char *tide_trace_task_kind(const tide_trace_event *e);

int tide_trace_write_json(const tide_trace_run *run, FILE *f);
/* path names the archive's anchor file: "dir/run.otf2" makes dir/run.otf2 and dir/run/. */
int tide_trace_write_otf2(const tide_trace_run *run, const char *path);
/* Rank 0 at init: whether path can become an archive (TIDE_ERR_CONFIG and one line if not, also
 * when this build has no OTF2). */
int tide_trace_otf2_check(const char *path);

#endif
