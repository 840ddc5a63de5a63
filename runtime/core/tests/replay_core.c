/* tide_replay_core: a recorded run (a TIDE_STATS document, docs/stats.md) replayed through the
 * engine core alone, as libtide drives it: per rank a prediction feed (tide_core_feed.h) and a
 * strategy host (tide_core_host.h), all ranks in one process and in lockstep. Per phase every
 * rank's feed predicts, every rank's status record is built as libtide's phase-start allgather
 * builds it (phase.c, allgather_status), every rank's strategy plans from the same records
 * through fake actions that record which tasks go where, and every feed observes the phase.
 * The ranks' phase_begin calls run in one thread each, so that a strategy's collectives (the
 * allgatherv action, as many as it takes) meet as in MPI.
 * It prints the decisions in the core's canonical text (tide_core_decisions.h), which tide-sim
 * --replay --decisions prints too: the equivalence test (sim/tests/equiv.cmake) compares them.
 *
 * What the replay gives each rank, the same in both drivers (docs/sim.md, "Equivalence"): the
 * recorded task count n and load L of each phase, tasks of L / n seconds each (the document
 * holds no per-task times), measured in submission order; the features every task carried and
 * the core frequency (a phase feature) from the document's optional "replay" object, which a
 * TIDE_STATS document lacks and a recording adds (none without it); task bytes 0, so that plans
 * cost no transfer (the bandwidth a plan would see is a measurement of the run's timing). Only
 * the phase-start plan is replayed: reactive moves during a phase depend on timing.
 *
 * With --check-recorded it also compares every served prediction with the L_pred the recorded
 * run's own libtide made (where the document has them) and exits 1 on a relative difference
 * above 1e-9: the replay then predicts as the real run did, not only as tide-sim does.
 *
 * usage: tide_replay_core [--check-recorded] STATS.json   (TIDE_* from the environment) */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "json_doc.h"
#include "tide_core_config.h"
#include "tide_core_decisions.h"
#include "tide_core_feed.h"
#include "tide_core_host.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The ranks' meeting point for the allgatherv action. */
typedef struct replay_coll {
    pthread_barrier_t bar;
    double *buf;
    long cap;
} replay_coll;

typedef struct replay_rank {
    tide_feed feed;
    tide_host host;
    int id, size, phase, threads;
    long ntasks, queued;
    long *count;   /* the plan's tasks per destination */
    int32_t *sel;  /* the plan's destination of each queued task, when it chose them */
    bool selected; /* sel holds this phase's choice */
    replay_coll *coll;
    const tide_rank_status *all; /* this phase's status records, for the thread */
} replay_rank;

static void die(const char *msg)
{
    fprintf(stderr, "tide_replay_core: %s\n", msg);
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) die("out of memory");
    return p;
}

/* libtide's tide_offload_tasks: as many of the queued own tasks as there are, up to n. */
static int act_offload(void *ctx, int dest, int n)
{
    replay_rank *r = ctx;
    int moved = n < r->queued ? n : (int)r->queued;
    if (moved <= 0 || dest < 0 || dest >= r->size || dest == r->id) return 0;
    r->queued -= moved;
    if (r->host.planning) r->count[dest] += moved;
    return moved;
}

static int act_offload_selected(void *ctx, const int32_t *dest, long n)
{
    replay_rank *r = ctx;
    int moved = 0;
    for (long k = 0; k < n && k < r->ntasks; k++) {
        r->sel[k] = dest[k];
        if (dest[k] >= 0 && dest[k] < r->size && dest[k] != r->id) r->count[dest[k]]++, moved++;
    }
    r->selected = true;
    r->queued -= moved;
    return moved;
}

static int act_none(void *ctx, int dest, int n)
{
    (void)ctx, (void)dest, (void)n;
    return 0;
}

static void act_send_control(void *ctx, int dest, const tide_control *msg)
{
    (void)ctx, (void)dest, (void)msg;
}

/* MPI_Allgatherv among the ranks' threads: everyone arrives (the last collective's readers
 * are done), rank 0 sizes the buffer, everyone writes its part, then reads the whole. */
static void act_allgatherv(void *ctx, const double *mine, int n, const int *counts, double *out)
{
    replay_rank *r = ctx;
    replay_coll *c = r->coll;
    long total = 0, at = 0;
    for (int i = 0; i < r->size; i++) {
        if (i == r->id) at = total;
        total += counts[i];
    }
    if (n != counts[r->id]) die("an allgatherv whose own count is not counts[rank]");
    pthread_barrier_wait(&c->bar);
    if (r->id == 0 && total > c->cap) {
        free(c->buf);
        c->buf = xcalloc((size_t)total, sizeof *c->buf);
        c->cap = total;
    }
    pthread_barrier_wait(&c->bar);
    if (n > 0) memcpy(c->buf + at, mine, (size_t)n * sizeof *mine);
    pthread_barrier_wait(&c->bar);
    if (total > 0) memcpy(out, c->buf, (size_t)total * sizeof *out);
}

static int act_task_coef(void *ctx, double *out, int max)
{
    return tide_feed_task_coef(&((replay_rank *)ctx)->feed, out, max);
}

static bool act_adopt_task_coef(void *ctx, const double *coef, int n, double *load)
{
    return tide_feed_adopt(&((replay_rank *)ctx)->feed, coef, n, load);
}

static void *phase_begin(void *arg)
{
    replay_rank *r = arg;
    tide_host_phase_begin(&r->host, r->all, NULL);
    return NULL;
}

/* libtide's tide_predict_task_times: the task model's weight of each queued task in queue
 * order, which is submission order before the phase starts. */
static bool act_task_times(void *ctx, double *times, long n)
{
    replay_rank *r = ctx;
    if (!r->feed.per_task) return false;
    for (long k = 0; k < n; k++)
        times[k] = tide_feed_weight(&r->feed, k);
    return n == r->queued;
}

static void act_fatal(void *ctx, const char *msg)
{
    (void)ctx;
    die(msg);
}

static int act_reclaim(void *ctx, int n)
{
    (void)ctx, (void)n;
    return 0;
}

static void numbers(void *ctx, tide_lb_view *v)
{
    replay_rank *r = ctx;
    v->rank = r->id;
    v->size = r->size;
    v->phase = r->phase;
    v->running = true;
    v->stopping = false;
    v->now = 0;
    v->phase_tasks = r->ntasks;
    v->queued = r->queued;
    v->queued_in = 0;
    v->outgoing = 0;
    v->threads = r->threads;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open the recording");
    size_t cap = 1 << 16, n = 0, got;
    char *buf = xcalloc(cap + 1, 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) die("out of memory");
            buf = b, cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static double num(const json_value *v, const char *what)
{
    if (!v || v->type != JSON_NUMBER) die(what);
    return strtod(v->text, NULL);
}

/* replay.task_features (up to TIDE_MAX_FEATURES numbers) and replay.mhz, when present. */
static int replay_extras(const json_value *doc, double *feat, double *mhz)
{
    const json_value *rp = json_get(doc, "replay"), *f = json_get(rp, "task_features");
    *mhz = 0;
    if (json_get(rp, "mhz")) *mhz = num(json_get(rp, "mhz"), "replay.mhz is not a number");
    if (!f) return 0;
    if (f->type != JSON_ARRAY || f->len > 8) die("replay.task_features: up to 8 numbers");
    for (size_t i = 0; i < f->len; i++)
        feat[i] = num(&f->items[i], "replay.task_features: up to 8 numbers");
    return (int)f->len;
}

/* n rows of the features every task carries. */
static double *task_rows(const double *feat, int nfeat, long n)
{
    double *rows = xcalloc((size_t)n * (size_t)nfeat, sizeof *rows);
    for (long k = 0; k < n; k++)
        memcpy(rows + k * nfeat, feat, (size_t)nfeat * sizeof *feat);
    return rows;
}

/* Rank i's served prediction against the recorded L_pred of phase ph (null: not compared). */
static int check_recorded(const json_value *ph, int i, const tide_feed *f)
{
    const json_value *lp = json_get(ph, "L_pred");
    if (!lp || lp->type != JSON_ARRAY || i >= (int)lp->len) return 0;
    double want = num(&lp->items[i], "L_pred is not a number");
    if (f->load >= 0 && fabs(f->load - want) <= 1e-9 * fabs(want)) return 0;
    fprintf(stderr, "tide_replay_core: phase %d rank %d: predicted %.17g, the run %.17g\n",
            (int)num(json_get(ph, "phase"), "no phase number"), i, f->load, want);
    return 1;
}

static void rank_arrays(const json_value *ph, int size, double *L, long *n)
{
    const json_value *l = json_get(ph, "L"), *t = json_get(ph, "tasks");
    if (!l || !t || l->type != JSON_ARRAY || t->type != JSON_ARRAY || (int)l->len != size ||
        (int)t->len != size)
        die("a phase lacks per-rank L or tasks arrays");
    for (int i = 0; i < size; i++) {
        L[i] = num(&l->items[i], "L is not a number");
        n[i] = (long)num(&t->items[i], "tasks is not a number");
    }
}

/* libtide's allgather_status at phase start, with task bytes 0 and no bandwidth measured. */
static tide_rank_status status_of(const replay_rank *r)
{
    return (tide_rank_status){.ntasks = (double)r->ntasks,
                              .L_pred = r->feed.load,
                              .queued = (double)r->queued,
                              .outstanding = (double)r->ntasks,
                              .task_pred = r->feed.per_task ? 1 : 0,
                              .L_unc = r->feed.unc,
                              .threads = r->threads,
                              .phase = r->phase + 1};
}

int main(int argc, char **argv)
{
    bool check = argc == 3 && strcmp(argv[1], "--check-recorded") == 0;
    if (argc != 2 && !check) die("usage: tide_replay_core [--check-recorded] STATS.json");
    const char *path = argv[argc - 1];
    int wrong = 0;
    char err[512], warn[512];
    tide_config_knobs knobs;
    tide_config cfg;
    tide_config_knobs_build(&knobs);
    tide_config_init(&knobs, &cfg);
    if (tide_config_read_env(&knobs, &cfg, environ, err, sizeof err, warn, sizeof warn) != 0)
        die(err);
    size_t len;
    char *text = read_all(path, &len);
    json_value *doc = json_parse(text, len, err, sizeof err);
    if (!doc) die(err);
    const json_value *conf = json_get(doc, "config"), *phases = json_get(doc, "phases");
    if (!conf || !phases || phases->type != JSON_ARRAY) die("no config or phases[]");
    int size = (int)num(json_get(conf, "ranks"), "no config.ranks");
    int threads = cfg.threads > 0 ? cfg.threads : (int)num(json_get(conf, "threads"), "threads");
    if (size < 1 || threads < 1) die("config.ranks and config.threads must be positive");
    const tide_lb_ops *ops = tide_lb_ops_find(cfg.lb);
    if (!ops) die("unknown TIDE_LB");
    double feat[8], mhz;
    int nfeat = replay_extras(doc, feat, &mhz);
    size_t nall;
    tide_lb_all_knobs(&nall);
    if (nall > TIDE_LB_KNOBS_MAX) nall = TIDE_LB_KNOBS_MAX;

    replay_rank *rk = xcalloc((size_t)size, sizeof *rk);
    pthread_t *tid = xcalloc((size_t)size, sizeof *tid);
    replay_coll coll = {.buf = NULL, .cap = 0};
    if (pthread_barrier_init(&coll.bar, NULL, (unsigned)size) != 0) die("no barrier");
    tide_rank_status *all = xcalloc((size_t)size, sizeof *all);
    double *L = xcalloc((size_t)size, sizeof *L);
    long *n = xcalloc((size_t)size, sizeof *n);
    for (int i = 0; i < size; i++) {
        replay_rank *r = &rk[i];
        r->id = i, r->size = size, r->threads = threads, r->coll = &coll;
        r->count = xcalloc((size_t)size, sizeof *r->count);
        if (tide_feed_init(&r->feed, &cfg.pred, NULL, mhz > 0, err, sizeof err) != 0) die(err);
        tide_lb_actions a = {.ctx = r,
                             .offload = act_offload,
                             .offload_selected = act_offload_selected,
                             .replicate = act_none,
                             .send_control = act_send_control,
                             .allgatherv = act_allgatherv,
                             .task_times = act_task_times,
                             .fatal = act_fatal,
                             .reclaim = act_reclaim,
                             .task_coef = act_task_coef,
                             .adopt_task_coef = act_adopt_task_coef};
        tide_host_driver d = {.ctx = r, .numbers = numbers};
        if (tide_host_init(&r->host, cfg.lb, cfg.lb_knob, nall, cfg.seed, i, &a, &d, err,
                           sizeof err) != 0)
            die(err);
    }

    /* The plans print after all predictions, as tide-sim writes them. */
    size_t nph = phases->len;
    char *plans = NULL;
    size_t plans_len = 0;
    FILE *plan_out = open_memstream(&plans, &plans_len);
    if (!plan_out) die("out of memory");
    for (size_t p = 0; p < nph; p++) {
        rank_arrays(&phases->items[p], size, L, n);
        for (int i = 0; i < size; i++) {
            replay_rank *r = &rk[i];
            r->phase = (int)p, r->ntasks = r->queued = n[i], r->selected = false;
            memset(r->count, 0, (size_t)size * sizeof *r->count);
            free(r->sel);
            r->sel = xcalloc((size_t)n[i], sizeof *r->sel);
            double *rows = task_rows(feat, nfeat, n[i]);
            tide_feed_predict(&r->feed, &(tide_feed_tasks){n[i], nfeat, rows, NULL});
            free(rows);
            tide_decisions_pred(stdout, (int)p, i, &r->feed);
            if (check) wrong += check_recorded(&phases->items[p], i, &r->feed);
        }
        if (ops->flags & TIDE_LB_PHASE_SYNC) {
            for (int i = 0; i < size; i++)
                all[i] = status_of(&rk[i]), rk[i].all = all;
            for (int i = 0; i < size; i++)
                if (pthread_create(&tid[i], NULL, phase_begin, &rk[i]) != 0)
                    die("cannot start a rank's thread");
            for (int i = 0; i < size; i++)
                pthread_join(tid[i], NULL);
            for (int i = 0; i < size; i++)
                tide_decisions_plan(plan_out, (int)p, i, size, rk[i].count,
                                    rk[i].selected ? rk[i].sel : NULL, n[i]);
        }
        for (int i = 0; i < size; i++) { /* n tasks of L / n seconds, added up as they end */
            double *times = xcalloc((size_t)n[i], sizeof *times), load = 0;
            double *rows = task_rows(feat, nfeat, n[i]);
            for (long k = 0; k < n[i]; k++)
                load += times[k] = L[i] / (double)n[i];
            tide_feed_tasks done = {n[i], nfeat, rows, times};
            tide_feed_observe(&rk[i].feed, load, &done, (long)p, mhz);
            free(times), free(rows);
        }
    }
    fclose(plan_out);
    fputs(plans, stdout);
    free(plans);
    for (int i = 0; i < size; i++) {
        tide_host_free(&rk[i].host);
        tide_feed_free(&rk[i].feed);
        free(rk[i].count), free(rk[i].sel);
    }
    pthread_barrier_destroy(&coll.bar);
    free(rk), free(tid), free(coll.buf), free(all), free(L), free(n), free(text);
    json_free(doc);
    return wrong ? 1 : 0;
}
