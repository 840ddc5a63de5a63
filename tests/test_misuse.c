/* API misuse returns the documented error codes with a message, and never crashes. */
#include "test_util.h"
#include "tide.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int nested_rc = 1;

static void noop(void **args)
{
    (void)args;
}

static void writes_one(void **args)
{
    *(int *)args[0] = 1;
}

static void submits_from_task(void **args)
{
    (void)args;
    tide_task *t;
    if (tide_task_create(&t, noop, 0, NULL) == TIDE_OK) {
        nested_rc = tide_task_submit(t);
        if (nested_rc != TIDE_OK) tide_task_discard(t);
    }
}

#define EXPECT(call, code)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == (code), "%s returned %d (%s), expected %s", #call, rc_, tide_strerror(rc_),   \
              #code);                                                                              \
        CHECK(rc_ == TIDE_OK || tide_last_error_message()[0], "%s left no message", #call);        \
    } while (0)

int main(int argc, char **argv)
{
    tide_task *t = NULL;
    int x = 0;
    tide_arg arg = {&x, sizeof x, TIDE_INOUT};
    tide_phase_stats st;

    /* Before init. */
    EXPECT(tide_task_create(&t, noop, 1, &arg), TIDE_ERR_STATE);
    EXPECT(tide_task_submit(NULL), TIDE_ERR_INVALID);
    EXPECT(tide_taskwait(), TIDE_ERR_STATE);
    EXPECT(tide_finalize(), TIDE_ERR_STATE);
    EXPECT(tide_stats_last_phase(&st), TIDE_ERR_STATE);
    CHECK(tide_rank() == TIDE_ERR_STATE && tide_size() == TIDE_ERR_STATE &&
              tide_num_threads() == TIDE_ERR_STATE,
          "rank/size/threads before init");

    /* Configuration through the API: validated at once with the environment's parser. */
    const char *bad[][2] = {{"TIDE_THREADS", "abc"},         {"TIDE_THREADS", "-1"},
                            {"TIDE_THREADS", "4x"},          {"TIDE_THREADS", ""},
                            {"TIDE_THREADS", " 4"},          {"TIDE_LB", "bogus"},
                            {"TIDE_OFFLOAD", "fast"},        {"TIDE_RANDOM_FRACTION", "1.5"},
                            {"TIDE_RANDOM_FRACTION", "nan"}, {"TIDE_MAX_INFLIGHT", "0"},
                            {"TIDE_MAX_INFLIGHT", "12Q"},    {"TIDE_POLL_SLEEP_MAX_US", "0"},
                            {"TIDE_QUIET", "yes"},           {"TIDE_THREAD", "4"},
                            {"TIDE_COMM_CPU", "-2"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        EXPECT(tide_config_set(bad[i][0], bad[i][1]), TIDE_ERR_CONFIG);
        CHECK(strstr(tide_last_error_message(), bad[i][0]) != NULL, "message names %s: %s",
              bad[i][0], tide_last_error_message());
    }
    EXPECT(tide_config_set("TIDE_MAX_INFLIGHT", "8M"), TIDE_OK);
    EXPECT(tide_config_set("TIDE_THREADS", "2"), TIDE_OK);
    EXPECT(tide_config_set(NULL, "1"), TIDE_ERR_INVALID);

    CHECK_OK(tide_init(&argc, &argv));
    EXPECT(tide_init(&argc, &argv), TIDE_ERR_STATE);
    EXPECT(tide_config_set("TIDE_THREADS", "3"), TIDE_ERR_STATE);
    if (!getenv("TIDE_THREADS"))
        CHECK(tide_num_threads() == 2, "API value applied: %d threads", tide_num_threads());
    EXPECT(tide_stats_last_phase(&st), TIDE_ERR_STATE);

    /* Task creation. */
    EXPECT(tide_task_create(NULL, noop, 1, &arg), TIDE_ERR_INVALID);
    EXPECT(tide_task_create(&t, NULL, 1, &arg), TIDE_ERR_INVALID);
    EXPECT(tide_task_create(&t, noop, TIDE_MAX_ARGS + 1, &arg), TIDE_ERR_INVALID);
    EXPECT(tide_task_create(&t, noop, -1, &arg), TIDE_ERR_INVALID);
    EXPECT(tide_task_create(&t, noop, 2, NULL), TIDE_ERR_INVALID);
    tide_arg null_ptr = {NULL, 8, TIDE_IN};
    EXPECT(tide_task_create(&t, noop, 1, &null_ptr), TIDE_ERR_INVALID);
    tide_arg bad_mode = {&x, sizeof x, (tide_arg_mode)9};
    EXPECT(tide_task_create(&t, noop, 1, &bad_mode), TIDE_ERR_INVALID);
    EXPECT(tide_task_create(&t, noop, 1, &arg), TIDE_OK);
    EXPECT(tide_task_set_feature(t, TIDE_MAX_FEATURES, 1.0), TIDE_ERR_INVALID);
    EXPECT(tide_task_set_feature(t, -1, 1.0), TIDE_ERR_INVALID);
    EXPECT(tide_task_set_feature(NULL, 0, 1.0), TIDE_ERR_INVALID);
    EXPECT(tide_task_set_feature(t, 0, 3.0), TIDE_OK);
    EXPECT(tide_task_discard(t), TIDE_OK);

    /* A task may not create tasks; taskwait must not run inside a parallel region. */
    EXPECT(tide_task_create(&t, submits_from_task, 0, NULL), TIDE_OK);
    EXPECT(tide_task_submit(t), TIDE_OK);
    EXPECT(tide_taskwait(), TIDE_OK);
    CHECK(nested_rc == TIDE_ERR_STATE, "submit inside a task returned %d", nested_rc);
    int in_parallel_rc = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    in_parallel_rc = tide_taskwait();
    CHECK(in_parallel_rc == TIDE_ERR_STATE, "taskwait in a parallel region returned %d",
          in_parallel_rc);
    EXPECT(tide_stats_last_phase(NULL), TIDE_ERR_INVALID);
    EXPECT(tide_stats_last_phase(&st), TIDE_OK);
    CHECK(st.tasks == tide_size(), "one task per rank, counted %lld", (long long)st.tasks);

    /* Every code has its own name. */
    for (int a = 0; a >= -7; a--)
        for (int b = a - 1; b >= -7; b--)
            CHECK(strcmp(tide_strerror(a), tide_strerror(b)) != 0, "codes %d and %d", a, b);
    /* Tasks submitted after the last taskwait never run: finalize frees them and says how many
     * (they are admitted there as in a taskwait, then dropped from the queue). */
    int never = 0;
    tide_arg never_arg = {&never, sizeof never, TIDE_OUT};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(tide_task_create(&t, writes_one, 1, &never_arg));
        CHECK_OK(tide_task_submit(t));
    }
    fflush(stderr);
    FILE *err = tmpfile();
    CHECK(err, "no temporary file");
    int saved = dup(2);
    CHECK(saved >= 0 && dup2(fileno(err), 2) >= 0, "cannot redirect stderr");
    int fin_rc = tide_finalize();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(fin_rc == TIDE_OK, "tide_finalize with unrun tasks returned %d", fin_rc);
    char said[4096] = {0};
    rewind(err);
    size_t got = fread(said, 1, sizeof said - 1, err);
    fclose(err);
    said[got] = 0;
    CHECK(strstr(said, "3 submitted tasks were never run"), "finalize said: %s", said);
    CHECK(never == 0, "a task submitted after the last taskwait ran");
    EXPECT(tide_finalize(), TIDE_ERR_STATE);
    printf("misuse: every misuse reported\n");
    return 0;
}
