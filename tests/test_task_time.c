/* A task's time runs from the clock reading that ended what its worker did just before (the
 * previous task, with only its bookkeeping and the queue's pop between them; for the
 * application thread's first task in an inline phase, the phase's start) to the reading that
 * ends it (worker.c). So on one worker, in an inline phase without a prediction to make, the
 * tasks' times add up to the worker's whole busy time: the phase's L equals its W, no time
 * between tasks is lost or counted twice. With more workers, or where a reading of its own
 * starts a task, L stays within workers x W.
 * Environment: EXPECT_EXACT=1 checks L == W (one worker, TIDE_LB=none, no prediction); else
 * L <= TIDE_THREADS x W. Each phase has TASKS tasks of a short busy loop. */
#include "test_util.h"
#include "tide.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

enum { TASKS = 2000, PHASES = 3 };

static void spin(void **args)
{
    volatile double *x = args[0];
    for (int i = 0; i < 50; i++)
        *x = *x * 0.5 + 1;
}

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    const char *e = getenv("EXPECT_EXACT"), *th = getenv("TIDE_THREADS");
    bool exact = e && strcmp(e, "1") == 0;
    int threads = th ? atoi(th) : 1;
    static double x[TASKS];
    for (int p = 0; p < PHASES; p++) {
        for (int i = 0; i < TASKS; i++) {
            tide_arg a = {&x[i], sizeof x[i], TIDE_INOUT};
            tide_task *t;
            CHECK_OK(tide_task_create(&t, spin, 1, &a));
            CHECK_OK(tide_task_submit(t));
        }
        CHECK_OK(tide_taskwait());
        tide_phase_stats st;
        CHECK_OK(tide_stats_last_phase(&st));
        CHECK(st.tasks_self == TASKS, "phase %d: %lld tasks", p, (long long)st.tasks_self);
        CHECK(st.L_self > 0 && st.W_self > 0, "phase %d: L %g W %g", p, st.L_self, st.W_self);
        /* one rank: the phase's numbers over the ranks are its own (phase.c's lone-rank record,
         * stats.c's tide_stats_add_lone, where nothing keeps the records) */
        CHECK(st.phase == p && st.tasks == TASKS && st.offloaded == 0 && st.bytes_moved == 0,
              "phase %d: numbered %d, %lld tasks, %lld offloaded, %lld bytes", p, st.phase,
              (long long)st.tasks, (long long)st.offloaded, (long long)st.bytes_moved);
        CHECK(st.W_max == st.W_self && st.W_avg == st.W_self && st.L_total == st.L_self &&
                  st.R_imb == 0,
              "phase %d: W_max %g, W_avg %g, W %g; L_total %g, L %g; R_imb %g", p, st.W_max,
              st.W_avg, st.W_self, st.L_total, st.L_self, st.R_imb);
        CHECK(st.ideal >= st.L_self / threads - 1e-12 && st.time >= st.W_self - 1e-12,
              "phase %d: ideal %g, time %g, L %g, W %g", p, st.ideal, st.time, st.L_self,
              st.W_self);
        if (exact)
            CHECK(fabs(st.L_self - st.W_self) <= 1e-9,
                  "phase %d: L %.9f s, W %.9f s: time between "
                  "the tasks of one worker was lost or counted twice",
                  p, st.L_self, st.W_self);
        else
            CHECK(st.L_self <= threads * st.W_self + 1e-9, "phase %d: L %.9f s > %d x W %.9f s", p,
                  st.L_self, threads, st.W_self);
    }
    CHECK_OK(tide_finalize());
    return 0;
}
