/* Configuration knobs: one table, one parser per kind of value, used alike for the environment
 * and for tide_config_set(). Every knob is documented in docs/config.md. */
#define _GNU_SOURCE
#include "internal.h"

#include <sched.h>

#include "tide_global.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static int bad(char *err, size_t len, const char *name, const char *value, const char *allowed)
{
    snprintf(err, len, "%s='%s' is invalid: expected %s", name, value, allowed);
    return TIDE_ERR_CONFIG;
}

static int parse_long(const char *name, const char *value, long min, long max, long *out, char *err,
                      size_t len)
{
    char allowed[96];
    snprintf(allowed, sizeof allowed, "an integer in [%ld, %ld]", min, max);
    if (!*value || isspace((unsigned char)*value)) return bad(err, len, name, value, allowed);
    errno = 0;
    char *end;
    long v = strtol(value, &end, 10);
    if (errno || *end || v < min || v > max) return bad(err, len, name, value, allowed);
    *out = v;
    return TIDE_OK;
}

static int parse_double(const char *name, const char *value, double min, double max, double *out,
                        char *err, size_t len)
{
    char allowed[96];
    snprintf(allowed, sizeof allowed, "a number in [%g, %g]", min, max);
    if (!*value || isspace((unsigned char)*value)) return bad(err, len, name, value, allowed);
    errno = 0;
    char *end;
    double v = strtod(value, &end);
    if (errno || *end || !isfinite(v) || v < min || v > max)
        return bad(err, len, name, value, allowed);
    *out = v;
    return TIDE_OK;
}

/* A byte count with an optional K, M or G suffix (powers of 1024). */
static int parse_bytes(const char *name, const char *value, uint64_t *out, char *err, size_t len)
{
    const char *allowed = "a positive byte count, optionally with suffix K, M or G (e.g. 64M)";
    if (!isdigit((unsigned char)*value)) return bad(err, len, name, value, allowed);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(value, &end, 10);
    unsigned shift = 0;
    if (*end == 'K') shift = 10, end++;
    else if (*end == 'M') shift = 20, end++;
    else if (*end == 'G') shift = 30, end++;
    if (errno || *end || v == 0 || v > (UINT64_MAX >> 30)) return bad(err, len, name, value, allowed);
    *out = (uint64_t)v << shift;
    return TIDE_OK;
}

static int parse_choice(const char *name, const char *value, const char *const *choices, int *out,
                        char *err, size_t len)
{
    char allowed[128] = "one of";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(value, choices[i]) == 0) {
            *out = i;
            return TIDE_OK;
        }
        strncat(allowed, i ? ", " : " ", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, choices[i], sizeof allowed - strlen(allowed) - 1);
    }
    return bad(err, len, name, value, allowed);
}

static const char *const bool_names[] = {"0", "1", NULL};
static const char *const offload_names[] = {"rr", "packed", NULL};

const char *tide_offload_name(tide_offload_kind k)
{
    return offload_names[k];
}

/* The task strategies' own knobs (tide_lb.h), declared in each strategy's file. */
static int strategy_knob(const char *name)
{
    size_t n;
    const tide_lb_knob *const *k = tide_lb_all_knobs(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i]->name, name) == 0) return (int)i;
    return -1;
}

static int parse_strategy_knob(const tide_lb_knob *k, const char *v, double *out, char *err,
                               size_t len)
{
    if (k->choices) {
        int i;
        int rc = parse_choice(k->name, v, k->choices, &i, err, len);
        if (rc == TIDE_OK) *out = i;
        return rc;
    }
    if (!k->integer) return parse_double(k->name, v, k->min, k->max, out, err, len);
    long l;
    int rc = parse_long(k->name, v, (long)k->min, (long)k->max, &l, err, len);
    if (rc == TIDE_OK) *out = (double)l;
    return rc;
}

const char *tide_config_lb_knob_name(int i)
{
    size_t n;
    const tide_lb_knob *const *k = tide_lb_all_knobs(&n);
    return i >= 0 && (size_t)i < n ? k[i]->name : NULL;
}

static int set_knob(tide_config *c, const char *name, const char *v, char *err, size_t len)
{
    long l;
    int i, rc;
    if (strcmp(name, "TIDE_THREADS") == 0) {
        rc = parse_long(name, v, 1, 4096, &l, err, len);
        if (rc == TIDE_OK) c->threads = (int)l;
    } else if (strcmp(name, "TIDE_LB") == 0) {
        if (!tide_lb_ops_find(v)) {
            char allowed[160];
            snprintf(allowed, sizeof allowed, "one of %s", tide_lb_names());
            return bad(err, len, name, v, allowed);
        }
        snprintf(c->lb, sizeof c->lb, "%s", v);
        rc = TIDE_OK;
    } else if (strcmp(name, "TIDE_OFFLOAD") == 0) {
        rc = parse_choice(name, v, offload_names, &i, err, len);
        if (rc == TIDE_OK) c->offload = (tide_offload_kind)i;
    } else if (strcmp(name, "TIDE_MAX_INFLIGHT") == 0) {
        rc = parse_bytes(name, v, &c->max_inflight, err, len);
    } else if (strcmp(name, "TIDE_PACK_MAX") == 0) {
        rc = parse_bytes(name, v, &c->pack_max, err, len);
    } else if (strcmp(name, "TIDE_POLL_SPIN") == 0) {
        rc = parse_long(name, v, 0, 100000000, &l, err, len);
        if (rc == TIDE_OK) c->poll_spin = (int)l;
    } else if (strcmp(name, "TIDE_POLL_SLEEP_MAX_US") == 0) {
        rc = parse_long(name, v, 1, 1000000, &l, err, len);
        if (rc == TIDE_OK) c->poll_sleep_max_us = (int)l;
    } else if (strcmp(name, "TIDE_COMM_CPU") == 0) {
        if (strcmp(v, "last") == 0) {
            c->comm_cpu = TIDE_COMM_CPU_LAST;
            return TIDE_OK;
        }
        rc = parse_long(name, v, -1, CPU_SETSIZE - 1, &l, err, len);
        if (rc != TIDE_OK)
            return bad(err, len, name, v, "-1 (not pinned), 'last', or a CPU number");
        c->comm_cpu = (int)l;
    } else if (strcmp(name, "TIDE_STATS") == 0) {
        if (!*v || strlen(v) >= sizeof c->stats_path)
            return bad(err, len, name, v,
                       "a file path shorter than 1024 bytes (unset TIDE_STATS to write none)");
        snprintf(c->stats_path, sizeof c->stats_path, "%s", v);
        rc = TIDE_OK;
    } else if (strcmp(name, "TIDE_QUIET") == 0) {
        rc = parse_choice(name, v, bool_names, &c->quiet, err, len);
    } else if (strcmp(name, "TIDE_VERBOSE") == 0) {
        rc = parse_long(name, v, 0, 2, &l, err, len);
        if (rc == TIDE_OK) c->verbose = (int)l;
    } else if (strcmp(name, "TIDE_SEED") == 0) {
        rc = parse_long(name, v, 0, 2147483647L, &l, err, len);
        if (rc == TIDE_OK) c->seed = (uint64_t)l;
    } else if (strcmp(name, "TIDE_CHECK_EXE") == 0) {
        rc = parse_choice(name, v, bool_names, &c->check_exe, err, len);
    } else if (strcmp(name, "TIDE_ROUND_US") == 0) {
        rc = parse_long(name, v, 10, 1000000, &l, err, len);
        if (rc == TIDE_OK) c->round_us = (int)l;
    } else if (strncmp(name, "TIDE_PRED_", 10) == 0) {
        rc = tide_model_params_set(&c->pred, name, v, err, len) == TIDE_PRED_OK ? TIDE_OK
                                                                                 : TIDE_ERR_CONFIG;
    } else if (strcmp(name, "TIDE_TOOL") == 0) {
        if (!*v || strlen(v) >= sizeof c->tool_path)
            return bad(err, len, name, v, "the path of a tool library (shorter than 1024 bytes)");
        snprintf(c->tool_path, sizeof c->tool_path, "%s", v);
        rc = TIDE_OK;
    } else if (strcmp(name, "TIDE_GLOBAL_LB") == 0) {
        if (!tide_global_find(v)) {
            size_t n;
            const tide_global_strategy *all = tide_global_strategies(&n);
            char allowed[192] = "one of";
            for (size_t k = 0; k < n; k++) {
                strncat(allowed, k ? ", " : " ", sizeof allowed - strlen(allowed) - 1);
                strncat(allowed, all[k].name, sizeof allowed - strlen(allowed) - 1);
            }
            return bad(err, len, name, v, allowed);
        }
        snprintf(c->global_lb, sizeof c->global_lb, "%s", v);
        rc = TIDE_OK;
    } else if (strcmp(name, "TIDE_LB_PERIOD") == 0) {
        rc = parse_long(name, v, 1, 1000000000L, &l, err, len);
        if (rc == TIDE_OK) c->lb_period = (int)l;
    } else if (strcmp(name, "TIDE_REFINE_THRESHOLD") == 0) {
        rc = parse_double(name, v, 1.0, 100.0, &c->global.refine_threshold, err, len);
    } else if (strcmp(name, "TIDE_SMARTLB_THRESHOLD") == 0) {
        rc = parse_double(name, v, 0.0, 0.99, &c->global.smart_threshold, err, len);
    } else if (strcmp(name, "TIDE_COMM_ALPHA") == 0) {
        rc = parse_double(name, v, 0.0, 1.0, &c->global.comm_alpha, err, len);
    } else if (strcmp(name, "TIDE_PACKDROP_TOLERANCE") == 0) {
        rc = parse_double(name, v, 0.0, 10.0, &c->global.packdrop_tolerance, err, len);
    } else if (strcmp(name, "TIDE_GOSSIP_FANOUT") == 0) {
        rc = parse_long(name, v, 1, 1024, &l, err, len);
        if (rc == TIDE_OK) c->global.gossip_fanout = (int32_t)l;
    } else if (strcmp(name, "TIDE_DIST_TARGET_RATIO") == 0) {
        rc = parse_double(name, v, 1.0, 100.0, &c->global.dist_target_ratio, err, len);
    } else if (strcmp(name, "TIDE_DIST_MAX_TRIALS") == 0) {
        rc = parse_long(name, v, 1, 1000000, &l, err, len);
        if (rc == TIDE_OK) c->global.dist_max_trials = (int32_t)l;
    } else if (strcmp(name, "TIDE_DIST_MAX_PHASES") == 0) {
        rc = parse_long(name, v, 1, 1000000, &l, err, len);
        if (rc == TIDE_OK) c->global.dist_max_phases = (int32_t)l;
    } else if (strcmp(name, "TIDE_OBJECTS_STATS") == 0) {
        if (!*v || strlen(v) >= sizeof c->objects_stats_path)
            return bad(err, len, name, v,
                       "a file path shorter than 1024 bytes (unset TIDE_OBJECTS_STATS to write "
                       "none)");
        snprintf(c->objects_stats_path, sizeof c->objects_stats_path, "%s", v);
        rc = TIDE_OK;
    } else if ((i = strategy_knob(name)) >= 0) {
        rc = parse_strategy_knob(tide_lb_all_knobs(&(size_t){0})[i], v, &c->lb_knob[i], err, len);
    } else {
        snprintf(err, len,
                 "%s is not a Tide variable (see docs/config.md; a misspelt knob would "
                 "otherwise be ignored silently)",
                 name);
        return TIDE_ERR_CONFIG;
    }
    return rc;
}

void tide_config_defaults(tide_config *c)
{
    memset(c, 0, sizeof *c);
    c->threads = 0;
    snprintf(c->lb, sizeof c->lb, "none");
    c->offload = TIDE_OFFLOAD_PACKED;
    c->max_inflight = 64ull << 20;
    c->pack_max = 1ull << 20;
    c->poll_spin = 200;
    c->poll_sleep_max_us = 250;
    c->comm_cpu = -1;
    c->quiet = 0;
    c->verbose = 0;
    c->seed = 1;
    c->check_exe = 1;
    c->round_us = 500;
    size_t nk;
    const tide_lb_knob *const *knobs = tide_lb_all_knobs(&nk);
    for (size_t k = 0; k < nk && k < TIDE_LB_KNOBS_MAX; k++)
        c->lb_knob[k] = knobs[k]->def;
    tide_model_params_defaults(&c->pred);
    snprintf(c->global_lb, sizeof c->global_lb, "none");
    c->lb_period = 10;
    tide_global_params_default(&c->global);
}

int tide_config_apply(tide_config *cfg, const char *name, const char *value, char *err, size_t len)
{
    if (!name || !value) {
        snprintf(err, len, "configuration name and value must not be NULL");
        return TIDE_ERR_INVALID;
    }
    return set_knob(cfg, name, value, err, len);
}

/* Values given through tide_config_set() before tide_init(), in the order given. */
#define API_MAX 64
static struct {
    char name[64];
    char value[1024];
} api_values[API_MAX];
static int api_count;

int tide_config_set(const char *name, const char *value)
{
    if (tide_rt_global) return tide_fail(TIDE_ERR_STATE, "tide_config_set after tide_init");
    tide_config scratch;
    tide_config_defaults(&scratch);
    char err[256];
    int rc = tide_config_apply(&scratch, name, value, err, sizeof err);
    if (rc != TIDE_OK) return tide_fail(rc, "%s", err);
    if (strlen(name) >= sizeof api_values[0].name || strlen(value) >= sizeof api_values[0].value)
        return tide_fail(TIDE_ERR_INVALID, "configuration name or value too long");
    int slot = api_count;
    for (int i = 0; i < api_count; i++)
        if (strcmp(api_values[i].name, name) == 0) slot = i;
    if (slot == API_MAX) return tide_fail(TIDE_ERR_NOMEM, "too many tide_config_set values");
    snprintf(api_values[slot].name, sizeof api_values[slot].name, "%s", name);
    snprintf(api_values[slot].value, sizeof api_values[slot].value, "%s", value);
    if (slot == api_count) api_count++;
    return TIDE_OK;
}

void tide_config_forget_api_values(void)
{
    api_count = 0;
}

int tide_config_load(tide_config *cfg, char *err, size_t len)
{
    tide_config_defaults(cfg);
    for (int i = 0; i < api_count; i++) {
        int rc = tide_config_apply(cfg, api_values[i].name, api_values[i].value, err, len);
        if (rc != TIDE_OK) return rc;
    }
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "TIDE_", 5) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        char name[64];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, *e, n);
        name[n] = 0;
        int rc = tide_config_apply(cfg, name, eq + 1, err, len);
        if (rc != TIDE_OK) return rc;
    }
    if (tide_model_params_validate(&cfg->pred, err, len) != TIDE_PRED_OK) return TIDE_ERR_CONFIG;
    return TIDE_OK;
}
