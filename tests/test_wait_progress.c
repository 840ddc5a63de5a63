/* Who runs the comm loop's turns while the application thread waits in tide_taskwait
 * (TIDE_WAIT_PROGRESS, docs/internals.md "Who runs the comm loop's turns"). Run on 2 ranks under
 * TIDE_LB=random TIDE_RANDOM_FRACTION=1, so that every task not pinned moves, and TIDE_THREADS=1
 * (part 2 needs the application thread to be rank 0's only worker; part 1 runs with 2 too).
 *
 *   1. Fine phases: PHASES phases of TASKS tasks a rank with an INOUT counter each; every task
 *      moves, runs once and comes back (each counter checked after each phase). Each phase must
 *      be driven by the application thread as the mode says (`app`: every one; `auto`: those
 *      after a phase shorter than 1 ms, which on a loaded machine may be few; `comm`: none), and
 *      where it drove at least 10, it must have run turns that did something (else it never
 *      really drove: the test of the default would pass without it); under `comm` none.
 *   2. The hand-back while the application thread computes: rank 0 submits one pinned task,
 *      rank 1 one that moves to rank 0. Rank 0's only worker, the application thread, runs the
 *      pinned task, which waits until the moved one has arrived (in the queue of received
 *      tasks, or run already). Where it had not arrived when the pinned task started, only the
 *      comm thread can receive it meanwhile: without the hand-back the pinned task would wait
 *      out its 20 s bound and the test fails. ROUNDS phases; at least one must have exercised
 *      it (the moved task is sent as rank 0 starts its own, so most do).
 *
 *   mpiexec -n 2 test_wait_progress auto|app|comm   (exit 0: every check passed) */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PHASES = 300, TASKS = 4, ROUNDS = 100 };

static void bump(void **args)
{
    ++*(long *)args[0];
}

static atomic_int moved_ran;   /* rank 0: rank 1's task ran here, this phase */
static atomic_int exercised;   /* rank 0: phases whose pinned task started before it arrived */
static atomic_int wait_failed; /* rank 0: ... and it did not arrive within the bound */

static void moved(void **args)
{
    ++*(long *)args[0];
    atomic_store(&moved_ran, 1);
}

static bool arrived(void)
{
    return atomic_load(&moved_ran) || atomic_load(&tide_rt_global->remote.count) > 0;
}

static void pinned(void **args)
{
    ++*(long *)args[0];
    if (arrived()) return;
    atomic_fetch_add(&exercised, 1);
    double until = MPI_Wtime() + 20;
    while (MPI_Wtime() < until)
        if (arrived()) return;
    atomic_fetch_add(&wait_failed, 1);
}

static int submit(tide_task_fn fn, long *value, int pin)
{
    tide_arg a = {value, sizeof *value, TIDE_INOUT};
    tide_task *t;
    int rc = tide_task_create(&t, fn, 1, &a);
    if (rc == TIDE_OK && pin) rc = tide_task_set_pinned(t);
    if (rc == TIDE_OK) rc = tide_task_submit(t);
    return rc;
}

int main(int argc, char **argv)
{
    int is_auto = argc > 1 && strcmp(argv[1], "auto") == 0;
    int is_app = argc > 1 && strcmp(argv[1], "app") == 0;
    if (argc < 2 || (!is_auto && !is_app && strcmp(argv[1], "comm") != 0)) {
        fprintf(stderr, "usage: test_wait_progress auto|app|comm\n");
        return 2;
    }
    if (tide_config_set("TIDE_WAIT_PROGRESS", argv[1]) != TIDE_OK || tide_init(&argc, &argv)) {
        fprintf(stderr, "test_wait_progress: %s\n", tide_last_error_message());
        return 1;
    }
    int rank = tide_rank(), bad = 0;
    long value[TASKS], moved_away = 0, driven = 0;
    tide_rt *rt = tide_rt_global;
    for (int p = 0; p < PHASES && !bad; p++) {
        for (int i = 0; i < TASKS; i++) {
            value[i] = 1000L * p + i;
            if (submit(bump, &value[i], 0) != TIDE_OK) bad = 1;
        }
        bool expect = is_app || (is_auto && rt->phase > 0 && rt->last_phase_s < 1e-3);
        double last = rt->last_phase_s;
        if (tide_taskwait() != TIDE_OK) bad = 1;
        if (rt->driven != expect) {
            fprintf(stderr,
                    "rank %d phase %d: driven %d under TIDE_WAIT_PROGRESS=%s after a "
                    "phase of %.1f us, expected %d\n",
                    rank, p, rt->driven, argv[1], last * 1e6, expect);
            bad = 1;
        }
        driven += rt->driven;
        for (int i = 0; i < TASKS; i++)
            if (value[i] != 1000L * p + i + 1) {
                fprintf(stderr, "rank %d phase %d: task %d gave %ld, expected %ld\n", rank, p, i,
                        value[i], 1000L * p + i + 1);
                bad = 1;
            }
        moved_away += rt->n_offloaded;
    }
    long turns = rt->drive_turns;
    if (!moved_away) {
        fprintf(stderr,
                "rank %d: no task moved (run under TIDE_LB=random TIDE_RANDOM_FRACTION=1)\n", rank);
        bad = 1;
    }
    if ((driven >= 10 && turns == 0) || (!driven && turns != 0)) {
        fprintf(stderr,
                "rank %d: the application thread ran %ld turns that did something under "
                "TIDE_WAIT_PROGRESS=%s\n",
                rank, turns, argv[1]);
        bad = 1;
    }

    int part2 = tide_num_threads() == 1;
    for (int r = 0; r < ROUNDS && !bad && part2; r++) {
        long v = r;
        atomic_store(&moved_ran, 0);
        if (submit(rank == 0 ? pinned : moved, &v, rank == 0) != TIDE_OK) bad = 1;
        if (tide_taskwait() != TIDE_OK) bad = 1;
        if (v != r + 1) {
            fprintf(stderr, "rank %d round %d: task gave %ld, expected %d\n", rank, r, v, r + 1);
            bad = 1;
        }
        int stop = bad || atomic_load(&wait_failed); /* one 20 s wait says it: stop there */
        MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (stop) break;
    }
    int ex = atomic_load(&exercised), failed = atomic_load(&wait_failed);
    if (rank == 0 && part2 && (failed || !ex)) {
        fprintf(stderr,
                "rank 0: the pinned task started before the moved one arrived in %d of %d "
                "phases; in %d of them it did not arrive within 20 s\n",
                ex, ROUNDS, failed);
        bad = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !bad)
        printf("test_wait_progress %s: %d phases, %ld of the first %d driven by rank 0's "
               "application thread, %ld turns there; the hand-back exercised in %d of %d "
               "phases%s\n",
               argv[1], PHASES + ROUNDS * part2, driven, PHASES, turns, ex, ROUNDS,
               part2 ? "" : " (not run: TIDE_THREADS > 1)");
    tide_finalize();
    return bad;
}
