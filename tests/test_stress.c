#define _POSIX_C_SOURCE 200809L
/* Exactly-once execution and termination under random offloading: many phases with random task
 * counts (zero on some ranks), random argument sizes and random task durations. Every task
 * increments its own INOUT counter and writes a checksum of its input: a task run twice, run on
 * stale data, or lost shows up as a wrong counter or checksum. Every rank also counts the other
 * ranks' tasks it executed, which the phase statistics must report as `received` (replica copies
 * cancelled before they ran not included). Usage: test_stress PHASES SEED */
#include "test_util.h"
#include "tide.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static atomic_long foreign_runs; /* other ranks' tasks executed here in this phase */

/* The phase's totals are its ranks' own values summed (or maximised), the same on every rank,
 * however the runtime combined them (an allreduce of sums, or every record gathered with
 * TIDE_STATS): checked against an allreduce of the *_self fields. */
static bool near(double a, double b)
{
    double d = a > b ? a - b : b - a, m = b > 1 ? b : 1;
    return d <= 1e-9 * m;
}

static void check_phase_totals(const tide_phase_stats *st)
{
    double mine[4] = {(double)st->tasks_self, (double)st->offloaded_self, st->L_self, st->W_self};
    double sum[4], wmax, got[2] = {(double)st->tasks, st->time}, lo[2], hi[2];
    MPI_Allreduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine[3], &wmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(got, lo, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(got, hi, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int size = tide_size();
    CHECK(st->tasks == (int64_t)sum[0], "phase %d: %lld tasks, the ranks' own add up to %.0f",
          st->phase, (long long)st->tasks, sum[0]);
    CHECK(st->offloaded == (int64_t)sum[1], "phase %d: %lld offloaded, the ranks' add up to %.0f",
          st->phase, (long long)st->offloaded, sum[1]);
    CHECK(near(st->L_total, sum[2]), "phase %d: L_total %g, sum %g", st->phase, st->L_total,
          sum[2]);
    CHECK(near(st->W_avg, sum[3] / size) && st->W_max == wmax,
          "phase %d: W_avg %g W_max %g, the ranks' W give %g and %g", st->phase, st->W_avg,
          st->W_max, sum[3] / size, wmax);
    CHECK(lo[0] == hi[0] && lo[1] == hi[1], "phase %d: the ranks disagree on tasks or time",
          st->phase);
}

static void work(void **args)
{
    const unsigned char *in = args[0];
    uint64_t n = *(const uint64_t *)args[1];
    uint64_t *out = args[2];
    int64_t *counter = args[3];
    uint32_t delay_us = *(const uint32_t *)args[4];
    if (*(const int *)args[5] != tide_rank()) atomic_fetch_add(&foreign_runs, 1);
    uint64_t h = 1469598103934665603ull;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ in[i]) * 1099511628211ull;
    *out = h;
    (*counter)++;
    if (delay_us) {
        struct timespec ts = {0, (long)delay_us * 1000};
        nanosleep(&ts, NULL);
    }
}

typedef struct item {
    unsigned char *in;
    uint64_t n, out, expect;
    int64_t counter;
} item;

int main(int argc, char **argv)
{
    int phases = argc > 1 ? atoi(argv[1]) : 200;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    CHECK_OK(tide_init(&argc, &argv));
    int rank = tide_rank(), size = tide_size();
    uint64_t rng = seed * 1000003u + (uint64_t)rank;
    long total_tasks = 0, total_offloaded = 0;
    for (int p = 0; p < phases; p++) {
        /* A third of the phases leave some ranks without any task. */
        int ntasks = (int)(test_rng(&rng) % 24);
        if (test_rng(&rng) % 3 == 0 && rank % 2 == p % 2) ntasks = 0;
        /* Rank 0 also holds 16 tasks of 300 us in every phase it has tasks: a surplus that
         * persists, so that a strategy which plans from predicted loads has something to move
         * (the random part alone cannot be predicted, and proact rightly moved nothing there
         * after its first phases: a run in which those moved nothing failed the test). */
        int base = ntasks;
        if (rank == 0 && ntasks > 0) ntasks += 16;
        item *items = calloc((size_t)ntasks + 1, sizeof *items);
        for (int i = 0; i < ntasks; i++) {
            item *it = &items[i];
            uint64_t r = test_rng(&rng) % 100;
            it->n = r < 10 ? 0 : r < 95 ? test_rng(&rng) % 2048 : test_rng(&rng) % (600 << 10);
            it->in = malloc(it->n + 1);
            for (uint64_t k = 0; k < it->n; k++)
                it->in[k] = (unsigned char)test_rng(&rng);
            uint64_t h = 1469598103934665603ull;
            for (uint64_t k = 0; k < it->n; k++)
                h = (h ^ it->in[k]) * 1099511628211ull;
            it->expect = h;
            uint32_t delay = (uint32_t)(test_rng(&rng) % 4 == 0 ? test_rng(&rng) % 400 : 0);
            if (i >= base) delay = 300;
            tide_arg args[6] = {{it->in, it->n, TIDE_IN},
                                {&it->n, sizeof it->n, TIDE_VALUE},
                                {&it->out, sizeof it->out, TIDE_OUT},
                                {&it->counter, sizeof it->counter, TIDE_INOUT},
                                {&delay, sizeof delay, TIDE_VALUE},
                                {&rank, sizeof rank, TIDE_VALUE}};
            tide_task *t;
            CHECK_OK(tide_task_create(&t, work, 6, args));
            CHECK_OK(tide_task_submit(t));
        }
        CHECK_OK(tide_taskwait());
        for (int i = 0; i < ntasks; i++) {
            CHECK(items[i].counter == 1, "phase %d task %d ran %lld times", p, i,
                  (long long)items[i].counter);
            CHECK(items[i].out == items[i].expect, "phase %d task %d: wrong output", p, i);
            free(items[i].in);
        }
        free(items);
        tide_phase_stats st;
        CHECK_OK(tide_stats_last_phase(&st));
        CHECK(st.phase == p, "stats of phase %d, expected %d", st.phase, p);
        CHECK(st.tasks_self == ntasks, "stats count %lld own tasks, submitted %d",
              (long long)st.tasks_self, ntasks);
        long foreign = atomic_exchange(&foreign_runs, 0);
        CHECK(st.received_self == foreign,
              "phase %d: stats count %lld received tasks, %ld ran here", p,
              (long long)st.received_self, foreign);
        check_phase_totals(&st);
        total_tasks += (long)st.tasks;
        total_offloaded += (long)st.offloaded;
    }
    CHECK_OK(tide_finalize());
    if (rank == 0)
        printf("stress: %d phases on %d ranks, %ld tasks, %ld offloaded, all exactly once\n",
               phases, size, total_tasks, total_offloaded);
    if (getenv("EXPECT_MOVES") && size > 1)
        CHECK(total_offloaded > 0, "%s moved no task", getenv("TIDE_LB"));
    return 0;
}
