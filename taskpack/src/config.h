/* TASKPACK_* environment variables, parsed once at MPI_Init. */
#ifndef TASKPACK_CONFIG_H
#define TASKPACK_CONFIG_H

#include <stddef.h>

#include "tide_knob.h"

enum tp_sync {
    TP_SYNC_NONE,
    TP_SYNC_BARRIER,
    TP_SYNC_ALLREDUCE,
    TP_SYNC_ALLTOALL,
    TP_SYNC_ALLGATHER
};
enum tp_yield { TP_YIELD_OFF, TP_YIELD_YIELD, TP_YIELD_SLEEP };

/* The knobs' values; their names, defaults and ranges are the rows of tp_config_table. */
struct tp_config {
    enum tp_sync sync;   /* TASKPACK_SYNC */
    int warmup;          /* TASKPACK_WARMUP */
    double tol;          /* TASKPACK_TOL */
    double slack;        /* TASKPACK_SLACK */
    int exact_max;       /* TASKPACK_EXACT_MAX */
    int apply;           /* TASKPACK_APPLY (0: plan and report, move nothing) */
    enum tp_yield yield; /* TASKPACK_YIELD */
    char report[4096];   /* TASKPACK_REPORT, "" when unset (no JSON) */
};

/* The TASKPACK_* rows of Tide's knob table (knobs/include/tide_knob.h), parsed by its parser. */
extern const tide_knob_table tp_config_table;

/* Read the configuration through `get` (getenv in the library, a table in tests): the defaults,
 * then every variable `get` returns. Returns 0, or -1 with one line naming the variable, its value
 * and what is allowed written to err ("taskpack: TASKPACK_TOL='-1' is invalid: expected ..."). */
int tp_config_parse(struct tp_config *cfg, const char *(*get)(const char *name), char *err,
                    size_t errlen);

/* Every TASKPACK_* entry of env (an environ-like array) must be one of the variables above, as
 * Tide refuses unknown TIDE_* names. Returns 0, or -1 with one line in err. */
int tp_config_check_names(char *const *env, char *err, size_t errlen);

const char *tp_sync_name(enum tp_sync sync);
const char *tp_yield_name(enum tp_yield yield);

#endif
