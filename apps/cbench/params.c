/* Parameter files and options of cbench: names, defaults, value parsing and the resolved
 * configuration's printout. Evaluation lives in check.c. */
#include "params.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[CBENCH_NPARAMS] = {
    "n",     "p",       "r",        "lbfreq", "load_unit", "int_op",
    "gcomm", "initmap", "tasksize", "load",   "msgnum",    "msgsize",
};

/* Ranges of the integer simple parameters; wide enough for any machine, narrow enough that a
 * typo (an extra zero or two) is caught before a run that would never end. */
static const int64_t int_min[CBENCH_LOAD_UNIT + 1] = {1, 1, 1, 0, 1};
static const int64_t int_max[CBENCH_LOAD_UNIT + 1] = {10000000, 1000000, 1000000000, 1000000000,
                                                      1000000};

static const char *const int_op_names[] = {"int", "float"};
static const char *const gcomm_names[] = {"ring", "mesh2d", "mesh3d"};

/* Defaults of the parameters that have one; n, p, r and load have none. The block mapping
 * (t*p)/n gives every processing unit n/p consecutive objects, as the paper's default does. */
static const char *const defaults[CBENCH_NPARAMS] = {
    [CBENCH_LBFREQ] = "10",  [CBENCH_LOAD_UNIT] = "1000",  [CBENCH_INT_OP] = "int",
    [CBENCH_GCOMM] = "ring", [CBENCH_INITMAP] = "(t*p)/n", [CBENCH_TASKSIZE] = "0",
    [CBENCH_MSGNUM] = "0",   [CBENCH_MSGSIZE] = "0",
};

const char *cbench_param_name(cbench_param p)
{
    return (unsigned)p < CBENCH_NPARAMS ? names[p] : "?";
}

int cbench_param_lookup(const char *name)
{
    for (int k = 0; k < CBENCH_NPARAMS; k++)
        if (!strcmp(names[k], name)) return k;
    return -1;
}

static int failf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

void cbench_config_init(cbench_config *c)
{
    memset(c, 0, sizeof *c);
    char err[CBENCH_ERR_LEN];
    for (int k = 0; k < CBENCH_NPARAMS; k++)
        if (defaults[k] && cbench_config_set(c, names[k], defaults[k], "default", err, sizeof err))
            abort(); /* only out of memory can fail on the built-in defaults */
}

void cbench_config_free(cbench_config *c)
{
    for (int k = CBENCH_FIRST_EXPR; k < CBENCH_NPARAMS; k++) {
        cbench_expr_free(c->expr[k]);
        c->expr[k] = NULL;
    }
}

static int parse_int(const char *s, int64_t *out)
{
    if (!*s) return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

static int parse_keyword(const char *s, const char *const *words, int nwords)
{
    for (int k = 0; k < nwords; k++)
        if (!strcmp(s, words[k])) return k;
    return -1;
}

/* Which variables each expression may read: initmap and tasksize are evaluated once, when the
 * objects are created, so the iteration i means nothing there. */
static unsigned allowed_vars(cbench_param k)
{
    if (k == CBENCH_INITMAP || k == CBENCH_TASKSIZE)
        return CBENCH_VARS_ALL & ~CBENCH_VAR_BIT(CBENCH_VAR_I);
    return CBENCH_VARS_ALL;
}

static int set_expr(cbench_config *c, int k, const char *value, const char *origin, char *err,
                    size_t len)
{
    cbench_expr_error e;
    cbench_expr *x = cbench_expr_compile(value, allowed_vars(k), &e);
    if (!x) {
        int n = snprintf(err, len, "%s: %s: error at column %d: %s\n", origin, names[k], e.pos + 1,
                         e.msg);
        if (n > 0 && (size_t)n < len)
            cbench_expr_format_caret(err + n, len - (size_t)n, value, e.pos, 4);
        size_t l = strlen(err);
        if (l && err[l - 1] == '\n') err[l - 1] = 0;
        return -1;
    }
    cbench_expr_free(c->expr[k]);
    c->expr[k] = x;
    return 0;
}

int cbench_config_set(cbench_config *c, const char *name, const char *value, const char *origin,
                      char *err, size_t len)
{
    int k = cbench_param_lookup(name);
    if (k < 0)
        return failf(
            err, len,
            "%s: unknown parameter '%s' (known: n, p, r, lbfreq, load_unit, int_op, gcomm, "
            "initmap, tasksize, load, msgnum, msgsize)",
            origin, name);
    if (!*value) return failf(err, len, "%s: %s has no value", origin, name);
    if (k >= CBENCH_FIRST_EXPR) {
        if (set_expr(c, k, value, origin, err, len)) return -1;
    } else if (k == CBENCH_INT_OP || k == CBENCH_GCOMM) {
        const char *const *words = k == CBENCH_INT_OP ? int_op_names : gcomm_names;
        int nwords = k == CBENCH_INT_OP ? 2 : 3;
        int w = parse_keyword(value, words, nwords);
        if (w < 0)
            return failf(err, len, "%s: %s '%s' is invalid: expected %s", origin, name, value,
                         k == CBENCH_INT_OP ? "int or float" : "ring, mesh2d or mesh3d");
        if (k == CBENCH_INT_OP)
            c->int_op = (cbench_int_op)w;
        else
            c->gcomm = (cbench_gcomm)w;
    } else {
        int64_t v;
        if (parse_int(value, &v) || v < int_min[k] || v > int_max[k])
            return failf(err, len, "%s: %s '%s' is invalid: expected an integer in [%lld, %lld]%s",
                         origin, name, value, (long long)int_min[k], (long long)int_max[k],
                         k == CBENCH_LBFREQ ? " (0: never balance)" : "");
        int64_t *field[] = {&c->n, &c->p, &c->r, &c->lbfreq, &c->load_unit};
        *field[k] = v;
    }
    snprintf(c->origin[k], sizeof c->origin[k], "%s", origin);
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* One line, already cut at its newline; `seen` holds the line where each name was set. */
static int read_line(cbench_config *c, char *line, const char *origin, int lineno, int *seen,
                     char *err, size_t len)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *s = trim(line);
    if (!*s) return 0;
    char *eq = strchr(s, '=');
    if (!eq) return failf(err, len, "%s: expected 'name = value', found '%.60s'", origin, s);
    *eq = 0;
    char *name = trim(s), *value = trim(eq + 1);
    int k = cbench_param_lookup(name);
    if (k >= 0 && seen[k])
        return failf(err, len, "%s: %s is set twice (first on line %d)", origin, name, seen[k]);
    if (cbench_config_set(c, name, value, origin, err, len)) return -1;
    seen[k] = lineno;
    return 0;
}

int cbench_config_read(cbench_config *c, const char *text, const char *filename, char *err,
                       size_t len)
{
    int seen[CBENCH_NPARAMS] = {0};
    int lineno = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char *line = malloc(n + 1);
        if (!line) return failf(err, len, "%s: out of memory", filename);
        memcpy(line, s, n);
        line[n] = 0;
        char origin[CBENCH_ORIGIN_LEN];
        snprintf(origin, sizeof origin, "%s:%d", filename, ++lineno);
        int rc = read_line(c, line, origin, lineno, seen, err, len);
        free(line);
        if (rc) return -1;
        s += n + (nl != NULL);
    }
    return 0;
}

/* Parameter files are small; a larger one is a mistake (a binary or a log passed by accident). */
#define MAX_FILE (1 << 20)

int cbench_config_read_file(cbench_config *c, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return failf(err, len, "%s: cannot open: %s", path, strerror(errno));
    char *text = malloc(MAX_FILE + 1);
    size_t n = text ? fread(text, 1, MAX_FILE + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    int rc = -1;
    if (!text)
        failf(err, len, "%s: out of memory", path);
    else if (bad)
        failf(err, len, "%s: cannot read", path);
    else if (n > MAX_FILE)
        failf(err, len, "%s: larger than %d bytes: not a parameter file", path, MAX_FILE);
    else if (memchr(text, 0, n))
        failf(err, len, "%s: contains a NUL byte: not a parameter file", path);
    else {
        text[n] = 0;
        rc = cbench_config_read(c, text, path, err, len);
    }
    free(text);
    return rc;
}

int cbench_config_finish(const cbench_config *c, bool need_p, char *err, size_t len)
{
    static const cbench_param required[] = {CBENCH_N, CBENCH_R, CBENCH_LOAD};
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
        if (!c->origin[required[k]][0])
            return failf(err, len, "%s is not set: give it in the parameter file or as --%s",
                         names[required[k]], names[required[k]]);
    if (need_p && !c->origin[CBENCH_P][0])
        return failf(err, len,
                     "p is not set: a run uses ranks x workers; pass --p P to check the "
                     "expressions with P processing units");
    return 0;
}

void cbench_config_print(FILE *f, const cbench_config *c, const cbench_range *range)
{
    const int64_t ints[] = {c->n, c->p, c->r, c->lbfreq, c->load_unit};
    fprintf(f, "# cbench configuration, resolved\n");
    for (int k = 0; k < CBENCH_NPARAMS; k++) {
        if (!c->origin[k][0]) {
            fprintf(f, "# %s: not set%s\n", names[k],
                    k == CBENCH_P ? " (a run uses ranks x workers)" : "");
            continue;
        }
        fprintf(f, "# %s: from %s", names[k], c->origin[k]);
        if (range && k >= CBENCH_FIRST_EXPR)
            fprintf(f, ", values in [%lld, %lld]", (long long)range[k].min,
                    (long long)range[k].max);
        fputc('\n', f);
        if (k < CBENCH_INT_OP)
            fprintf(f, "%s = %lld\n", names[k], (long long)ints[k]);
        else if (k == CBENCH_INT_OP)
            fprintf(f, "%s = %s\n", names[k], int_op_names[c->int_op]);
        else if (k == CBENCH_GCOMM)
            fprintf(f, "%s = %s\n", names[k], gcomm_names[c->gcomm]);
        else
            fprintf(f, "%s = %s\n", names[k], cbench_expr_source(c->expr[k]));
    }
}
