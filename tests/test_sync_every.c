/* TIDE_SYNC_EVERY=4 under TIDE_LB=none on 2 ranks: the ranks agree every 4 phases, not at every
 * tide_taskwait.
 *   - rank 1's only task of phase 0 sleeps 300 ms: rank 0's first tide_taskwait returns before
 *     it ends (under an agreement per phase it would wait for rank 1);
 *   - tide_stats_last_phase describes the last agreed phase: TIDE_ERR_STATE before phase 3 ends,
 *     then phases 3, 7, ... with every rank's tasks counted (rank r submits r + 1 + phase tasks);
 *   - 10 phases: the last two are agreed in tide_finalize, and the statistics file holds all 10
 *     with each rank's tasks.
 * argv[1] (optional): the file TIDE_STATS names (records gathered, not reduced), read back on
 * rank 0 after tide_finalize. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "tide.h"

#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void work(void **args)
{
    const double *ms = args[0];
    double *out = args[1];
    struct timespec ts = {0, (long)(*ms * 1e6)};
    nanosleep(&ts, NULL);
    *out += 1;
}

enum { PHASES = 10, EVERY = 4 };

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    int rank = tide_rank();
    CHECK(tide_size() == 2, "run on 2 ranks");
    double out[PHASES + 2] = {0};
    for (int p = 0; p < PHASES; p++) {
        int n = rank + 1 + p;
        for (int i = 0; i < n; i++) {
            double ms = rank == 1 && p == 0 ? 300 : 0.1;
            tide_arg args[2] = {{&ms, sizeof ms, TIDE_VALUE}, {&out[i], sizeof out[i], TIDE_INOUT}};
            tide_task *t;
            CHECK_OK(tide_task_create(&t, work, 2, args));
            CHECK_OK(tide_task_submit(t));
        }
        double t0 = now();
        CHECK_OK(tide_taskwait());
        double took = now() - t0;
        if (p == 0 && rank == 0)
            CHECK(took < 0.15, "rank 0's first taskwait took %.3f s: it waited for rank 1", took);
        tide_phase_stats st;
        int rc = tide_stats_last_phase(&st);
        int agreed = (p + 1) / EVERY * EVERY - 1; /* the last phase agreed so far, or -1 */
        if (agreed < 0) {
            CHECK(rc == TIDE_ERR_STATE, "phase %d: expected no agreed phase, got %d", p, rc);
            continue;
        }
        CHECK_OK(rc);
        CHECK(st.phase == agreed, "after phase %d: the stats describe phase %d, not %d", p,
              st.phase, agreed);
        /* rank 0 submits 1 + phase tasks, rank 1 2 + phase */
        CHECK(st.tasks == 3 + 2 * agreed, "phase %d: %lld tasks, expected %d", agreed,
              (long long)st.tasks, 3 + 2 * agreed);
        CHECK(st.tasks_self == rank + 1 + agreed, "phase %d: %lld own tasks", agreed,
              (long long)st.tasks_self);
    }
    for (int i = 0; i < rank + PHASES; i++) /* task i ran in every phase with more than i tasks */
        CHECK(out[i] == (double)(PHASES - (i > rank ? i - rank : 0)), "out[%d] = %g", i, out[i]);
    CHECK_OK(tide_finalize());
    if (rank == 0 && argc > 1) { /* the statistics file: 10 phases, each with every rank's tasks */
        FILE *f = fopen(argv[1], "r");
        CHECK(f, "cannot open %s", argv[1]);
        static char doc[1 << 20];
        size_t len = fread(doc, 1, sizeof doc - 1, f);
        fclose(f);
        doc[len] = 0;
        int seen = 0; /* each phase's "tasks": [rank 0's, rank 1's] */
        for (const char *s = doc; (s = strstr(s, "\"tasks\": [")); s++, seen++) {
            char *end;
            long a = strtol(s + 10, &end, 10), b = strtol(end + 1, NULL, 10);
            CHECK(a == 1 + seen && b == 2 + seen, "phase %d: tasks [%ld, %ld] in %s", seen, a, b,
                  argv[1]);
        }
        CHECK(seen == PHASES, "%s holds %d phases, expected %d", argv[1], seen, PHASES);
    }
    return 0;
}
