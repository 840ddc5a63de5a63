/* Round trip of one small offloaded task against a raw MPI ping-pong, and the cost of an empty
 * phase, so that a reader can tell the phase protocol from the task's own round trip.
 *
 *   micro_latency [reps=1000] [label] [empty]
 *
 * Run on two ranks with TIDE_LB=random TIDE_RANDOM_FRACTION=1. Blocks of `reps`, each
 * timed per repetition on rank 0 and reported as a median:
 *   raw:   MPI_Send + MPI_Recv of 8 bytes there and back on MPI_COMM_WORLD (Tide idle);
 *   allreduce: MPI_Allreduce of one double on MPI_COMM_WORLD (Tide idle), the reference of the
 *          empty phase (target: at most 3x, issue 30);
 *   empty: tide_taskwait() with no task on either rank (the phase protocol alone);
 *   one:   tide_taskwait() where rank 0 submitted one task with an 8-byte INOUT argument, which
 *          moves to rank 1, runs, and returns its result (checked: the value must come back).
 * `label` names the run's settings in the table (e.g. TIDE_POLL_SPIN=0). With the word `empty`
 * only the empty phase (and on two ranks the raw ping-pong) is measured, under any TIDE_LB and on
 * one rank too: this splits the protocol into its intra-process part (thread hand-offs, one rank)
 * and its collectives (two ranks, with and without the start allgather of TIDE_LB=random). On
 * one rank the reference is a condition-variable ping-pong between two threads. */
#define _GNU_SOURCE /* prctl(PR_SET_TIMERSLACK) */
#include "micro.h"

#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <tide.h>

/* ---- reference for one rank: a condition-variable ping-pong between two threads ----------------
 */

/* A phase on one rank is a hand-off from the application thread to the comm thread and back to
 * the workers, each through a condition variable when the waiting thread already sleeps. This
 * measures what such a hand-off costs on this machine, so the one-rank row has a reference. */
typedef struct pingpong {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    long turn; /* odd: the partner's move */
    long reps;
} pingpong;

static void *pong_main(void *arg)
{
    pingpong *p = arg;
    pthread_mutex_lock(&p->lock);
    for (long r = 0; r < p->reps; r++) {
        while (p->turn % 2 == 0)
            pthread_cond_wait(&p->cv, &p->lock);
        p->turn++;
        pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static double condvar_round_trip_us(int reps)
{
    pingpong p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, reps};
    double *t = malloc((size_t)reps * sizeof *t);
    MICRO_CHECK(t, "out of memory");
    pthread_t partner;
    MICRO_CHECK(pthread_create(&partner, NULL, pong_main, &p) == 0, "cannot start a thread");
    pthread_mutex_lock(&p.lock);
    for (int r = 0; r < reps; r++) {
        double t0 = micro_now();
        p.turn++;
        pthread_cond_signal(&p.cv);
        while (p.turn % 2 == 1)
            pthread_cond_wait(&p.cv, &p.lock);
        t[r] = micro_now() - t0;
    }
    pthread_mutex_unlock(&p.lock);
    pthread_join(partner, NULL);
    MICRO_CHECK(p.turn == 2L * reps, "ping-pong ended at turn %ld", p.turn);
    double us = 1e6 * micro_median(t, reps);
    free(t);
    return us;
}

static void increment_task(void **args)
{
    *(uint64_t *)args[0] += 1;
}

static double raw_round_trip(int me)
{
    uint64_t v = 42;
    double t0 = micro_now();
    if (me == 0) {
        MPI_Send(&v, 1, MPI_UINT64_T, 1, 3, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_UINT64_T, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (me == 1) {
        MPI_Recv(&v, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD);
    }
    MICRO_CHECK(v == 42, "ping-pong returned %llu", (unsigned long long)v);
    return micro_now() - t0;
}

/* One phase; returns its duration on this rank and checks what moved. */
static double phase(int me, uint64_t *value, int ntasks, double *task_time)
{
    if (me == 0 && ntasks) {
        tide_arg a = {value, sizeof *value, TIDE_INOUT};
        tide_task *t;
        MICRO_CHECK_OK(tide_task_create(&t, increment_task, 1, &a));
        MICRO_CHECK_OK(tide_task_submit(t));
    }
    double t0 = micro_now();
    MICRO_CHECK_OK(tide_taskwait());
    double t = micro_now() - t0;
    tide_phase_stats s;
    MICRO_CHECK_OK(tide_stats_last_phase(&s));
    MICRO_CHECK(s.tasks == ntasks && s.offloaded == ntasks &&
                    s.received_self + s.tasks_self == ntasks,
                "%lld tasks, %lld offloaded; expected %d moved (TIDE_LB=random "
                "TIDE_RANDOM_FRACTION=1 on 2 ranks)",
                (long long)s.tasks, (long long)s.offloaded, ntasks);
    *task_time = s.L_total;
    return t;
}

static double allreduce_time(void)
{
    double v = 1, sum;
    double t0 = micro_now();
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return micro_now() - t0;
}

/* The empty phase against an MPI_Allreduce of the same ranks, measured in the same run (target:
 * at most 3x); on one rank against a condition-variable ping-pong (information). */
static void report_empty(const char *label, int me, int np, double *allreduce, double *empty,
                         int reps)
{
    double us_empty = 1e6 * micro_median(empty, reps);
    char what[160];
    if (np == 1) {
        double us_cv = condvar_round_trip_us(reps);
        snprintf(what, sizeof what, "[%s] taskwait, 0 tasks, 1 rank (ref: condvar ping-pong)",
                 label);
        if (me == 0) micro_row(what, us_empty, us_cv, "us", "(information)", -1);
        return;
    }
    double us_ar = 1e6 * micro_median(allreduce, reps);
    char target[64];
    snprintf(target, sizeof target, "<= 3x MPI_Allreduce (%.1f us)", 3 * us_ar);
    snprintf(what, sizeof what, "[%s] taskwait, 0 tasks, %d ranks (ref: MPI_Allreduce)", label, np);
    if (me == 0) micro_row(what, us_empty, us_ar, "us", target, us_empty <= 3 * us_ar);
}

static void report_round_trip(const char *label, int me, double *raw, double *allreduce,
                              double *empty, double *one, double *task, int reps)
{
    double us_raw = 1e6 * micro_median(raw, reps), us_empty = 1e6 * micro_median(empty, reps);
    double us_ar = 1e6 * micro_median(allreduce, reps);
    double us_one = 1e6 * micro_median(one, reps), us_task = 1e6 * micro_median(task, reps);
    if (me != 0) return;
    char what[160], target[64];
    snprintf(target, sizeof target, "<= 3x raw + task (%.1f us)", 3 * us_raw + us_task);
    snprintf(what, sizeof what, "[%s] taskwait, 1 offloaded 8-B task", label);
    micro_row(what, us_one, us_raw, "us", target, us_one <= 3 * us_raw + us_task);
    snprintf(what, sizeof what, "[%s] taskwait, 0 tasks (protocol; ref: MPI_Allreduce)", label);
    micro_row(what, us_empty, us_ar, "us", "(information)", -1);
    snprintf(what, sizeof what, "[%s] 1 task minus 0 tasks (round trip)", label);
    micro_row(what, us_one - us_empty, us_raw, "us", target,
              us_one - us_empty <= 3 * us_raw + us_task);
}

int main(int argc, char **argv)
{
    int reps = (int)micro_arg(argc, argv, 1, 1000, 1);
    const char *label = argc > 2 ? argv[2] : "defaults";
    bool empty_only = argc > 3 && strcmp(argv[3], "empty") == 0;
    bool slack = argc > 3 && strcmp(argv[3], "slack") == 0;
    MICRO_CHECK(argc <= 3 || empty_only || slack, "the third argument may be 'empty' or 'slack'");
    /* Threads inherit their timer slack: set before tide_init, it applies to the comm thread
     * and the OpenMP workers, whose timed waits otherwise last at least the default 50 us. */
    if (slack) MICRO_CHECK(prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) == 0, "prctl failed");
    MICRO_CHECK_OK(tide_init(&argc, &argv));
    int me = tide_rank(), np = tide_size();
    MICRO_CHECK(np == 2 || (empty_only && np == 1), "run on two ranks (got %d)", np);
    double *raw = malloc((size_t)reps * sizeof *raw), *empty = malloc((size_t)reps * sizeof *empty);
    double *one = malloc((size_t)reps * sizeof *one), *task = malloc((size_t)reps * sizeof *task);
    double *allreduce = malloc((size_t)reps * sizeof *allreduce);
    MICRO_CHECK(raw && empty && one && task && allreduce, "out of memory");
    uint64_t value = 0;
    double ignored;

    for (int r = 0; r < 10; r++) { /* warm-up: connections, the comm threads' first phases */
        if (np == 2) raw_round_trip(me);
        allreduce_time();
        phase(me, &value, empty_only ? 0 : 1, &ignored);
    }
    value = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < reps; r++)
        raw[r] = np == 2 ? raw_round_trip(me) : 0;
    for (int r = 0; r < reps; r++)
        allreduce[r] = allreduce_time();
    for (int r = 0; r < reps; r++)
        empty[r] = phase(me, &value, 0, &ignored);
    if (empty_only) {
        report_empty(label, me, np, allreduce, empty, reps);
    } else {
        for (int r = 0; r < reps; r++)
            one[r] = phase(me, &value, 1, &task[r]);
        if (me == 0)
            MICRO_CHECK(value == (uint64_t)reps,
                        "the offloaded task's INOUT value is %llu after %d round trips",
                        (unsigned long long)value, reps);
        report_round_trip(label, me, raw, allreduce, empty, one, task, reps);
    }
    free(raw);
    free(empty);
    free(one);
    free(task);
    free(allreduce);
    MICRO_CHECK_OK(tide_finalize());
    return 0;
}
