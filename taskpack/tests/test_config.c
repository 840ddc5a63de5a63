/* TASKPACK_* parsing through Tide's knob parser: a valid table, defaults, accepted values, and one
 * clear line for each bad value. */
#include <string.h>

#include "check.h"
#include "config.h"

static const char *env[16][2];

static const char *fake_get(const char *name)
{
    for (int i = 0; i < 16 && env[i][0]; i++)
        if (strcmp(env[i][0], name) == 0) return env[i][1];
    return NULL;
}

static int parse_with(const char *name, const char *value, struct tp_config *cfg, char *err)
{
    memset(env, 0, sizeof env);
    if (name) {
        env[0][0] = name;
        env[0][1] = value;
    }
    return tp_config_parse(cfg, fake_get, err, 256);
}

static void expect_bad(const char *name, const char *value, const char *allowed)
{
    struct tp_config cfg;
    char err[256] = "", want[256];
    snprintf(want, sizeof want, "taskpack: %s='%s' is invalid: expected ", name, value);
    CHECK(parse_with(name, value, &cfg, err) == -1, "%s=%s accepted", name, value);
    CHECK(strncmp(err, want, strlen(want)) == 0, "message '%s'", err);
    CHECK(strstr(err, allowed) != NULL, "message '%s' lacks '%s'", err, allowed);
    CHECK(strchr(err, '\n') == NULL, "message is not one line");
}

int main(void)
{
    struct tp_config cfg;
    char err[256];
    CHECK(tide_knob_table_valid(&tp_config_table, err, sizeof err) == 0, "table: %s", err);
    CHECK(parse_with(NULL, NULL, &cfg, err) == 0, "defaults");
    CHECK(cfg.sync == TP_SYNC_BARRIER && cfg.warmup == 3 && cfg.tol == 0.05 && cfg.slack == 0 &&
              cfg.exact_max == 16 && cfg.apply == 1 && cfg.yield == TP_YIELD_OFF && !cfg.report[0],
          "default values");
    CHECK(parse_with("TASKPACK_SYNC", "MPI_Alltoall", &cfg, err) == 0 &&
              cfg.sync == TP_SYNC_ALLTOALL,
          "MPI_Alltoall");
    CHECK(parse_with("TASKPACK_TOL", "0", &cfg, err) == 0 && cfg.tol == 0, "tol 0");
    CHECK(parse_with("TASKPACK_SLACK", "0.25", &cfg, err) == 0 && cfg.slack == 0.25, "slack");
    CHECK(parse_with("TASKPACK_YIELD", "sleep", &cfg, err) == 0 && cfg.yield == TP_YIELD_SLEEP,
          "yield sleep");
    CHECK(parse_with("TASKPACK_WARMUP", "0", &cfg, err) == 0 && cfg.warmup == 0, "warmup 0");
    CHECK(parse_with("TASKPACK_REPORT", "r.json", &cfg, err) == 0 &&
              strcmp(cfg.report, "r.json") == 0,
          "report");
    expect_bad("TASKPACK_SYNC", "MPI_Foo", "one of none, MPI_Barrier, MPI_Allreduce, MPI_Alltoall");
    expect_bad("TASKPACK_SYNC", "mpi_barrier", "MPI_Barrier");
    expect_bad("TASKPACK_TOL", "-0.1", "a finite real number >= 0");
    expect_bad("TASKPACK_TOL", "5%", "a finite real number >= 0");
    expect_bad("TASKPACK_TOL", "nan", "a finite real number >= 0");
    expect_bad("TASKPACK_SLACK", "-1", "a finite real number >= 0");
    expect_bad("TASKPACK_WARMUP", "-2", "an integer in [0, 1000000]");
    expect_bad("TASKPACK_WARMUP", "3x", "an integer in [0, 1000000]");
    expect_bad("TASKPACK_EXACT_MAX", "21", "an integer in [0, 20]");
    expect_bad("TASKPACK_APPLY", "yes", "an integer in [0, 1]");
    expect_bad("TASKPACK_YIELD", "always", "one of off, yield, sleep");
    expect_bad("TASKPACK_REPORT", "", "a path shorter than 4096 bytes");

    char *good[] = {"PATH=/bin", "TASKPACK_SYNC=none", "TASKPACK_REPORT=r.json", NULL};
    CHECK(tp_config_check_names(good, err, sizeof err) == 0, "known names refused: %s", err);
    char *typo[] = {"TASKPACK_SYNC=none", "TASKPACK_TOLERANCE=0.1", NULL};
    CHECK(tp_config_check_names(typo, err, sizeof err) == -1, "TASKPACK_TOLERANCE accepted");
    CHECK(strncmp(err, "taskpack: TASKPACK_TOLERANCE is not a TaskPack variable", 55) == 0,
          "message '%s'", err);
    char *prefix[] = {"TASKPACK_SYNCX=none", NULL};
    CHECK(tp_config_check_names(prefix, err, sizeof err) == -1, "TASKPACK_SYNCX accepted");
    return CHECK_DONE("test_config");
}
