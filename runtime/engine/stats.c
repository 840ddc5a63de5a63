/* Phase statistics: every rank keeps all ranks' records (allgathered at each phase end), so
 * tide_stats_last_phase() answers locally and rank 0 writes the JSON document of docs/stats.md. */
#include "internal.h"
#include "tide_json.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void add_sums(tide_phase_log *log, const tide_phase_sums *sums, const tide_rank_record *mine,
                     tide_phase_stats *out);

/* Prediction error over the phases that had a prediction (L_pred >= 0): MSE over all of
 * them, MAPE over those with a nonzero load. */
typedef struct prediction_error {
    double sq, ape;
    int n, n_ape;
} prediction_error;

static void add_error(prediction_error *e, const tide_rank_record *r)
{
    if (r->L_pred < 0) return;
    double d = r->L_pred - r->L;
    e->sq += d * d;
    e->n++;
    if (r->L > 0) {
        e->ape += fabs(d) / r->L;
        e->n_ape++;
    }
}

static void json_error_field(FILE *f, double sum, int n)
{
    if (n)
        fprintf(f, "%.9g", sum / n);
    else
        fprintf(f, "null");
}

/* Who served the predictions (tide_core_feed.h): libtide's kinds are all but the simulator's
 * oracle, which comes last. */
#define SERVED_KINDS TIDE_SERVED_EXACT

/* The served kind of a record, or -1 when it had no prediction (or a kind libtide never serves). */
static int served_kind(const tide_rank_record *r)
{
    int k = tide_feed_served(r->L_pred, r->pred_source, r->pred_model);
    return k < SERVED_KINDS ? k : -1;
}

static const char *const limit_names[TIDE_LB_LIMIT_COUNT] = {"none", "granularity", "uncertainty",
                                                             "capacity"};

/* ---- a phase's numbers over the ranks -------------------------------------------------------- */

/* fmax for numbers that are never NaN, without libm's call (a phase's end takes a few). */
static inline double max_of(double a, double b)
{
    return b > a ? b : a;
}

/* fold_record sets (or adds) each field by name (a memset of the whole, or a compound literal,
 * compiles to a string instruction that costs more than the stores): a new field needs its line
 * there, and this count its term. */
_Static_assert(TIDE_PHASE_SUMS_DOUBLES == 20 + TIDE_SERVED_EXACT + TIDE_LB_LIMIT_COUNT,
               "tide_phase_sums has a field that tide_phase_sums_of does not set");

/* One rank's record folded into sums: set (add false: tide_phase_sums_of) or added to them (add
 * true: a lone rank's record straight into the run's totals, tide_stats_add_lone, the same bits as
 * its sums added). One definition for both, so that they cannot drift apart. Returns the record's
 * own load per worker. */
static inline __attribute__((always_inline)) double
fold_record(tide_phase_sums *out, const tide_rank_record *r, int threads, bool add)
{
#define FOLD(field, value) (out->field = add ? out->field + (value) : (value))
    prediction_error e = {0};
    add_error(&e, r);
    if (r->threads > 0) threads = (int)r->threads;
    FOLD(W, r->W);
    FOLD(L, r->L);
    FOLD(tasks, r->tasks);
    FOLD(offloaded, r->offloaded);
    FOLD(bytes, r->bytes_sent);
    FOLD(replicated, r->replicated);
    FOLD(sq_err, e.sq);
    FOLD(n_err, e.n);
    FOLD(ape_err, e.ape);
    FOLD(n_ape, e.n_ape);
    /* one-hot: the arrays cleared in a few vector stores, then the one set (a loop of
     * comparisons cost 75 instructions a phase) */
    if (!add) {
        memset(out->served, 0, sizeof out->served);
        memset(out->limits, 0, sizeof out->limits);
    }
    int k = served_kind(r);
    if (k >= 0) FOLD(served[k], 1);
    int lim = (int)r->plan_limit;
    if (lim >= 0 && lim < TIDE_LB_LIMIT_COUNT) FOLD(limits[lim], 1);
    FOLD(L_ns, (double)(int64_t)(r->L * 1e9 + 0.5)); /* L >= 0; no libm call in a 1 us phase */
    FOLD(workers, threads);
    FOLD(predicted, r->L_pred >= 0);
    FOLD(W_max, r->W);
    FOLD(task_max, r->task_max);
    FOLD(time, r->time);
    FOLD(gate_tail, r->gate_tail);
    double own_load = threads > 0 ? r->L / threads : 0;
    FOLD(own_load, own_load);
#undef FOLD
    return own_load;
}

void tide_phase_sums_of(const tide_rank_record *r, int threads, tide_phase_sums *out)
{
    fold_record(out, r, threads, false);
    out->step_hi = out->step_neg = 0;
}

/* a[i] += b[i] for n (even) doubles, two at a time (GCC does not vectorize at -O2). */
static void add_doubles(double *restrict a, const double *restrict b, size_t n)
{
    typedef double pair __attribute__((vector_size(16), aligned(8), may_alias));
#pragma GCC unroll 16
    for (size_t i = 0; i < n; i += 2)
        *(pair *)(a + i) += *(const pair *)(b + i);
}

void tide_phase_sums_add(tide_phase_sums *into, const tide_phase_sums *s)
{
    double *a = (double *)into;
    const double *b = (const double *)s;
    /* the sums two at a time (a rank's fold of a 2-rank phase's sums cost 98 instructions) */
    enum { PAIRS_END = TIDE_PHASE_SUMS_MAX_FROM & ~(size_t)1 };
    add_doubles(a, b, PAIRS_END);
    for (size_t i = PAIRS_END; i < TIDE_PHASE_SUMS_MAX_FROM; i++)
        a[i] += b[i];
    for (size_t i = TIDE_PHASE_SUMS_MAX_FROM; i < TIDE_PHASE_SUMS_DOUBLES; i++)
        a[i] = max_of(a[i], b[i]);
}

/* Every rank's records folded, in rank order (the order an allreduce may change only in the
 * sums' last bits). */
void tide_phase_sums_of_all(const tide_rank_record *r, int n, int threads, tide_phase_sums *out)
{
    tide_phase_sums_of(&r[0], threads, out);
    for (int i = 1; i < n; i++) {
        tide_phase_sums one;
        tide_phase_sums_of(&r[i], threads, &one);
        tide_phase_sums_add(out, &one);
    }
}

/* ---- the log -----------------------------------------------------------------------------------
 */

int tide_stats_add_phase(tide_phase_log *log, const tide_rank_record *all, int me,
                         tide_phase_stats *out)
{
    int stored = log->keep_all ? log->nphases : 0;
    if (stored == log->cap) {
        int cap = !log->keep_all ? 1 : log->cap ? 2 * log->cap : 64;
        tide_rank_record *r = realloc(log->records, (size_t)cap * (size_t)log->nranks * sizeof *r);
        if (!r) return TIDE_ERR_NOMEM;
        log->records = r;
        log->cap = cap;
    }
    memcpy(log->records + (size_t)stored * (size_t)log->nranks, all,
           (size_t)log->nranks * sizeof *all);
    tide_phase_sums sums;
    tide_phase_sums_of_all(all, log->nranks, log->threads, &sums);
    add_sums(log, &sums, &all[me], out);
    return TIDE_OK;
}

int tide_stats_add_sums(tide_phase_log *log, const tide_phase_sums *sums,
                        const tide_rank_record *mine, tide_phase_stats *out)
{
    if (log->keep_all) tide_fatal("internal: a log that keeps every record was given only sums");
    add_sums(log, sums, mine, out);
    return TIDE_OK;
}

void tide_stats_free(tide_phase_log *log)
{
    free(log->records);
    memset(log, 0, sizeof *log);
}

static const tide_rank_record *phase_records(const tide_phase_log *log, int phase)
{
    if (log->keep_all) return log->records + (size_t)phase * (size_t)log->nranks;
    if (phase != log->nphases - 1 || !log->records)
        tide_fatal("internal: phase %d's records were not kept (only the last phase's are)", phase);
    return log->records;
}

/* stats_of sets each field by name after `phase` and its padding (a memset of the whole, or a
 * compound literal, compiles to a string instruction that costs more than the stores; and a
 * literal leaves the padding undefined, which a memcmp of two statistics would see): a new field
 * needs its line there, and this count its term. */
_Static_assert(sizeof(tide_phase_stats) ==
                   offsetof(tide_phase_stats, W_max) + 10 * sizeof(double) + 6 * sizeof(int64_t),
               "tide_phase_stats has a field that stats_of does not set");

/* A phase's ideal time: its load spread over every worker, or its longest task. */
static double ideal_time(double L, double task_max, int nranks, int threads)
{
    return max_of(L / ((double)nranks * threads), task_max);
}

/* What a phase's statistics read of its numbers over the ranks: its sums' (phase_of), or a lone
 * rank's record (tide_stats_add_lone). */
typedef struct phase_numbers {
    double W, W_max, L, tasks, offloaded, bytes, time, ideal;
} phase_numbers;

static inline phase_numbers phase_of(const tide_phase_sums *s, int nranks, int threads)
{
    return (phase_numbers){
        s->W,         s->W_max, s->L,    s->tasks,
        s->offloaded, s->bytes, s->time, ideal_time(s->L, s->task_max, nranks, threads)};
}

/* Phase `phase`'s statistics from its numbers over the ranks and rank me's record. */
static inline void stats_of(const phase_numbers *s, const tide_rank_record *mine, int phase,
                            int nranks, tide_phase_stats *out)
{
    memset(out, 0, offsetof(tide_phase_stats, W_max)); /* phase and the padding after it */
    out->phase = phase;
    out->W_max = s->W_max;
    out->W_avg = s->W / nranks;
    out->L_total = s->L;
    out->tasks = (int64_t)s->tasks;
    out->offloaded = (int64_t)s->offloaded;
    out->bytes_moved = (int64_t)s->bytes;
    out->R_imb = out->W_avg > 0 ? out->W_max / out->W_avg - 1 : 0;
    out->ideal = s->ideal;
    /* The phase lasts until its last rank leaves tide_taskwait: under `none` no termination
     * protocol holds a light rank 0 until the heavy ranks finish, so its own time would not do. */
    out->time = s->time;
    out->W_self = mine->W;
    out->L_self = mine->L;
    out->L_pred_self = mine->L_pred;
    out->L_unc_self = mine->L_pred >= 0 ? mine->L_unc : -1;
    out->tasks_self = (int64_t)mine->tasks;
    out->offloaded_self = (int64_t)mine->offloaded;
    out->received_self = (int64_t)mine->received;
}

void tide_stats_compute(const tide_phase_log *log, int phase, int threads, int me,
                        tide_phase_stats *out)
{
    const tide_rank_record *r = phase_records(log, phase);
    tide_phase_sums s;
    tide_phase_sums_of_all(r, log->nranks, log->threads, &s);
    phase_numbers n = phase_of(&s, log->nranks, threads);
    stats_of(&n, &r[me], phase, log->nranks, out);
}

/* The terms of the running totals that are not sums of the phases' sums, and the phase's
 * statistics. */
static inline void phase_logged(tide_phase_log *log, const phase_numbers *n, double own_load,
                                const tide_rank_record *mine, tide_phase_stats *out)
{
    log->ideal += n->ideal;
    /* A rank whose own load fits within the ideal still needs the ideal's time. */
    log->unbalanced += max_of(own_load, n->ideal);
    log->inline_phases += mine->protocol == 0; /* the same on every rank */
    if (out) stats_of(n, mine, log->nphases, log->nranks, out);
    log->nphases++;
}

/* The phase into the running totals, in phase order: every field of its sums added in one
 * vector loop, and the terms that are not sums (adding the totals field by field from the
 * phase's statistics cost 137 instructions a phase, 40 of them for the served and limit
 * counts). */
static void add_sums(tide_phase_log *log, const tide_phase_sums *sums, const tide_rank_record *mine,
                     tide_phase_stats *out)
{
    _Static_assert(TIDE_PHASE_SUMS_DOUBLES % 2 == 0, "add_doubles adds pairs");
    add_doubles((double *)&log->sum, (const double *)sums, TIDE_PHASE_SUMS_DOUBLES);
    phase_numbers n = phase_of(sums, log->nranks, log->threads);
    phase_logged(log, &n, sums->own_load, mine, out);
}

/* A lone rank's phase numbers: its record's (its sums, tide_phase_sums_of, are the same). */
static inline phase_numbers lone_numbers(const tide_phase_log *log, const tide_rank_record *r)
{
    return (phase_numbers){
        r->W,         r->W,          r->L,    r->tasks,
        r->offloaded, r->bytes_sent, r->time, ideal_time(r->L, r->task_max, 1, log->threads)};
}

void tide_stats_add_lone(tide_phase_log *log, const tide_rank_record *r, tide_phase_stats *out)
{
    if (log->keep_all || log->nranks != 1)
        tide_fatal("internal: a lone rank's record given to a log that keeps records or has %d "
                   "ranks",
                   log->nranks);
    double own_load = fold_record(&log->sum, r, log->threads, true);
    phase_numbers n = lone_numbers(log, r);
    phase_logged(log, &n, own_load, r, out);
}

void tide_stats_lone_last(const tide_phase_log *log, const tide_rank_record *r,
                          tide_phase_stats *out)
{
    phase_numbers n = lone_numbers(log, r);
    stats_of(&n, r, log->nphases - 1, log->nranks, out);
}

/* The totals of the phases so far, from the running sums. */
tide_run_totals tide_stats_totals(const tide_phase_log *log)
{
    const tide_phase_sums *s = &log->sum;
    tide_run_totals t;
    memset(&t, 0, sizeof t);
    t.W_par = s->W_max;
    t.W_avg = log->nranks > 0 ? s->W / log->nranks : 0;
    t.time = s->time;
    t.ideal = log->ideal;
    t.unbalanced = log->unbalanced;
    t.tasks = (int64_t)s->tasks;
    t.offloaded = (int64_t)s->offloaded;
    t.replicated = (int64_t)s->replicated;
    t.bytes = (int64_t)s->bytes;
    t.sq_err = s->sq_err, t.n_err = (long)s->n_err;
    t.ape_err = s->ape_err, t.n_ape = (long)s->n_ape;
    for (int k = 0; k < SERVED_KINDS; k++) {
        t.served[k] = (long)s->served[k];
        t.predicted += t.served[k];
    }
    for (int k = 0; k < TIDE_LB_LIMIT_COUNT; k++) {
        t.limits[k] = (long)s->limits[k];
        t.planned += t.limits[k];
    }
    t.inline_phases = log->inline_phases;
    return t;
}

static void json_array(FILE *f, const char *name, const tide_rank_record *r, int n, size_t field,
                       bool integer)
{
    fprintf(f, "\"%s\": [", name);
    for (int i = 0; i < n; i++) {
        double v;
        memcpy(&v, (const char *)&r[i] + field, sizeof v);
        if (integer)
            fprintf(f, "%s%.0f", i ? ", " : "", v);
        else
            fprintf(f, "%s%.17g", i ? ", " : "", v); /* exact: tide-predict can replay it */
    }
    fprintf(f, "]");
}

/* What the proactive plan left on each rank (null when no rank planned this phase). */
static void json_plan(FILE *f, const tide_rank_record *r, int n)
{
    bool planned = false;
    for (int i = 0; i < n; i++)
        planned |= r[i].plan_limit >= 0;
    if (!planned) {
        fprintf(f, ", \"plan_residual\": null, \"plan_limit\": null");
        return;
    }
    fprintf(f, ", ");
    json_array(f, "plan_residual", r, n, offsetof(tide_rank_record, plan_residual), false);
    fprintf(f, ", \"plan_limit\": [");
    for (int i = 0; i < n; i++) {
        int lim = (int)r[i].plan_limit;
        fprintf(f, "%s\"%s\"", i ? ", " : "",
                lim >= 0 && lim < TIDE_LB_LIMIT_COUNT ? limit_names[lim] : "none");
    }
    fprintf(f, "]");
}

/* "config" (the run's settings and the busiest node's workers and cores) and "lb_knobs" (the
 * task strategies' knobs by variable name). */
static void json_config(FILE *f, const tide_config *cfg, const tide_phase_log *log,
                        const tide_node_load *node)
{
    const int nranks = log->nranks, threads = log->threads;
    fprintf(f, "  \"config\": {\"lb\": ");
    tide_json_string(f, cfg->lb);
    fprintf(f,
            ", \"offload\": \"%s\", \"ranks\": %d, \"threads\": %d, "
            "\"max_inflight\": %llu, \"pack_max\": %llu, \"round_us\": %d, \"seed\": %llu,\n"
            "    \"pred_model\": \"%s\", \"pred_window\": %d, \"pred_train\": %d, "
            "\"pred_retrain_err\": %g, \"pred_solver\": \"%s\", \"pred_select\": \"%s\", "
            "\"pred_guard\": %g, \"pred_spike\": %g, "
            "\"node_workers\": %d, \"node_cores\": %d, \"node_ranks\": %d, "
            "\"phase_driver\": \"%s\", \"phase_coll\": \"%s\", \"wait_progress\": \"%s\", "
            "\"clock\": \"%s\", \"version\": \"%d.%d\"},\n",
            tide_offload_name(cfg->offload), nranks, threads, (unsigned long long)cfg->max_inflight,
            (unsigned long long)cfg->pack_max, cfg->round_us, (unsigned long long)cfg->seed,
            cfg->pred.kind, cfg->pred.window, cfg->pred.train, cfg->pred.retrain_err,
            tide_solver_name(cfg->pred.solver),
            cfg->pred.select == TIDE_SELECT_AUTO ? "auto" : "model", cfg->pred.guard,
            cfg->pred.spike, node->workers, node->cores, node->ranks,
            tide_lb_inline_phases(cfg, nranks) ? "application" : "comm",
            log->node_coll ? "shm" : "mpi", tide_wait_progress_name(cfg->wait_progress),
            tide_clock_name(), TIDE_VERSION_MAJOR, TIDE_VERSION_MINOR);
    fprintf(f, "  \"lb_knobs\": {");
    for (int k = 0; tide_config_lb_knob_name(k); k++)
        fprintf(f, "%s\"%s\": %.9g", k ? ", " : "", tide_config_lb_knob_name(k), cfg->lb_knob[k]);
    fprintf(f, "},\n");
}

/* A phase's predictions per rank, or nulls when some rank had none. */
static void json_predictions(FILE *f, const tide_rank_record *r, int n)
{
    bool have_pred = true;
    for (int i = 0; i < n; i++)
        if (r[i].L_pred < 0) have_pred = false;
    if (!have_pred) {
        fprintf(f, "\"L_pred\": null, \"L_unc\": null, \"L_suspect\": null, \"pred_source\": null");
        return;
    }
    json_array(f, "L_pred", r, n, offsetof(tide_rank_record, L_pred), false);
    fprintf(f, ", ");
    json_array(f, "L_unc", r, n, offsetof(tide_rank_record, L_unc), false);
    fprintf(f, ", ");
    json_array(f, "L_suspect", r, n, offsetof(tide_rank_record, L_suspect), false);
    fprintf(f, ", \"pred_source\": [");
    for (int i = 0; i < n; i++) {
        int k = served_kind(&r[i]);
        fprintf(f, "%s\"%s\"", i ? ", " : "", tide_feed_served_name(k));
    }
    fprintf(f, "]");
}

/* Phase p's object in "phases". */
static void json_phase(FILE *f, const tide_phase_log *log, int p)
{
    int n = log->nranks;
    const tide_rank_record *r = phase_records(log, p);
    tide_phase_stats ps;
    tide_stats_compute(log, p, log->threads, 0, &ps);
    double task_max = 0;
    for (int i = 0; i < n; i++)
        if (r[i].task_max > task_max) task_max = r[i].task_max;
    fprintf(f, "%s\n    {\"phase\": %d, \"time\": %.9g, ", p ? "," : "", p, ps.time);
    json_array(f, "W", r, n, offsetof(tide_rank_record, W), false);
    fprintf(f, ", ");
    json_array(f, "L", r, n, offsetof(tide_rank_record, L), false);
    fprintf(f, ", ");
    json_array(f, "L_run", r, n, offsetof(tide_rank_record, L_run), false);
    fprintf(f, ", ");
    json_predictions(f, r, n);
    json_plan(f, r, n);
    fprintf(f, ",\n     ");
    json_array(f, "tasks", r, n, offsetof(tide_rank_record, tasks), true);
    fprintf(f, ", ");
    json_array(f, "offloaded", r, n, offsetof(tide_rank_record, offloaded), true);
    fprintf(f, ", ");
    json_array(f, "received", r, n, offsetof(tide_rank_record, received), true);
    fprintf(f, ", ");
    json_array(f, "cancelled", r, n, offsetof(tide_rank_record, cancelled), true);
    fprintf(f, ", ");
    json_array(f, "bytes_sent", r, n, offsetof(tide_rank_record, bytes_sent), true);
    fprintf(f, ",\n     ");
    json_array(f, "send_bw", r, n, offsetof(tide_rank_record, send_bw), false);
    fprintf(f, ", ");
    json_array(f, "sent_last", r, n, offsetof(tide_rank_record, sent_last), false);
    fprintf(f, ", ");
    json_array(f, "plan_transfer", r, n, offsetof(tide_rank_record, plan_transfer), false);
    fprintf(f, ", ");
    json_array(f, "reclaimed", r, n, offsetof(tide_rank_record, reclaimed), true);
    fprintf(f, ", ");
    json_array(f, "replicated", r, n, offsetof(tide_rank_record, replicated), true);
    fprintf(f, ",\n     \"task_max\": %.9g, \"ideal\": %.9g, \"R_imb\": %.9g, \"protocol\": %s}",
            task_max, ps.ideal, ps.R_imb, r[0].protocol ? "true" : "false");
}

/* "pred_mape_ranks" and "pred_mse_ranks": each rank's prediction error over all phases. */
static void json_rank_errors(FILE *f, const tide_phase_log *log)
{
    for (int pass = 0; pass < 2; pass++) {
        fprintf(f, pass ? ", \"pred_mse_ranks\": [" : ",\n    \"pred_mape_ranks\": [");
        for (int i = 0; i < log->nranks; i++) {
            prediction_error e = {0};
            for (int p = 0; p < log->nphases; p++)
                add_error(&e, &phase_records(log, p)[i]);
            if (i) fprintf(f, ", ");
            if (pass)
                json_error_field(f, e.sq, e.n);
            else
                json_error_field(f, e.ape, e.n_ape);
        }
        fprintf(f, "]");
    }
}

/* The verdict's run totals (docs/stats.md "The verdict"; the words are verdict.c's), in the
 * summary line's time base. */
tide_verdict tide_stats_verdict(const tide_phase_log *log)
{
    tide_run_totals totals = tide_stats_totals(log), *s = &totals;
    tide_verdict v;
    memset(&v, 0, sizeof v);
    v.unbalanced = s->unbalanced;
    v.ideal = s->ideal;
    v.achieved = s->time;
    v.moved = s->offloaded;
    v.phases = log->nphases;
    v.too_short =
        v.achieved < TIDE_VERDICT_MIN_TIME || v.unbalanced < TIDE_VERDICT_MIN_PHASE * log->nphases;
    v.saving = v.unbalanced > 0 ? (v.unbalanced - v.ideal) / v.unbalanced : 0;
    v.balanced = v.saving < TIDE_VERDICT_BALANCED;
    v.recovered =
        v.balanced || v.too_short ? 0 : (v.unbalanced - v.achieved) / (v.unbalanced - v.ideal);
    return v;
}

/* The "summary" object: the run's totals. */
static void json_summary(FILE *f, const tide_phase_log *log)
{
    tide_run_totals s = tide_stats_totals(log);
    fprintf(f,
            "  \"summary\": {\"phases\": %d, \"W_par\": %.9g, \"W_avg\": %.9g, "
            "\"R_imb\": %.9g, \"time_total\": %.9g, \"ideal_time\": %.9g, \"tasks\": %lld, "
            "\"tasks_offloaded\": %lld, \"tasks_replicated\": %lld, \"bytes_moved\": %lld,\n"
            "    \"pred_mape\": ",
            log->nphases, s.W_par, s.W_avg, s.W_avg > 0 ? s.W_par / s.W_avg - 1 : 0, s.time,
            s.ideal, (long long)s.tasks, (long long)s.offloaded, (long long)s.replicated,
            (long long)s.bytes);
    json_error_field(f, s.ape_err, (int)s.n_ape);
    fprintf(f, ", \"pred_mse\": ");
    json_error_field(f, s.sq_err, (int)s.n_err);
    json_rank_errors(f, log);
    fprintf(f, ",\n    \"pred_sources\": {");
    for (int k = 0; k < SERVED_KINDS; k++)
        fprintf(f, "%s\"%s\": %ld", k ? ", " : "", tide_feed_served_name(k), s.served[k]);
    fprintf(f, "}, \"plan_limits\": {");
    for (int k = 0; k < TIDE_LB_LIMIT_COUNT; k++)
        fprintf(f, "%s\"%s\": %ld", k ? ", " : "", limit_names[k], s.limits[k]);
    tide_verdict v = tide_stats_verdict(log);
    fprintf(f,
            "},\n    \"unbalanced_time\": %.9g, \"achieved_time\": %.9g, \"saving\": %.9g, "
            "\"too_short\": %s, ",
            v.unbalanced, v.achieved, v.saving, v.too_short ? "true" : "false");
    if (v.balanced || v.too_short)
        fprintf(f, "\"recovered\": null}");
    else
        fprintf(f, "\"recovered\": %.9g}", v.recovered);
}

void tide_stats_write_json(const tide_phase_log *log, const tide_config *cfg,
                           const tide_node_load *node, FILE *f)
{
    fprintf(f, "{\n  \"schema\": \"tide-stats/2\",\n");
    json_config(f, cfg, log, node);
    fprintf(f, "  \"phases\": [");
    for (int p = 0; p < log->nphases; p++)
        json_phase(f, log, p);
    fprintf(f, "\n  ],\n");
    json_summary(f, log);
    fprintf(f, "\n}\n");
}

/* The warning when the busiest node runs more workers than it has cores. */
static void print_oversubscribed(const tide_node_load *node, FILE *out)
{
    if (node->cores <= 0 || node->workers <= node->cores) return;
    fprintf(out,
            "tide: oversubscribed: %d ranks run %d workers on a node with %d cores, so tasks wait "
            "for a core and every time above includes that wait; run at most %d workers per "
            "node (fewer ranks per node, or OMP_NUM_THREADS / TIDE_THREADS)\n",
            node->ranks, node->workers, node->cores, node->cores);
}

/* The line when the plan gate ran some of a strategy's phases without its protocol, so that a
 * run of react that moved little says why. */
static void print_gated(const tide_phase_log *log, const tide_config *cfg, const tide_run_totals *s,
                        FILE *out)
{
    fprintf(out,
            "tide: the plan gate ran %ld of these %d phases without %s's protocol (as under "
            "none), where it measured that the protocol cost more than it gained "
            "(docs/offload-planner.md, \"The plan gate\"); TIDE_PLAN_GATE=off runs it every "
            "phase\n",
            s->inline_phases, log->nphases, cfg->lb);
}

/* The plan gate's line where it ran phases of a gated strategy idle (print_gated); or the
 * warning when proact ran but never planned: the plan gate held its phases idle, or every phase
 * came before its model could fit. */
static void print_gate_and_plans(const tide_phase_log *log, const tide_config *cfg,
                                 const tide_run_totals *s, FILE *out)
{
    const tide_lb_ops *ops = tide_lb_ops_find(cfg->lb);
    if (!ops || log->nranks < 2 || log->nphases == 0) return;
    if ((ops->flags & TIDE_LB_GATED) && s->inline_phases > 0 &&
        (!(ops->flags & TIDE_LB_PLANS) || s->planned > 0)) {
        print_gated(log, cfg, s, out);
        return;
    }
    if (!(ops->flags & TIDE_LB_PLANS) || s->planned > 0) return;
    if (s->inline_phases > 0) {
        fprintf(out,
                "tide: %s never planned: its plan gate ran %ld of these %d phases without the "
                "protocol (as under none), where a phase's protocol cost more than the "
                "imbalance a plan could remove (docs/offload-planner.md, \"The plan gate\"); "
                "TIDE_PLAN_GATE=off plans every phase\n",
                cfg->lb, s->inline_phases, log->nphases);
        return;
    }
    fprintf(out,
            "tide: proact never planned: in these %d phases its load model never had a "
            "prediction for every rank, so it reacted; the rank model fits after 2 x "
            "TIDE_PRED_WINDOW + 2 = %d phases: run more phases, lower TIDE_PRED_WINDOW, or give "
            "the tasks features (tide_task_set_feature) for the task model (docs/predictor.md)\n",
            log->nphases, 2 * cfg->pred.window + 2);
}

/* TIDE_VERBOSE >= 1: who predicted how well, and what the plans could not balance. */
static void print_details(const tide_run_totals *s, const tide_config *cfg, FILE *out)
{
    if (s->predicted > 0) {
        fprintf(out, "tide: predictions (model %s): MAPE %.3f, served by", cfg->pred.kind,
                s->n_ape ? s->ape_err / s->n_ape : 0.0);
        for (int k = 0, first = 1; k < SERVED_KINDS; k++) {
            if (!s->served[k]) continue;
            fprintf(out, "%s %s %.0f%%", first ? "" : ",", tide_feed_served_name(k),
                    100.0 * s->served[k] / s->predicted);
            first = 0;
        }
        fprintf(out, "\n");
    }
    if (s->limits[TIDE_LB_LIMIT_GRANULARITY] > 0)
        fprintf(out,
                "tide: in %ld of %ld planned rank-phases the surplus left was smaller than the "
                "rank's lightest movable task: finer tasks would let the plan balance more\n",
                s->limits[TIDE_LB_LIMIT_GRANULARITY], s->planned);
}

void tide_stats_print_summary(const tide_phase_log *log, const tide_config *cfg,
                              const tide_node_load *node, FILE *out)
{
    tide_run_totals s = tide_stats_totals(log);
    char replicas[64] = "";
    if (s.replicated > 0)
        snprintf(replicas, sizeof replicas, ", %lld replicas sent", (long long)s.replicated);
    fprintf(out,
            "tide: %d ranks x %d threads, lb=%s, %d phases: time %.3f s (ideal %.3f s), "
            "R_imb %.3f, %lld of %lld tasks offloaded%s, %.1f MiB moved\n",
            log->nranks, log->threads, cfg->lb, log->nphases, s.time, s.ideal,
            s.W_avg > 0 ? s.W_par / s.W_avg - 1 : 0, (long long)s.offloaded, (long long)s.tasks,
            replicas, (double)s.bytes / (1 << 20));
    tide_verdict v = tide_stats_verdict(log);
    char line[768];
    tide_verdict_format(&v, cfg->lb, line, sizeof line);
    fprintf(out, "%s\n", line);
    print_oversubscribed(node, out);
    print_gate_and_plans(log, cfg, &s, out);
    if (cfg->verbose >= 1) print_details(&s, cfg, out);
}
