#define _POSIX_C_SOURCE 200809L
/* The rules tide.h and the README state for applications, exercised: the application calls MPI
 * itself between phases (a ring halo exchange and an allreduce on MPI_COMM_WORLD) while tasks
 * move (TIDE_LB=random), and the summary's time is the sum of the taskwaits, without the time
 * spent between phases (here 0.2 s of sleep after each of 4 phases). */
#include "test_util.h"
#include "tide.h"

#include <mpi.h>
#include <time.h>

enum { N = 2048, TASKS = 24, PHASES = 4 };

static void add_halo(void **args) /* IN x[N], VALUE halo, OUT y[N] */
{
    const double *x = args[0];
    double halo = *(const double *)args[1], *y = args[2];
    for (int i = 0; i < N; i++)
        y[i] = x[i] + halo;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    int rank = tide_rank(), size = tide_size();
    static double x[TASKS][N], y[TASKS][N];
    double halo = rank, sum_time = 0, start = now();
    for (int p = 0; p < PHASES; p++) {
        for (int t = 0; t < TASKS; t++) {
            for (int i = 0; i < N; i++)
                x[t][i] = p * 1000 + t + i;
            tide_arg a[] = {{x[t], sizeof x[t], TIDE_IN},
                            {&halo, sizeof halo, TIDE_VALUE},
                            {y[t], sizeof y[t], TIDE_OUT}};
            tide_task *task;
            CHECK_OK(tide_task_create(&task, add_halo, 3, a));
            CHECK_OK(tide_task_submit(task));
        }
        double t0 = now();
        CHECK_OK(tide_taskwait());
        double waited = now() - t0, longest;
        /* The phase's time is its longest rank's taskwait (docs/stats.md). */
        MPI_Allreduce(&waited, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        for (int t = 0; t < TASKS; t++)
            for (int i = 0; i < N; i++)
                CHECK(y[t][i] == x[t][i] + halo, "phase %d task %d: wrong result", p, t);
        tide_phase_stats st;
        CHECK_OK(tide_stats_last_phase(&st));
        if (rank == 0)
            CHECK(st.time <= longest + 1e-6 && st.time > 0.5 * longest,
                  "phase time %.4f s, the longest taskwait took %.4f s", st.time, longest);
        sum_time += st.time;
        /* The application's own MPI between phases: a ring exchange and an allreduce. */
        double right = 0;
        MPI_Sendrecv(&y[0][N - 1], 1, MPI_DOUBLE, (rank + 1) % size, 5, &right, 1, MPI_DOUBLE,
                     (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double all = 0;
        MPI_Allreduce(&right, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        CHECK(all > 0, "halo exchange");
        halo = right * 1e-6;
        nanosleep(&(struct timespec){0, 200000000}, NULL);
    }
    double wall = now() - start;
    CHECK(sum_time < wall - 0.5, "the phases' times add up to %.3f s of a %.3f s run", sum_time,
          wall);
    CHECK_OK(tide_finalize());
    if (rank == 0)
        printf("rules: %d phases, %.3f s in taskwaits of %.3f s\n", PHASES, sum_time, wall);
    return 0;
}
