/* Configuration parsing (see config.h). Every bad value is an error, never a silent default. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sync_names[] = {"none", "MPI_Barrier", "MPI_Allreduce", "MPI_Alltoall",
                                         "MPI_Allgather"};
static const char *const yield_names[] = {"off", "yield", "sleep"};

const char *tp_sync_name(enum tp_sync sync)
{
    return sync_names[sync];
}

const char *tp_yield_name(enum tp_yield yield)
{
    return yield_names[yield];
}

static int bad(char *err, size_t errlen, const char *name, const char *value, const char *allowed)
{
    snprintf(err, errlen, "taskpack: %s='%s' is invalid; allowed: %s", name, value, allowed);
    return -1;
}

static int parse_int(const char *name, const char *v, int lo, int hi, int *out, char *err,
                     size_t errlen)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        char allowed[64];
        snprintf(allowed, sizeof allowed, "an integer from %d to %d", lo, hi);
        return bad(err, errlen, name, v, allowed);
    }
    *out = (int)x;
    return 0;
}

static int parse_nonneg(const char *name, const char *v, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(x) || x < 0)
        return bad(err, errlen, name, v, "a finite real number >= 0");
    *out = x;
    return 0;
}

static int parse_name(const char *name, const char *v, const char *const *names, int count,
                      int *out, char *err, size_t errlen)
{
    char allowed[160] = "";
    for (int i = 0; i < count; i++) {
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return 0;
        }
        strncat(allowed, names[i], sizeof allowed - strlen(allowed) - 1);
        if (i + 1 < count) strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
    }
    return bad(err, errlen, name, v, allowed);
}

static const char *const known_names[] = {"TASKPACK_SYNC",  "TASKPACK_WARMUP",    "TASKPACK_TOL",
                                          "TASKPACK_SLACK", "TASKPACK_EXACT_MAX", "TASKPACK_APPLY",
                                          "TASKPACK_YIELD", "TASKPACK_REPORT"};

int tp_config_check_names(char *const *env, char *err, size_t errlen)
{
    for (; env && *env; env++) {
        if (strncmp(*env, "TASKPACK_", 9) != 0) continue;
        size_t n = strcspn(*env, "=");
        int known = 0;
        for (size_t k = 0; k < sizeof known_names / sizeof *known_names && !known; k++)
            known = strlen(known_names[k]) == n && strncmp(*env, known_names[k], n) == 0;
        if (!known) {
            snprintf(err, errlen,
                     "taskpack: %.*s is not a TaskPack variable (see docs/taskpack.md; a misspelt "
                     "knob would otherwise be ignored silently)",
                     (int)(n < 64 ? n : 64), *env);
            return -1;
        }
    }
    return 0;
}

int tp_config_parse(struct tp_config *cfg, const char *(*get)(const char *name), char *err,
                    size_t errlen)
{
    *cfg = (struct tp_config){.sync = TP_SYNC_BARRIER,
                              .warmup = 3,
                              .tol = 0.05,
                              .slack = 0,
                              .exact_max = 16,
                              .apply = 1,
                              .yield = TP_YIELD_OFF,
                              .report = NULL};
    const char *v;
    int x;
    if ((v = get("TASKPACK_SYNC"))) {
        if (parse_name("TASKPACK_SYNC", v, sync_names, 5, &x, err, errlen)) return -1;
        cfg->sync = (enum tp_sync)x;
    }
    if ((v = get("TASKPACK_WARMUP")) &&
        parse_int("TASKPACK_WARMUP", v, 0, 1000000, &cfg->warmup, err, errlen))
        return -1;
    if ((v = get("TASKPACK_TOL")) && parse_nonneg("TASKPACK_TOL", v, &cfg->tol, err, errlen))
        return -1;
    if ((v = get("TASKPACK_SLACK")) && parse_nonneg("TASKPACK_SLACK", v, &cfg->slack, err, errlen))
        return -1;
    if ((v = get("TASKPACK_EXACT_MAX")) &&
        parse_int("TASKPACK_EXACT_MAX", v, 0, 20, &cfg->exact_max, err, errlen))
        return -1;
    if ((v = get("TASKPACK_APPLY")) &&
        parse_int("TASKPACK_APPLY", v, 0, 1, &cfg->apply, err, errlen))
        return -1;
    if ((v = get("TASKPACK_YIELD"))) {
        if (parse_name("TASKPACK_YIELD", v, yield_names, 3, &x, err, errlen)) return -1;
        cfg->yield = (enum tp_yield)x;
    }
    if ((v = get("TASKPACK_REPORT"))) {
        if (!*v) return bad(err, errlen, "TASKPACK_REPORT", v, "a file path");
        cfg->report = v;
    }
    return 0;
}
