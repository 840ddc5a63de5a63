/* What Tide costs between phases (issue 16, item 6): an application that does its own work
 * between taskwaits (a halo exchange with MPI, some compute on the application thread, a wait),
 * as a stencil code does. Per phase it measures
 *   - between: the wall time of the application's own section after tide_taskwait returned;
 *   - cpu:     the process CPU time (getrusage, every thread) spent during that section, minus
 *              nothing: what the application thread needs plus what Tide's threads burn;
 *   - start:   phase start latency, from the tide_taskwait call until the phase's first task
 *              started, and until the last worker thread started its first task (tasks record
 *              their thread and start time).
 * Rank 0 prints the sums over ranks and phases, and the median and max start latency.
 *
 * Usage: idle_between PHASES TASKS_PER_THREAD TASK_MS COMPUTE_MS WAIT_MS */
#define _GNU_SOURCE
#include "micro.h"
#include "tide.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>

enum { MAX_STARTS = 4096 };

static atomic_int nstarts;
static double start_time[MAX_STARTS];
static pthread_t start_thread[MAX_STARTS];

static void spin_ms(double ms)
{
    double end = micro_now() + ms / 1000;
    while (micro_now() < end) {
    }
}

/* args: VALUE ms, OUT done */
static void work(void **args)
{
    int k = atomic_fetch_add(&nstarts, 1);
    if (k < MAX_STARTS) {
        start_time[k] = micro_now();
        start_thread[k] = pthread_self();
    }
    spin_ms(*(double *)args[0]);
    *(int *)args[1] = 1;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* The earliest and the latest "first task" start over the threads that ran tasks, after t0. */
static void first_starts(double t0, double *earliest, double *latest)
{
    int n = atomic_load(&nstarts);
    if (n > MAX_STARTS) n = MAX_STARTS;
    *earliest = n ? 1e30 : 0;
    *latest = 0;
    for (int i = 0; i < n; i++) {
        bool first = true;
        for (int j = 0; j < i && first; j++)
            if (pthread_equal(start_thread[j], start_thread[i])) first = false;
        if (!first) continue;
        if (start_time[i] - t0 > *latest) *latest = start_time[i] - t0;
        if (start_time[i] - t0 < *earliest) *earliest = start_time[i] - t0;
    }
}

static void halo(int me, int np, double *buf, int n)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Sendrecv(buf, n, MPI_DOUBLE, right, 1, buf + n, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(buf, n, MPI_DOUBLE, left, 2, buf + n, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MICRO_CHECK(argc == 6,
                "usage: idle_between PHASES TASKS_PER_THREAD TASK_MS COMPUTE_MS WAIT_MS");
    int phases = atoi(argv[1]), per_thread = atoi(argv[2]);
    double task_ms = atof(argv[3]), compute_ms = atof(argv[4]), wait_ms = atof(argv[5]);
    MICRO_CHECK_OK(tide_init(&argc, &argv));
    int me = tide_rank(), np = tide_size(), ntasks = per_thread * tide_num_threads();
    MICRO_CHECK(ntasks <= MAX_STARTS, "at most %d tasks", MAX_STARTS);
    int *done = calloc((size_t)ntasks, sizeof *done);
    double *buf = calloc(2 * 4096, sizeof *buf);
    double *lat = calloc((size_t)phases, sizeof *lat), *lat0 = calloc((size_t)phases, sizeof *lat0);
    MICRO_CHECK(done && buf && lat && lat0, "out of memory");
    double between = 0, cpu = 0;
    for (int p = 0; p < phases; p++) {
        atomic_store(&nstarts, 0);
        for (int i = 0; i < ntasks; i++) {
            tide_arg a[] = {{&task_ms, sizeof task_ms, TIDE_VALUE},
                            {&done[i], sizeof done[i], TIDE_OUT}};
            tide_task *t;
            MICRO_CHECK_OK(tide_task_create(&t, work, 2, a));
            MICRO_CHECK_OK(tide_task_submit(t));
        }
        double t0 = micro_now();
        MICRO_CHECK_OK(tide_taskwait());
        first_starts(t0, &lat0[p], &lat[p]);
        for (int i = 0; i < ntasks; i++) {
            MICRO_CHECK(done[i] == 1, "task %d of phase %d did not run", i, p);
            done[i] = 0;
        }
        /* The application's own section between phases. */
        double w0 = micro_now(), c0 = cpu_seconds();
        halo(me, np, buf, 4096);
        spin_ms(compute_ms);
        struct timespec ts = {0, (long)(wait_ms * 1e6)};
        nanosleep(&ts, NULL);
        halo(me, np, buf, 4096);
        between += micro_now() - w0;
        cpu += cpu_seconds() - c0;
    }
    double sums[2] = {between, cpu}, tot[2];
    MPI_Reduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double *all = me == 0 ? calloc((size_t)phases * np, sizeof *all) : NULL;
    double *all0 = me == 0 ? calloc((size_t)phases * np, sizeof *all0) : NULL;
    MPI_Gather(lat, phases, MPI_DOUBLE, all, phases, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(lat0, phases, MPI_DOUBLE, all0, phases, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        int n = phases * np;
        double app = np * phases * (compute_ms / 1000);
        printf("between phases (%d ranks x %d phases): wall %.3f s, process CPU %.3f s (the "
               "application's own compute: %.3f s)\n",
               np, phases, tot[0], tot[1], app);
        double med = micro_median(all, n), med0 = micro_median(all0, n);
        printf("phase start latency (taskwait call to a task start): first task median %.1f us, "
               "max %.1f us; the last worker's first task median %.1f us, max %.1f us\n",
               1e6 * med0, 1e6 * all0[n - 1], 1e6 * med, 1e6 * all[n - 1]);
        free(all);
        free(all0);
    }
    free(done), free(buf), free(lat), free(lat0);
    MICRO_CHECK_OK(tide_finalize());
    return 0;
}
