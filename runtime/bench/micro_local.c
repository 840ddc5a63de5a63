/* Local overhead per task: create + submit + execute an empty task through Tide on one rank,
 * against the same number of empty OpenMP tasks on the same number of threads.
 *
 *   micro_local [tasks=200000] [phases=20] [reps=3]
 *
 * Run on one rank with TIDE_LB=none; TIDE_THREADS sets the thread count of both sides. Each side
 * runs `phases` rounds of tasks/phases tasks; a round is one tide_taskwait() for Tide and one
 * parallel region whose single thread creates the tasks for OpenMP, so both pay one fork/join
 * per round. The two sides alternate `reps` times and the medians are reported.
 *
 * libgomp runs a new task at once, inside the creating thread, when more than 64 per thread are
 * queued (and a team of one may run them all so), so the OpenMP figure is mostly a function call.
 * A third, informational measurement keeps every OpenMP task deferred (a taskwait after each 32
 * tasks per thread, so the queue never reaches the limit); it shows what a queued task costs. */
#include "micro.h"

#include <omp.h>
#include <stdatomic.h>
#include <tide.h>

static atomic_long executed;

/* The body both sides run: one relaxed increment, so that the harness can prove every task ran
 * exactly once without making the task measurably longer than empty. */
static void count_task(void **args)
{
    (void)args;
    atomic_fetch_add_explicit(&executed, 1, memory_order_relaxed);
}

/* Returns the total time; *in_taskwait receives the part spent in tide_taskwait() (execution
 * and the phase protocol), the rest being tide_task_create + tide_task_submit. */
static double run_tide(long per_phase, int phases, double *in_taskwait)
{
    atomic_store(&executed, 0);
    double t0 = micro_now(), tw = 0;
    for (int p = 0; p < phases; p++) {
        for (long i = 0; i < per_phase; i++) {
            tide_task *t;
            MICRO_CHECK_OK(tide_task_create(&t, count_task, 0, NULL));
            MICRO_CHECK_OK(tide_task_submit(t));
        }
        double w0 = micro_now();
        MICRO_CHECK_OK(tide_taskwait());
        tw += micro_now() - w0;
    }
    double t = micro_now() - t0;
    *in_taskwait = tw;
    tide_phase_stats s;
    MICRO_CHECK_OK(tide_stats_last_phase(&s));
    MICRO_CHECK(s.tasks == per_phase && s.offloaded == 0, "last phase: %lld tasks, %lld offloaded",
                (long long)s.tasks, (long long)s.offloaded);
    MICRO_CHECK(atomic_load(&executed) == per_phase * phases, "Tide ran %ld of %ld tasks",
                atomic_load(&executed), per_phase * phases);
    return t;
}

/* batch > 0: a taskwait after every `batch` tasks, which keeps libgomp from running tasks
 * undeferred. */
static double run_openmp(long per_phase, int phases, int threads, long batch)
{
    atomic_store(&executed, 0);
    double t0 = micro_now();
    for (int p = 0; p < phases; p++) {
#pragma omp parallel num_threads(threads)
#pragma omp single
        for (long i = 0; i < per_phase; i++) {
#pragma omp task
            count_task(NULL);
            if (batch > 0 && (i + 1) % batch == 0) {
#pragma omp taskwait
            }
        }
    }
    double t = micro_now() - t0;
    MICRO_CHECK(atomic_load(&executed) == per_phase * phases, "OpenMP ran %ld of %ld tasks",
                atomic_load(&executed), per_phase * phases);
    return t;
}

int main(int argc, char **argv)
{
    long tasks = micro_arg(argc, argv, 1, 200000, 1);
    int phases = (int)micro_arg(argc, argv, 2, 20, 1);
    int reps = (int)micro_arg(argc, argv, 3, 3, 1);
    MICRO_CHECK_OK(tide_init(&argc, &argv));
    MICRO_CHECK(tide_size() == 1, "run on one rank (got %d)", tide_size());
    int threads = tide_num_threads();
    long per_phase = (tasks + phases - 1) / phases;
    long total = per_phase * phases;

    /* Warm-up: thread pools, allocator arenas, the comm thread's first phase. */
    double tw;
    run_tide(per_phase < 1000 ? per_phase : 1000, 1, &tw);
    run_openmp(per_phase < 1000 ? per_phase : 1000, 1, threads, 0);

    double *tt = malloc((size_t)reps * sizeof *tt), *to = malloc((size_t)reps * sizeof *to);
    double *tw_us = malloc((size_t)reps * sizeof *tw_us);
    MICRO_CHECK(tt && to && tw_us, "out of memory");
    for (int r = 0; r < reps; r++) {
        tt[r] = run_tide(per_phase, phases, &tw) / (double)total * 1e6;
        tw_us[r] = tw / (double)total * 1e6;
        to[r] = run_openmp(per_phase, phases, threads, 0) / (double)total * 1e6;
    }
    double us_tide = micro_median(tt, reps), us_omp = micro_median(to, reps);
    double us_wait = micro_median(tw_us, reps);
    long batch = 32L * threads;
    double us_deferred = run_openmp(per_phase, phases, threads, batch) / (double)total * 1e6;
    char what[96];
    snprintf(what, sizeof what, "local empty task, %d thread%s, %ld tasks", threads,
             threads == 1 ? "" : "s", total);
    micro_row(what, us_tide, -1, "us", "<= 2 us", us_tide <= 2.0);
    snprintf(what, sizeof what, "  vs OpenMP empty task, %d thread%s", threads,
             threads == 1 ? "" : "s");
    micro_row(what, us_tide, us_omp, "us", "<= 3x OpenMP", us_tide <= 3.0 * us_omp);
    snprintf(what, sizeof what, "  of which in tide_taskwait, %d thread%s", threads,
             threads == 1 ? "" : "s");
    micro_row(what, us_wait, us_omp, "us", "(information)", -1);
    snprintf(what, sizeof what, "  vs OpenMP, all deferred (taskwait per %ld), %d thread%s", batch,
             threads, threads == 1 ? "" : "s");
    micro_row(what, us_tide, us_deferred, "us", "(information)", -1);
    free(tt);
    free(to);
    free(tw_us);
    MICRO_CHECK_OK(tide_finalize());
    return 0;
}
