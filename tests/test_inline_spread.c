/* In an inline phase (no task moves) a lone worker takes up to 16 own tasks under one queue lock,
 * and several workers share out a phase of many tasks (worker.c, "dealt phases"); neither may
 * hold tasks back from the other workers: a batch taken where short tasks precede long ones would
 * hold several long ones while the other workers idle. Each phase here queues SHORT_BEFORE empty
 * tasks, then LONG tasks that sleep LONG_MS each, `stride` (argv[1], default 1) apart, then empty
 * ones, all of one priority, on the 4 workers ctest gives it (TIDE_THREADS): each long task must
 * go to a free worker, and the phase last about one LONG_MS; a worker that took two or more of
 * them at once would make it at least 2 x LONG_MS (batches of a quarter of a worker's share,
 * tried on 2026-11-29 without taking back from each other, made it 80-95 ms). With a stride of 4
 * the round-robin deal gives every long task to one worker's share, which the others must take
 * from. The check is on the median of PHASES phases after WARM: under 1.6 x LONG_MS. Every task
 * must run exactly once (a counter per task). */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "tide.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SHORT_BEFORE = 40, LONG = 4, SHORT_AFTER = 160, WARM = 2, PHASES = 9, LONG_MS = 20 };
enum { TASKS = SHORT_BEFORE + LONG + SHORT_AFTER };

static atomic_int ran[TASKS];
static int stride = 1; /* the long tasks' distance in the queue (argv[1]) */

static bool is_long(int i)
{
    int k = i - SHORT_BEFORE;
    return k >= 0 && k % stride == 0 && k / stride < LONG;
}

static void task(void **args)
{
    int i = *(const int *)args[0];
    if (is_long(i)) {
        struct timespec ts = {0, LONG_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
    atomic_fetch_add(&ran[i], 1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    if (argc > 1) stride = atoi(argv[1]);
    CHECK(stride >= 1 && SHORT_BEFORE + (LONG - 1) * stride < TASKS, "bad stride %d", stride);
    double took[PHASES];
    for (int p = -WARM; p < PHASES; p++) {
        for (int i = 0; i < TASKS; i++)
            atomic_store(&ran[i], 0);
        for (int i = 0; i < TASKS; i++) {
            tide_arg arg = {&i, sizeof i, TIDE_VALUE};
            tide_task *t;
            CHECK_OK(tide_task_create(&t, task, 1, &arg));
            CHECK_OK(tide_task_submit(t));
        }
        double t0 = now();
        CHECK_OK(tide_taskwait());
        if (p >= 0) took[p] = now() - t0;
        for (int i = 0; i < TASKS; i++)
            CHECK(atomic_load(&ran[i]) == 1, "rank %d phase %d: task %d ran %d times", tide_rank(),
                  p, i, atomic_load(&ran[i]));
    }
    qsort(took, PHASES, sizeof *took, by_value);
    double median = took[PHASES / 2], limit = 1.6 * LONG_MS * 1e-3;
    printf("rank %d: median phase %.1f ms (fastest %.1f, slowest %.1f), %d long tasks of %d ms "
           "among %d\n",
           tide_rank(), 1e3 * median, 1e3 * took[0], 1e3 * took[PHASES - 1], LONG, LONG_MS, TASKS);
    CHECK(median < limit,
          "rank %d: the median phase took %.1f ms, over %.1f: a worker ran several of the long "
          "tasks while the others had nothing to do",
          tide_rank(), 1e3 * median, 1e3 * limit);
    CHECK_OK(tide_finalize());
    return 0;
}
