/* TaskPack's knobs as rows of Tide's knob table (knobs/include/tide_knob.h): the one parser
 * reads them, with its ranges and its error line, prefixed "taskpack: " as every line the
 * library prints. Every bad value is an error, never a silent default. */
#include "config.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "tide_knob.h"

static const char *const sync_names[] = {"none",         "MPI_Barrier",   "MPI_Allreduce",
                                         "MPI_Alltoall", "MPI_Allgather", NULL};
static const char *const yield_names[] = {"off", "yield", "sleep", NULL};

const char *tp_sync_name(enum tp_sync sync)
{
    return sync_names[sync];
}

const char *tp_yield_name(enum tp_yield yield)
{
    return yield_names[yield];
}

#define FIELD(member) TIDE_KNOB_FIELD(struct tp_config, member)
/* TOL and SLACK have no upper bound: the words say so instead of "[0, 1.79769e+308]". */
#define NONNEG .min = 0, .max = DBL_MAX, .allowed = "a finite real number >= 0"

static const tide_knob rows[] = {
    {.name = "TASKPACK_SYNC",
     .kind = TIDE_KNOB_CHOICE,
     .def = "MPI_Barrier",
     .choices = sync_names,
     .help = "the collective that ends an iteration; none: only the explicit API does",
     FIELD(sync)},
    {.name = "TASKPACK_WARMUP",
     .kind = TIDE_KNOB_INT,
     .def = "3",
     .min = 0,
     .max = 1000000,
     .help = "iterations ignored before measuring",
     FIELD(warmup)},
    {.name = "TASKPACK_TOL",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "0.05",
     NONNEG,
     .help = "stability tolerance, as a fraction of t_max",
     FIELD(tol)},
    {.name = "TASKPACK_SLACK",
     .kind = TIDE_KNOB_DOUBLE,
     .def = "0",
     NONNEG,
     .help = "accepted slowdown: bins hold t_max x (1 + slack)",
     FIELD(slack)},
    {.name = "TASKPACK_EXACT_MAX",
     .kind = TIDE_KNOB_INT,
     .def = "16",
     .min = 0,
     .max = 20,
     .help = "largest node packed exactly",
     FIELD(exact_max)},
    {.name = "TASKPACK_APPLY",
     .kind = TIDE_KNOB_INT,
     .def = "1",
     .min = 0,
     .max = 1,
     .help = "0: plan and report, move nothing",
     FIELD(apply)},
    {.name = "TASKPACK_YIELD",
     .kind = TIDE_KNOB_CHOICE,
     .def = "off",
     .choices = yield_names,
     .help = "the delimiting collective's wait: MPI's own, sched_yield or 50 us sleeps",
     FIELD(yield)},
    {.name = "TASKPACK_REPORT",
     .kind = TIDE_KNOB_PATH,
     .unset = "no report",
     .help = "where rank 0 writes the JSON report",
     FIELD(report)},
};

const tide_knob_table tp_config_table = {.title = "TaskPack",
                                         .owner = "taskpack",
                                         .rows = rows,
                                         .n = sizeof rows / sizeof *rows,
                                         .prefix = "TASKPACK_",
                                         .what = "a TaskPack variable"};

int tp_config_check_names(char *const *env, char *err, size_t errlen)
{
    for (; env && *env; env++) {
        if (strncmp(*env, "TASKPACK_", 9) != 0) continue;
        char name[65]; /* a longer name is no knob; the line shows its first 64 characters */
        size_t n = strcspn(*env, "=");
        snprintf(name, sizeof name, "%.*s", (int)n, *env);
        if (n >= sizeof name || !tide_knob_find(&tp_config_table, name)) {
            snprintf(err, errlen,
                     "taskpack: %s is not a TaskPack variable (see docs/taskpack.md; a misspelt "
                     "knob would otherwise be ignored silently)",
                     name);
            return -1;
        }
    }
    return 0;
}

int tp_config_parse(struct tp_config *cfg, const char *(*get)(const char *name), char *err,
                    size_t errlen)
{
    char line[256];
    memset(cfg, 0, sizeof *cfg);
    if (tide_knob_defaults(&tp_config_table, cfg, line, sizeof line) != TIDE_KNOB_OK) {
        snprintf(err, errlen, "taskpack: %s", line);
        return -1;
    }
    for (size_t i = 0; i < tp_config_table.n; i++) {
        const tide_knob *k = &tp_config_table.rows[i];
        const char *v = get(k->name);
        if (v && tide_knob_parse(k, cfg, v, line, sizeof line) != TIDE_KNOB_OK) {
            snprintf(err, errlen, "taskpack: %s", line);
            return -1;
        }
    }
    return 0;
}
