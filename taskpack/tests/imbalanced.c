/* An iterative MPI program with deliberately imbalanced ranks, for the Task Packing tests and
 * benchmark. Each iteration a rank burns `weight x unit` of CPU time (thread CPU time, so that
 * sharing a CPU stretches it as real work would), optionally sleeps, then synchronizes. The
 * burnt work never feeds the result: the checksum printed by rank 0 must not depend on packing.
 *
 *   imbalanced --weights 1,0.05[,...] [--sleep-ms 0,3,...] [--unit-ms 20] [--iters 30]
 *              [--sync barrier|allreduce|alltoall|allgather] [--api]
 *
 * Weights/sleeps repeat cyclically over the ranks. Every rank prints "rank R cpus LIST" (its
 * affinity just before MPI_Finalize); rank 0 prints "checksum X" and "elapsed S". --api links
 * taskpack_begin/end around an iteration that holds three barriers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef TASKPACK_TEST_API
#include "taskpack.h"
#endif

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static void burn(double seconds)
{
    double end = cpu_now() + seconds, x = 1.0;
    while (cpu_now() < end)
        for (int k = 0; k < 1000; k++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

static double pick(const char *list, int rank)
{
    double v[256];
    int n = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && n < 256; tok = strtok_r(NULL, ",", &save))
        v[n++] = atof(tok);
    free(copy);
    return n ? v[rank % n] : 0;
}

static void sync_all(const char *kind, double *acc)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(kind, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(kind, "allreduce") == 0) {
        double in = *acc;
        MPI_Allreduce(&in, acc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        *acc /= size;
    } else {
        double *in = malloc((size_t)size * sizeof *in), *out = malloc((size_t)size * sizeof *out);
        for (int i = 0; i < size; i++)
            in[i] = *acc;
        if (strcmp(kind, "alltoall") == 0)
            MPI_Alltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        else
            MPI_Allgather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
        double s = 0;
        for (int i = 0; i < size; i++)
            s += out[i];
        *acc = s / size;
        free(in);
        free(out);
    }
}

int main(int argc, char **argv)
{
    const char *weights = "1", *sleeps = "0", *sync = "barrier";
    double unit_ms = 20;
    int iters = 30, api = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--weights") && i + 1 < argc)
            weights = argv[++i];
        else if (!strcmp(argv[i], "--sleep-ms") && i + 1 < argc)
            sleeps = argv[++i];
        else if (!strcmp(argv[i], "--unit-ms") && i + 1 < argc)
            unit_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sync") && i + 1 < argc)
            sync = argv[++i];
        else if (!strcmp(argv[i], "--api"))
            api = 1;
        else {
            fprintf(stderr, "imbalanced: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double work = pick(weights, rank) * unit_ms * 1e-3;
    double nap = pick(sleeps, rank) * 1e-3;
    double acc = rank + 1, t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
#ifdef TASKPACK_TEST_API
        if (api) taskpack_begin();
#endif
        burn(work);
        if (nap > 0) {
            struct timespec ts = {(time_t)nap, (long)((nap - (time_t)nap) * 1e9)};
            nanosleep(&ts, NULL);
        }
        /* The result: a fixed recurrence, independent of timing and placement. */
        acc = acc * 0.5 + (double)(rank + it) * 0.25;
        if (api) {
            for (int k = 0; k < 3; k++)
                MPI_Barrier(MPI_COMM_WORLD);
#ifdef TASKPACK_TEST_API
            taskpack_end();
#endif
        }
        sync_all(sync, &acc);
    }
    double elapsed = MPI_Wtime() - t0;
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    char list[512] = "";
    for (int c = 0, first = 1; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", first ? "" : ",", c);
        first = 0;
    }
    double sum;
    MPI_Reduce(&acc, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    printf("rank %d cpus %s\n", rank, list);
    fflush(stdout);
    if (rank == 0) {
        printf("checksum %.17g\nelapsed %.6f\n", sum, elapsed);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
