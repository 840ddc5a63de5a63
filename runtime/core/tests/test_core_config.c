/* The engine core's knob tables without MPI, as tide-sim uses them: an environment's values
 * reach their fields (the global strategies' knobs among them), a bad value, a misspelt name, an
 * unknown one under TIDE_STRICT=1 (given after it) and a cross-knob check each fail with their one
 * line and leave nothing half set, another program's variable is one warning, and two tables
 * built apart parse alike (no state outside them). */
#include "tide_core_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static tide_config_knobs tables, other;

/* Reads env into c (defaults first); the return code, err and warn as the reader left them. */
static int read(char *const *env, tide_config *c, char *err, char *warn)
{
    tide_config_init(&tables, c);
    err[0] = 0;
    return tide_config_read_env(&tables, c, env, err, 256, warn, 256);
}

static void values_reach_fields(void)
{
    char *env[] = {"TIDE_REFINE_THRESHOLD=1.5",
                   "TIDE_DIST_MAX_PHASES=3",
                   "TIDE_LB=proact",
                   "TIDE_MAX_INFLIGHT=2M",
                   "TIDE_PRED_WINDOW=2",
                   "PATH=/bin",
                   "TIDE_PROACT_MARGIN=0.25",
                   NULL};
    tide_config c;
    char err[256], warn[256];
    CHECK(read(env, &c, err, warn) == TIDE_KNOB_OK && !warn[0], "%s %s", err, warn);
    CHECK(c.global.refine_threshold == 1.5 && c.global.dist_max_phases == 3, "global knobs");
    CHECK(strcmp(c.lb, "proact") == 0 && c.max_inflight == 2u << 20 && c.pred.window == 2,
          "runtime and predictor knobs");
    double margin = -1;
    for (int i = 0; tide_config_lb_knob_name(i); i++)
        if (strcmp(tide_config_lb_knob_name(i), "TIDE_PROACT_MARGIN") == 0) margin = c.lb_knob[i];
    CHECK(margin == 0.25, "TIDE_PROACT_MARGIN: %g", margin);
}

static void errors(void)
{
    static const struct {
        const char *entry, *want;
    } bad[] = {
        {"TIDE_REFINE_THRESHOLD=0.5",
         "TIDE_REFINE_THRESHOLD='0.5' is invalid: expected a number in [1, 100]"},
        {"TIDE_OFFLOAD=fast", "TIDE_OFFLOAD='fast' is invalid: expected one of rr, packed"},
        {"TIDE_REFINE_TRESHOLD=2", "TIDE_REFINE_TRESHOLD is not a Tide variable: did you mean "
                                   "TIDE_REFINE_THRESHOLD? (docs/config.md lists them)"},
        {"TIDE_PRED_TRAIN=3", "TIDE_PRED_TRAIN='3' is invalid: expected an integer in [10, "
                              "1000000] (the auto model needs more samples than coefficients "
                              "with TIDE_PRED_WINDOW=4)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *env[] = {(char *)bad[i].entry, NULL};
        tide_config c;
        char err[256], warn[256];
        CHECK(read(env, &c, err, warn) == TIDE_KNOB_ERR_CONFIG && strcmp(err, bad[i].want) == 0,
              "%s:\n  got  %s\n  want %s", bad[i].entry, err, bad[i].want);
    }
    tide_config before, c;
    tide_config_init(&tables, &before);
    memcpy(&c, &before, sizeof c);
    char err[256];
    CHECK(tide_config_parse(&tables, &c, "TIDE_THREADS", "0", err, sizeof err) != TIDE_KNOB_OK &&
              memcmp(&c, &before, sizeof c) == 0,
          "a bad value changed the configuration");
}

static void unknown_names(void)
{
    char *other_program[] = {"TIDE_HOME=/opt", NULL};
    char *strict_after[] = {"TIDE_HOME=/opt", "TIDE_STRICT=1", NULL};
    tide_config c;
    char err[256], warn[256];
    CHECK(read(other_program, &c, err, warn) == TIDE_KNOB_OK &&
              strncmp(warn, "ignoring TIDE_HOME", 18) == 0 &&
              strstr(warn, ": not Tide variables") != NULL,
          "warning: '%s'", warn);
    CHECK(read(strict_after, &c, err, warn) == TIDE_KNOB_ERR_CONFIG &&
              strstr(err, "TIDE_HOME is not a Tide variable, and TIDE_STRICT=1") == err,
          "strict: '%s'", err);
}

/* The tables hold everything a parse depends on: two built apart give the same bytes. */
static void tables_apart(void)
{
    tide_config_knobs_build(&other);
    tide_config a, b;
    tide_config_init(&tables, &a);
    tide_config_init(&other, &b);
    char err[256];
    CHECK(tide_config_parse(&tables, &a, "TIDE_WS_AMOUNT", "one", err, sizeof err) == 0, "%s", err);
    CHECK(tide_config_parse(&other, &b, "TIDE_WS_AMOUNT", "one", err, sizeof err) == 0, "%s", err);
    CHECK(memcmp(&a, &b, sizeof a) == 0, "two tables, two configurations");
    size_t table;
    const tide_knob *k = tide_config_row(&tables, "TIDE_GOSSIP_FANOUT", &table);
    CHECK(k && table == TIDE_CONFIG_NTABLES - 1 && k->kind == TIDE_KNOB_INT, "row lookup");
}

/* The names tide_init's agreement check gives for a value (tide.c, check_same_shape): a parsed
 * value's name is the one that parses to it. */
static void choice_names(void)
{
    tide_config c;
    char err[256];
    for (const char *const *v = (const char *const[]){"auto", "comm", NULL}; *v; v++) {
        tide_config_init(&tables, &c);
        CHECK(tide_config_parse(&tables, &c, "TIDE_PHASE_DRIVER", *v, err, sizeof err) == 0 &&
                  strcmp(tide_phase_driver_name(c.phase_driver), *v) == 0,
              "TIDE_PHASE_DRIVER=%s", *v);
    }
    for (const char *const *v = (const char *const[]){"auto", "off", "alternate", NULL}; *v; v++) {
        tide_config_init(&tables, &c);
        CHECK(tide_config_parse(&tables, &c, "TIDE_PLAN_GATE", *v, err, sizeof err) == 0 &&
                  strcmp(tide_plan_gate_name(c.plan_gate), *v) == 0,
              "TIDE_PLAN_GATE=%s", *v);
    }
    CHECK(!tide_phase_driver_name(2) && !tide_phase_driver_name(-1) && !tide_plan_gate_name(3),
          "no name for a value that is not one");
}

int main(void)
{
    tide_config_knobs_build(&tables);
    values_reach_fields();
    errors();
    unknown_names();
    tables_apart();
    choice_names();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
