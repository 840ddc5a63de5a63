/* Per-task hints (tide.h: tide_task_set_pinned, _cost, _priority).
 *
 *   test_hints pinned     any TIDE_LB, 3+ ranks: rank 0 owns most tasks, half of them pinned.
 *                         Every pinned task must run on rank 0; unless TIDE_LB=none some
 *                         unpinned ones must run elsewhere. Phases alternate with and without
 *                         cost hints, so proact plans from hints and from its model.
 *   test_hints priority   1 rank, TIDE_THREADS=1: tasks run by descending priority, FIFO among
 *                         equal ones, also for a large random mix.
 *   test_hints cost [0|1] TIDE_LB=proact, 3 ranks, no training: every task carries a cost (1)
 *                         or none (0); hints_cost.py reads the TIDE_STATS document. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "tide.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms * 1e6) % 1000000000L};
    nanosleep(&ts, NULL);
}

/* args: VALUE ms (double), OUT rank (int): sleeps, then says where it ran. */
static void where(void **args)
{
    sleep_ms(*(double *)args[0]);
    *(int *)args[1] = tide_rank();
}

static void submit_where(double ms, int *out, bool pinned, bool hint)
{
    tide_arg a[] = {{&ms, sizeof ms, TIDE_VALUE}, {out, sizeof *out, TIDE_OUT}};
    tide_task *t;
    CHECK_OK(tide_task_create(&t, where, 2, a));
    if (pinned) CHECK_OK(tide_task_set_pinned(t));
    if (hint) CHECK_OK(tide_task_set_cost(t, ms / 1000));
    CHECK_OK(tide_task_submit(t));
}

static int pinned_run(void)
{
    enum { N0 = 32, N = 2, PHASES = 10 };
    int me = tide_rank(), out[N0];
    const char *lb = getenv("TIDE_LB");
    long moved = 0;
    for (int p = 0; p < PHASES; p++) {
        int n = me == 0 ? N0 : N;
        for (int i = 0; i < n; i++) {
            out[i] = -1;
            submit_where(4, &out[i], i % 2 == 0, p % 2 == 1);
        }
        CHECK_OK(tide_taskwait());
        for (int i = 0; i < n; i++) {
            CHECK(out[i] >= 0 && out[i] < tide_size(), "task %d of phase %d never ran", i, p);
            if (i % 2 == 0)
                CHECK(out[i] == me, "lb=%s phase %d: pinned task %d of rank %d ran on rank %d", lb,
                      p, i, me, out[i]);
            else if (out[i] != me)
                moved++;
        }
    }
    long all = 0;
    MPI_Allreduce(&moved, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("lb=%s: every pinned task stayed home; %ld unpinned tasks ran elsewhere\n", lb, all);
    if (lb && strcmp(lb, "none") != 0)
        CHECK(all > 0, "lb=%s moved no unpinned task: the input should make it move some", lb);
    return 0;
}

static atomic_int ticket;

/* args: OUT order (int): the order in which it ran. */
static void order(void **args)
{
    *(int *)args[0] = atomic_fetch_add(&ticket, 1);
}

/* Submits n tasks with the given priorities, runs them on one worker and checks that they ran
 * by descending priority, in submission order among equals. */
static void check_order(const int *prio, int n)
{
    int *ran = malloc((size_t)n * sizeof *ran);
    CHECK(ran, "out of memory");
    atomic_store(&ticket, 0);
    for (int i = 0; i < n; i++) {
        tide_arg a[] = {{&ran[i], sizeof ran[i], TIDE_OUT}};
        tide_task *t;
        CHECK_OK(tide_task_create(&t, order, 1, a));
        CHECK_OK(tide_task_set_priority(t, prio[i]));
        CHECK_OK(tide_task_submit(t));
    }
    CHECK_OK(tide_taskwait());
    int *task_at = malloc((size_t)n * sizeof *task_at);
    CHECK(task_at, "out of memory");
    for (int i = 0; i < n; i++) {
        CHECK(ran[i] >= 0 && ran[i] < n, "task %d ran as %d", i, ran[i]);
        task_at[ran[i]] = i;
    }
    for (int k = 1; k < n; k++) {
        int a = task_at[k - 1], b = task_at[k];
        CHECK(prio[a] > prio[b] || (prio[a] == prio[b] && a < b),
              "position %d: task %d (priority %d) ran before task %d (priority %d)", k, a, prio[a],
              b, prio[b]);
    }
    free(ran);
    free(task_at);
}

static int priority_run(void)
{
    CHECK(tide_size() == 1 && tide_num_threads() == 1, "run on 1 rank with TIDE_THREADS=1");
    const int small[] = {0, 5, -1, 5, 0, 10, -1, 3};
    check_order(small, (int)(sizeof small / sizeof *small));
    /* alike priorities: the tasks skip the queue for the lone worker's share (worker.c) */
    const int alike[] = {4, 4, 4, 4, 4};
    check_order(alike, (int)(sizeof alike / sizeof *alike));
    enum { MIX = 5000 };
    int *prio = malloc(MIX * sizeof *prio);
    CHECK(prio, "out of memory");
    uint64_t rng = 7;
    for (int i = 0; i < MIX; i++)
        prio[i] = (int)(test_rng(&rng) % 21) - 10;
    check_order(prio, MIX);
    for (int i = 0; i < MIX; i++) /* ascending: every push lands at the front of the queue */
        prio[i] = i;
    check_order(prio, MIX);
    free(prio);
    CHECK(tide_task_set_priority(NULL, 1) == TIDE_ERR_INVALID, "NULL task accepted");
    printf("priority: tasks ran by descending priority, FIFO among equals\n");
    return 0;
}

/* Rank 0: 12 tasks of 8 ms, the others 2: loads 96, 16, 16 ms, mean 42.7: rank 0 should send
 * 6 or 7 tasks (3 to each, perhaps a 7th) in a plan made before any task ran. */
static int cost_run(bool hints)
{
    int me = tide_rank(), out[12];
    for (int p = 0; p < 2; p++) {
        int n = me == 0 ? 12 : 2;
        for (int i = 0; i < n; i++)
            submit_where(8, &out[i], false, hints);
        CHECK_OK(tide_taskwait());
        tide_phase_stats s;
        CHECK_OK(tide_stats_last_phase(&s));
        if (hints)
            CHECK(s.L_pred_self > n * 0.008 - 1e-12 && s.L_pred_self < n * 0.008 + 1e-12,
                  "rank %d phase %d: L_pred %g, the hints sum to %g", me, p, s.L_pred_self,
                  n * 0.008);
    }
    CHECK(tide_task_set_cost(NULL, 1) == TIDE_ERR_INVALID, "NULL task accepted");
    tide_task *t;
    CHECK_OK(tide_task_create(&t, order, 0, NULL));
    CHECK(tide_task_set_cost(t, -1) == TIDE_ERR_INVALID, "a negative cost accepted");
    CHECK(tide_task_set_cost(t, 1.0 / 0.0) == TIDE_ERR_INVALID, "an infinite cost accepted");
    CHECK(tide_task_set_pinned(NULL) == TIDE_ERR_INVALID, "NULL task accepted");
    CHECK_OK(tide_task_discard(t));
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(argc >= 2, "usage: test_hints pinned|priority|cost [0|1]");
    CHECK_OK(tide_init(&argc, &argv));
    int rc;
    if (strcmp(argv[1], "pinned") == 0)
        rc = pinned_run();
    else if (strcmp(argv[1], "priority") == 0)
        rc = priority_run();
    else if (strcmp(argv[1], "cost") == 0 && argc == 3)
        rc = cost_run(strcmp(argv[2], "1") == 0);
    else
        CHECK(0, "unknown mode %s", argv[1]);
    CHECK_OK(tide_finalize());
    return rc;
}
