/* The configuration's knob tables, as tide_init reads them: a bad value of every kind and table
 * gives the same line as before the tables existed (the lines users and scripts know), defaults
 * and values land in their fields of tide_config, and every table is well formed: no name in two
 * tables, every task strategy's knob a row. No MPI: the parser alone. */
#include "internal.h"
#include "test_util.h"
#include "tide_global_knobs.h"
#include "tide_knob.h"

#include <string.h>

static const char *global_names(void)
{
    static char names[256];
    size_t n;
    const tide_global_strategy *const *g = tide_global_strategies(&n);
    names[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) strcat(names, ", ");
        strcat(names, g[i]->name);
    }
    return names;
}

/* want is a format: %s stands for the registry's names (list), %% for a percent sign. */
static const struct {
    const char *name, *value, *want;
    const char *(*list)(void);
} bad[] = {
    {"TIDE_THREADS", "0", "TIDE_THREADS='0' is invalid: expected an integer in [1, 4096]", NULL},
    {"TIDE_THREADS", "2x", "TIDE_THREADS='2x' is invalid: expected an integer in [1, 4096]", NULL},
    {"TIDE_THREADS", "", "TIDE_THREADS='' is invalid: expected an integer in [1, 4096]", NULL},
    {"TIDE_THREADS", " 3", "TIDE_THREADS=' 3' is invalid: expected an integer in [1, 4096]", NULL},
    {"TIDE_THREADS", "4097", "TIDE_THREADS='4097' is invalid: expected an integer in [1, 4096]",
     NULL},
    {"TIDE_LB", "bogus", "TIDE_LB='bogus' is invalid: expected one of %s", tide_lb_names},
    {"TIDE_LB", "", "TIDE_LB='' is invalid: expected one of %s", tide_lb_names},
    {"TIDE_OFFLOAD", "x", "TIDE_OFFLOAD='x' is invalid: expected one of rr, packed", NULL},
    {"TIDE_PHASE_DRIVER", "inline",
     "TIDE_PHASE_DRIVER='inline' is invalid: expected one of auto, comm", NULL},
    {"TIDE_MAX_INFLIGHT", "0",
     "TIDE_MAX_INFLIGHT='0' is invalid: expected a positive byte count, optionally with suffix K, "
     "M or G (e.g. 64M)",
     NULL},
    {"TIDE_MAX_INFLIGHT", "1T",
     "TIDE_MAX_INFLIGHT='1T' is invalid: expected a positive byte count, optionally with suffix K, "
     "M or G (e.g. 64M)",
     NULL},
    {"TIDE_MAX_INFLIGHT", "-1",
     "TIDE_MAX_INFLIGHT='-1' is invalid: expected a positive byte count, optionally with suffix K, "
     "M or G (e.g. 64M)",
     NULL},
    {"TIDE_MAX_INFLIGHT", "",
     "TIDE_MAX_INFLIGHT='' is invalid: expected a positive byte count, optionally with suffix K, M "
     "or G (e.g. 64M)",
     NULL},
    {"TIDE_MAX_INFLIGHT", "99999999999G",
     "TIDE_MAX_INFLIGHT='99999999999G' is invalid: expected a positive byte count, optionally with "
     "suffix K, M or G (e.g. 64M)",
     NULL},
    {"TIDE_PACK_MAX", "1T",
     "TIDE_PACK_MAX='1T' is invalid: expected a positive byte count, optionally with suffix K, M "
     "or G (e.g. 64M)",
     NULL},
    {"TIDE_POLL_SPIN", "-1",
     "TIDE_POLL_SPIN='-1' is invalid: expected an integer in [0, 100000000]", NULL},
    {"TIDE_POLL_SLEEP_MAX_US", "0",
     "TIDE_POLL_SLEEP_MAX_US='0' is invalid: expected an integer in [1, 1000000]", NULL},
    {"TIDE_COMM_CPU", "-2",
     "TIDE_COMM_CPU='-2' is invalid: expected -1 (not pinned), 'last', or a CPU number", NULL},
    {"TIDE_COMM_CPU", "abc",
     "TIDE_COMM_CPU='abc' is invalid: expected -1 (not pinned), 'last', or a CPU number", NULL},
    {"TIDE_COMM_CPU", "99999",
     "TIDE_COMM_CPU='99999' is invalid: expected -1 (not pinned), 'last', or a CPU number", NULL},
    {"TIDE_COMM_CPU", "",
     "TIDE_COMM_CPU='' is invalid: expected -1 (not pinned), 'last', or a CPU number", NULL},
    {"TIDE_STATS", "",
     "TIDE_STATS='' is invalid: expected a file path shorter than 1024 bytes (unset TIDE_STATS to "
     "write none)",
     NULL},
    {"TIDE_QUIET", "2", "TIDE_QUIET='2' is invalid: expected one of 0, 1", NULL},
    {"TIDE_QUIET", "", "TIDE_QUIET='' is invalid: expected one of 0, 1", NULL},
    {"TIDE_VERBOSE", "3", "TIDE_VERBOSE='3' is invalid: expected an integer in [0, 2]", NULL},
    {"TIDE_SEED", "-1", "TIDE_SEED='-1' is invalid: expected an integer in [0, 2147483647]", NULL},
    {"TIDE_SEED", "2147483648",
     "TIDE_SEED='2147483648' is invalid: expected an integer in [0, 2147483647]", NULL},
    {"TIDE_CHECK_EXE", "yes", "TIDE_CHECK_EXE='yes' is invalid: expected one of 0, 1", NULL},
    {"TIDE_ROUND_US", "9", "TIDE_ROUND_US='9' is invalid: expected an integer in [10, 1000000]",
     NULL},
    {"TIDE_PRED_MODEL", "neural", "TIDE_PRED_MODEL='neural' is invalid: expected one of %s",
     tide_model_ops_names},
    {"TIDE_PRED_MODEL", "", "TIDE_PRED_MODEL='' is invalid: expected one of %s",
     tide_model_ops_names},
    {"TIDE_PRED_WINDOW", "0", "TIDE_PRED_WINDOW='0' is invalid: expected an integer in [1, 64]",
     NULL},
    {"TIDE_PRED_WINDOW", "65", "TIDE_PRED_WINDOW='65' is invalid: expected an integer in [1, 64]",
     NULL},
    {"TIDE_PRED_TRAIN", "1", "TIDE_PRED_TRAIN='1' is invalid: expected an integer in [2, 1000000]",
     NULL},
    {"TIDE_PRED_RETRAIN_ERR", "0",
     "TIDE_PRED_RETRAIN_ERR='0' is invalid: expected a fraction in (0, 100] (0.10 = 10%% median "
     "absolute percentage error)",
     NULL},
    {"TIDE_PRED_RETRAIN_ERR", "nan",
     "TIDE_PRED_RETRAIN_ERR='nan' is invalid: expected a fraction in (0, 100] (0.10 = 10%% median "
     "absolute percentage error)",
     NULL},
    {"TIDE_PRED_RETRAIN_ERR", "101",
     "TIDE_PRED_RETRAIN_ERR='101' is invalid: expected a fraction in (0, 100] (0.10 = 10%% median "
     "absolute percentage error)",
     NULL},
    {"TIDE_PRED_RETRAIN_ERR", "",
     "TIDE_PRED_RETRAIN_ERR='' is invalid: expected a fraction in (0, 100] (0.10 = 10%% median "
     "absolute percentage error)",
     NULL},
    {"TIDE_PRED_GUARD", "1",
     "TIDE_PRED_GUARD='1' is invalid: expected 0 (off) or a factor in (1, 1000]", NULL},
    {"TIDE_PRED_GUARD", "-1",
     "TIDE_PRED_GUARD='-1' is invalid: expected 0 (off) or a factor in (1, 1000]", NULL},
    {"TIDE_PRED_SPIKE", "1001",
     "TIDE_PRED_SPIKE='1001' is invalid: expected 0 (off) or a factor in (1, 1000]", NULL},
    {"TIDE_PRED_SPIKE", "x",
     "TIDE_PRED_SPIKE='x' is invalid: expected 0 (off) or a factor in (1, 1000]", NULL},
    {"TIDE_PRED_SELECT", "x", "TIDE_PRED_SELECT='x' is invalid: expected one of auto, model", NULL},
    {"TIDE_PRED_TASK_DEGREE", "5",
     "TIDE_PRED_TASK_DEGREE='5' is invalid: expected an integer in [1, 4]", NULL},
    {"TIDE_PRED_SOLVER", "qr",
     "TIDE_PRED_SOLVER='qr' is invalid: expected one of ols, ridge, robust", NULL},
    {"TIDE_PRED_BOGUS", "1", "TIDE_PRED_BOGUS is not a predictor parameter", NULL},
    {"TIDE_TOOL", "",
     "TIDE_TOOL='' is invalid: expected the path of a tool library (shorter than 1024 bytes)",
     NULL},
    {"TIDE_GLOBAL_LB", "bogus", "TIDE_GLOBAL_LB='bogus' is invalid: expected one of %s",
     global_names},
    {"TIDE_LB_PERIOD", "0", "TIDE_LB_PERIOD='0' is invalid: expected an integer in [1, 1000000000]",
     NULL},
    {"TIDE_REFINE_THRESHOLD", "0.5",
     "TIDE_REFINE_THRESHOLD='0.5' is invalid: expected a number in [1, 100]", NULL},
    {"TIDE_REFINE_THRESHOLD", "inf",
     "TIDE_REFINE_THRESHOLD='inf' is invalid: expected a number in [1, 100]", NULL},
    {"TIDE_SMARTLB_THRESHOLD", "1",
     "TIDE_SMARTLB_THRESHOLD='1' is invalid: expected a number in [0, 0.99]", NULL},
    {"TIDE_COMM_ALPHA", "2", "TIDE_COMM_ALPHA='2' is invalid: expected a number in [0, 1]", NULL},
    {"TIDE_PACKDROP_TOLERANCE", "-0.1",
     "TIDE_PACKDROP_TOLERANCE='-0.1' is invalid: expected a number in [0, 10]", NULL},
    {"TIDE_GOSSIP_FANOUT", "0",
     "TIDE_GOSSIP_FANOUT='0' is invalid: expected an integer in [1, 1024]", NULL},
    {"TIDE_DIST_TARGET_RATIO", "0",
     "TIDE_DIST_TARGET_RATIO='0' is invalid: expected a number in [1, 100]", NULL},
    {"TIDE_DIST_MAX_TRIALS", "0",
     "TIDE_DIST_MAX_TRIALS='0' is invalid: expected an integer in [1, 1000000]", NULL},
    {"TIDE_DIST_MAX_PHASES", "0",
     "TIDE_DIST_MAX_PHASES='0' is invalid: expected an integer in [1, 1000000]", NULL},
    {"TIDE_OBJECTS_STATS", "",
     "TIDE_OBJECTS_STATS='' is invalid: expected a file path shorter than 1024 bytes (unset "
     "TIDE_OBJECTS_STATS to write none)",
     NULL},
    {"TIDE_WS_THRESHOLD", "-1",
     "TIDE_WS_THRESHOLD='-1' is invalid: expected an integer in [0, 1000000]", NULL},
    {"TIDE_WS_THRESHOLD", "1.5",
     "TIDE_WS_THRESHOLD='1.5' is invalid: expected an integer in [0, 1000000]", NULL},
    {"TIDE_WS_AMOUNT", "all", "TIDE_WS_AMOUNT='all' is invalid: expected one of one, half", NULL},
    {"TIDE_WS_AMOUNT", "1", "TIDE_WS_AMOUNT='1' is invalid: expected one of one, half", NULL},
    {"TIDE_WS_BACKOFF_MAX_US", "10",
     "TIDE_WS_BACKOFF_MAX_US='10' is invalid: expected an integer in [50, 10000000]", NULL},
    {"TIDE_REACT_THRESHOLD", "2",
     "TIDE_REACT_THRESHOLD='2' is invalid: expected a number in [0, 1]", NULL},
    {"TIDE_REACT_MAX_TASKS", "0.5",
     "TIDE_REACT_MAX_TASKS='0.5' is invalid: expected an integer in [1, 1000000]", NULL},
    {"TIDE_RANDOM_FRACTION", "-0.1",
     "TIDE_RANDOM_FRACTION='-0.1' is invalid: expected a number in [0, 1]", NULL},
    {"TIDE_PROACT_MARGIN", "101",
     "TIDE_PROACT_MARGIN='101' is invalid: expected a number in [0, 100]", NULL},
    {"TIDE_SOMETHING", "1",
     "TIDE_SOMETHING is not a Tide variable (see docs/config.md; a misspelt knob would otherwise "
     "be ignored silently)",
     NULL},
    {"TIDE_REACT_THRESHLD", "1",
     "TIDE_REACT_THRESHLD is not a Tide variable (see docs/config.md; a misspelt knob would "
     "otherwise be ignored silently); did you mean TIDE_REACT_THRESHOLD?",
     NULL},
    {"TIDE_PRED_WINDOWS", "1",
     "TIDE_PRED_WINDOWS is not a predictor parameter; did you mean TIDE_PRED_WINDOW?", NULL},
    {"TIDE_", "1",
     "TIDE_ is not a Tide variable (see docs/config.md; a misspelt knob would otherwise be ignored "
     "silently)",
     NULL},
};

static void bad_values(void)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tide_config before, c;
        tide_config_defaults(&before);
        memcpy(&c, &before, sizeof c);
        char err[256] = "", want[256];
        snprintf(want, sizeof want, bad[i].want, bad[i].list ? bad[i].list() : "");
        int rc = tide_config_apply(&c, bad[i].name, bad[i].value, err, sizeof err);
        if (rc != TIDE_ERR_CONFIG || strcmp(err, want) != 0 || memcmp(&c, &before, sizeof c)) {
            fprintf(stderr, "%s='%s': rc %d\n  got  %s\n  want %s\n", bad[i].name, bad[i].value, rc,
                    err, want);
            failures++;
        }
    }
    CHECK(failures == 0, "%d bad values misreported", failures);
}

/* The defaults tide_config_defaults gave before its rows existed. */
static void defaults(void)
{
    tide_config c;
    tide_config_defaults(&c);
    CHECK(c.threads == 0 && strcmp(c.lb, "none") == 0 && c.offload == TIDE_OFFLOAD_PACKED,
          "threads, lb, offload");
    CHECK(c.max_inflight == 16ull << 20 && c.pack_max == 1ull << 20, "byte bounds");
    CHECK(c.poll_spin == 200 && c.poll_sleep_max_us == 250 && c.comm_cpu == -1, "polling");
    CHECK(!c.stats_path[0] && !c.tool_path[0] && !c.objects_stats_path[0], "no files");
    CHECK(c.quiet == 0 && c.verbose == 0 && c.seed == 1 && c.check_exe == 1 && c.round_us == 500,
          "quiet, verbose, seed, check_exe, round_us");
    CHECK(strcmp(c.global_lb, "none") == 0 && c.lb_period == 10, "objects layer");
    tide_global_params g;
    memset(&g, 0, sizeof g); /* its padding too: tide_config_defaults zeroes the config first */
    tide_global_params_default(&g);
    CHECK(memcmp(&g, &c.global, sizeof g) == 0, "global strategies' parameters");
    tide_model_params p;
    tide_model_params_defaults(&p);
    CHECK(strcmp(p.kind, "auto") == 0 && p.window == 4 && p.train == 20 && p.retrain_err == 0.10 &&
              p.solver == TIDE_SOLVER_OLS && p.task_degree == 3 && p.select == TIDE_SELECT_AUTO &&
              p.guard == 2.0 && p.spike == 2.0,
          "predictor");
    CHECK(memcmp(&p, &c.pred, sizeof p) == 0, "the runtime's predictor defaults");
    size_t n;
    const tide_lb_knob *const *k = tide_lb_all_knobs(&n);
    for (size_t i = 0; i < n; i++)
        CHECK(c.lb_knob[i] == k[i]->def, "%s: %g, not %g", k[i]->name, c.lb_knob[i], k[i]->def);
}

static void set(tide_config *c, const char *name, const char *value)
{
    char err[256];
    CHECK(tide_config_apply(c, name, value, err, sizeof err) == TIDE_OK, "%s", err);
}

static double lb_knob(const tide_config *c, const char *name)
{
    for (int i = 0; tide_config_lb_knob_name(i); i++)
        if (strcmp(tide_config_lb_knob_name(i), name) == 0) return c->lb_knob[i];
    CHECK(0, "no strategy knob %s", name);
    return 0;
}

/* A value of every kind reaches its field. */
static void values(void)
{
    tide_config c;
    tide_config_defaults(&c);
    set(&c, "TIDE_THREADS", "7"), set(&c, "TIDE_LB", "ws"), set(&c, "TIDE_OFFLOAD", "rr");
    set(&c, "TIDE_MAX_INFLIGHT", "3K"), set(&c, "TIDE_PACK_MAX", "2G");
    set(&c, "TIDE_COMM_CPU", "last"), set(&c, "TIDE_STATS", "/tmp/s.json");
    set(&c, "TIDE_SEED", "2147483647"), set(&c, "TIDE_CHECK_EXE", "0");
    set(&c, "TIDE_PRED_MODEL", "task"), set(&c, "TIDE_PRED_RETRAIN_ERR", "0.3");
    set(&c, "TIDE_PRED_SOLVER", "robust"), set(&c, "TIDE_GLOBAL_LB", "packdrop");
    set(&c, "TIDE_GOSSIP_FANOUT", "5"), set(&c, "TIDE_COMM_ALPHA", "1e-6");
    set(&c, "TIDE_WS_AMOUNT", "one"), set(&c, "TIDE_WS_BACKOFF_MAX_US", "60");
    set(&c, "TIDE_RANDOM_FRACTION", "0.125");
    CHECK(c.threads == 7 && strcmp(c.lb, "ws") == 0 && c.offload == TIDE_OFFLOAD_RR, "runtime");
    CHECK(c.max_inflight == 3072 && c.pack_max == 2ull << 30, "bytes");
    CHECK(c.comm_cpu == TIDE_COMM_CPU_LAST && strcmp(c.stats_path, "/tmp/s.json") == 0, "strings");
    CHECK(c.seed == 2147483647u && c.check_exe == 0, "seed, check_exe");
    CHECK(strcmp(c.pred.kind, "task") == 0 && c.pred.retrain_err == 0.3 &&
              c.pred.solver == TIDE_SOLVER_ROBUST,
          "predictor");
    CHECK(strcmp(c.global_lb, "packdrop") == 0 && c.global.gossip_fanout == 5 &&
              c.global.comm_alpha == 1e-6,
          "objects layer");
    CHECK(lb_knob(&c, "TIDE_WS_AMOUNT") == 0 && lb_knob(&c, "TIDE_WS_BACKOFF_MAX_US") == 60 &&
              lb_knob(&c, "TIDE_RANDOM_FRACTION") == 0.125,
          "strategy knobs");
    set(&c, "TIDE_COMM_CPU", "3");
    CHECK(c.comm_cpu == 3, "a CPU number");
}

/* Every table is well formed, no name is in two, and every task strategy's knob is a row. */
static void tables(void)
{
    size_t n, nk;
    const tide_knob_table *const *t = tide_config_tables(&n);
    char err[256];
    for (size_t i = 0; i < n; i++) {
        CHECK(tide_knob_table_valid(t[i], err, sizeof err) == TIDE_KNOB_OK, "%s", err);
        for (size_t r = 0; r < t[i]->n; r++)
            for (size_t j = i + 1; j < n; j++)
                CHECK(!tide_knob_find(t[j], t[i]->rows[r].name), "%s twice", t[i]->rows[r].name);
    }
    const tide_lb_knob *const *k = tide_lb_all_knobs(&nk);
    CHECK(nk <= TIDE_LB_KNOBS_MAX, "%zu strategy knobs, room for %d", nk, TIDE_LB_KNOBS_MAX);
    for (size_t i = 0; i < nk; i++) {
        bool found = false;
        for (size_t j = 0; j < n; j++)
            found = found || tide_knob_find(t[j], k[i]->name);
        CHECK(found, "%s is not a row", k[i]->name);
    }
}

int main(void)
{
    bad_values();
    defaults();
    values();
    tables();
    printf("config knobs: all checks passed\n");
    return 0;
}
