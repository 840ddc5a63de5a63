/* tide-sim's configuration. Tide's TIDE_* knobs are libtide's own: the engine core's tables
 * (tide_core_config.h) read them into cfg->tide with libtide's rows, defaults, ranges and lines,
 * and a knob tide-sim cannot model is refused with one line when it is not at its default
 * (docs/sim.md, "Configuration"). Then the simulator's own options: rows of its own table, read
 * by the same parser (tide_knob.h). A bad value stops the run with one line naming it (exit 2). */
#include "sim.h"
#include "tide_knob.h"

#include <cerrno>
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
    "  --decisions FILE      write every rank's predictions and phase-start plans in the\n"
    "                        engine core's canonical text (the equivalence test)\n"
    "  --quiet               no summary line\n"
    "SimGrid's own options (--cfg=..., --log=...) pass through. Exit codes: 0 ok, 2 bad options,\n"
    "3 a task ran or completed other than exactly once.\n";

static const char *const pred_names[] = {"model", "exact", nullptr};
static const char *const net_names[] = {"exact", "fast", "fair", nullptr};
static const char *const cbench_modes[] = {"loop", "round", nullptr};
static const char *const idle_names[] = {"skip", "every", nullptr};

const char *sim_net_name(int k)
{
    return net_names[k];
}

/* ---- Tide's knobs ------------------------------------------------------------------------ */

/* libtide's knobs that tide-sim cannot model: a value other than the default stops the run. The
 * others reach the simulated engine (docs/sim.md lists each). */
static const struct {
    const char *name, *why;
} refused[] = {
    {"TIDE_COMM_CPU", "simulated ranks have no CPUs to pin a thread to"},
    {"TIDE_TOOL", "tide-sim loads no tool library (its tasks' features come from the workload)"},
    {"TIDE_TRACE", "tide-sim writes no timeline (TIDE_STATS and --moves record a run)"},
    {"TIDE_TRACE_FORMAT", "tide-sim writes no timeline"},
    {"TIDE_TRACE_MAX_EVENTS", "tide-sim writes no timeline"},
    {"TIDE_OBJECTS_STATS", "tide-sim writes its rescheduling report to TIDE_STATS"},
    {"TIDE_VERBOSE", "tide-sim prints no diagnostics (the predictions' accuracy is in TIDE_STATS)"},
    {"TIDE_SYNC_EVERY", "tide-sim's inline phases agree at every phase (one allreduce each)"},
};

static tide_config_knobs knobs;

/* A refused knob whose field differs from its default: one line naming it and why. */
static int refuse(const sim_config *c, char *err, size_t len)
{
    tide_config def;
    tide_config_init(&knobs, &def);
    for (const auto &r : refused) {
        size_t t;
        const tide_knob *k = tide_config_row(&knobs, r.name, &t);
        size_t at = knobs.at[t] + k->offset;
        if (memcmp((const char *)&c->tide + at, (const char *)&def + at, k->size) == 0) continue;
        const char *v = getenv(r.name);
        snprintf(err, len, "%s='%s' is not modelled: %s; unset it%s%s%s", r.name, v ? v : "", r.why,
                 k->def ? " or give its default (" : "", k->def ? k->def : "", k->def ? ")" : "");
        return -1;
    }
    return 0;
}

static int load_env(sim_config *c, char *err, size_t len)
{
    char warn[512];
    if (tide_config_read_env(&knobs, &c->tide, environ, err, len, warn, sizeof warn)) return -1;
    if (warn[0]) fprintf(stderr, "tide-sim: warning: %s\n", warn);
    return 0;
}

/* ---- the simulator's own options ---------------------------------------------------------- */

/* Setters of the options with a spelling of their own. Their rows' field is the whole
 * configuration (offset 0). */
static int parse_list(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    sim_config *c = (sim_config *)field;
    int n = 0;
    for (const char *p = v; p && *p; n++) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (n >= 4096 || errno || end == p || x < 0 || x > 1000000 || (*end && *end != ','))
            return tide_knob_bad(k->name, v, k->allowed, err, len);
        c->tasks_list[n] = (int)x;
        p = *end ? end + 1 : end;
    }
    if (n == 0) return tide_knob_bad(k->name, v, k->allowed, err, len);
    c->ntasks_list = n;
    return 0;
}

static int parse_slow(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    sim_config *c = (sim_config *)field;
    int n = 0;
    for (const char *p = v; p && *p; n++) {
        char *end;
        long r = strtol(p, &end, 10);
        if (n >= SIM_MAX_SLOW || end == p || *end != ':' || r < 0)
            return tide_knob_bad(k->name, v, k->allowed, err, len);
        double f = strtod(end + 1, &end);
        if (!(f >= 1 && f <= 1000) || (*end && *end != ','))
            return tide_knob_bad(k->name, v, k->allowed, err, len);
        c->slow[n] = sim_slow{(int)r, f};
        p = *end ? end + 1 : end;
    }
    if (n == 0) return tide_knob_bad(k->name, v, k->allowed, err, len);
    c->nslow = n;
    return 0;
}

/* --samoa-cost DRY,WET,COAST: microseconds per cell of each class. */
static int parse_costs(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    sim_config *c = (sim_config *)field;
    const char *p = v;
    for (int i = 0; i < 3; i++) {
        char *end;
        double x = strtod(p, &end);
        if (end == p || !(x >= 0 && x <= 1e6) || *end != (i < 2 ? ',' : '\0'))
            return tide_knob_bad(k->name, v, k->allowed, err, len);
        c->samoa_cost_us[i] = x;
        p = end + 1;
    }
    return 0;
}

static int parse_noise(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    if (noise_event_parse(v, (noise_event *)field) == 0) return 0;
    return tide_knob_bad(k->name, v, k->allowed, err, len);
}

static int parse_cbench_set(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    sim_config *c = (sim_config *)field;
    if (!strchr(v, '=') || v[0] == '=' || c->ncbench_set == SIM_CBENCH_SET_MAX)
        return tide_knob_bad(k->name, v, k->allowed, err, len);
    c->cbench_set[c->ncbench_set++] = v; /* an argv string: it lives as long as the run */
    return 0;
}

#define OPT(member) TIDE_KNOB_FIELD(sim_config, member)
#define WHOLE .offset = 0, .size = sizeof(sim_config)

/* The command line's options with a value (docs/sim.md, "Configuration"); the defaults of the
 * ones that have one. */
static const tide_knob option_rows[] = {
    {.name = "--platform", .kind = TIDE_KNOB_PATH, .def = "local", OPT(platform)},
    {.name = "--ranks", .kind = TIDE_KNOB_INT, .def = "8", .min = 1, .max = 1 << 20, OPT(ranks)},
    {.name = "--ranks-per-host", .kind = TIDE_KNOB_INT, .min = 1, .max = 4096, OPT(ranks_per_host)},
    {.name = "--iters", .kind = TIDE_KNOB_INT, .def = "10", .min = 1, .max = 1000000, OPT(iters)},
    {.name = "--imb", .kind = TIDE_KNOB_INT, .min = 0, .max = 3, OPT(imb)},
    {.name = "--tasks-per-rank",
     .kind = TIDE_KNOB_INT,
     .def = "16",
     .min = 1,
     .max = 1000000,
     OPT(tasks_per_rank)},
    {.name = "--tasks",
     .kind = TIDE_KNOB_CUSTOM,
     .set = parse_list,
     .allowed = "comma-separated task counts in [0, 1000000]",
     WHOLE},
    {.name = "--task-ms",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "10",
     .min = 1e-6,
     .max = 1e7,
     OPT(task_ms)},
    {.name = "--task-bytes",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "1440000",
     .min = 0,
     .max = 1e12,
     OPT(task_bytes)},
    {.name = "--result-bytes",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "720000",
     .min = 0,
     .max = 1e12,
     OPT(result_bytes)},
    {.name = "--slow",
     .kind = TIDE_KNOB_CUSTOM,
     .set = parse_slow,
     .allowed = "RANK:FACTOR[,...] with FACTOR in [1, 1000]",
     WHOLE},
    {.name = "--slow-from", .kind = TIDE_KNOB_INT, .min = 0, .max = 1000000, OPT(slow_from)},
    {.name = "--jitter",
     .kind = TIDE_KNOB_CUSTOM,
     .set = parse_noise,
     .allowed = "P:F with P in [0, 1] and F in [1, 1000]",
     OPT(noise.jitter)},
    {.name = "--disturb",
     .kind = TIDE_KNOB_CUSTOM,
     .set = parse_noise,
     .allowed = "P:F with P in [0, 1] and F in [1, 1000]",
     OPT(noise.disturb)},
    {.name = "--noise-seed",
     .kind = TIDE_KNOB_INT,
     .min = 0,
     .max = 2147483647.0,
     OPT(noise.seed),
     .store = TIDE_KNOB_STORE_U64},
    {.name = "--replay", .kind = TIDE_KNOB_PATH, OPT(replay)},
    {.name = "--pred", .kind = TIDE_KNOB_CHOICE, .choices = pred_names, OPT(pred_mode)},
    {.name = "--net", .kind = TIDE_KNOB_CHOICE, .choices = net_names, OPT(net)},
    {.name = "--idle-turns", .kind = TIDE_KNOB_CHOICE, .choices = idle_names, OPT(idle_turns)},
    {.name = "--moves", .kind = TIDE_KNOB_PATH, OPT(moves)},
    {.name = "--decisions", .kind = TIDE_KNOB_PATH, OPT(decisions)},
    {.name = "--global-migrate",
     .kind = TIDE_KNOB_INT,
     .def = "1",
     .min = 0,
     .max = 1,
     OPT(global_migrate)},
    {.name = "--samoa", .kind = TIDE_KNOB_INT, .min = 1, .max = 20, OPT(samoa_depth)},
    {.name = "--samoa-steps",
     .kind = TIDE_KNOB_INT,
     .def = "1",
     .min = 1,
     .max = 1000000,
     OPT(samoa_steps)},
    /* samoa_proxy --calibrate's figures on this machine (docs/samoa_proxy.md) */
    {.name = "--samoa-cost",
     .kind = TIDE_KNOB_CUSTOM,
     .def = "0.004030,0.051537,0.198587",
     .set = parse_costs,
     .allowed = "three costs DRY,WET,COAST in [0, 1e6] us per cell",
     WHOLE},
    {.name = "--cbench", .kind = TIDE_KNOB_PATH, OPT(cbench)},
    {.name = "--cbench-set",
     .kind = TIDE_KNOB_CUSTOM,
     .set = parse_cbench_set,
     .allowed = "NAME=VALUE, a cbench parameter (at most 64)",
     WHOLE},
    {.name = "--cbench-mode", .kind = TIDE_KNOB_CHOICE, .choices = cbench_modes, OPT(cbench_mode)},
    {.name = "--cbench-test-twice",
     .kind = TIDE_KNOB_INT,
     .def = "-1",
     .min = -1,
     .max = 10000000,
     OPT(cbench_test_twice)},
};

static const tide_knob_table options = {.title = "tide-sim",
                                        .owner = "tide-sim",
                                        .rows = option_rows,
                                        .n = sizeof option_rows / sizeof *option_rows,
                                        .prefix = nullptr,
                                        .what = nullptr};

/* Options that spell a Tide knob. */
static const struct {
    const char *option, *knob;
} aliases[] = {{"--lb", "TIDE_LB"},           {"--offload", "TIDE_OFFLOAD"},
               {"--seed", "TIDE_SEED"},       {"--round-us", "TIDE_ROUND_US"},
               {"--stats", "TIDE_STATS"},     {"--threads", "TIDE_THREADS"},
               {"--global", "TIDE_GLOBAL_LB"}};

static void defaults(sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->noise = noise_spec_default();
    c->feature = 300;
    tide_knob_defaults(&options, c, nullptr, 0);
    tide_config_init(&knobs, &c->tide);
}

static int set_option(sim_config *c, const char *o, const char *v, char *err, size_t len)
{
    for (const auto &a : aliases)
        if (strcmp(a.option, o) == 0)
            return tide_config_parse(&knobs, &c->tide, a.knob, v, err, len);
    const tide_knob *k = tide_knob_find(&options, o);
    if (k) return tide_knob_parse(k, c, v, err, len);
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
            c->tide.quiet = 1;
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
    if (!knobs.table[0]) tide_config_knobs_build(&knobs);
    defaults(c);
    if (load_env(c, err, len) || load_args(c, argc, argv, err, len) || refuse(c, err, len))
        return -1;
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
    if (c->cbench[0] && strcmp(c->tide.lb, "none") != 0) {
        snprintf(err, len,
                 "tide-sim: TIDE_LB=%s with --cbench: offloading object tasks is not simulated "
                 "(the objects run where they live; docs/sim.md)",
                 c->tide.lb);
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
