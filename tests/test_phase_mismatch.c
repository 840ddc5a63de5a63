/* A rank that calls tide_taskwait a different number of times than the others: Tide must name
 * the ranks and their phases and end the job, in every TIDE_LB mode, instead of hanging or
 * failing inside MPI. Four iterations of tasks (more on rank 0, so that balancing modes move
 * some); rank 1 misbehaves as argv[1] says:
 *   skip   no tide_taskwait in iteration 1 (it finalizes after 3 phases, the others run a 4th)
 *   extra  a second tide_taskwait in iteration 1 (it runs a 5th phase, the others finalize)
 *   early  tide_finalize after iteration 1 (after 2 phases, the others run a 3rd)
 * Exits 0 only if the job was not stopped, which the test counts as a failure. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "tide.h"

#include <stdbool.h>
#include <string.h>
#include <time.h>

static void work(void **args)
{
    double *x = args[0];
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    *x += 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    CHECK(!strcmp(mode, "skip") || !strcmp(mode, "extra") || !strcmp(mode, "early"),
          "usage: test_phase_mismatch skip|extra|early");
    CHECK_OK(tide_init(&argc, &argv));
    int rank = tide_rank();
    bool odd = rank == 1;
    double x[16] = {0};
    for (int it = 0; it < 4; it++) {
        if (odd && !strcmp(mode, "early") && it == 2) break;
        int n = rank == 0 ? 16 : 2;
        for (int i = 0; i < n; i++) {
            tide_arg arg = {&x[i], sizeof x[i], TIDE_INOUT};
            tide_task *t;
            CHECK_OK(tide_task_create(&t, work, 1, &arg));
            CHECK_OK(tide_task_submit(t));
        }
        if (!(odd && !strcmp(mode, "skip") && it == 1)) CHECK_OK(tide_taskwait());
        if (odd && !strcmp(mode, "extra") && it == 1) CHECK_OK(tide_taskwait());
    }
    CHECK_OK(tide_finalize());
    printf("rank %d: the job was not stopped\n", rank);
    return 0;
}
