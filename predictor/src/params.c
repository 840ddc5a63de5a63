/* The TIDE_PRED_* knobs: defaults, one parser per knob, and the checks across knobs. The error
 * lines follow the runtime's config layer: variable, value, what is allowed. */
#include "tide_predictor.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const solver_names[] = {"ols", "ridge", "robust", NULL};

const char *tide_solver_name(tide_solver s)
{
    return (unsigned)s < 3 ? solver_names[s] : "?";
}

const char *tide_pred_strerror(int code)
{
    switch (code) {
    case TIDE_PRED_OK:
        return "success";
    case TIDE_PRED_NOT_READY:
        return "no prediction yet (model not trained)";
    case TIDE_PRED_DEGENERATE:
        return "data cannot support a fit";
    case TIDE_PRED_ERR_INVALID:
        return "invalid argument";
    case TIDE_PRED_ERR_CONFIG:
        return "invalid predictor parameter";
    case TIDE_PRED_ERR_NOMEM:
        return "out of memory";
    case TIDE_PRED_ERR_TOOL:
        return "tool library could not be loaded";
    default:
        return "unknown predictor status";
    }
}

void tide_model_params_defaults(tide_model_params *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->kind, sizeof p->kind, "auto");
    p->window = 4;
    p->train = 20;
    p->retrain_err = 0.10;
    p->solver = TIDE_SOLVER_OLS;
    p->task_degree = 3;
    p->select = TIDE_SELECT_AUTO;
    p->guard = 2.0;
    p->spike = 2.0;
}

static int bad(char *err, size_t len, const char *name, const char *value, const char *allowed)
{
    if (err && len) snprintf(err, len, "%s='%s' is invalid: expected %s", name, value, allowed);
    return TIDE_PRED_ERR_CONFIG;
}

static int parse_int(const char *name, const char *v, long min, long max, int *out, char *err,
                     size_t len)
{
    char allowed[96];
    snprintf(allowed, sizeof allowed, "an integer in [%ld, %ld]", min, max);
    if (!*v || isspace((unsigned char)*v)) return bad(err, len, name, v, allowed);
    errno = 0;
    char *end;
    long l = strtol(v, &end, 10);
    if (errno || *end || l < min || l > max) return bad(err, len, name, v, allowed);
    *out = (int)l;
    return TIDE_PRED_OK;
}

static const char retrain_allowed[] =
    "a fraction in (0, 100] (0.10 = 10% median absolute percentage error)";
static const char factor_allowed[] = "0 (off) or a factor in (1, 1000]";

static int parse_double(const char *name, const char *v, double *out, const char *allowed,
                        char *err, size_t len)
{
    if (!*v || isspace((unsigned char)*v)) return bad(err, len, name, v, allowed);
    errno = 0;
    char *end;
    double d = strtod(v, &end);
    if (errno || *end || !isfinite(d)) return bad(err, len, name, v, allowed);
    *out = d;
    return TIDE_PRED_OK;
}

static int retrain_ok(double d)
{
    return d > 0 && d <= 100;
}

static int factor_ok(double d)
{
    return d == 0 || (d > 1 && d <= 1000);
}

/* A double knob whose range check is `ok`; the parameter keeps its value on an error. */
static int parse_checked(const char *name, const char *v, double *out, int (*ok)(double),
                         const char *allowed, char *err, size_t len)
{
    double d;
    int rc = parse_double(name, v, &d, allowed, err, len);
    if (rc != TIDE_PRED_OK) return rc;
    if (!ok(d)) return bad(err, len, name, v, allowed);
    *out = d;
    return TIDE_PRED_OK;
}

int tide_model_params_set(tide_model_params *p, const char *name, const char *v, char *err,
                          size_t len)
{
    if (!p || !name || !v) {
        if (err && len) snprintf(err, len, "predictor parameter name and value must not be NULL");
        return TIDE_PRED_ERR_INVALID;
    }
    if (strcmp(name, "TIDE_PRED_MODEL") == 0) {
        if (strcmp(v, "auto") != 0 && !tide_model_ops_find(v)) {
            char allowed[128];
            snprintf(allowed, sizeof allowed, "one of %s", tide_model_ops_names());
            return bad(err, len, name, v, allowed);
        }
        snprintf(p->kind, sizeof p->kind, "%s", v);
        return TIDE_PRED_OK;
    }
    if (strcmp(name, "TIDE_PRED_WINDOW") == 0)
        return parse_int(name, v, 1, 64, &p->window, err, len);
    if (strcmp(name, "TIDE_PRED_TRAIN") == 0)
        return parse_int(name, v, 2, 1000000, &p->train, err, len);
    if (strcmp(name, "TIDE_PRED_RETRAIN_ERR") == 0)
        return parse_checked(name, v, &p->retrain_err, retrain_ok, retrain_allowed, err, len);
    if (strcmp(name, "TIDE_PRED_GUARD") == 0)
        return parse_checked(name, v, &p->guard, factor_ok, factor_allowed, err, len);
    if (strcmp(name, "TIDE_PRED_SPIKE") == 0)
        return parse_checked(name, v, &p->spike, factor_ok, factor_allowed, err, len);
    if (strcmp(name, "TIDE_PRED_SELECT") == 0) {
        if (strcmp(v, "auto") == 0 || strcmp(v, "model") == 0) {
            p->select = strcmp(v, "auto") == 0 ? TIDE_SELECT_AUTO : TIDE_SELECT_MODEL;
            return TIDE_PRED_OK;
        }
        return bad(err, len, name, v, "one of auto, model");
    }
    if (strcmp(name, "TIDE_PRED_TASK_DEGREE") == 0)
        return parse_int(name, v, 1, 4, &p->task_degree, err, len);
    if (strcmp(name, "TIDE_PRED_SOLVER") == 0) {
        for (int i = 0; solver_names[i]; i++) {
            if (strcmp(v, solver_names[i]) == 0) {
                p->solver = (tide_solver)i;
                return TIDE_PRED_OK;
            }
        }
        return bad(err, len, name, v, "one of ols, ridge, robust");
    }
    if (err && len) snprintf(err, len, "%s is not a predictor parameter", name);
    return TIDE_PRED_ERR_CONFIG;
}

int tide_model_params_validate(const tide_model_params *p, char *err, size_t len)
{
    if (!p) return TIDE_PRED_ERR_INVALID;
    char v[32];
    if (p->window < 1 || p->window > 64) {
        snprintf(v, sizeof v, "%d", p->window);
        return bad(err, len, "TIDE_PRED_WINDOW", v, "an integer in [1, 64]");
    }
    if (p->task_degree < 1 || p->task_degree > 4) {
        snprintf(v, sizeof v, "%d", p->task_degree);
        return bad(err, len, "TIDE_PRED_TASK_DEGREE", v, "an integer in [1, 4]");
    }
    if (!retrain_ok(p->retrain_err)) {
        snprintf(v, sizeof v, "%g", p->retrain_err);
        return bad(err, len, "TIDE_PRED_RETRAIN_ERR", v, retrain_allowed);
    }
    if (!factor_ok(p->guard)) {
        snprintf(v, sizeof v, "%g", p->guard);
        return bad(err, len, "TIDE_PRED_GUARD", v, factor_allowed);
    }
    if (!factor_ok(p->spike)) {
        snprintf(v, sizeof v, "%g", p->spike);
        return bad(err, len, "TIDE_PRED_SPIKE", v, factor_allowed);
    }
    if ((unsigned)p->select > TIDE_SELECT_MODEL) {
        snprintf(v, sizeof v, "%d", (int)p->select);
        return bad(err, len, "TIDE_PRED_SELECT", v, "one of auto, model");
    }
    if ((unsigned)p->solver > TIDE_SOLVER_ROBUST) {
        snprintf(v, sizeof v, "%d", (int)p->solver);
        return bad(err, len, "TIDE_PRED_SOLVER", v, "one of ols, ridge, robust");
    }
    /* The rank model has window+1 coefficients and train-window samples; with fewer samples
     * than coefficients + 1 every fit is exact or underdetermined and predicts noise. */
    long need = strcmp(p->kind, "task") == 0 ? 2 : 2L * p->window + 2; /* rank, auto */
    if (p->train < need || p->train > 1000000) {
        char allowed[192];
        snprintf(v, sizeof v, "%d", p->train);
        snprintf(allowed, sizeof allowed,
                 "an integer in [%ld, 1000000] (the %s model needs more samples than "
                 "coefficients with TIDE_PRED_WINDOW=%d)",
                 need, p->kind, p->window);
        return bad(err, len, "TIDE_PRED_TRAIN", v, allowed);
    }
    return TIDE_PRED_OK;
}
