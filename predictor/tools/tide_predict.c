/* tide-predict: runs the runtime's load model offline on per-phase loads, so a user can replay a
 * run's loads and choose the window and training length before the next run. Every rank's rows
 * go, in file order, through the same tide_model calls the runtime makes, so the predictions are
 * the runtime's.
 *
 * Input: a TIDE_STATS document (docs/stats.md: its phases' L per rank, and the run's TIDE_PRED_*
 * settings from its config as defaults), or a CSV file: a header naming at least phase,rank,load
 * (any order; other columns are features, used by --model task), then one row per phase and
 * rank, phases increasing per rank; a UTF-8 byte order mark before the header is skipped.
 * Exit status: 0, 2 on bad options or input (with file:line), 1 when memory runs out. */
#define _POSIX_C_SOURCE 200809L
#include "json_doc.h"
#include "tide_predictor.h"
#include "tide_predictor_knobs.h"

#include <ctype.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define MAX_COLS 64
#define MAX_KNOBS 32

/* Where a TIDE_PRED_* value came from: errors name an option as the user wrote it. */
enum { FROM_DEFAULT, FROM_FILE, FROM_ENV, FROM_OPTION };

enum { PERSISTENCE, MEDIAN3, NBASE };
static const char *const base_names[NBASE] = {"persistence", "median3"};

/* Errors of one predictor over the phases that had a served prediction. */
typedef struct errors {
    double sq, ape;
    long n, n_ape;
} errors;

typedef struct rank_run {
    long rank;
    long last_phase;
    tide_model *model;
    double recent[3]; /* the last three loads, newest last, for the baselines */
    int nrecent;
    errors base[NBASE];
} rank_run;

typedef struct prediction {
    long phase, rank;
    double load;
    tide_prediction pred;
    int has_pred;
} prediction;

typedef struct run {
    const char *path;
    int stats; /* the input is a TIDE_STATS document, not a CSV file */
    tide_model_params params;
    int from[MAX_KNOBS];           /* per knob row: FROM_* */
    const char *option[MAX_KNOBS]; /* per knob row: the option's value, NULL when not given */
    int json;
    int ncols, col_phase, col_rank, col_load;
    char *names[MAX_COLS];
    rank_run *ranks; /* in order of first appearance: the report's order */
    long nranks, cap_ranks;
    /* Open addressing over rank numbers: index + 1 into ranks, 0 = empty. A power of two,
     * at most half full. */
    long *slots;
    size_t nslots;
    prediction *preds;
    size_t npreds, cap_preds;
} run;

/* The options are the predictor's knob rows that name one (tide_predictor_knobs.h). */
static void usage(FILE *f)
{
    const tide_knob_table *t = tide_model_params_knobs();
    fprintf(f, "usage: tide-predict [OPTION VALUE]... [--json] FILE\n"
               "Replays per-phase loads through the runtime's load model, rank by rank, and says "
               "how well\nits predictions, and the persistence and median-of-3 baselines, "
               "matched the loads.\n"
               "FILE: a TIDE_STATS document (docs/stats.md): its phases' loads L, with the run's "
               "TIDE_PRED_*\n"
               "  settings as defaults; or a CSV file: a header naming phase,rank,load in any "
               "order (other\n"
               "  columns are numeric task features, for --model task), then one row per phase "
               "and rank,\n  phases increasing per rank.\nOptions:\n");
    for (size_t i = 0; i < t->n; i++) {
        const tide_knob *k = &t->rows[i];
        char allowed[256];
        tide_knob_allowed(k, allowed, sizeof allowed);
        if (k->option)
            fprintf(f, "  %-14s %s (%s, default %s)\n", k->option, allowed, k->name, k->def);
    }
    fprintf(f, "  --json         one JSON object instead of text: per rank and overall MSE, MAPE "
               "and the\n"
               "                 baselines', then every (phase, rank) with its load, prediction "
               "and source\n"
               "Defaults: the runtime's, or the run's for a TIDE_STATS file; TIDE_PRED_* "
               "variables, when set,\n"
               "override them, options override both. Exit status: 0; 2 on bad options or input "
               "(FILE:LINE:\nwhat is wrong); 1 when memory runs out. More: docs/predictor.md.\n");
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

/* Rewrites each "TIDE_PRED_X=" in msg whose value the user gave as an option, or left at its
 * default, as the option ("--x "): the spelling the user can act on. Values from the
 * environment keep the variable's name. */
static void name_options(const run *r, char *msg, size_t len)
{
    const tide_knob_table *t = tide_model_params_knobs();
    for (size_t i = 0; i < t->n; i++) {
        const tide_knob *k = &t->rows[i];
        if (!k->option || r->from[i] == FROM_ENV) continue;
        char name[64];
        snprintf(name, sizeof name, "%s=", k->name);
        for (char *at = strstr(msg, name); at; at = strstr(at, name)) {
            size_t nlen = strlen(name), olen = strlen(k->option) + 1;
            size_t tail = strlen(at + nlen) + 1;
            if ((size_t)(at - msg) + olen + tail > len) break;
            memmove(at + olen, at + nlen, tail);
            memcpy(at, k->option, olen - 1);
            at[olen - 1] = ' ';
            at += olen;
        }
    }
}

static void set_param(run *r, size_t row, const char *value, int from)
{
    const tide_knob *k = &tide_model_params_knobs()->rows[row];
    char err[256];
    r->from[row] = from;
    if (tide_model_params_set(&r->params, k->name, value, err, sizeof err) == TIDE_PRED_OK) return;
    if (from == FROM_FILE)
        fail(2, "%s: from the run's config: %s; override it with %s", r->path, err, k->option);
    name_options(r, err, sizeof err);
    fail(2, "%s", err);
}

static long option_row(const char *arg)
{
    const tide_knob_table *t = tide_model_params_knobs();
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].option && strcmp(t->rows[i].option, arg) == 0) return (long)i;
    return -1;
}

static void parse_args(run *r, int argc, char **argv)
{
    _Static_assert(MAX_KNOBS >= 9, "room for every TIDE_PRED_* row");
    if (tide_model_params_knobs()->n > MAX_KNOBS) fail(1, "more knob rows than MAX_KNOBS");
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--json") == 0) {
            r->json = 1;
            continue;
        }
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) usage(stdout), exit(0);
        long row = option_row(argv[a]);
        if (row >= 0) {
            if (a + 1 >= argc) fail(2, "%s needs a value", argv[a]);
            r->option[row] = argv[++a];
        } else if (argv[a][0] == '-' && argv[a][1]) {
            fail(2, "unknown option %s (tide-predict --help lists them)", argv[a]);
        } else if (r->path) {
            fail(2, "one input file expected, got %s and %s", r->path, argv[a]);
        } else {
            r->path = argv[a];
        }
    }
    if (!r->path) fail(2, "no input file (tide-predict --help)");
}

/* The knob row's name in a stats document's config: TIDE_PRED_WINDOW is "pred_window". */
static void config_key(const tide_knob *k, char *key, size_t len)
{
    snprintf(key, len, "%s", k->name + strlen("TIDE_"));
    for (char *c = key; *c; c++)
        *c = (char)tolower((unsigned char)*c);
}

/* The model's parameters: the defaults, then the run's (config, for a stats document), the
 * TIDE_PRED_* variables, the options. */
static void configure(run *r, const json_value *config)
{
    const tide_knob_table *t = tide_model_params_knobs();
    tide_model_params_defaults(&r->params);
    for (size_t i = 0; i < t->n; i++) {
        char key[64], value[64];
        config_key(&t->rows[i], key, sizeof key);
        const json_value *v = json_get(config, key);
        if (!v || r->option[i] || getenv(t->rows[i].name)) continue; /* overridden below */
        if ((v->type != JSON_NUMBER && v->type != JSON_STRING) || v->len >= sizeof value)
            fail(2, "%s: config.%s is not a number or a short string", r->path, key);
        memcpy(value, v->text, v->len);
        value[v->len] = 0;
        set_param(r, i, value, FROM_FILE);
    }
    for (size_t i = 0; i < t->n; i++)
        if (getenv(t->rows[i].name)) set_param(r, i, getenv(t->rows[i].name), FROM_ENV);
    for (size_t i = 0; i < t->n; i++)
        if (r->option[i]) set_param(r, i, r->option[i], FROM_OPTION);
    char err[256];
    if (tide_model_params_validate(&r->params, err, sizeof err) != TIDE_PRED_OK) {
        name_options(r, err, sizeof err);
        fail(2, "%s", err);
    }
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

static size_t slot_of(const run *r, long rank)
{
    uint64_t h = (uint64_t)rank; /* MurmurHash3's finalizer: consecutive ranks scatter */
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
    h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    size_t mask = r->nslots - 1;
    size_t i = (size_t)h & mask;
    while (r->slots[i] && r->ranks[r->slots[i] - 1].rank != rank)
        i = (i + 1) & mask;
    return i;
}

static void grow_slots(run *r)
{
    free(r->slots);
    r->nslots = r->nslots ? 2 * r->nslots : 1024;
    r->slots = calloc(r->nslots, sizeof *r->slots);
    if (!r->slots) fail(1, "out of memory");
    for (long k = 0; k < r->nranks; k++)
        r->slots[slot_of(r, r->ranks[k].rank)] = k + 1;
}

/* The rank's state, created at its first row. */
static rank_run *rank_of(run *r, long rank)
{
    if (2 * ((size_t)r->nranks + 1) > r->nslots) grow_slots(r);
    size_t i = slot_of(r, rank);
    if (r->slots[i]) return &r->ranks[r->slots[i] - 1];
    if (r->nranks == r->cap_ranks) {
        r->cap_ranks = r->cap_ranks ? 2 * r->cap_ranks : 16;
        r->ranks = realloc(r->ranks, sizeof *r->ranks * (size_t)r->cap_ranks);
        if (!r->ranks) fail(1, "out of memory");
    }
    char err[256];
    rank_run *rr = &r->ranks[r->nranks];
    memset(rr, 0, sizeof *rr);
    rr->rank = rank;
    rr->last_phase = -1;
    rr->model = tide_model_create(&r->params, err, sizeof err);
    if (!rr->model) fail(2, "%s", err);
    r->slots[i] = ++r->nranks;
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

static void add_error(errors *e, double pred, double load)
{
    e->sq += (pred - load) * (pred - load);
    e->n++;
    if (load != 0) e->ape += fabs(pred - load) / fabs(load), e->n_ape++;
}

static double median3(const double *v, int n)
{
    if (n < 3) return n == 1 ? v[0] : 0.5 * (v[0] + v[1]);
    double a = v[0], b = v[1], c = v[2];
    return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/* The baselines the model must beat, scored on the same phases as the served prediction. */
static void score_baselines(rank_run *rr, double load)
{
    if (rr->nrecent == 0) return;
    add_error(&rr->base[PERSISTENCE], rr->recent[rr->nrecent - 1], load);
    add_error(&rr->base[MEDIAN3], median3(rr->recent, rr->nrecent), load);
}

static void remember(rank_run *rr, double load)
{
    if (rr->nrecent == 3) rr->recent[0] = rr->recent[1], rr->recent[1] = rr->recent[2];
    rr->recent[rr->nrecent < 3 ? rr->nrecent++ : 2] = load;
}

/* Where row n of the input is, for errors: "FILE:LINE" (CSV) or "FILE: phases[I]" (stats). */
static const char *at(const run *r, long n)
{
    static char where[4200];
    snprintf(where, sizeof where, r->stats ? "%.4000s: phases[%ld]" : "%.4000s:%ld", r->path, n);
    return where;
}

/* One row: predict the phase as the runtime would before it runs, then report its load. */
static void process_row(run *r, long n, long phase, long rank, double load, double *feat, int nfeat)
{
    rank_run *rr = rank_of(r, rank);
    if (phase == rr->last_phase)
        fail(2, "%s: duplicate phase %ld for rank %ld", at(r, n), phase, rank);
    if (phase < rr->last_phase)
        fail(2, "%s: phase %ld of rank %ld comes after phase %ld (phases must increase)", at(r, n),
             phase, rank, rr->last_phase);
    rr->last_phase = phase;

    /* The task model sees each row as one task whose features are the extra columns; so does
     * the task half of the auto model, when there are such columns. */
    int task =
        strcmp(r->params.kind, "task") == 0 || (strcmp(r->params.kind, "auto") == 0 && nfeat);
    tide_task_set ts = {1, nfeat, feat};
    prediction p = {.phase = phase, .rank = rank, .load = load};
    int rc = tide_model_predict_info(rr->model, task ? &ts : NULL, &p.pred);
    if (rc < 0) fail(1, "%s: prediction failed: %s", at(r, n), tide_pred_strerror(rc));
    p.has_pred = rc == TIDE_PRED_OK;
    add_prediction(r, p);
    if (p.has_pred) score_baselines(rr, load);
    remember(rr, load);
    rc = task ? tide_model_observe_phase(rr->model, load, 1, feat, &load, nfeat)
              : tide_model_observe_phase(rr->model, load, 0, NULL, NULL, 0);
    if (rc == TIDE_PRED_ERR_INVALID)
        fail(2, "%s: the model rejected this row (%s)", at(r, n), tide_pred_strerror(rc));
    if (rc < 0) fail(1, "%s: %s", at(r, n), tide_pred_strerror(rc));
}

static void process_csv_row(run *r, long lineno, char **f)
{
    long phase = integer(r, lineno, "phase", f[r->col_phase]);
    long rank = integer(r, lineno, "rank", f[r->col_rank]);
    double load = number(r, lineno, "load", f[r->col_load]);
    double feat[MAX_COLS];
    int nfeat = 0;
    for (int i = 0; i < r->ncols; i++)
        if (i != r->col_phase && i != r->col_rank && i != r->col_load)
            feat[nfeat++] = number(r, lineno, r->names[i], f[i]);
    process_row(r, lineno, phase, rank, load, feat, nfeat);
}

/* A JSON number that is finite (and, for an index, a whole number in [0, 1e15]). */
static int json_number(const json_value *v, double *out, int whole)
{
    if (!v || v->type != JSON_NUMBER) return 0;
    *out = strtod(v->text, NULL);
    return isfinite(*out) && (!whole || (*out == floor(*out) && *out >= 0 && *out <= 1e15));
}

/* A TIDE_STATS document (docs/stats.md): line holds its first line, the rest is still in f. Each
 * phase's L (the loads of each rank's own tasks) is one row per rank, in phase order. */
static void read_stats(run *r, FILE *f, char *line, size_t len)
{
    size_t cap = len + 1 < 65536 ? 65536 : len + 1, n = len;
    char *buf = malloc(cap + 1);
    if (!buf) fail(1, "out of memory");
    memcpy(buf, line, len);
    for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n < cap) continue;
        char *more = realloc(buf, 2 * cap + 1);
        if (!more) fail(1, "out of memory");
        buf = more, cap *= 2;
    }
    if (ferror(f)) fail(2, "%s: cannot read: %s", r->path, strerror(errno));
    char err[256];
    json_value *doc = json_parse(buf, n, err, sizeof err);
    if (!doc) fail(2, "%s:%s (not a TIDE_STATS document)", r->path, err);
    const json_value *schema = json_get(doc, "schema"), *phases = json_get(doc, "phases");
    const json_value *config = json_get(doc, "config");
    if (!schema || schema->type != JSON_STRING || strncmp(schema->text, "tide-stats/", 11) != 0)
        fail(2, "%s: no \"schema\": \"tide-stats/N\" (not a TIDE_STATS document)", r->path);
    if (!phases || phases->type != JSON_ARRAY) fail(2, "%s: \"phases\" is not an array", r->path);
    double ranks = -1;
    if (!json_number(json_get(config, "ranks"), &ranks, 1) || ranks < 1)
        fail(2, "%s: config.ranks is not a positive whole number", r->path);
    configure(r, config);
    for (size_t i = 0; i < phases->len; i++) {
        const json_value *ph = &phases->items[i], *loads = json_get(ph, "L");
        double phase;
        if (!json_number(json_get(ph, "phase"), &phase, 1))
            fail(2, "%s: \"phase\" is not a non-negative whole number", at(r, (long)i));
        if (!loads || loads->type != JSON_ARRAY || loads->len != (size_t)ranks)
            fail(2, "%s: \"L\" is not an array of config.ranks (%.0f) loads", at(r, (long)i),
                 ranks);
        for (size_t k = 0; k < loads->len; k++) {
            double load;
            if (!json_number(&loads->items[k], &load, 0))
                fail(2, "%s: L[%zu] is not a finite number", at(r, (long)i), k);
            process_row(r, (long)i, (long)phase, (long)k, load, NULL, 0);
        }
    }
    json_free(doc);
    free(buf);
}

/* The input: a TIDE_STATS document when its first character (after blanks and a byte order
 * mark) opens a JSON object, else CSV. Read as a stream, so that a pipe works too. */
static void read_input(run *r)
{
    FILE *f = fopen(r->path, "r");
    if (!f) fail(2, "%s: %s", r->path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
        fail(2, "%s: is a directory (expected a CSV file or a TIDE_STATS document)", r->path);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int header = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        char *text = line;
        /* A UTF-8 byte order mark (spreadsheet exports) is not part of the first field. */
        if (lineno == 1 && strncmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3, len -= 3;
        if (lineno == 1 && text[strspn(text, " \t\r\n")] == '{') {
            r->stats = 1;
            read_stats(r, f, text, (size_t)len);
            header = 1;
            break;
        }
        char *nul = memchr(text, 0, (size_t)len);
        if (nul)
            fail(2, "%s:%ld: a NUL byte at column %ld (not a text CSV file?)", r->path, lineno,
                 (long)(nul - text) + 1);
        if (strspn(text, " \t\r\n") == strlen(text)) continue;
        if (!header) {
            configure(r, NULL);
            parse_header(r, text);
            header = 1;
            continue;
        }
        char *fields[MAX_COLS];
        int n = split(text, fields);
        if (n != r->ncols)
            fail(2, "%s:%ld: expected %d fields as in the header, found %d", r->path, lineno,
                 r->ncols, n);
        process_csv_row(r, lineno, fields);
    }
    if (ferror(f)) fail(2, "%s:%ld: cannot read: %s", r->path, lineno + 1, strerror(errno));
    free(line);
    fclose(f);
    if (!header)
        fail(2, "%s:1: empty file (expected a header phase,rank,load or a TIDE_STATS document)",
             r->path);
}

/* JSON has no Inf: a sum of squares that overflowed is reported as undefined. */
static void print_num(double v, int defined)
{
    if (defined && isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

static double mse_of(const errors *e)
{
    return e->n ? e->sq / e->n : 0;
}

static double mape_of(const errors *e)
{
    return e->n_ape ? e->ape / e->n_ape : 0;
}

static void json_errors(const char *name, const errors *e)
{
    printf("\"%s\":{\"mse\":", name);
    print_num(mse_of(e), e->n > 0);
    printf(",\"mape\":");
    print_num(mape_of(e), e->n_ape > 0);
    printf("}");
}

static void json_baselines(const errors *base)
{
    printf(",\"baselines\":{");
    for (int b = 0; b < NBASE; b++) {
        if (b) printf(",");
        json_errors(base_names[b], &base[b]);
    }
    printf("}");
}

static void print_sources(const tide_model_stats *s)
{
    printf(" served by");
    for (int k = TIDE_SRC_MODEL; k < TIDE_SRC_COUNT; k++)
        printf(" %s %ld%s", tide_pred_source_name(k), s->by_source[k],
               k + 1 < TIDE_SRC_COUNT ? "," : "");
}

static void report_rank(const rank_run *rr, int first, int json)
{
    tide_model_stats s;
    tide_model_get_stats(rr->model, &s);
    errors e = {s.sum_sq_err, s.sum_ape, s.predicted, s.n_ape};
    if (json) {
        printf("%s{\"rank\":%ld,\"phases\":%ld,\"predicted\":%ld,\"mse\":", first ? "" : ",",
               rr->rank, s.phases, s.predicted);
        print_num(mse_of(&e), e.n > 0);
        printf(",\"mape\":");
        print_num(mape_of(&e), e.n_ape > 0);
        printf(",\"retrains\":%d,\"fallbacks\":%ld,\"guarded\":%ld,\"spikes\":%ld", s.retrains,
               s.fallbacks, s.guarded, s.spikes);
        json_baselines(rr->base);
        printf("}");
        return;
    }
    printf("rank %ld: %ld phases, %ld predicted, MSE %.6g, MAPE %.3f%% (persistence %.3f%%, "
           "median-of-3 %.3f%%), %d retrains, %ld guarded, %ld spikes filtered;",
           rr->rank, s.phases, s.predicted, mse_of(&e), 100 * mape_of(&e),
           100 * mape_of(&rr->base[PERSISTENCE]), 100 * mape_of(&rr->base[MEDIAN3]), s.retrains,
           s.guarded, s.spikes);
    print_sources(&s);
    printf("\n");
    const char *why = tide_model_fallback_reason(rr->model);
    if (*why) printf("rank %ld: note: %s\n", rr->rank, why);
}

static void json_prediction(const prediction *p, int first)
{
    printf("%s{\"phase\":%ld,\"rank\":%ld,\"load\":%.17g,\"pred\":", first ? "" : ",", p->phase,
           p->rank, p->load);
    print_num(p->pred.load, p->has_pred);
    printf(",\"unc\":");
    print_num(p->pred.unc, p->has_pred);
    printf(",\"source\":\"%s\"", tide_pred_source_name(p->has_pred ? p->pred.source : 0));
    if (p->has_pred && p->pred.source == TIDE_SRC_MODEL)
        printf(",\"model\":\"%s\"", p->pred.model);
    else
        printf(",\"model\":null");
    printf("}");
}

static void report(const run *r)
{
    errors all = {0}, base[NBASE] = {{0}};
    if (r->json) printf("{\"ranks\":[");
    for (long i = 0; i < r->nranks; i++) {
        const rank_run *rr = &r->ranks[i];
        tide_model_stats s;
        tide_model_get_stats(rr->model, &s);
        all.sq += s.sum_sq_err, all.n += s.predicted, all.ape += s.sum_ape, all.n_ape += s.n_ape;
        for (int b = 0; b < NBASE; b++) {
            base[b].sq += rr->base[b].sq, base[b].n += rr->base[b].n;
            base[b].ape += rr->base[b].ape, base[b].n_ape += rr->base[b].n_ape;
        }
        report_rank(rr, i == 0, r->json);
    }
    if (!r->json) {
        printf("overall: %ld predicted, MSE %.6g, MAPE %.3f%%; persistence MAPE %.3f%%, "
               "median-of-3 MAPE %.3f%% (window %d, train %d, model %s, solver %s, select %s, "
               "guard %g, spike %g, retrain-err %g)\n",
               all.n, mse_of(&all), 100 * mape_of(&all), 100 * mape_of(&base[PERSISTENCE]),
               100 * mape_of(&base[MEDIAN3]), r->params.window, r->params.train, r->params.kind,
               tide_solver_name(r->params.solver),
               r->params.select == TIDE_SELECT_AUTO ? "auto" : "model", r->params.guard,
               r->params.spike, r->params.retrain_err);
        return;
    }
    printf("],\"mape\":");
    print_num(mape_of(&all), all.n_ape > 0);
    printf(",\"mse\":");
    print_num(mse_of(&all), all.n > 0);
    json_baselines(base);
    printf(",\"predictions\":[");
    for (size_t i = 0; i < r->npreds; i++)
        json_prediction(&r->preds[i], i == 0);
    printf("]}\n");
}

int main(int argc, char **argv)
{
    run r = {0};
    parse_args(&r, argc, argv);
    read_input(&r);
    report(&r);
    for (long i = 0; i < r.nranks; i++)
        tide_model_destroy(r.ranks[i].model);
    for (int i = 0; i < r.ncols; i++)
        free(r.names[i]);
    free(r.ranks), free(r.slots), free(r.preds);
    return 0;
}
