/* TIDE_PREDICT (docs/config.md): whether the load model runs.
 *
 *   test_predict_knob model|none   16 phases of 4 tasks per rank, then tide_stats_last_phase:
 *                                  with `model` the rank's predicted load must exist (>= 0),
 *                                  with `none` the model must not have run (-1).
 *
 * ctest runs it under TIDE_PREDICT=auto with strategies that do and do not read predictions,
 * with statistics written, and under TIDE_PREDICT=on. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "tide.h"

#include <string.h>
#include <time.h>

static void nap(void **args)
{
    struct timespec ts = {0, 200000L * (1 + *(int *)args[0] % 3)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    CHECK(argc == 2 && (!strcmp(argv[1], "model") || !strcmp(argv[1], "none")),
          "usage: test_predict_knob model|none");
    CHECK_OK(tide_init(&argc, &argv));
    for (int p = 0; p < 16; p++) {
        for (int i = 0; i < 4; i++) {
            tide_arg a[] = {{&i, sizeof i, TIDE_VALUE}};
            tide_task *t;
            CHECK_OK(tide_task_create(&t, nap, 1, a));
            CHECK_OK(tide_task_set_feature(t, 0, i % 3));
            CHECK_OK(tide_task_submit(t));
        }
        CHECK_OK(tide_taskwait());
    }
    tide_phase_stats s;
    CHECK_OK(tide_stats_last_phase(&s));
    if (!strcmp(argv[1], "model"))
        CHECK(s.L_pred_self >= 0, "no prediction after 16 phases: %g", s.L_pred_self);
    else
        CHECK(s.L_pred_self == -1, "the model ran: predicted %g", s.L_pred_self);
    CHECK_OK(tide_finalize());
    return 0;
}
