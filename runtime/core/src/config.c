/* The engine's knob tables (tide_core_config.h): every TIDE_* row libtide and tide-sim read, and
 * the one loop that reads them from an environment. The runtime's own rows and the objects
 * layer's are here; the predictor (tide_predictor_knobs.h), the global strategies
 * (tide_global_knobs.h) and the task strategies (tide_lb_knob in tide_lb.h) declare theirs.
 * docs/config.md is generated from these tables (tide-knobs --markdown). */
#define _GNU_SOURCE
#include "tide_core_config.h"

#include "tide_global_knobs.h"
#include "tide_predictor_knobs.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *const bool_names[] = {"0", "1", NULL};
static const char *const offload_names[] = {"rr", "packed", NULL};
static const char *const trace_format_names[] = {"auto", "json", "otf2", NULL};
static const char *const phase_driver_names[] = {"auto", "comm", NULL};
static const char *const plan_gate_names[] = {"auto", "off", "alternate", NULL};
static const char *const predict_names[] = {"auto", "on", NULL};
static const char *const phase_coll_names[] = {"auto", "mpi", NULL};
static const char *const wait_progress_names[] = {"auto", "app", "comm", NULL};
static const char *const clock_names[] = {"auto", "tsc", "monotonic", NULL};

const char *tide_offload_name(tide_offload_kind k)
{
    return offload_names[k];
}

const char *tide_phase_driver_name(int v)
{
    return v >= 0 && v <= TIDE_PHASE_DRIVER_COMM ? phase_driver_names[v] : NULL;
}

const char *tide_plan_gate_name(int v)
{
    return v >= 0 && v <= TIDE_PLAN_GATE_ALTERNATE ? plan_gate_names[v] : NULL;
}

const char *tide_phase_coll_name(int v)
{
    return v >= 0 && v <= TIDE_PHASE_COLL_MPI ? phase_coll_names[v] : NULL;
}

const char *tide_wait_progress_name(int v)
{
    return v >= 0 && v <= TIDE_WAIT_PROGRESS_COMM ? wait_progress_names[v] : NULL;
}

static bool lb_known(const char *v)
{
    return tide_lb_ops_find(v) != NULL;
}

static bool global_known(const char *v)
{
    return tide_global_find(v) != NULL;
}

/* -1 (not pinned), `last`, or a CPU number (tide_init then checks that every rank can use it). */
static int set_comm_cpu(const tide_knob *k, void *field, const char *v, char *err, size_t len)
{
    long cpu;
    if (strcmp(v, "last") == 0)
        cpu = TIDE_COMM_CPU_LAST;
    else if (!tide_knob_read_long(v, -1, CPU_SETSIZE - 1, &cpu))
        return tide_knob_bad(k->name, v, k->allowed, err, len);
    *(int *)field = (int)cpu;
    return TIDE_KNOB_OK;
}

#define FIELD(member) TIDE_KNOB_FIELD(tide_config, member)

static const tide_knob runtime_rows[] = {
    {.name = "TIDE_THREADS",
     .kind = TIDE_KNOB_INT,
     .unset = "OpenMP's default (`OMP_NUM_THREADS`, else the core count)",
     .min = 1,
     .max = 4096,
     .help = "worker threads per rank",
     FIELD(threads)},
    {.name = "TIDE_LB",
     .kind = TIDE_KNOB_NAME,
     .def = "none",
     .known = lb_known,
     .names = tide_lb_names,
     .help = "task balancing strategy (docs/strategies.md); its knobs are listed below. Every "
             "rank must give the same value (checked at init: a rank with another strategy "
             "would wait in other collectives)",
     FIELD(lb)},
    {.name = "TIDE_OFFLOAD",
     .kind = TIDE_KNOB_CHOICE,
     .def = "packed",
     .choices = offload_names,
     .help = "`rr`: one message per task; `packed`: the tasks for one destination travel in one "
             "message",
     FIELD(offload)},
    {.name = "TIDE_MAX_INFLIGHT",
     .kind = TIDE_KNOB_BYTES,
     .def = "16M",
     .help = "bound on bytes of task and result messages in flight per rank; a single larger "
             "message still goes alone. What is in flight can no longer be taken back by "
             "proact's safety net (docs/offload-planner.md); 16M keeps a link as busy as 64M did "
             "(docs/performance.md, section 13)",
     FIELD(max_inflight)},
    {.name = "TIDE_PACK_MAX",
     .kind = TIDE_KNOB_BYTES,
     .def = "1M",
     .help = "`packed`: most bytes in one package (at least one task goes; at most an eighth of "
             "`TIDE_MAX_INFLIGHT`). Packing pays for small tasks; large ones travel alone, "
             "several in flight",
     FIELD(pack_max)},
    {.name = "TIDE_POLL_SPIN",
     .kind = TIDE_KNOB_INT,
     .def = "200",
     .min = 0,
     .max = 100000000,
     .help = "empty polling turns of the comm thread and of idle workers before they sleep; 0 "
             "also stops the workers' watch for the next phase after each phase (they sleep at "
             "once; the watch lasts 20 us, or up to 1 ms where the application came back within "
             "0.5 ms and the node has a core per worker: docs/internals.md)",
     FIELD(poll_spin)},
    {.name = "TIDE_POLL_SLEEP_MAX_US",
     .kind = TIDE_KNOB_INT,
     .def = "250",
     .min = 1,
     .max = 1000000,
     .help = "longest back-off sleep of the idle comm thread, in microseconds (sleeps double "
             "from 1 us); while the application thread runs the phases (a strategy that never "
             "acts, `TIDE_PHASE_DRIVER`, or phases the plan gate holds idle, from such a phase's "
             "`tide_taskwait` until that of a phase through the protocol) the comm thread sleeps "
             "100 ms at a time instead (at once, without spin turns or doubling), woken at once "
             "by what needs it",
     FIELD(poll_sleep_max_us)},
    {.name = "TIDE_COMM_CPU",
     .kind = TIDE_KNOB_CUSTOM,
     .def = "-1",
     .set = set_comm_cpu,
     .allowed = "-1 (not pinned), 'last', or a CPU number",
     .help = "pin the comm thread: -1 not pinned; `last` the highest CPU of the rank's own "
             "affinity mask (the usual choice with one rank per socket); a number: that CPU, "
             "which `tide_init` tries on every rank (a CPU that does not exist or lies outside "
             "the process's cpuset fails there, with one line). See docs/cluster.md",
     FIELD(comm_cpu)},
    {.name = "TIDE_PHASE_DRIVER",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = phase_driver_names,
     .help = "who runs a phase's protocol. `auto`: under a strategy that never acts (`none`), "
             "or under any strategy on a single rank (no other rank to move a task to), the "
             "application thread itself, in `tide_taskwait` (its tasks on the workers, then one "
             "allreduce of every rank's step and statistics, an allgather where rank 0 writes "
             "`TIDE_STATS` or `TIDE_TRACE`), so that an empty phase costs about one collective "
             "(docs/performance.md, section 15); also the phases the plan gate runs without "
             "the strategy's protocol (`TIDE_PLAN_GATE`); else the comm thread. `comm`: always "
             "the comm thread (the protocol of every other strategy). Every rank must give the "
             "same value (checked at init)",
     FIELD(phase_driver)},
    {.name = "TIDE_PLAN_GATE",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = plan_gate_names,
     .help = "whether a balancing strategy (`proact`, `proact_react`, `react`, `ws`, `rep`, "
             "`react_rep`: those with `TIDE_LB_GATED`; not `random`) may run phases without its "
             "protocol (no status allgathers, no plan, nothing moves: one allreduce, as under "
             "`none`) where its protocol phases measured slower than such phases. "
             "`auto`: it compares the two kinds of phase as it runs (docs/offload-planner.md, "
             "\"The plan gate\"); `off`: every phase runs the protocol; `alternate`: every "
             "other phase runs without it (for tests). `TIDE_PHASE_DRIVER=comm` means `off`. "
             "Every rank must give the same value (checked at init)",
     FIELD(plan_gate)},
    {.name = "TIDE_PHASE_COLL",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = phase_coll_names,
     .help = "how the ranks run a phase's collectives: the agreement at the end of a phase the "
             "application thread runs (`TIDE_PHASE_DRIVER`), the protocol's status exchanges, "
             "barrier and records in a phase through the comm loop, and `tide_finalize`'s closing "
             "agreement. `auto`: where every rank runs on one node, through a shared-memory "
             "window (each rank writes its numbers, reads every other rank's and folds them in "
             "rank order: a few hundred nanoseconds on two cores, against 1-2 us for Open MPI's "
             "allreduce and 1.5-4.7 us for its nonblocking collectives; docs/performance.md, "
             "section 15), else MPI's collectives; `mpi`: always MPI. The statistics are the same "
             "either way. Every rank must give the same value (checked at init)",
     FIELD(phase_coll)},
    {.name = "TIDE_WAIT_PROGRESS",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = wait_progress_names,
     .help = "who runs the comm thread's loop (messages, the phase protocol, the strategy) "
             "while the application thread waits in `tide_taskwait` of a phase through the "
             "protocol with no task to run. `app`: the application thread itself, turn by turn, "
             "while the comm thread waits; when it starts a task it hands the turns back, "
             "waking the comm thread unless the phases are shorter than "
             "`TIDE_POLL_SLEEP_MAX_US` and no send is in flight (the comm thread then takes "
             "over at its wait's end; by then such a task is usually over), so a fine-grained "
             "phase waits for no thread's wake-up. `comm`: the comm thread, woken at each "
             "`tide_taskwait`, which keeps a phase's transfers going without a pause at the "
             "hand-back. `auto`: `app` where this rank's last phase took less than 1 ms, else "
             "`comm` (on a busy node `app` made MxM's 1 s phases wait for their 2 MB "
             "transfers: docs/performance.md, section 15; docs/internals.md, \"Who runs the "
             "comm loop's turns\"). Phases the application thread runs inline "
             "(`TIDE_PHASE_DRIVER`) have no such turns",
     FIELD(wait_progress)},
    {.name = "TIDE_CLOCK",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = clock_names,
     .help = "how the runtime reads the time (phase and task durations, the load model's "
             "samples, statistics, traces): always CLOCK_MONOTONIC's seconds. `auto`: from the "
             "CPU's time-stamp counter where the kernel's clocksource is `tsc` and /proc/cpuinfo "
             "has `constant_tsc` and `nonstop_tsc` (10 ns a reading against clock_gettime's "
             "27 ns; each thread re-reads CLOCK_MONOTONIC every millisecond, so the two agree to "
             "tens of nanoseconds: docs/internals.md, \"The clock\"), else clock_gettime; "
             "`tsc`: the counter, and an error at init where those conditions do not hold; "
             "`monotonic`: clock_gettime at every reading. `TIDE_VERBOSE=1` names the clock "
             "chosen",
     FIELD(clock)},
    {.name = "TIDE_PREDICT",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = predict_names,
     .help = "whether the load model runs (task features collected, a prediction per phase, "
             "learning after it). `auto`: when a strategy plans from predictions (`proact`, "
             "`proact_react`) on more than one rank, statistics or a trace are written "
             "(`TIDE_STATS`, `TIDE_TRACE`) or "
             "a tool is loaded (`TIDE_TOOL`); otherwise not, and `tide_stats_last_phase` gives "
             "`L_pred_self` -1 (Task Bench's `trivial` step on one rank: 0.76 -> 0.45 us, "
             "docs/archive/metg-notes.md). `on`: always, whatever the strategy",
     FIELD(predict)},
    {.name = "TIDE_ROUND_US",
     .kind = TIDE_KNOB_INT,
     .def = "500",
     .min = 10,
     .max = 1000000,
     .help = "interval of the status rounds (queue lengths allgathered) of the strategies that "
             "have them (all but `none` and `random`); the first round in which no rank has work "
             "left ends the phase",
     FIELD(round_us)},
    {.name = "TIDE_SYNC_EVERY",
     .kind = TIDE_KNOB_INT,
     .def = "1",
     .min = 1,
     .max = 4096,
     .help =
         "phases per agreement where the application thread runs the phases on several "
         "ranks (a strategy that never acts, `none`: `TIDE_PHASE_DRIVER`). 1: one allreduce "
         "at every `tide_taskwait`, which returns on every rank together, and "
         "`tide_stats_last_phase` describes the phase just ended. N > 1: `tide_taskwait` "
         "returns once this rank's tasks are done, and one collective of N elements agrees "
         "on N phases' steps and statistics (ranks may run up to N phases apart, as MPI "
         "ranks do between their own messages; a fine-grained phase then costs its tasks "
         "alone: docs/performance.md, section 14); `tide_stats_last_phase` describes the "
         "last agreed phase (its `phase` says which; `TIDE_ERR_STATE` before the first "
         "agreement), and a rank that calls `tide_taskwait` more or fewer times is named at "
         "the next agreement or in `tide_finalize`. Where the records are gathered "
         "(`TIDE_STATS`, `TIDE_TRACE`) each rank holds ranks x N x 208 bytes of them (1024 "
         "ranks x 64: 13.6 MB), else N x 256 bytes of sums. Every rank must give the same value "
         "(checked at init). Strategies that move tasks agree at every phase whatever it "
         "says (a line at `tide_init` says so)",
     FIELD(sync_every)},
    {.name = "TIDE_TOOL",
     .kind = TIDE_KNOB_PATH,
     .allowed = "the path of a tool library (shorter than 1024 bytes)",
     .owner = "runtime, predictor",
     .help = "tool library loaded with dlopen: extra features, or its own model "
             "(docs/predictor.md)",
     FIELD(tool_path)},
    {.name = "TIDE_STATS",
     .kind = TIDE_KNOB_PATH,
     .allowed = "a file path shorter than 1024 bytes (unset TIDE_STATS to write none)",
     .help = "rank 0 writes the statistics JSON there at finalize (docs/stats.md; created at "
             "init, see below)",
     FIELD(stats_path)},
    {.name = "TIDE_TRACE",
     .kind = TIDE_KNOB_PATH,
     .allowed = "a file path shorter than 1024 bytes (unset TIDE_TRACE to trace nothing)",
     .help = "rank 0 writes one timeline of the run there at finalize: every rank's tasks, "
             "messages, phases and plans (docs/trace.md; created at init)",
     FIELD(trace_path)},
    {.name = "TIDE_TRACE_FORMAT",
     .kind = TIDE_KNOB_CHOICE,
     .def = "auto",
     .choices = trace_format_names,
     .help = "`json`: Chrome trace-event JSON (Perfetto); `otf2`: an OTF2 archive (Vampir; needs a "
             "build with the OTF2 library); `auto`: `otf2` when `TIDE_TRACE` ends in `.otf2`, else "
             "`json`",
     FIELD(trace_format)},
    {.name = "TIDE_TRACE_MAX_EVENTS",
     .kind = TIDE_KNOB_INT,
     .def = "1000000",
     .min = 1,
     .max = 16000000,
     .help = "most events kept per thread (48 bytes each, allocated as they come); later ones are "
             "dropped and counted, and finalize says how many",
     FIELD(trace_max_events)},
    {.name = "TIDE_THROTTLE_RANK",
     .kind = TIDE_KNOB_INT,
     .def = "-1",
     .min = -1,
     .max = 1048576,
     .help = "for tests and experiments: the rank whose task messages are held to "
             "`TIDE_THROTTLE_BW`, as if its link were slow (-1: none; at most the run's last "
             "rank, checked at init)",
     FIELD(throttle_rank)},
    {.name = "TIDE_THROTTLE_BW",
     .kind = TIDE_KNOB_BYTES,
     .def = "1G",
     .help = "bytes per second that the task messages of `TIDE_THROTTLE_RANK` may leave at "
             "(each waits until the previous ones would have left at this rate)",
     FIELD(throttle_bw)},
    {.name = "TIDE_QUIET",
     .kind = TIDE_KNOB_CHOICE,
     .def = "0",
     .choices = bool_names,
     .help = "1: nothing printed at finalize (no summary, verdict or warning line; "
             "docs/stats.md, \"What finalize prints\")",
     FIELD(quiet)},
    {.name = "TIDE_VERBOSE",
     .kind = TIDE_KNOB_INT,
     .def = "0",
     .min = 0,
     .max = 2,
     .help = "0: finalize prints the summary and the verdict (and the warning lines that "
             "apply); 1 or 2: also the predictions' accuracy and sources and what the plans could "
             "not balance (always in `TIDE_STATS`), and diagnostics on stderr (a load model's "
             "fallback, the comm thread's pinning)",
     FIELD(verbose)},
    {.name = "TIDE_SEED",
     .kind = TIDE_KNOB_INT,
     .def = "1",
     .min = 0,
     .max = 2147483647,
     .store = TIDE_KNOB_STORE_U64,
     .help = "seed of the random choices (random mode); rank r uses seed and r",
     FIELD(seed)},
    {.name = "TIDE_STRICT",
     .kind = TIDE_KNOB_CHOICE,
     .def = "0",
     .choices = bool_names,
     .help = "1: an unknown `TIDE_*` variable in the environment fails `tide_init` (for CI). With "
             "0 it is one warning on rank 0, unless it is within a typo's reach of a knob "
             "(docs/config.md, above the tables), which always fails",
     FIELD(strict)},
    {.name = "TIDE_CHECK_EXE",
     .kind = TIDE_KNOB_CHOICE,
     .def = "1",
     .choices = bool_names,
     .help = "compare a hash of the executable's contents across ranks at init (its file "
             "name may differ: docs/wire.md)",
     FIELD(check_exe)},
};

static const tide_knob objects_rows[] = {
    {.name = "TIDE_GLOBAL_LB",
     .kind = TIDE_KNOB_NAME,
     .def = "none",
     .known = global_known,
     .names = tide_global_name_list,
     .help = "global rescheduling strategy of the objects layer (docs/objects.md); its knobs are "
             "listed below. Every rank must give the same value (checked at init)",
     FIELD(global_lb)},
    {.name = "TIDE_LB_PERIOD",
     .kind = TIDE_KNOB_INT,
     .def = "10",
     .min = 1,
     .max = 1000000000,
     .help = "iterations between reschedulings",
     FIELD(lb_period)},
    {.name = "TIDE_OBJECTS_STATS",
     .kind = TIDE_KNOB_PATH,
     .allowed = "a file path shorter than 1024 bytes (unset TIDE_OBJECTS_STATS to write none)",
     .help = "rank 0 writes its reschedulings as JSON at finalize (created at init, see below)",
     FIELD(objects_stats_path)},
};

#define COUNT(a) (sizeof a / sizeof *a)

static const tide_knob_table runtime_table = {
    .title = "Runtime", .owner = "runtime", .rows = runtime_rows, .n = COUNT(runtime_rows)};
static const tide_knob_table objects_table = {
    .title = "Objects layer", .owner = "objects", .rows = objects_rows, .n = COUNT(objects_rows)};

static void append(char *buf, size_t len, const char *s)
{
    size_t used = strlen(buf);
    if (used + 1 < len) snprintf(buf + used, len - used, "%s", s);
}

/* "task `ws`", or "task `react`, `rep`, ..." for a knob several strategies share. */
static void lb_owner(const tide_lb_knob *k, char *buf, size_t len)
{
    size_t n;
    const tide_lb_ops *const *all = tide_lb_all(&n);
    snprintf(buf, len, "task");
    const char *sep = " `";
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < tide_lb_knob_count(all[i]); j++)
            if (all[i]->knobs[j] == k) {
                append(buf, len, sep);
                append(buf, len, all[i]->name);
                append(buf, len, "`");
                sep = ", `";
            }
}

/* The default as a user would write it: whole numbers without exponent, others in the fewest
 * digits that read back as the same double. */
static void default_text(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* The task strategies' knobs (tide_lb_knob, declared in each strategy's file) as rows whose
 * values go to tide_config.lb_knob[i], i their index in tide_lb_all_knobs(). */
static void lb_row(tide_config_knobs *t, size_t i, const tide_lb_knob *k)
{
    if (k->choices)
        snprintf(t->lb_def[i], sizeof t->lb_def[i], "%s", k->choices[(int)k->def]);
    else
        default_text(k->def, t->lb_def[i], sizeof t->lb_def[i]);
    lb_owner(k, t->lb_owner[i], sizeof t->lb_owner[i]);
    t->lb_rows[i] = (tide_knob){.name = k->name,
                                .kind = k->choices   ? TIDE_KNOB_CHOICE
                                        : k->integer ? TIDE_KNOB_INT
                                                     : TIDE_KNOB_DOUBLE,
                                .def = t->lb_def[i],
                                .min = k->min,
                                .max = k->max,
                                .choices = k->choices,
                                .help = k->help,
                                .owner = t->lb_owner[i],
                                .offset = offsetof(tide_config, lb_knob) + i * sizeof(double),
                                .size = sizeof(double),
                                .store = TIDE_KNOB_STORE_DOUBLE};
}

void tide_config_knobs_build(tide_config_knobs *t)
{
    size_t n;
    const tide_lb_knob *const *all = tide_lb_all_knobs(&n);
    if (n > TIDE_LB_KNOBS_MAX) n = TIDE_LB_KNOBS_MAX;
    for (size_t i = 0; i < n; i++)
        lb_row(t, i, all[i]);
    t->lb_table = (tide_knob_table){.title = "Task strategies (`TIDE_LB`)",
                                    .owner = "task strategies",
                                    .rows = t->lb_rows,
                                    .n = n};
    const tide_knob_table *table[TIDE_CONFIG_NTABLES] = {&runtime_table, &t->lb_table,
                                                         tide_model_params_knobs(), &objects_table,
                                                         tide_global_knobs()};
    size_t at[TIDE_CONFIG_NTABLES] = {0, 0, offsetof(tide_config, pred), 0,
                                      offsetof(tide_config, global)};
    memcpy(t->table, table, sizeof table);
    memcpy(t->at, at, sizeof at);
}

const char *tide_config_lb_knob_name(int i)
{
    size_t n;
    const tide_lb_knob *const *k = tide_lb_all_knobs(&n);
    return i >= 0 && (size_t)i < n ? k[i]->name : NULL;
}

void tide_config_init(const tide_config_knobs *t, tide_config *c)
{
    memset(c, 0, sizeof *c);
    tide_global_params_default(&c->global); /* its seed, which is not a knob */
    for (size_t i = 0; i < TIDE_CONFIG_NTABLES; i++)
        tide_knob_defaults(t->table[i], (char *)c + t->at[i], NULL, 0);
}

static void places_of(const tide_config_knobs *t, tide_config *c, tide_knob_place *places)
{
    for (size_t i = 0; i < TIDE_CONFIG_NTABLES; i++)
        places[i] = (tide_knob_place){t->table[i], c ? (char *)c + t->at[i] : NULL};
}

int tide_config_parse(const tide_config_knobs *t, tide_config *c, const char *name,
                      const char *value, char *err, size_t len)
{
    tide_knob_place places[TIDE_CONFIG_NTABLES];
    places_of(t, c, places);
    return tide_knob_set(places, TIDE_CONFIG_NTABLES, name, value,
                         "a Tide variable (see docs/config.md; a misspelt knob would otherwise be "
                         "ignored silently)",
                         err, len);
}

const tide_knob *tide_config_row(const tide_config_knobs *t, const char *name, size_t *table)
{
    for (size_t i = 0; i < TIDE_CONFIG_NTABLES; i++) {
        const tide_knob *k = tide_knob_find(t->table[i], name);
        if (k) {
            if (table) *table = i;
            return k;
        }
    }
    return NULL;
}

/* The variable's name, cut at 63 characters (no knob is that long). */
static bool env_name(const char *entry, char name[64])
{
    const char *eq = strchr(entry, '=');
    if (strncmp(entry, "TIDE_", 5) != 0 || !eq) return false;
    size_t n = (size_t)(eq - entry);
    if (n >= 64) n = 63;
    memcpy(name, entry, n);
    name[n] = 0;
    return true;
}

/* An unknown name: an error when it is a misspelt knob or TIDE_STRICT=1, else a warning. */
static int unknown_name(const tide_config_knobs *t, const tide_config *c, const char *name,
                        char *err, size_t len, char *warn, size_t wlen)
{
    tide_knob_place places[TIDE_CONFIG_NTABLES];
    places_of(t, NULL, places);
    tide_knob_guess g = tide_knob_guess_name(places, TIDE_CONFIG_NTABLES, name);
    if (g.owned) { /* under a table's prefix: that table's line ("not a predictor parameter") */
        tide_config scratch = *c;
        return tide_config_parse(t, &scratch, name, "", err, len);
    }
    if (g.close) {
        snprintf(err, len,
                 "%s is not a Tide variable: did you mean %s? (docs/config.md lists them)", name,
                 g.nearest);
        return TIDE_KNOB_ERR_CONFIG;
    }
    if (c->strict) {
        snprintf(err, len,
                 "%s is not a Tide variable, and TIDE_STRICT=1 makes unknown TIDE_* names errors "
                 "(docs/config.md lists them)",
                 name);
        return TIDE_KNOB_ERR_CONFIG;
    }
    append(warn, wlen, *warn ? ", " : "ignoring ");
    append(warn, wlen, name);
    if (g.nearest) {
        append(warn, wlen, " (did you mean ");
        append(warn, wlen, g.nearest);
        append(warn, wlen, "?)");
    }
    return TIDE_KNOB_OK;
}

int tide_config_read_env(const tide_config_knobs *t, tide_config *c, char *const *env, char *err,
                         size_t len, char *warn, size_t wlen)
{
    *warn = 0;
    char name[64];
    for (char *const *e = env; e && *e; e++) /* knobs first: TIDE_STRICT may come after a name */
        if (env_name(*e, name) && tide_config_row(t, name, NULL)) {
            int rc = tide_config_parse(t, c, name, strchr(*e, '=') + 1, err, len);
            if (rc != TIDE_KNOB_OK) return rc;
        }
    for (char *const *e = env; e && *e; e++)
        if (env_name(*e, name) && !tide_config_row(t, name, NULL)) {
            int rc = unknown_name(t, c, name, err, len, warn, wlen);
            if (rc != TIDE_KNOB_OK) return rc;
        }
    if (*warn)
        append(warn, wlen,
               ": not Tide variables (docs/config.md lists them; TIDE_STRICT=1 makes "
               "this an error)");
    if (tide_model_params_validate(&c->pred, err, len) != TIDE_PRED_OK) return TIDE_KNOB_ERR_CONFIG;
    return TIDE_KNOB_OK;
}
