/* TASKPACK_* environment variables, parsed once at MPI_Init. */
#ifndef TASKPACK_CONFIG_H
#define TASKPACK_CONFIG_H

#include <stddef.h>

enum tp_sync {
    TP_SYNC_NONE,
    TP_SYNC_BARRIER,
    TP_SYNC_ALLREDUCE,
    TP_SYNC_ALLTOALL,
    TP_SYNC_ALLGATHER
};
enum tp_yield { TP_YIELD_OFF, TP_YIELD_YIELD, TP_YIELD_SLEEP };

struct tp_config {
    enum tp_sync sync;   /* TASKPACK_SYNC, default MPI_Barrier */
    int warmup;          /* TASKPACK_WARMUP, default 3 */
    double tol;          /* TASKPACK_TOL, default 0.05 */
    double slack;        /* TASKPACK_SLACK, default 0 */
    int exact_max;       /* TASKPACK_EXACT_MAX, default 16 */
    int apply;           /* TASKPACK_APPLY, default 1 (0: plan and report, move nothing) */
    enum tp_yield yield; /* TASKPACK_YIELD, default off */
    const char *report;  /* TASKPACK_REPORT, default NULL (no JSON) */
};

/* Read the configuration through `get` (getenv in the library, a table in tests). Returns 0, or
 * -1 with one line naming the variable, its value and what is allowed written to err. */
int tp_config_parse(struct tp_config *cfg, const char *(*get)(const char *name), char *err,
                    size_t errlen);

/* Every TASKPACK_* entry of env (an environ-like array) must be one of the variables above, as
 * Tide refuses unknown TIDE_* names. Returns 0, or -1 with one line in err. */
int tp_config_check_names(char *const *env, char *err, size_t errlen);

const char *tp_sync_name(enum tp_sync sync);
const char *tp_yield_name(enum tp_yield yield);

#endif
