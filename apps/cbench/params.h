/* cbench's configuration: the simple and complex (expression) parameters of ComprehensiveBench,
 * read from a parameter file and `--name value` options, and checked by evaluating every
 * expression. Pure C, no MPI: the benchmark parses on every rank, or on one and broadcasts the
 * text. docs/cbench.md lists the parameters, their defaults and ranges. */
#ifndef CBENCH_PARAMS_H
#define CBENCH_PARAMS_H

#include "expr.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cbench_param {
    /* simple parameters: integers or keywords */
    CBENCH_N,
    CBENCH_P,
    CBENCH_R,
    CBENCH_LBFREQ,
    CBENCH_LOAD_UNIT,
    CBENCH_INT_OP,
    CBENCH_GCOMM,
    /* complex parameters: expressions of t, i and the integer simple parameters */
    CBENCH_INITMAP,
    CBENCH_TASKSIZE,
    CBENCH_LOAD,
    CBENCH_MSGNUM,
    CBENCH_MSGSIZE,
    CBENCH_NPARAMS
} cbench_param;

#define CBENCH_FIRST_EXPR CBENCH_INITMAP

typedef enum cbench_int_op { CBENCH_WORK_INT, CBENCH_WORK_FLOAT } cbench_int_op;
typedef enum cbench_gcomm { CBENCH_RING, CBENCH_MESH2D, CBENCH_MESH3D } cbench_gcomm;

/* Room for an error: one line plus an expression and its caret. */
#define CBENCH_ERR_LEN (3 * CBENCH_EXPR_MAX_LEN + 512)
#define CBENCH_ORIGIN_LEN 256

typedef struct cbench_config {
    int64_t n, p, r, lbfreq;
    int64_t load_unit; /* microseconds per load unit: 1000 makes load milliseconds (the paper's) */
    cbench_int_op int_op;
    cbench_gcomm gcomm;
    cbench_expr *expr[CBENCH_NPARAMS]; /* complex parameters only; NULL until set */
    /* where each value came from ("scen.cbench:7", "--load", "default"); "" while unset */
    char origin[CBENCH_NPARAMS][CBENCH_ORIGIN_LEN];
} cbench_config;

/* The smallest and largest value an expression took during cbench_config_check. */
typedef struct cbench_range {
    int64_t min, max;
} cbench_range;

/* Name as written in files and options ("lbfreq"), and the reverse (-1 when unknown). */
const char *cbench_param_name(cbench_param p);
int cbench_param_lookup(const char *name);

/* Sets the defaults (docs/cbench.md); n, r and load stay unset, p too (the run uses ranks x
 * workers). */
void cbench_config_init(cbench_config *c);

void cbench_config_free(cbench_config *c);

/* Sets parameter `name` from the text `value`, remembering `origin` for later messages. Returns
 * 0, or -1 with the reason in err: "<origin>: <what is wrong>" on one line, followed for an
 * expression syntax error by the expression and a caret under the error. */
int cbench_config_set(cbench_config *c, const char *name, const char *value, const char *origin,
                      char *err, size_t len);

/* Reads a parameter file's text: `name = value` per line, `#` starts a comment, blank lines are
 * skipped, a name may appear once. Messages start with "<filename>:<line>: ". */
int cbench_config_read(cbench_config *c, const char *text, const char *filename, char *err,
                       size_t len);

/* cbench_config_read on the contents of `path`. */
int cbench_config_read_file(cbench_config *c, const char *path, char *err, size_t len);

/* Checks that the required parameters are set (and p too when need_p). Returns 0 or -1. */
int cbench_config_finish(const cbench_config *c, bool need_p, char *err, size_t len);

/* Evaluates complex parameter `which` for object t at iteration i (initmap and tasksize are
 * evaluated at creation: use i = 0) and checks the value's range: initmap in [0, p), the others
 * in [0, their documented maximum]. Returns 0 with *value, or -1 with a message naming the
 * parameter, its origin, t, i, the expression and a caret under the failing operator. */
int cbench_config_eval(const cbench_config *c, cbench_param which, int64_t t, int64_t i,
                       int64_t *value, char *err, size_t len);

/* Evaluates every complex parameter for all t in [0, n), at creation for initmap and tasksize
 * and for i = 1..min(r, max_iters) for the others, reporting the first error. Fills range[] of
 * the complex parameters when range is not NULL. Needs p. */
int cbench_config_check(const cbench_config *c, int64_t max_iters, cbench_range *range, char *err,
                        size_t len);

/* Writes the configuration as a parameter file that cbench_config_read accepts, each value
 * preceded by a comment with its origin (and its checked range when range is not NULL). */
void cbench_config_print(FILE *f, const cbench_config *c, const cbench_range *range);

#endif
