/* Submissions from several application threads (tide_task_submit is thread-safe): a submission
 * is one compare-and-swap onto a list that tide_taskwait takes at its start (task.c,
 * tide_task_admit). Every task submitted runs exactly once and a refused one never:
 * 1. each phase an OpenMP team of 4 threads submits TEAM_TASKS tasks together; after the
 *    taskwait each ran once, and the phase's statistics count them all;
 * 2. a thread submits tasks without pause while the application thread runs RACE_PHASES
 *    taskwaits: each submission is accepted (the task runs once, in the next phase, or the one
 *    after where it raced with a taskwait's start) or refused with TIDE_ERR_STATE while a
 *    taskwait runs (the task never runs). A last taskwait after the thread stopped runs what
 *    it left. */
#include "test_util.h"
#include "tide.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

enum { TEAM_PHASES = 20, TEAM_TASKS = 500, RACE_PHASES = 300, RACE_MAX = 200000 };

static int team_count[TEAM_TASKS];
static int race_count[RACE_MAX];
static signed char race_state[RACE_MAX]; /* 1 accepted, -1 refused, 0 not tried */
static atomic_bool race_stop;
static atomic_long race_tried;

static void bump(void **args)
{
    (*(int *)args[0])++;
}

static int submit_bump(int *counter)
{
    tide_arg a = {counter, sizeof *counter, TIDE_INOUT};
    tide_task *t;
    int rc = tide_task_create(&t, bump, 1, &a);
    if (rc != TIDE_OK) return rc;
    rc = tide_task_submit(t);
    if (rc != TIDE_OK) tide_task_discard(t);
    return rc;
}

static void *racer(void *unused)
{
    (void)unused;
    for (long i = 0; i < RACE_MAX && !atomic_load(&race_stop); i++) {
        int rc = submit_bump(&race_count[i]);
        CHECK(rc == TIDE_OK || rc == TIDE_ERR_STATE, "racing submission %ld returned %d (%s)", i,
              rc, tide_last_error_message());
        race_state[i] = rc == TIDE_OK ? 1 : -1;
        atomic_store(&race_tried, i + 1);
        if (i % 64 == 63) sched_yield(); /* spread over many of the phases */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK_OK(tide_init(&argc, &argv));
    int ranks = tide_size();

    for (int p = 0; p < TEAM_PHASES; p++) {
        memset(team_count, 0, sizeof team_count);
        int failed = 0;
#pragma omp parallel for num_threads(4) schedule(dynamic, 7) reduction(+ : failed)
        for (int i = 0; i < TEAM_TASKS; i++)
            failed += submit_bump(&team_count[i]) != TIDE_OK;
        CHECK(failed == 0, "phase %d: %d team submissions failed", p, failed);
        CHECK_OK(tide_taskwait());
        for (int i = 0; i < TEAM_TASKS; i++)
            CHECK(team_count[i] == 1, "phase %d: team task %d ran %d times", p, i, team_count[i]);
        tide_phase_stats st;
        CHECK_OK(tide_stats_last_phase(&st));
        CHECK(st.tasks == (int64_t)ranks * TEAM_TASKS, "phase %d counted %lld tasks, want %lld", p,
              (long long)st.tasks, (long long)ranks * TEAM_TASKS);
    }

    pthread_t th;
    CHECK(pthread_create(&th, NULL, racer, NULL) == 0, "cannot start the racing thread");
    while (atomic_load(&race_tried) < 100) /* its first submissions before the first taskwait */
        sched_yield();
    for (int p = 0; p < RACE_PHASES; p++) {
        /* the application's own work between phases: the thread's submissions are accepted */
        struct timespec between = {0, 100000};
        nanosleep(&between, NULL);
        CHECK_OK(tide_taskwait());
    }
    atomic_store(&race_stop, true);
    pthread_join(th, NULL);
    CHECK_OK(tide_taskwait()); /* what the thread submitted after the last one */
    long accepted = 0, refused = 0;
    long tried = atomic_load(&race_tried);
    for (long i = 0; i < tried; i++) {
        int want = race_state[i] == 1;
        CHECK(race_count[i] == want, "racing task %ld (%s) ran %d times", i,
              want ? "accepted" : "refused", race_count[i]);
        accepted += want;
        refused += !want;
    }
    CHECK(accepted > 0, "no racing submission was accepted in %ld tries", tried);
    CHECK_OK(tide_finalize());
    printf("submit_threads: %d phases of %d tasks from 4 threads each ran once; racing thread: "
           "%ld accepted (each ran once), %ld refused during taskwaits\n",
           TEAM_PHASES, TEAM_TASKS, accepted, refused);
    return 0;
}
