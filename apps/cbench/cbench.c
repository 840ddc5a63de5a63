/* cbench: the expression-driven synthetic benchmark of ComprehensiveBench (docs/cbench.md).
 * The command line: evaluates expressions (--eval), checks parameter files (--check), or runs
 * the benchmark on Tide's objects layer (run.c). */
#include "params.h"
#include "run.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: cbench --eval EXPR [--t T] [--i I] [--n N] [--p P] [--r R] [--lbfreq L]\n"
    "       cbench --check FILE [--check-iters K|all] [--NAME VALUE ...]\n"
    "       cbench [FILE] [--NAME VALUE ...] [--kernel work|sleep] [--json OUT]   (run; MPI)\n"
    "  --eval EXPR     print the value of EXPR; a variable it reads must be given\n"
    "  --check FILE    read FILE, apply the --NAME VALUE overrides, evaluate every expression\n"
    "                  for all t in [0,n) and i = 1..min(r,K), print the resolved configuration\n"
    "  --check-iters K iterations --check evaluates (default 3; all: every iteration)\n"
    "  --NAME VALUE    set a parameter, overriding the file: n p r lbfreq load_unit int_op gcomm\n"
    "                  initmap tasksize load msgnum msgsize (also --NAME=VALUE)\n"
    "  --kernel K      run: work (int_op arithmetic, calibrated on rank 0; default) or sleep\n"
    "  --json OUT      run: rank 0 writes cbench's summary (times, reschedules) to OUT\n"
    "  strategy: TIDE_GLOBAL_LB (every lbfreq iterations; TIDE_LB_PERIOD when lbfreq is not set)\n"
    "exit codes: 0 ok, 1 a run's message or state check failed, 2 bad options, parameters or\n"
    "expressions (also an evaluation error during a run)\n";

#define MAX_OVERRIDES 64
#define CHECK_ITERS 3

typedef struct setting {
    const char *name; /* without the leading "--" */
    const char *value;
} setting;

/* A run starts on every rank of the job, so its command-line errors go through
 * cbench_run_refuse (rank 0 alone says them); --eval, --check and --help run as one process. */
static bool is_run = true;

static int die(const char *msg)
{
    if (is_run) return cbench_run_refuse(msg);
    fprintf(stderr, "cbench: %s\n", msg);
    return 2;
}

static bool has_arg(int argc, char **argv, const char *a, const char *b)
{
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], a) || !strcmp(argv[k], b)) return true;
    return false;
}

/* Splits "--name value" or "--name=value" at argv[*k]; advances *k past the value. */
static int take_option(int argc, char **argv, int *k, setting *s, char *err, size_t len)
{
    const char *arg = argv[*k];
    if (strncmp(arg, "--", 2) || !arg[2]) {
        snprintf(err, len, "unexpected argument '%s' (see cbench --help)", arg);
        return -1;
    }
    static char names[MAX_OVERRIDES][64];
    static int used;
    const char *eq = strchr(arg, '=');
    if (eq) {
        size_t n = (size_t)(eq - arg - 2);
        if (n >= sizeof names[0] || used == MAX_OVERRIDES) {
            snprintf(err, len, "option '%.80s' is invalid", arg);
            return -1;
        }
        memcpy(names[used], arg + 2, n);
        names[used][n] = 0;
        s->name = names[used++];
        s->value = eq + 1;
        return 0;
    }
    if (*k + 1 >= argc) {
        snprintf(err, len, "%s needs a value", arg);
        return -1;
    }
    s->name = arg + 2;
    s->value = argv[++*k];
    return 0;
}

static int find(const setting *s, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(s[k].name, name)) return k;
    return -1;
}

static int parse_i64(const char *s, int64_t *v)
{
    if (!*s) return -1;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}

static int run_eval(const char *src, const setting *opt, int nopt)
{
    char err[CBENCH_ERR_LEN];
    int64_t vars[CBENCH_NVARS] = {0};
    unsigned given = 0;
    for (int k = 0; k < nopt; k++) {
        int v = 0;
        while (v < CBENCH_NVARS && strcmp(opt[k].name, cbench_var_name((cbench_var)v)))
            v++;
        if (v == CBENCH_NVARS) {
            snprintf(err, sizeof err,
                     "--%s is not an option of --eval (variables: --t --i --n --p --r --lbfreq)",
                     opt[k].name);
            return die(err);
        }
        if (given & CBENCH_VAR_BIT(v)) {
            snprintf(err, sizeof err, "--%s is given twice", opt[k].name);
            return die(err);
        }
        if (parse_i64(opt[k].value, &vars[v])) {
            snprintf(err, sizeof err, "--%s '%s' is invalid: expected a 64-bit integer",
                     opt[k].name, opt[k].value);
            return die(err);
        }
        given |= CBENCH_VAR_BIT(v);
    }
    cbench_expr_error e;
    cbench_expr *x = cbench_expr_compile(src, CBENCH_VARS_ALL, &e);
    if (!x) {
        cbench_expr_format_caret(err, sizeof err, src, e.pos, 4);
        fprintf(stderr, "cbench: error at column %d: %s\n%s", e.pos + 1, e.msg, err);
        return 2;
    }
    unsigned missing = cbench_expr_vars(x) & ~given;
    if (missing) {
        int v = __builtin_ctz(missing);
        snprintf(err, sizeof err, "the expression reads %s: pass --%s VALUE",
                 cbench_var_name((cbench_var)v), cbench_var_name((cbench_var)v));
        cbench_expr_free(x);
        return die(err);
    }
    int64_t value;
    int pos;
    int status = cbench_expr_eval(x, vars, &value, &pos);
    if (status != CBENCH_EXPR_OK) {
        fprintf(stderr, "cbench: %s at t=%lld, i=%lld in '%s' (column %d)\n",
                cbench_expr_strerror(status), (long long)vars[CBENCH_VAR_T],
                (long long)vars[CBENCH_VAR_I], src, pos + 1);
        cbench_expr_format_caret(err, sizeof err, src, pos, 4);
        fputs(err, stderr);
        cbench_expr_free(x);
        return 2;
    }
    printf("%lld\n", (long long)value);
    cbench_expr_free(x);
    return 0;
}

/* Reads the file (if any), then applies the options: an option wins over the file whatever the
 * order on the command line. */
static int load_config(cbench_config *c, const char *file, const setting *opt, int nopt, char *err,
                       size_t len)
{
    if (file && cbench_config_read_file(c, file, err, len)) return -1;
    for (int k = 0; k < nopt; k++) {
        char origin[80];
        snprintf(origin, sizeof origin, "--%.60s", opt[k].name);
        if (find(opt, k, opt[k].name) >= 0) {
            snprintf(err, len, "%s is given twice", origin);
            return -1;
        }
        if (cbench_config_set(c, opt[k].name, opt[k].value, origin, err, len)) return -1;
    }
    return 0;
}

static int run_check(const char *file, int64_t iters, const setting *opt, int nopt)
{
    static char err[CBENCH_ERR_LEN];
    cbench_config c;
    cbench_config_init(&c);
    cbench_range range[CBENCH_NPARAMS];
    int rc = load_config(&c, file, opt, nopt, err, sizeof err) ||
             cbench_config_check(&c, iters, range, err, sizeof err);
    if (rc) {
        fprintf(stderr, "cbench: %s\n", err);
    } else {
        cbench_config_print(stdout, &c, range);
        printf("# checked: t in [0, %lld), i in [1, %lld]\n", (long long)c.n,
               (long long)(iters < c.r ? iters : c.r));
    }
    cbench_config_free(&c);
    return rc ? 2 : 0;
}

static int run_benchmark(const char *file, const setting *opt, int nopt, cbench_run_opts *ro,
                         int *argc, char ***argv)
{
    static char err[CBENCH_ERR_LEN];
    cbench_config c;
    cbench_config_init(&c);
    int rc = load_config(&c, file, opt, nopt, err, sizeof err) ||
             cbench_config_finish(&c, false, err, sizeof err);
    if (rc) {
        cbench_config_free(&c);
        return die(err);
    }
    ro->file = file;
    rc = cbench_run(&c, ro, argc, argv);
    cbench_config_free(&c);
    return rc;
}

int main(int argc, char **argv)
{
    static setting opt[MAX_OVERRIDES];
    int nopt = 0;
    const char *eval = NULL, *check = NULL, *file = NULL;
    int64_t check_iters = 0; /* 0: not given */
    char err[512];
    cbench_run_opts ro = {CBENCH_KERNEL_WORK, NULL, NULL, -1};
    bool run_opts = false;
    is_run = !has_arg(argc, argv, "--eval", "--check") && !has_arg(argc, argv, "--help", "-h");
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--eval") || !strcmp(a, "--check")) {
            if (eval || check) return die("--eval and --check are given more than once");
            if (k + 1 >= argc) {
                snprintf(err, sizeof err, "%s needs %s", a,
                         a[2] == 'e' ? "an expression" : "a file");
                return die(err);
            }
            *(a[2] == 'e' ? &eval : &check) = argv[++k];
            continue;
        }
        if (!strcmp(a, "--check-iters")) {
            const char *v = k + 1 < argc ? argv[++k] : "";
            if (!strcmp(v, "all"))
                check_iters = INT64_MAX;
            else if (parse_i64(v, &check_iters) || check_iters < 1) {
                snprintf(err, sizeof err,
                         "--check-iters '%.100s' is invalid: expected a positive integer or all",
                         v);
                return die(err);
            }
            continue;
        }
        if (!strcmp(a, "--test-extra-message")) { /* undocumented in --help: for the tests */
            const char *v = k + 1 < argc ? argv[++k] : "";
            run_opts = true;
            if (parse_i64(v, &ro.extra_message_from) || ro.extra_message_from < 0)
                return die("--test-extra-message needs an object id");
            continue;
        }
        if (!strcmp(a, "--kernel") || !strcmp(a, "--json")) {
            const char *v = k + 1 < argc ? argv[++k] : "";
            run_opts = true;
            if (a[2] == 'j') {
                if (!*v) return die("--json needs a file name");
                ro.json = v;
            } else if (!strcmp(v, "work") || !strcmp(v, "sleep")) {
                ro.kernel = v[0] == 's' ? CBENCH_KERNEL_SLEEP : CBENCH_KERNEL_WORK;
            } else {
                snprintf(err, sizeof err, "--kernel '%.100s' is invalid: expected work or sleep",
                         v);
                return die(err);
            }
            continue;
        }
        if (strncmp(a, "--", 2)) {
            if (file) {
                snprintf(err, sizeof err, "unexpected argument '%.200s': one parameter file only",
                         a);
                return die(err);
            }
            file = a;
            continue;
        }
        if (nopt == MAX_OVERRIDES) return die("too many options");
        if (take_option(argc, argv, &k, &opt[nopt++], err, sizeof err)) return die(err);
    }
    if (eval && file) return die("--eval takes no parameter file");
    if (check && file) return die("--check takes one parameter file, not two");
    if (check_iters && !check) return die("--check-iters needs --check");
    if (run_opts && (eval || check)) return die("--kernel and --json are options of a run");
    if (eval) return run_eval(eval, opt, nopt);
    if (check) return run_check(check, check_iters ? check_iters : CHECK_ITERS, opt, nopt);
    if (!file && nopt == 0)
        return die("nothing to run: give a parameter file or --NAME VALUE options (see cbench "
                   "--help)");
    return run_benchmark(file, opt, nopt, &ro, &argc, &argv);
}
