/* The cbench expression language: C integer expressions over the run-time variables t and i and
 * the simple parameters, compiled once to a small stack bytecode and evaluated many times.
 * Pure C, no MPI; the grammar and the semantics are documented in docs/cbench.md. */
#ifndef CBENCH_EXPR_H
#define CBENCH_EXPR_H

#include <stddef.h>
#include <stdint.h>

/* The variables an expression may read, in the order of the value array given to the
 * evaluator. */
typedef enum cbench_var {
    CBENCH_VAR_T,      /* object id, 0 <= t < n */
    CBENCH_VAR_I,      /* iteration, 0 < i <= r */
    CBENCH_VAR_N,      /* number of objects */
    CBENCH_VAR_P,      /* number of processing units */
    CBENCH_VAR_R,      /* number of iterations */
    CBENCH_VAR_LBFREQ, /* iterations between two load-balancing steps */
    CBENCH_NVARS
} cbench_var;

#define CBENCH_VAR_BIT(v) (1u << (v))
#define CBENCH_VARS_ALL ((1u << CBENCH_NVARS) - 1u)

/* Evaluation results: 0 or one of these. */
enum {
    CBENCH_EXPR_OK = 0,
    CBENCH_EXPR_DIV_ZERO = -1, /* x / 0 */
    CBENCH_EXPR_MOD_ZERO = -2, /* x % 0 */
    CBENCH_EXPR_OVERFLOW = -3, /* a result outside int64 (also INT64_MIN / -1 and -INT64_MIN) */
};

/* Longest accepted source text, deepest nesting: bounds that keep compile time, the evaluator's
 * fixed stack and the parser's recursion small whatever the input (the parser is fuzzed). */
#define CBENCH_EXPR_MAX_LEN 4096
#define CBENCH_EXPR_MAX_DEPTH 64

typedef struct cbench_expr cbench_expr;

/* Why a compilation failed: a message (no newline, no position) and the 0-based column of the
 * offending character in the source (equal to the length when the text ended too early). */
typedef struct cbench_expr_error {
    int pos;
    char msg[160];
} cbench_expr_error;

/* Compiles `src`. `allowed` is a mask of CBENCH_VAR_BIT()s; a variable outside it is a compile
 * error. Returns the compiled expression (free with cbench_expr_free), or NULL with *err filled
 * in (a syntax error, an unknown or unavailable name, or out of memory). */
cbench_expr *cbench_expr_compile(const char *src, unsigned allowed, cbench_expr_error *err);

void cbench_expr_free(cbench_expr *e);

/* Evaluates `e` with vars[CBENCH_NVARS] (unused entries are not read). Returns CBENCH_EXPR_OK with
 * the value in *value, or a negative CBENCH_EXPR_* with the column of the failing operator in
 * *err_pos when err_pos is not NULL. Never undefined behaviour, whatever the values. */
int cbench_expr_eval(const cbench_expr *e, const int64_t *vars, int64_t *value, int *err_pos);

/* The mask of the variables `e` reads. */
unsigned cbench_expr_vars(const cbench_expr *e);

/* The source text `e` was compiled from. */
const char *cbench_expr_source(const cbench_expr *e);

/* Name of a variable as written in expressions ("t", "lbfreq"). */
const char *cbench_var_name(cbench_var v);

/* One-line description of a CBENCH_EXPR_* result ("division by zero"). */
const char *cbench_expr_strerror(int status);

/* Writes the source on one line (tabs and unprintable bytes as single characters, so columns
 * stay aligned) and a caret under column `pos` on the next, each line starting with `indent`
 * spaces and ending with a newline. Returns what snprintf returns. */
int cbench_expr_format_caret(char *buf, size_t len, const char *src, int pos, int indent);

#endif
