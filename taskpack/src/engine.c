/* The iteration engine: measures iteration times, agrees on stability, packs the ranks of each
 * node once and moves them (the paper's mechanism, with the collectives on private
 * communicators so the application's traffic is untouched). */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "taskpack.h"

struct tp_state tp;

double tp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

void tp_before_init(void)
{
    if (tp.configured) return;
    tp.configured = 1;
    tp.config_bad = tp_config_check_names(environ, tp.config_err, sizeof tp.config_err) != 0 ||
                    tp_config_parse(&tp.cfg, env_get, tp.config_err, sizeof tp.config_err) != 0;
    /* Ranks packed onto one CPU wait for each other in MPI; Open MPI must yield there instead of
     * spinning. A value the user set wins. */
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
}

void tp_after_init(void)
{
    if (tp.initialized || !tp.configured) return;
    tp.initialized = 1;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Rank 0 writes the report: it creates the file now, and its verdict holds for all. */
    if (!tp.config_bad && tp.cfg.report[0]) {
        if (rank == 0) tp.config_bad = tp_report_open(tp.config_err, sizeof tp.config_err) != 0;
        PMPI_Bcast(&tp.config_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (tp.config_bad) {
        if (rank == 0) fprintf(stderr, "%s\n", tp.config_err);
        PMPI_Finalize();
        exit(1);
    }
    PMPI_Comm_dup(MPI_COMM_WORLD, &tp.world);
    PMPI_Comm_rank(tp.world, &tp.rank);
    PMPI_Comm_size(tp.world, &tp.size);
    PMPI_Comm_split_type(tp.world, MPI_COMM_TYPE_SHARED, tp.rank, MPI_INFO_NULL, &tp.node);
    PMPI_Comm_rank(tp.node, &tp.node_rank);
    PMPI_Comm_size(tp.node, &tp.node_size);
    PMPI_Comm_split(tp.world, tp.node_rank == 0 ? 0 : MPI_UNDEFINED, tp.rank, &tp.leaders);
    int leader = tp.node_rank == 0;
    PMPI_Allreduce(&leader, &tp.nnodes, 1, MPI_INT, MPI_SUM, tp.world);

    sched_getaffinity(0, sizeof tp.orig, &tp.orig);
    tp.node_world = malloc((size_t)tp.node_size * sizeof *tp.node_world);
    tp.node_orig = malloc((size_t)tp.node_size * sizeof *tp.node_orig);
    tp.node_t = calloc((size_t)tp.node_size, sizeof *tp.node_t);
    tp.plan.cpu = malloc((size_t)tp.node_size * sizeof *tp.plan.cpu);
    if (!tp.node_world || !tp.node_orig || !tp.node_t || !tp.plan.cpu) {
        fprintf(stderr, "taskpack: out of memory at MPI_Init\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    PMPI_Allgather(&tp.rank, 1, MPI_INT, tp.node_world, 1, MPI_INT, tp.node);
    PMPI_Allgather(&tp.orig, sizeof tp.orig, MPI_BYTE, tp.node_orig, sizeof tp.orig, MPI_BYTE,
                   tp.node);
    for (int i = 0; i < tp.node_size; i++)
        tp.plan.cpu[i] = -1;
    tp.plan.pool_size = tp_plan_pool(tp.node_orig, tp.node_size, tp.plan.pool);
    tp.plan.bins = tp.plan.pool_size;
    tp.last_comm = MPI_COMM_NULL;
    tp.active = 1;
}

int tp_sync_counts(enum tp_sync kind, MPI_Comm comm)
{
    if (!tp.active || tp.api_mode || tp.in_fortran || tp.cfg.sync != kind) return 0;
    /* Only a collective over all ranks delimits iterations: the agreement step after it is
     * collective over the world. Comparing is local, and cached for the usual single comm. */
    if (comm != tp.last_comm) {
        int result = MPI_UNEQUAL;
        if (comm != MPI_COMM_NULL) PMPI_Comm_compare(comm, tp.world, &result);
        tp.last_comm = comm;
        tp.last_comm_ok = result == MPI_IDENT || result == MPI_CONGRUENT;
    }
    return tp.last_comm_ok;
}

/* Bind every thread of the process (MPI's and OpenMP's too) to one CPU. */
static int move_process(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = sched_setaffinity(0, sizeof set, &set);
    DIR *d = opendir("/proc/self/task");
    if (!d) return rc;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t tid = (pid_t)atoi(e->d_name);
        /* A thread may exit between readdir and the call (ESRCH): nothing to move then. */
        if (tid > 0 && sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) rc = -1;
    }
    closedir(d);
    return rc;
}

/* The packing step, collective over the world: global t_max, plan by the node's fastest rank,
 * broadcast within the node, each rank moves itself. */
static void pack_now(double t_used)
{
    tp.t_used = t_used;
    PMPI_Allreduce(&t_used, &tp.t_max, 1, MPI_DOUBLE, MPI_MAX, tp.world);
    PMPI_Allgather(&t_used, 1, MPI_DOUBLE, tp.node_t, 1, MPI_DOUBLE, tp.node);
    tp.master = 0;
    for (int i = 1; i < tp.node_size; i++)
        if (tp.node_t[i] < tp.node_t[tp.master]) tp.master = i;

    /* Header: pool_size bins lower_bound predicted_freed groups algo; then cpu[], pool[]. */
    int nint = 6 + tp.node_size + CPU_SETSIZE;
    int *msg = calloc((size_t)nint, sizeof *msg);
    if (!msg) PMPI_Abort(MPI_COMM_WORLD, 1);
    if (tp.node_rank == tp.master) {
        static int numa_of_cpu[CPU_SETSIZE];
        int domains = tp_numa_read(NULL, numa_of_cpu, CPU_SETSIZE);
        struct tp_plan_input in = {.n = tp.node_size,
                                   .t = tp.node_t,
                                   .mask = tp.node_orig,
                                   .cap = tp.t_max * (1 + tp.cfg.slack),
                                   .exact_max = tp.cfg.exact_max,
                                   .numa_of_cpu = domains > 1 ? numa_of_cpu : NULL,
                                   .ncpu = CPU_SETSIZE};
        int ok = tp.t_max > 0 && tp_plan_node(&in, &tp.plan) == 0;
        msg[0] = tp.plan.pool_size;
        msg[1] = ok ? tp.plan.bins : tp.plan.pool_size;
        msg[2] = tp.plan.lower_bound;
        msg[3] = ok ? tp.plan.predicted_freed : 0;
        msg[4] = tp.plan.groups;
        msg[5] = (int)tp.plan.algo;
        for (int i = 0; i < tp.node_size; i++)
            msg[6 + i] = ok ? tp.plan.cpu[i] : -1;
        for (int p = 0; p < tp.plan.pool_size; p++)
            msg[6 + tp.node_size + p] = tp.plan.pool[p];
    }
    PMPI_Bcast(msg, nint, MPI_INT, tp.master, tp.node);
    tp.plan.pool_size = msg[0];
    tp.plan.bins = msg[1];
    tp.plan.lower_bound = msg[2];
    tp.plan.predicted_freed = msg[3];
    tp.plan.groups = msg[4];
    tp.plan.algo = (enum tp_algo)msg[5];
    for (int i = 0; i < tp.node_size; i++)
        tp.plan.cpu[i] = msg[6 + i];
    for (int p = 0; p < tp.plan.pool_size; p++)
        tp.plan.pool[p] = msg[6 + tp.node_size + p];
    free(msg);

    int cpu = tp.plan.cpu[tp.node_rank];
    if (tp.cfg.apply && cpu >= 0 && move_process(cpu) != 0) tp.move_failed = 1;
    tp.packed = 1;
    tp.packed_at = tp.iterations;
}

/* End of one iteration on every rank: account its time, decide (collectively) whether the
 * times are stable enough to pack. */
static void iteration_done(double now)
{
    /* Exit to exit: the period every rank sees, the program's real pace. Not used for the
     * first measured iteration (samples > 1 below), whose previous exit may be unset. */
    double period = now - tp.last_decision;
    tp.iterations++;
    if (tp.packed) {
        /* The iteration that contained the move is not representative of either side. */
        if (tp.iterations > tp.packed_at + 1) {
            tp.period_after_sum += period;
            tp.period_after_n++;
            tp.t_after_sum += tp.t_cur;
            tp.t_after_n++;
        }
        return;
    }
    if (tp.iterations <= tp.cfg.warmup) return;
    /* A running median of 3 absorbs a single preempted or disturbed iteration. */
    tp.hist[tp.samples % 3] = tp.t_cur;
    tp.samples++;
    if (tp.samples > 1) {
        tp.period_before_sum += period;
        tp.period_before_n++;
    }
    if (tp.samples < 3) return;
    double a = tp.hist[0], b = tp.hist[1], c = tp.hist[2];
    double med = fmax(fmin(a, b), fmin(fmax(a, b), c));
    double prev = tp.t_filtered;
    tp.t_filtered = med;
    if (tp.samples < 4) return;
    /* Stable: no rank's (filtered) time changed by more than tol x t_max since the last
     * iteration. Relative to t_max rather than to each rank's own time, because that is the
     * unit the packing works in; a tiny noisy rank should not stall it. */
    double local[2] = {fabs(med - prev), med}, global[2];
    PMPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, tp.world);
    /* A few stable steps in a row, so that one quiet step in a noisy run does not decide. The
     * rank's longest filtered time over the run is what gets packed. */
    if (global[0] <= tp.cfg.tol * global[1]) {
        tp.stable_run++;
        if (med > tp.t_window) tp.t_window = med;
    } else {
        tp.stable_run = 0;
        tp.t_window = med;
    }
    if (tp.stable_run >= TP_STABLE_STEPS) pack_now(tp.t_window);
}

void tp_sync_enter(void)
{
    if (!tp.in_iteration) return;
    tp.t_cur = tp_now() - tp.iter_start;
    tp.in_iteration = 0;
    tp.measured = 1;
}

void tp_sync_exit(void)
{
    double now = tp_now();
    /* The first sync ends no measured iteration, on every rank alike. */
    if (tp.measured) iteration_done(now);
    tp.measured = 0;
    tp.last_decision = now;
    tp.in_iteration = 1;
    tp.iter_start = tp_now();
}

int tp_wait(MPI_Request *req)
{
    int done = 0, rc = MPI_SUCCESS;
    while (!done && rc == MPI_SUCCESS) {
        rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done || rc != MPI_SUCCESS) break;
        if (tp.cfg.yield == TP_YIELD_YIELD) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return rc;
}

double tp_wait_begin(void)
{
    return tp.active && tp.api_mode && tp.in_iteration && !tp.in_fortran ? tp_now() : -1;
}

void tp_wait_end(double t0)
{
    if (t0 >= 0) tp.waited += tp_now() - t0;
}

int taskpack_begin(void)
{
    if (!tp.active) return -1;
    tp.api_mode = 1;
    tp.in_iteration = 1;
    tp.waited = 0;
    tp.iter_start = tp_now();
    return 0;
}

int taskpack_end(void)
{
    if (!tp.active || !tp.api_mode || !tp.in_iteration) return -1;
    tp_sync_enter();
    tp.t_cur -= tp.waited;
    if (tp.t_cur < 0) tp.t_cur = 0;
    double now = tp_now();
    iteration_done(now);
    tp.measured = 0;
    tp.last_decision = now;
    return 0;
}

void tp_finalize(void)
{
    if (!tp.active) return;
    tp_report();
    tp.active = 0;
    if (tp.leaders != MPI_COMM_NULL) PMPI_Comm_free(&tp.leaders);
    PMPI_Comm_free(&tp.node);
    PMPI_Comm_free(&tp.world);
    free(tp.node_world);
    free(tp.node_orig);
    free(tp.node_t);
    free(tp.plan.cpu);
}
