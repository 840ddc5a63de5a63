/* tide-sim's configuration: Tide's TIDE_* knobs with libtide's names, ranges and messages
 * (runtime/engine/config.c), then the simulator's own options. Both are rows of tables; one loop
 * parses each. A bad value stops the run with one line naming it (exit 2). */
#include "sim.h"
#include "tide_global.h"
#include "tide_knob.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>

extern char **environ;

#ifndef TIDE_SIM_PLATFORM_DIR
#define TIDE_SIM_PLATFORM_DIR "sim/platforms"
#endif

const char sim_usage[] =
    "usage: tide-sim [options]   (Tide's knobs are TIDE_* environment variables, docs/config.md)\n"
    "  --platform NAME|FILE  SimGrid platform: local, coolmuc2, omnipath, edr, hdr, supermuc-ng,\n"
    "                        ethernet, or an XML file (default local; sim/platforms/, "
    "docs/sim.md)\n"
    "  --ranks P             simulated ranks (default 8)\n"
    "  --threads W           workers per rank (default TIDE_THREADS, else 1)\n"
    "  --ranks-per-host K    ranks on one host (default: the platform's tide_ranks_per_host)\n"
    "  --iters N             phases (default 10)\n"
    "  --imb 0|1|2|3         mxm imbalance preset (default 0)\n"
    "  --tasks-per-rank B    average tasks per rank and phase of the preset (default 16)\n"
    "  --tasks a,b,...       explicit tasks per rank, instead of --imb\n"
    "  --task-ms MS          time of one task (default 10, about a 300x300 dgemm here)\n"
    "  --task-bytes B        bytes a task carries to another rank (default 1440000: A and B of\n"
    "                        mxm --size 300)\n"
    "  --result-bytes B      bytes of its result (default 720000: C)\n"
    "  --slow R:F[,...]      tasks executing on rank R take F times longer\n"
    "  --slow-from N         the slowdown starts at phase N (default 0)\n"
    "  --jitter P:F  --disturb P:F  --noise-seed S\n"
    "                        mxm's seeded noise: the same tasks slowed as in mxm (docs/mxm.md)\n"
    "  --replay FILE         a real run's TIDE_STATS document: every rank's load per phase,\n"
    "                        spread evenly over its tasks (instead of the mxm workload)\n"
    "  --pred model|exact    loads from the predictor library (default), or the true loads\n"
    "  --net exact|fast|fair messages as SimGrid flows (default), or an endpoint model that\n"
    "                        scales to thousands of ranks: links first come first served\n"
    "                        (fast) or shared fairly (fair) (docs/sim.md, \"Scale\")\n"
    "  --idle-turns skip|every  skip (default): the comm actor skips the idle turns at which\n"
    "                        the strategy's quiet_until says progress does nothing; every:\n"
    "                        it runs every one, as libtide does (the same run, slower)\n"
    "  --lb NAME  --offload rr|packed  --seed S  --round-us US  --stats FILE\n"
    "                        the same as TIDE_LB, TIDE_OFFLOAD, TIDE_SEED, TIDE_ROUND_US, "
    "TIDE_STATS\n"
    "  --samoa DEPTH         samoa_proxy's oscillating lake on a grid of 2^(DEPTH+1) cells: rank\n"
    "                        r's sections of the Sierpinski curve as tasks, timed by their dry,\n"
    "                        wet and coast cells (--tasks-per-rank sections per rank)\n"
    "  --samoa-steps K       proxy time steps per phase (1): how fast the lake moves\n"
    "  --samoa-cost D,W,C    us per dry, wet, coast cell (samoa_proxy --calibrate's figures)\n"
    "  --global NAME         one rescheduling round of the tasks as persistent objects under\n"
    "                        TIDE_GLOBAL_LB=NAME (greedy, refine, packdrop, ...), timed\n"
    "  --global-migrate 0|1  1: the objects move after the decision, timed too (default);\n"
    "                        0: the decision only\n"
    "  --cbench FILE         cbench's persistent objects (a parameter file, docs/cbench.md): r\n"
    "                        iterations on the objects layer, TIDE_GLOBAL_LB every lbfreq\n"
    "  --cbench-set N=V      override parameter N of the file, as cbench's --N V (repeatable)\n"
    "  --cbench-mode M       loop (default): the iterations; round: one rescheduling round of\n"
    "                        iteration 1's loads, as --global for the other workloads\n"
    "  --moves FILE          write \"phase from to count\" of every offload (tests)\n"
    "  --quiet               no summary line\n"
    "SimGrid's own options (--cfg=..., --log=...) pass through. Exit codes: 0 ok, 2 bad options,\n"
    "3 a task ran or completed other than exactly once.\n";

static const char *const offload_names[] = {"rr", "packed", nullptr};
static const char *const pred_names[] = {"model", "exact", nullptr};
static const char *const net_names[] = {"exact", "fast", "fair", nullptr};
static const char *const cbench_modes[] = {"loop", "round", nullptr};
static const char *const idle_names[] = {"skip", "every", nullptr};

const char *sim_net_name(int k)
{
    return net_names[k];
}

const char *sim_offload_name(int k)
{
    return offload_names[k];
}

static int bad(char *err, size_t len, const char *name, const char *value, const char *allowed)
{
    snprintf(err, len, "%s='%s' is invalid: expected %s", name, value, allowed);
    return -1;
}

static int parse_long(const char *name, const char *v, long min, long max, long *out, char *err,
                      size_t len)
{
    char allowed[96];
    snprintf(allowed, sizeof allowed, "an integer in [%ld, %ld]", min, max);
    if (!*v || isspace((unsigned char)*v)) return bad(err, len, name, v, allowed);
    errno = 0;
    char *end;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < min || x > max) return bad(err, len, name, v, allowed);
    *out = x;
    return 0;
}

static int parse_double(const char *name, const char *v, double min, double max, double *out,
                        char *err, size_t len)
{
    char allowed[96];
    snprintf(allowed, sizeof allowed, "a number in [%g, %g]", min, max);
    if (!*v || isspace((unsigned char)*v)) return bad(err, len, name, v, allowed);
    errno = 0;
    char *end;
    double x = strtod(v, &end);
    if (errno || *end || !std::isfinite(x) || x < min || x > max)
        return bad(err, len, name, v, allowed);
    *out = x;
    return 0;
}

static int parse_bytes(const char *name, const char *v, uint64_t *out, char *err, size_t len)
{
    if (tide_knob_read_bytes(v, out)) return 0;
    tide_knob row{};
    row.kind = TIDE_KNOB_BYTES;
    char allowed[96];
    tide_knob_allowed(&row, allowed, sizeof allowed);
    return bad(err, len, name, v, allowed);
}

static int parse_choice(const char *name, const char *v, const char *const *choices, int *out,
                        char *err, size_t len)
{
    char allowed[160] = "one of";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(v, choices[i]) == 0) {
            *out = i;
            return 0;
        }
        strncat(allowed, i ? ", " : " ", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, choices[i], sizeof allowed - strlen(allowed) - 1);
    }
    return bad(err, len, name, v, allowed);
}

static int parse_text(const char *name, const char *v, char *out, size_t cap, char *err, size_t len)
{
    if (!*v || strlen(v) >= cap) return bad(err, len, name, v, "a non-empty path (< 1024 bytes)");
    snprintf(out, cap, "%s", v);
    return 0;
}

/* ---- the knob table ---------------------------------------------------------------------- */

typedef enum {
    K_INT,
    K_DOUBLE,
    K_BYTES,
    K_CHOICE,
    K_TEXT,
    K_LB,
    K_IGNORED,
    K_TASKS, /* --tasks a,b,... */
    K_SLOW,  /* --slow R:F,... */
    K_NOISE, /* --jitter, --disturb P:F */
    K_COSTS, /* --samoa-cost D,W,C */
    K_CBSET, /* --cbench-set NAME=VALUE */
    K_ALIAS, /* an option for a TIDE_* knob (choices[0] names it) */
    K_GLOBAL /* TIDE_GLOBAL_LB: a strategy of strategies/global */
} knob_kind;

typedef struct knob_row {
    const char *name;
    knob_kind kind;
    size_t field; /* offsetof(sim_config, ...) */
    double min, max;
    const char *const *choices;
} knob_row;

#define AT(f) offsetof(sim_config, f)

/* libtide's knobs that mean something here; the strategies' own knobs and TIDE_PRED_* are
 * looked up in their libraries. The ignored ones configure libtide's threads and files. */
static const knob_row knobs[] = {
    {"TIDE_LB", K_LB, AT(lb), 0, 0, nullptr},
    {"TIDE_OFFLOAD", K_CHOICE, AT(offload), 0, 0, offload_names},
    {"TIDE_THREADS", K_INT, AT(threads), 1, 4096, nullptr},
    {"TIDE_MAX_INFLIGHT", K_BYTES, AT(max_inflight), 0, 0, nullptr},
    {"TIDE_PACK_MAX", K_BYTES, AT(pack_max), 0, 0, nullptr},
    {"TIDE_ROUND_US", K_INT, AT(round_us), 10, 1000000, nullptr},
    {"TIDE_POLL_SLEEP_MAX_US", K_INT, AT(poll_sleep_max_us), 1, 1000000, nullptr},
    {"TIDE_SEED", K_INT, AT(seed), 0, 2147483647.0, nullptr},
    {"TIDE_STATS", K_TEXT, AT(stats), 0, 0, nullptr},
    {"TIDE_QUIET", K_INT, AT(quiet), 0, 1, nullptr},
    {"TIDE_GLOBAL_LB", K_GLOBAL, AT(global_lb), 0, 0, nullptr},
    {"TIDE_PACKDROP_TOLERANCE", K_DOUBLE, AT(packdrop_tolerance), 0, 10, nullptr},
    {"TIDE_GOSSIP_FANOUT", K_INT, AT(gossip_fanout), 1, 1024, nullptr},
    {"TIDE_LB_PERIOD", K_INT, AT(lb_period), 1, 1000000000, nullptr},
    {"TIDE_POLL_SPIN", K_INT, AT(poll_spin), 0, 100000000, nullptr},
    {"TIDE_THROTTLE_RANK", K_INT, AT(throttle_rank), -1, 1048576, nullptr},
    {"TIDE_THROTTLE_BW", K_BYTES, AT(throttle_bw), 0, 0, nullptr},
    {"TIDE_COMM_CPU", K_IGNORED, 0, 0, 0, nullptr},
    {"TIDE_PHASE_DRIVER", K_IGNORED, 0, 0, 0, nullptr},
    {"TIDE_VERBOSE", K_IGNORED, 0, 0, 0, nullptr},
    {"TIDE_CHECK_EXE", K_IGNORED, 0, 0, 0, nullptr},
};

static int set_row(sim_config *c, const knob_row *k, const char *v, char *err, size_t len)
{
    char *base = (char *)c + k->field;
    long l;
    switch (k->kind) {
    case K_INT:
        if (parse_long(k->name, v, (long)k->min, (long)k->max, &l, err, len)) return -1;
        if (k->field == AT(seed))
            c->seed = (uint64_t)l;
        else if (k->field == AT(cbench_test_twice))
            c->cbench_test_twice = l;
        else if (k->field == AT(noise.seed))
            c->noise.seed = (uint64_t)l;
        else
            *(int *)base = (int)l;
        return 0;
    case K_DOUBLE:
        return parse_double(k->name, v, k->min, k->max, (double *)base, err, len);
    case K_BYTES:
        return parse_bytes(k->name, v, (uint64_t *)base, err, len);
    case K_CHOICE:
        return parse_choice(k->name, v, k->choices, (int *)base, err, len);
    case K_TEXT:
        return parse_text(k->name, v, base, 1024, err, len);
    case K_GLOBAL: {
        if (tide_global_find(v)) return snprintf(c->global_lb, sizeof c->global_lb, "%s", v), 0;
        char allowed[192] = "one of ";
        tide_global_names(allowed + strlen(allowed), sizeof allowed - strlen(allowed));
        return bad(err, len, k->name, v, allowed);
    }
    case K_NOISE:
        if (noise_event_parse(v, (noise_event *)base) == 0) return 0;
        return bad(err, len, k->name, v, "P:F with P in [0, 1] and F in [1, 1000]");
    case K_TASKS:
    case K_SLOW:
    case K_COSTS:
    case K_CBSET:
    case K_ALIAS:
        return 0; /* options only: set_option handles them */
    case K_LB:
        if (!tide_lb_ops_find(v)) {
            char allowed[192];
            snprintf(allowed, sizeof allowed, "one of %s", tide_lb_names());
            return bad(err, len, k->name, v, allowed);
        }
        snprintf(c->lb, sizeof c->lb, "%s", v);
        return 0;
    case K_IGNORED:
        return 0;
    }
    return 0;
}

static int set_strategy_knob(sim_config *c, size_t i, const tide_lb_knob *k, const char *v,
                             char *err, size_t len)
{
    if (k->choices) {
        int x;
        if (parse_choice(k->name, v, k->choices, &x, err, len)) return -1;
        c->lb_knob[i] = x;
        return 0;
    }
    if (!k->integer) return parse_double(k->name, v, k->min, k->max, &c->lb_knob[i], err, len);
    long l;
    if (parse_long(k->name, v, (long)k->min, (long)k->max, &l, err, len)) return -1;
    c->lb_knob[i] = (double)l;
    return 0;
}

static int set_knob(sim_config *c, const char *name, const char *v, char *err, size_t len)
{
    if (strcmp(name, "TIDE_THREADS") == 0) c->threads_set = 1;
    for (const knob_row &k : knobs)
        if (strcmp(k.name, name) == 0) return set_row(c, &k, v, err, len);
    if (strncmp(name, "TIDE_PRED_", 10) == 0)
        return tide_model_params_set(&c->pred, name, v, err, len) == TIDE_PRED_OK ? 0 : -1;
    size_t n;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&n);
    for (size_t i = 0; i < n && i < SIM_LB_KNOBS_MAX; i++)
        if (strcmp(all[i]->name, name) == 0) return set_strategy_knob(c, i, all[i], v, err, len);
    return 1; /* unknown: load_env decides (unknown_name) */
}

/* An unknown TIDE_* name, by libtide's rule (docs/config.md, tide_knob_guess_name): within a
 * typo's reach of a knob tide-sim reads, or under TIDE_STRICT=1, an error; otherwise another
 * program's variable, one warning. 0 when it is only a warning (appended to warn). */
static int unknown_name(const char *name, bool strict, std::string &warn, char *err, size_t len)
{
    static std::vector<tide_knob> rows;
    if (rows.empty()) {
        auto row = [](const char *n) {
            tide_knob k;
            memset(&k, 0, sizeof k);
            k.name = n;
            return k;
        };
        for (const knob_row &k : knobs)
            rows.push_back(row(k.name));
        size_t n;
        const tide_lb_knob *const *all = tide_lb_all_knobs(&n);
        for (size_t i = 0; i < n; i++)
            rows.push_back(row(all[i]->name));
        rows.push_back(row("TIDE_STRICT"));
    }
    tide_knob_table table = {};
    table.rows = rows.data();
    table.n = rows.size();
    tide_knob_place place = {&table, nullptr};
    tide_knob_guess g = tide_knob_guess_name(&place, 1, name);
    if (g.close) {
        snprintf(err, len, "%s is not a Tide variable tide-sim knows: did you mean %s?", name,
                 g.nearest);
        return -1;
    }
    if (strict) {
        snprintf(err, len,
                 "%s is not a Tide variable tide-sim knows, and TIDE_STRICT=1 makes unknown TIDE_* "
                 "names errors (docs/config.md, docs/sim.md)",
                 name);
        return -1;
    }
    warn += warn.empty() ? "ignoring " : ", ";
    warn += name;
    if (g.nearest) warn += std::string(" (did you mean ") + g.nearest + "?)";
    return 0;
}

static void defaults(sim_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->platform, sizeof c->platform, "local");
    c->ranks = 8;
    c->threads = 1;
    c->iters = 10;
    c->tasks_per_rank = 16;
    c->task_ms = 10;
    c->task_bytes = 1440000;
    c->result_bytes = 720000;
    c->feature = 300;
    c->noise = noise_spec_default();
    tide_global_params gp;
    tide_global_params_default(&gp);
    c->packdrop_tolerance = gp.packdrop_tolerance;
    c->gossip_fanout = gp.gossip_fanout;
    snprintf(c->lb, sizeof c->lb, "none");
    c->offload = SIM_OFFLOAD_PACKED;
    c->max_inflight = 16ull << 20; /* libtide's default (docs/config.md) */
    c->pack_max = 1ull << 20;
    c->round_us = 500;
    c->poll_sleep_max_us = 250;
    c->poll_spin = 200;
    c->throttle_rank = -1;
    c->throttle_bw = 1ull << 30;
    c->seed = 1;
    c->global_migrate = 1;
    c->samoa_steps = 1;
    c->cbench_test_twice = -1;
    /* samoa_proxy --calibrate's figures on this machine (docs/samoa_proxy.md) */
    c->samoa_cost_us[0] = 0.004030;
    c->samoa_cost_us[1] = 0.051537;
    c->samoa_cost_us[2] = 0.198587;
    size_t n;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&n);
    for (size_t i = 0; i < n && i < SIM_LB_KNOBS_MAX; i++)
        c->lb_knob[i] = all[i]->def;
    tide_model_params_defaults(&c->pred);
}

static int load_env(sim_config *c, char *err, size_t len)
{
    const char *strict_env = getenv("TIDE_STRICT");
    if (strict_env && strcmp(strict_env, "0") != 0 && strcmp(strict_env, "1") != 0) {
        snprintf(err, len, "TIDE_STRICT='%s' is invalid: expected 0 or 1", strict_env);
        return -1;
    }
    bool strict = strict_env && strcmp(strict_env, "1") == 0;
    std::string warn;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "TIDE_", 5) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        char name[64];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, *e, n);
        name[n] = 0;
        if (strcmp(name, "TIDE_STRICT") == 0) continue;
        int rc = set_knob(c, name, eq + 1, err, len);
        if (rc < 0 || (rc > 0 && unknown_name(name, strict, warn, err, len))) return -1;
    }
    if (!warn.empty())
        fprintf(stderr,
                "tide-sim: warning: %s: not Tide variables tide-sim knows (TIDE_STRICT=1 "
                "makes this an error)\n",
                warn.c_str());
    return 0;
}

/* ---- the command line -------------------------------------------------------------------- */

static int parse_list(const char *opt, const char *v, sim_config *c, char *err, size_t len)
{
    int n = 0;
    for (const char *p = v; p && *p; n++) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (n >= 4096 || errno || end == p || x < 0 || x > 1000000 || (*end && *end != ','))
            return bad(err, len, opt, v, "comma-separated task counts in [0, 1000000]");
        c->tasks_list[n] = (int)x;
        p = *end ? end + 1 : end;
    }
    if (n == 0) return bad(err, len, opt, v, "comma-separated task counts in [0, 1000000]");
    c->ntasks_list = n;
    return 0;
}

static int parse_slow(const char *opt, const char *v, sim_config *c, char *err, size_t len)
{
    const char *allowed = "RANK:FACTOR[,...] with FACTOR in [1, 1000]";
    int n = 0;
    for (const char *p = v; p && *p; n++) {
        char *end;
        long r = strtol(p, &end, 10);
        if (n >= SIM_MAX_SLOW || end == p || *end != ':' || r < 0)
            return bad(err, len, opt, v, allowed);
        double f = strtod(end + 1, &end);
        if (!(f >= 1 && f <= 1000) || (*end && *end != ',')) return bad(err, len, opt, v, allowed);
        c->slow[n] = sim_slow{(int)r, f};
        p = *end ? end + 1 : end;
    }
    if (n == 0) return bad(err, len, opt, v, allowed);
    c->nslow = n;
    return 0;
}

static const char
    *const knob_lb[] = {"TIDE_LB"},
           *const knob_offload[] = {"TIDE_OFFLOAD"}, *const knob_seed[] = {"TIDE_SEED"},
           *const knob_round[] = {"TIDE_ROUND_US"}, *const knob_stats[] = {"TIDE_STATS"},
           *const knob_threads[] = {"TIDE_THREADS"}, *const knob_global[] = {"TIDE_GLOBAL_LB"};

/* The command line's options with a value (docs/sim.md, "Configuration"). */
static const knob_row options[] = {
    {"--platform", K_TEXT, AT(platform), 0, 0, nullptr},
    {"--ranks", K_INT, AT(ranks), 1, 1 << 20, nullptr},
    {"--ranks-per-host", K_INT, AT(ranks_per_host), 1, 4096, nullptr},
    {"--iters", K_INT, AT(iters), 1, 1000000, nullptr},
    {"--imb", K_INT, AT(imb), 0, 3, nullptr},
    {"--tasks-per-rank", K_INT, AT(tasks_per_rank), 1, 1000000, nullptr},
    {"--tasks", K_TASKS, 0, 0, 0, nullptr},
    {"--task-ms", K_DOUBLE, AT(task_ms), 1e-6, 1e7, nullptr},
    {"--task-bytes", K_DOUBLE, AT(task_bytes), 0, 1e12, nullptr},
    {"--result-bytes", K_DOUBLE, AT(result_bytes), 0, 1e12, nullptr},
    {"--slow", K_SLOW, 0, 0, 0, nullptr},
    {"--slow-from", K_INT, AT(slow_from), 0, 1000000, nullptr},
    {"--jitter", K_NOISE, AT(noise.jitter), 0, 0, nullptr},
    {"--disturb", K_NOISE, AT(noise.disturb), 0, 0, nullptr},
    {"--noise-seed", K_INT, AT(noise.seed), 0, 2147483647.0, nullptr},
    {"--replay", K_TEXT, AT(replay), 0, 0, nullptr},
    {"--pred", K_CHOICE, AT(pred_mode), 0, 0, pred_names},
    {"--net", K_CHOICE, AT(net), 0, 0, net_names},
    {"--idle-turns", K_CHOICE, AT(idle_turns), 0, 0, idle_names},
    {"--moves", K_TEXT, AT(moves), 0, 0, nullptr},
    {"--lb", K_ALIAS, 0, 0, 0, knob_lb},
    {"--offload", K_ALIAS, 0, 0, 0, knob_offload},
    {"--seed", K_ALIAS, 0, 0, 0, knob_seed},
    {"--round-us", K_ALIAS, 0, 0, 0, knob_round},
    {"--stats", K_ALIAS, 0, 0, 0, knob_stats},
    {"--threads", K_ALIAS, 0, 0, 0, knob_threads},
    {"--global", K_ALIAS, 0, 0, 0, knob_global},
    {"--global-migrate", K_INT, AT(global_migrate), 0, 1, nullptr},
    {"--samoa", K_INT, AT(samoa_depth), 1, 20, nullptr},
    {"--samoa-steps", K_INT, AT(samoa_steps), 1, 1000000, nullptr},
    {"--samoa-cost", K_COSTS, 0, 0, 0, nullptr},
    {"--cbench", K_TEXT, AT(cbench), 0, 0, nullptr},
    {"--cbench-set", K_CBSET, 0, 0, 0, nullptr},
    {"--cbench-mode", K_CHOICE, AT(cbench_mode), 0, 0, cbench_modes},
    {"--cbench-test-twice", K_INT, AT(cbench_test_twice), 0, 10000000, nullptr},
};

/* --samoa-cost DRY,WET,COAST: microseconds per cell of each class. */
static int parse_costs(const char *opt, const char *v, sim_config *c, char *err, size_t len)
{
    const char *p = v;
    for (int i = 0; i < 3; i++) {
        char *end;
        double x = strtod(p, &end);
        if (end == p || !(x >= 0 && x <= 1e6) || *end != (i < 2 ? ',' : '\0'))
            return bad(err, len, opt, v, "three costs DRY,WET,COAST in [0, 1e6] us per cell");
        c->samoa_cost_us[i] = x;
        p = end + 1;
    }
    return 0;
}

static int set_option(sim_config *c, const char *o, const char *v, char *err, size_t len)
{
    for (const knob_row &k : options) {
        if (strcmp(k.name, o) != 0) continue;
        if (k.kind == K_ALIAS) return set_knob(c, k.choices[0], v, err, len);
        if (k.kind == K_TASKS) return parse_list(o, v, c, err, len);
        if (k.kind == K_SLOW) return parse_slow(o, v, c, err, len);
        if (k.kind == K_COSTS) return parse_costs(o, v, c, err, len);
        if (k.kind == K_CBSET) {
            if (!strchr(v, '=') || v[0] == '=' || c->ncbench_set == SIM_CBENCH_SET_MAX)
                return bad(err, len, o, v, "NAME=VALUE, a cbench parameter (at most 64)");
            c->cbench_set[c->ncbench_set++] = v;
            return 0;
        }
        return set_row(c, &k, v, err, len);
    }
    snprintf(err, len, "tide-sim: unknown option '%s' (see tide-sim --help)", o);
    return -1;
}

static int load_args(sim_config *c, int argc, char **argv, char *err, size_t len)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            c->help = 1;
        else if (!strcmp(o, "--quiet"))
            c->quiet = 1;
        else if (i + 1 >= argc)
            return snprintf(err, len, "tide-sim: %s needs a value", o), -1;
        else if (set_option(c, o, argv[++i], err, len))
            return -1;
    }
    return 0;
}

/* A platform's short name, or the path given. */
static void resolve_platform(sim_config *c)
{
    if (strchr(c->platform, '/') || strstr(c->platform, ".xml")) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%.900s.xml", TIDE_SIM_PLATFORM_DIR, c->platform);
    snprintf(c->platform, sizeof c->platform, "%s", path);
}

int sim_config_load(sim_config *c, int argc, char **argv, char *err, size_t len)
{
    defaults(c);
    if (load_env(c, err, len) || load_args(c, argc, argv, err, len)) return -1;
    if (tide_model_params_validate(&c->pred, err, len) != TIDE_PRED_OK) return -1;
    if (c->ntasks_list && c->ntasks_list != c->ranks && c->workload == SIM_WL_MXM) {
        snprintf(err, len, "tide-sim: --tasks has %d entries for %d ranks", c->ntasks_list,
                 c->ranks);
        return -1;
    }
    for (int i = 0; i < c->nslow; i++)
        if (c->slow[i].rank >= c->ranks) {
            snprintf(err, len, "tide-sim: --slow names rank %d of %d", c->slow[i].rank, c->ranks);
            return -1;
        }
    if (c->replay[0] && c->samoa_depth) {
        snprintf(err, len, "tide-sim: --replay and --samoa are two workloads: give one");
        return -1;
    }
    if (c->cbench[0] && (c->replay[0] || c->samoa_depth)) {
        snprintf(err, len, "tide-sim: --cbench is a workload of its own: drop --replay or --samoa");
        return -1;
    }
    if (c->ncbench_set && !c->cbench[0]) {
        snprintf(err, len, "tide-sim: --cbench-set needs --cbench FILE");
        return -1;
    }
    if (c->cbench[0] && strcmp(c->lb, "none") != 0) {
        snprintf(err, len,
                 "tide-sim: TIDE_LB=%s with --cbench: offloading object tasks is not simulated "
                 "(the objects run where they live; docs/sim.md)",
                 c->lb);
        return -1;
    }
    if (c->cbench[0] && c->net != SIM_NET_EXACT) {
        snprintf(err, len,
                 "tide-sim: --net fast|fair with --cbench: the objects' messages are SimGrid "
                 "flows only (--net exact)");
        return -1;
    }
    if (c->cbench[0]) c->workload = SIM_WL_CBENCH;
    if (c->replay[0]) c->workload = SIM_WL_REPLAY;
    if (c->samoa_depth) c->workload = SIM_WL_SAMOA;
    resolve_platform(c);
    return 0;
}
