/* Evaluation of cbench's complex parameters with range checks: what the benchmark calls for
 * every object and iteration, and what `cbench --check` runs over a whole configuration to
 * report errors before a run. */
#include "params.h"

#include <string.h>

/* Upper bounds of the values (docs/cbench.md): generous for this kind of benchmark, small enough
 * that a runaway expression is reported instead of allocating or sleeping without end. */
#define MAX_BYTES ((int64_t)1 << 30)
#define MAX_MSGNUM 1000000
#define MAX_LOAD_US ((int64_t)3600 * 1000000) /* one hour per object and iteration */

static int64_t max_value(const cbench_config *c, cbench_param which)
{
    switch (which) {
    case CBENCH_INITMAP:
        return c->p - 1;
    case CBENCH_MSGNUM:
        return MAX_MSGNUM;
    case CBENCH_LOAD:
        return MAX_LOAD_US / c->load_unit;
    default:
        return MAX_BYTES;
    }
}

int cbench_config_eval(const cbench_config *c, cbench_param which, int64_t t, int64_t i,
                       int64_t *value, char *err, size_t len)
{
    const cbench_expr *e = c->expr[which];
    const int64_t vars[CBENCH_NVARS] = {
        [CBENCH_VAR_T] = t,    [CBENCH_VAR_I] = i,    [CBENCH_VAR_N] = c->n,
        [CBENCH_VAR_P] = c->p, [CBENCH_VAR_R] = c->r, [CBENCH_VAR_LBFREQ] = c->lbfreq,
    };
    int pos;
    int status = cbench_expr_eval(e, vars, value, &pos);
    const char *name = cbench_param_name(which);
    const char *src = cbench_expr_source(e);
    if (status != CBENCH_EXPR_OK) {
        int n = snprintf(err, len, "%s (%s): %s at t=%lld, i=%lld in '%s' (column %d)\n", name,
                         c->origin[which], cbench_expr_strerror(status), (long long)t, (long long)i,
                         src, pos + 1);
        if (n > 0 && (size_t)n < len)
            cbench_expr_format_caret(err + n, len - (size_t)n, src, pos, 4);
        size_t l = strlen(err);
        if (l && err[l - 1] == '\n') err[l - 1] = 0;
        return -1;
    }
    int64_t max = max_value(c, which);
    if (*value < 0 || *value > max) {
        if (which == CBENCH_INITMAP)
            snprintf(err, len,
                     "%s (%s) = %lld at t=%lld, i=%lld is outside [0, p) = [0, %lld): '%s'", name,
                     c->origin[which], (long long)*value, (long long)t, (long long)i,
                     (long long)c->p, src);
        else
            snprintf(err, len, "%s (%s) = %lld at t=%lld, i=%lld is outside [0, %lld]: '%s'", name,
                     c->origin[which], (long long)*value, (long long)t, (long long)i,
                     (long long)max, src);
        return -1;
    }
    return 0;
}

static int check_one(const cbench_config *c, cbench_param which, int64_t i, cbench_range *range,
                     char *err, size_t len)
{
    for (int64_t t = 0; t < c->n; t++) {
        int64_t v;
        if (cbench_config_eval(c, which, t, i, &v, err, len)) return -1;
        if (v < range->min) range->min = v;
        if (v > range->max) range->max = v;
    }
    return 0;
}

int cbench_config_check(const cbench_config *c, int64_t max_iters, cbench_range *range, char *err,
                        size_t len)
{
    if (cbench_config_finish(c, true, err, len)) return -1;
    int64_t iters = c->r < max_iters ? c->r : max_iters;
    for (int k = CBENCH_FIRST_EXPR; k < CBENCH_NPARAMS; k++) {
        cbench_range r = {INT64_MAX, INT64_MIN};
        if (k == CBENCH_INITMAP || k == CBENCH_TASKSIZE) {
            if (check_one(c, (cbench_param)k, 0, &r, err, len)) return -1;
        } else {
            for (int64_t i = 1; i <= iters; i++)
                if (check_one(c, (cbench_param)k, i, &r, err, len)) return -1;
        }
        if (range) range[k] = r;
    }
    return 0;
}
