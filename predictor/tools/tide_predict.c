/* tide-predict: runs the runtime's load model offline on a CSV of per-phase loads, so a user can
 * choose the window and training length before a run. Every rank's rows go, in file order, through
 * the same tide_model calls the runtime makes, so the predictions are the runtime's.
 *
 * Input: a header naming at least phase,rank,load (any order; other columns are features, used by
 * --model task), then one row per phase and rank, phases increasing per rank. Exit status: 0, 2 on
 * bad options or input (with file:line), 1 when memory runs out. */
#define _POSIX_C_SOURCE 200809L
#include "tide_predictor.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 64

typedef struct rank_run {
    long rank;
    long last_phase;
    tide_model *model;
} rank_run;

typedef struct prediction {
    long phase, rank;
    double load, pred;
    int has_pred;
} prediction;

typedef struct run {
    const char *path;
    tide_model_params params;
    int json;
    int ncols, col_phase, col_rank, col_load;
    char *names[MAX_COLS];
    rank_run *ranks;
    int nranks, cap_ranks;
    prediction *preds;
    size_t npreds, cap_preds;
} run;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tide-predict [--window K] [--train N] [--model rank|task] [--retrain-err X]\n"
            "                    [--solver ols|ridge|robust] [--json] FILE.csv\n"
            "Defaults are the runtime's (TIDE_PRED_* variables, when set, apply first).\n");
}

static _Noreturn void fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tide-predict: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static void set_param(run *r, const char *name, const char *value)
{
    char err[256];
    if (tide_model_params_set(&r->params, name, value, err, sizeof err) != TIDE_PRED_OK)
        fail(2, "%s", err);
}

static void parse_args(run *r, int argc, char **argv)
{
    static const char *const env[] = {"TIDE_PRED_MODEL",  "TIDE_PRED_WINDOW",
                                      "TIDE_PRED_TRAIN",  "TIDE_PRED_RETRAIN_ERR",
                                      "TIDE_PRED_SOLVER", "TIDE_PRED_TASK_DEGREE"};
    static const char *const opt[] = {"--model",       "--window", "--train",
                                      "--retrain-err", "--solver", "--degree"};
    tide_model_params_defaults(&r->params);
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
        if (getenv(env[i])) set_param(r, env[i], getenv(env[i]));
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--json") == 0) {
            r->json = 1;
            continue;
        }
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) usage(stdout), exit(0);
        size_t i = 0;
        while (i < sizeof opt / sizeof opt[0] && strcmp(argv[a], opt[i]) != 0)
            i++;
        if (i < sizeof opt / sizeof opt[0]) {
            if (a + 1 >= argc) fail(2, "%s needs a value", argv[a]);
            set_param(r, env[i], argv[++a]);
        } else if (argv[a][0] == '-' && argv[a][1]) {
            usage(stderr);
            fail(2, "unknown option %s", argv[a]);
        } else if (r->path) {
            fail(2, "one input file expected, got %s and %s", r->path, argv[a]);
        } else {
            r->path = argv[a];
        }
    }
    if (!r->path) usage(stderr), fail(2, "no input file");
    char err[256];
    if (tide_model_params_validate(&r->params, err, sizeof err) != TIDE_PRED_OK) fail(2, "%s", err);
}

/* Splits line in place at commas; trims blanks and a trailing CR. Returns the field count. */
static int split(char *line, char **field)
{
    int n = 0;
    for (char *s = line;; s++) {
        char *end = strchr(s, ',');
        if (end) *end = 0;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len && strchr(" \t\r\n", s[len - 1]))
            s[--len] = 0;
        if (n < MAX_COLS) field[n] = s;
        n++;
        if (!end) break;
        s = end;
    }
    return n;
}

static void parse_header(run *r, char *line)
{
    char *f[MAX_COLS];
    int n = split(line, f);
    if (n > MAX_COLS) fail(2, "%s:1: more than %d columns", r->path, MAX_COLS);
    r->ncols = n;
    for (int i = 0; i < n; i++)
        if (!(r->names[i] = strdup(f[i]))) fail(1, "out of memory");
    r->col_phase = r->col_rank = r->col_load = -1;
    for (int i = 0; i < n; i++) {
        int *col = strcmp(f[i], "phase") == 0  ? &r->col_phase
                   : strcmp(f[i], "rank") == 0 ? &r->col_rank
                   : strcmp(f[i], "load") == 0 ? &r->col_load
                                               : NULL;
        if (!col) continue;
        if (*col >= 0) fail(2, "%s:1: column '%s' appears twice", r->path, f[i]);
        *col = i;
    }
    const char *missing = r->col_phase < 0  ? "phase"
                          : r->col_rank < 0 ? "rank"
                          : r->col_load < 0 ? "load"
                                            : NULL;
    if (missing)
        fail(2, "%s:1: missing column '%s' (the header must name phase,rank,load)", r->path,
             missing);
}

static double number(const run *r, long lineno, const char *col, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno == ERANGE || !isfinite(v))
        fail(2, "%s:%ld: column '%s': '%s' is not a finite number", r->path, lineno, col, s);
    return v;
}

static long integer(const run *r, long lineno, const char *col, const char *s)
{
    double v = number(r, lineno, col, s);
    if (v != floor(v) || v < 0 || v > 1e15)
        fail(2, "%s:%ld: column '%s': '%s' is not a non-negative integer", r->path, lineno, col, s);
    return (long)v;
}

static rank_run *rank_of(run *r, long rank)
{
    for (int i = 0; i < r->nranks; i++)
        if (r->ranks[i].rank == rank) return &r->ranks[i];
    if (r->nranks == r->cap_ranks) {
        r->cap_ranks = r->cap_ranks ? 2 * r->cap_ranks : 16;
        r->ranks = realloc(r->ranks, sizeof *r->ranks * (size_t)r->cap_ranks);
        if (!r->ranks) fail(1, "out of memory");
    }
    char err[256];
    rank_run *rr = &r->ranks[r->nranks];
    rr->rank = rank;
    rr->last_phase = -1;
    rr->model = tide_model_create(&r->params, err, sizeof err);
    if (!rr->model) fail(2, "%s", err);
    r->nranks++;
    return rr;
}

static void add_prediction(run *r, prediction p)
{
    if (r->npreds == r->cap_preds) {
        r->cap_preds = r->cap_preds ? 2 * r->cap_preds : 256;
        r->preds = realloc(r->preds, sizeof *r->preds * r->cap_preds);
        if (!r->preds) fail(1, "out of memory");
    }
    r->preds[r->npreds++] = p;
}

/* One row: predict the phase as the runtime would before it runs, then report its load. */
static void process_row(run *r, long lineno, char **f)
{
    long phase = integer(r, lineno, "phase", f[r->col_phase]);
    long rank = integer(r, lineno, "rank", f[r->col_rank]);
    double load = number(r, lineno, "load", f[r->col_load]);
    double feat[MAX_COLS];
    int nfeat = 0;
    for (int i = 0; i < r->ncols; i++)
        if (i != r->col_phase && i != r->col_rank && i != r->col_load)
            feat[nfeat++] = number(r, lineno, r->names[i], f[i]);
    rank_run *rr = rank_of(r, rank);
    if (phase == rr->last_phase)
        fail(2, "%s:%ld: duplicate phase %ld for rank %ld", r->path, lineno, phase, rank);
    if (phase < rr->last_phase)
        fail(2, "%s:%ld: phase %ld of rank %ld comes after phase %ld (phases must increase)",
             r->path, lineno, phase, rank, rr->last_phase);
    rr->last_phase = phase;

    /* The task model sees each row as one task whose features are the extra columns. */
    int task = strcmp(r->params.kind, "task") == 0;
    tide_task_set ts = {1, nfeat, feat};
    prediction p = {phase, rank, load, 0, 0};
    int rc = tide_model_predict_phase(rr->model, task ? &ts : NULL, &p.pred);
    if (rc < 0) fail(1, "%s:%ld: prediction failed: %s", r->path, lineno, tide_pred_strerror(rc));
    p.has_pred = rc == TIDE_PRED_OK;
    add_prediction(r, p);
    rc = task ? tide_model_observe_phase(rr->model, load, 1, feat, &load, nfeat)
              : tide_model_observe_phase(rr->model, load, 0, NULL, NULL, 0);
    if (rc == TIDE_PRED_ERR_INVALID)
        fail(2, "%s:%ld: the model rejected this row (%s)", r->path, lineno,
             tide_pred_strerror(rc));
    if (rc < 0) fail(1, "%s:%ld: %s", r->path, lineno, tide_pred_strerror(rc));
}

static void read_csv(run *r)
{
    FILE *f = fopen(r->path, "r");
    if (!f) fail(2, "%s: %s", r->path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int header = 0;
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        if (!header) {
            parse_header(r, line);
            header = 1;
            continue;
        }
        char *fields[MAX_COLS];
        int n = split(line, fields);
        if (n != r->ncols)
            fail(2, "%s:%ld: expected %d fields as in the header, found %d", r->path, lineno,
                 r->ncols, n);
        process_row(r, lineno, fields);
    }
    free(line);
    fclose(f);
    if (!header) fail(2, "%s:1: empty file (expected a header phase,rank,load)", r->path);
}

static void print_num(double v, int defined)
{
    if (defined)
        printf("%.17g", v);
    else
        printf("null");
}

static void report(const run *r)
{
    double sq = 0, ape = 0;
    long n = 0, n_ape = 0;
    if (r->json) printf("{\"ranks\":[");
    for (int i = 0; i < r->nranks; i++) {
        tide_model_stats s;
        tide_model_get_stats(r->ranks[i].model, &s);
        sq += s.sum_sq_err, n += s.predicted, ape += s.sum_ape, n_ape += s.n_ape;
        double mse = s.predicted ? s.sum_sq_err / s.predicted : 0;
        double mape = s.n_ape ? s.sum_ape / s.n_ape : 0;
        const char *why = tide_model_fallback_reason(r->ranks[i].model);
        if (r->json) {
            printf("%s{\"rank\":%ld,\"phases\":%ld,\"predicted\":%ld,\"mse\":", i ? "," : "",
                   r->ranks[i].rank, s.phases, s.predicted);
            print_num(mse, s.predicted > 0);
            printf(",\"mape\":");
            print_num(mape, s.n_ape > 0);
            printf(",\"retrains\":%d,\"fallbacks\":%ld}", s.retrains, s.fallbacks);
        } else {
            printf("rank %ld: %ld phases, %ld predicted, MSE %.6g, MAPE %.3f%%, %d retrains\n",
                   r->ranks[i].rank, s.phases, s.predicted, mse, 100 * mape, s.retrains);
            if (*why) printf("rank %ld: note: %s\n", r->ranks[i].rank, why);
        }
    }
    double mse = n ? sq / n : 0, mape = n_ape ? ape / n_ape : 0;
    if (!r->json) {
        printf("overall: %ld predicted, MSE %.6g, MAPE %.3f%% (window %d, train %d, model %s, "
               "solver %s, retrain-err %g)\n",
               n, mse, 100 * mape, r->params.window, r->params.train, r->params.kind,
               tide_solver_name(r->params.solver), r->params.retrain_err);
        return;
    }
    printf("],\"mape\":");
    print_num(mape, n_ape > 0);
    printf(",\"mse\":");
    print_num(mse, n > 0);
    printf(",\"predictions\":[");
    for (size_t i = 0; i < r->npreds; i++) {
        const prediction *p = &r->preds[i];
        printf("%s{\"phase\":%ld,\"rank\":%ld,\"load\":%.17g,\"pred\":", i ? "," : "", p->phase,
               p->rank, p->load);
        print_num(p->pred, p->has_pred);
        printf("}");
    }
    printf("]}\n");
}

int main(int argc, char **argv)
{
    run r = {0};
    parse_args(&r, argc, argv);
    read_csv(&r);
    report(&r);
    for (int i = 0; i < r.nranks; i++)
        tide_model_destroy(r.ranks[i].model);
    for (int i = 0; i < r.ncols; i++)
        free(r.names[i]);
    free(r.ranks), free(r.preds);
    return 0;
}
