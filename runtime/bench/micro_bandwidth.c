/* Offload bandwidth: tasks with one large IN argument moved from rank 0 to rank 1, against raw
 * MPI_Send/MPI_Recv of the same buffers between the same two ranks, in the same program.
 *
 *   micro_bandwidth [bytes=1048576] [tasks=128] [reps=5] [label]
 *
 * Run on two ranks with TIDE_LB=random TIDE_RANDOM_FRACTION=1: rank 0 submits every task and
 * rank 1 none, so the whole phase moves to rank 1 (checked: the benchmark fails otherwise).
 * Bandwidth = IN bytes moved / duration of rank 0's tide_taskwait(). The raw reference sends the
 * same `tasks` buffers as `tasks` messages on MPI_COMM_WORLD while Tide is idle between
 * taskwaits, and ends with a zero-byte acknowledgement so that both times cover the same span
 * (first byte leaves rank 0 .. rank 0 knows everything arrived). Tide and raw alternate `reps`
 * times; medians are reported. `label` names the run's settings in the table. */
#include "micro.h"

#include <mpi.h>
#include <stdint.h>
#include <tide.h>

/* Reads the first and last byte of its IN argument, so the data must really be there. */
static void touch_task(void **args)
{
    const unsigned char *in = args[0];
    size_t n = *(const size_t *)args[2];
    *(uint64_t *)args[1] = (uint64_t)in[0] * 256u + in[n - 1] + n;
}

static unsigned char pattern(long task, size_t at)
{
    return (unsigned char)(task * 31 + (long)(at % 251));
}

static double run_tide(unsigned char **bufs, uint64_t *out, long tasks, size_t bytes, int me)
{
    if (me == 0) {
        for (long i = 0; i < tasks; i++) {
            out[i] = 0;
            tide_arg a[3] = {{bufs[i], bytes, TIDE_IN},
                             {&out[i], sizeof out[i], TIDE_OUT},
                             {&bytes, sizeof bytes, TIDE_VALUE}};
            tide_task *t;
            MICRO_CHECK_OK(tide_task_create(&t, touch_task, 3, a));
            MICRO_CHECK_OK(tide_task_submit(t));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = micro_now();
    MICRO_CHECK_OK(tide_taskwait());
    double t = micro_now() - t0;
    tide_phase_stats s;
    MICRO_CHECK_OK(tide_stats_last_phase(&s));
    MICRO_CHECK(s.tasks == tasks && s.offloaded == tasks,
                "%lld tasks, %lld offloaded; expected all %ld to move (TIDE_LB=random "
                "TIDE_RANDOM_FRACTION=1 on 2 ranks)",
                (long long)s.tasks, (long long)s.offloaded, tasks);
    if (me == 0)
        for (long i = 0; i < tasks; i++) {
            uint64_t want = (uint64_t)pattern(i, 0) * 256u + pattern(i, bytes - 1) + bytes;
            MICRO_CHECK(out[i] == want, "task %ld returned %llu, expected %llu", i,
                        (unsigned long long)out[i], (unsigned long long)want);
        }
    return t;
}

static double run_raw(unsigned char **bufs, unsigned char *rbuf, long tasks, size_t bytes, int me)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = micro_now();
    if (me == 0) {
        for (long i = 0; i < tasks; i++)
            MPI_Send(bufs[i], (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (me == 1) {
        for (long i = 0; i < tasks; i++) {
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MICRO_CHECK(rbuf[bytes - 1] == pattern(i, bytes - 1), "raw message %ld corrupted", i);
        }
        MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    return micro_now() - t0;
}

int main(int argc, char **argv)
{
    long bytes_arg = micro_arg(argc, argv, 1, 1 << 20, 1);
    long tasks = micro_arg(argc, argv, 2, 128, 1);
    int reps = (int)micro_arg(argc, argv, 3, 5, 1);
    const char *label = argc > 4 ? argv[4] : "defaults";
    MICRO_CHECK(bytes_arg <= INT32_MAX, "bytes must fit an MPI count");
    size_t bytes = (size_t)bytes_arg;
    MICRO_CHECK_OK(tide_init(&argc, &argv));
    int me = tide_rank();
    MICRO_CHECK(tide_size() == 2, "run on two ranks (got %d)", tide_size());

    /* Distinct source buffers, as an application's tasks would have: the data is not all hot in
     * cache, for Tide's packing and for the raw sends alike. */
    unsigned char **bufs = calloc((size_t)tasks, sizeof *bufs);
    uint64_t *out = calloc((size_t)tasks, sizeof *out);
    unsigned char *rbuf = malloc(bytes);
    MICRO_CHECK(bufs && out && rbuf, "out of memory");
    for (long i = 0; i < tasks; i++) {
        bufs[i] = malloc(bytes);
        MICRO_CHECK(bufs[i], "out of memory for %ld buffers of %zu bytes", tasks, bytes);
        for (size_t k = 0; k < bytes; k++)
            bufs[i][k] = pattern(i, k);
    }

    run_raw(bufs, rbuf, tasks < 4 ? tasks : 4, bytes, me); /* warm-up: connections, pools */
    run_tide(bufs, out, tasks < 4 ? tasks : 4, bytes, me);
    double *tt = malloc((size_t)reps * sizeof *tt), *tr = malloc((size_t)reps * sizeof *tr);
    MICRO_CHECK(tt && tr, "out of memory");
    for (int r = 0; r < reps; r++) {
        tr[r] = run_raw(bufs, rbuf, tasks, bytes, me);
        tt[r] = run_tide(bufs, out, tasks, bytes, me);
    }
    double moved = (double)bytes * (double)tasks;
    double gbs_tide = moved / micro_median(tt, reps) / 1e9;
    double gbs_raw = moved / micro_median(tr, reps) / 1e9;
    if (me == 0) {
        char what[160];
        snprintf(what, sizeof what, "[%s] offload bandwidth, %ld x %zu-B IN tasks", label, tasks,
                 bytes);
        micro_row(what, gbs_tide, gbs_raw, "GB/s", ">= 0.70x raw MPI", gbs_tide >= 0.7 * gbs_raw);
    }
    for (long i = 0; i < tasks; i++)
        free(bufs[i]);
    free(bufs);
    free(out);
    free(rbuf);
    free(tt);
    free(tr);
    MICRO_CHECK_OK(tide_finalize());
    return 0;
}
