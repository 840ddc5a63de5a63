/* Load prediction on the comm thread, libtide's driver of the engine core's prediction feed
 * (runtime/core, tide_core_feed.h): the feed decides what the model is fed and asked; this file
 * supplies the numbers. With a model that sees task features (`task`, `auto`, a tool's) the
 * features of every own task and its measured time are collected: features as the phase
 * admits its tasks (task.c: tide_task_admit), times when the task completes, wherever it ran. The
 * model trains after the workers are released, so training overlaps the next phase. The core
 * frequency (a phase feature) and the application's cost hints are this driver's own. */
#define _GNU_SOURCE
#include "internal.h"
#include "tide_plan.h"

#include <sched.h>

#include <stdlib.h>
#include <string.h>

/* The per-task samples of one phase. Two buffers: one fills while the other is observed. */
typedef struct sample_buf {
    double *feat; /* n x TIDE_MAX_FEATURES */
    double *time; /* n */
    long n, cap;
} sample_buf;

static sample_buf bufs[2];
static int filling;
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
static bool collect;

/* The current frequency of the CPU this thread runs on, in MHz, from cpufreq (sysfs) or
 * /proc/cpuinfo; 0 when the machine exposes neither (then the feature is left out, never
 * made up). */
static double core_mhz(void)
{
    int cpu = sched_getcpu();
    if (cpu < 0) return 0;
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
    FILE *f = fopen(path, "r");
    double v = 0;
    if (f) {
        long khz;
        if (fscanf(f, "%ld", &khz) == 1 && khz > 0) v = khz / 1000.0;
        fclose(f);
        if (v > 0) return v;
    }
    f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[256];
    int proc = -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "processor : %d", &proc) == 1) continue;
        double mhz;
        if (proc == cpu && sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz > 0) {
            v = mhz;
            break;
        }
    }
    fclose(f);
    return v;
}

/* The core frequency, a phase feature, read at most every FREQ_REFRESH seconds: a read costs
 * 5-40 us (/proc/cpuinfo formats every CPU's entry: 35 us on a 2-core VM), more than a whole
 * fine-grained phase, and a frequency changes on a scale of milliseconds. Phases longer than
 * that each get a fresh reading. */
#define FREQ_REFRESH 0.01
static double freq_mhz, freq_read_at;

static double phase_mhz(double now)
{
    if (freq_read_at < 0 || now - freq_read_at >= FREQ_REFRESH) {
        double v = core_mhz();
        if (v > 0) freq_mhz = v; /* a failed read keeps the last: the feature count is fixed */
        freq_read_at = now;
    }
    return freq_mhz;
}

/* TIDE_PREDICT=auto: the model runs only for what reads its predictions (docs/config.md): a
 * strategy that plans from them on more than one rank, the statistics and the trace, a tool.
 * Otherwise a phase skips the feature capture, the prediction and the learning (the largest part
 * of a fine-grained phase's cost after the collective, docs/archive/metg-notes.md). */
static bool model_read(const tide_rt *rt)
{
    const tide_config *c = &rt->cfg;
    /* A strategy that plans reads the model, unless every phase runs inline (one rank). */
    bool plans = (rt->lb.ops->flags & TIDE_LB_PLANS) && !rt->inline_phases;
    return c->predict == TIDE_PREDICT_ON || plans || c->stats_path[0] || c->trace_path[0] ||
           c->tool_path[0];
}

int tide_predict_init(tide_rt *rt, char *err, size_t len)
{
    if (rt->cfg.tool_path[0]) {
        if (tide_tool_load(rt->cfg.tool_path, &rt->tool, err, len) != TIDE_PRED_OK)
            return TIDE_ERR_CONFIG;
        rt->have_tool = true;
    }
    /* The frequency is a phase feature when the machine exposes it, decided once so that the
     * number of phase features stays the same all run long. */
    if (tide_feed_init(&rt->feed, &rt->cfg.pred, rt->have_tool ? &rt->tool : NULL, core_mhz() > 0,
                       err, len) != 0) {
        if (rt->have_tool) tide_tool_unload(&rt->tool);
        rt->have_tool = false;
        return TIDE_ERR_CONFIG;
    }
    freq_read_at = -1;
    rt->predicting = model_read(rt);
    collect = rt->predicting && rt->feed.collect;
    filling = 0;
    return TIDE_OK;
}

void tide_predict_finalize(tide_rt *rt)
{
    tide_feed_free(&rt->feed);
    if (rt->have_tool) tide_tool_unload(&rt->tool);
    rt->have_tool = false;
    for (int i = 0; i < 2; i++) {
        free(bufs[i].feat);
        free(bufs[i].time);
        memset(&bufs[i], 0, sizeof bufs[i]);
    }
}

/* Called by tide_task_admit (the phase's start): records the task's features and gives it its
 * sample index. */
void tide_predict_capture(tide_task *t)
{
    t->sample = -1;
    if (!collect) return;
    pthread_mutex_lock(&capture_lock);
    sample_buf *b = &bufs[filling];
    if (b->n == b->cap) {
        long cap = b->cap ? 2 * b->cap : 256;
        double *f = realloc(b->feat, (size_t)cap * TIDE_MAX_FEATURES * sizeof *f);
        if (f) b->feat = f;
        double *tm = realloc(b->time, (size_t)cap * sizeof *tm);
        if (tm) b->time = tm;
        if (f && tm) b->cap = cap;
    }
    if (b->n < b->cap) { /* out of memory: this task simply gives no sample */
        memcpy(b->feat + b->n * TIDE_MAX_FEATURES, t->features, sizeof t->features);
        b->time[b->n] = -1;
        t->sample = b->n++;
    }
    pthread_mutex_unlock(&capture_lock);
}

void tide_predict_record_time(tide_task *t)
{
    if (t->sample >= 0) bufs[filling].time[t->sample] = t->exec_time;
}

/* A sample buffer as the feed reads it: rows of TIDE_MAX_FEATURES, and the measured times. */
static tide_feed_tasks feed_tasks(const sample_buf *b)
{
    return (tide_feed_tasks){b->n, TIDE_MAX_FEATURES, b->feat, b->time};
}

/* Cost hints (tide_task_set_cost) replace the model for a phase in which every own task has
 * one: the rank's load is their sum, known exactly (uncertainty 0), and they are the per-task
 * weights. With some tasks unhinted the model serves as if there were no hints. */
static bool hints_serve(const tide_rt *rt)
{
    return rt->phase_tasks > 0 && rt->phase_hints.n == rt->phase_tasks;
}

static void serve_hints(tide_rt *rt)
{
    if (hints_serve(rt)) tide_feed_serve(&rt->feed, rt->phase_hints.sum, TIDE_FEED_SRC_HINT);
}

bool tide_predict_task_ready(const tide_rt *rt)
{
    return rt->feed.per_task || rt->feed.source == TIDE_FEED_SRC_HINT;
}

void tide_predict_phase(tide_rt *rt)
{
    if (!rt->predicting) return;
    tide_feed_tasks next = feed_tasks(&bufs[filling]);
    int rc = tide_feed_predict(&rt->feed, collect ? &next : NULL);
    if (rc == TIDE_PRED_OK && tide_model_fell_back(rt->feed.model) && !rt->warned_fallback &&
        rt->cfg.verbose) {
        fprintf(stderr, "tide: rank %d: load model falls back to the last load: %s\n", rt->rank,
                tide_model_fallback_reason(rt->feed.model));
        rt->warned_fallback = true;
    }
    serve_hints(rt);
}

typedef struct positions {
    long *pos;
    long n, cap;
} positions;

static bool position_of(tide_queue *q, tide_task *t, void *arg)
{
    (void)q;
    positions *p = arg;
    if (p->n < p->cap) p->pos[p->n++] = t->pos;
    return p->n < p->cap;
}

/* The phase's own tasks by position, started or not (rt->marks): their cost hints, or the task
 * model's weights; pinned tasks weigh 0 (their load counts in the rank's, but they never move).
 * Under TIDE_LB_START_EARLY, when the workers did not wait (hold_own), the tasks that started, and
 * those the workers will start before the plan is applied (as many task-seconds as the workers ran
 * from the last phase's plan until it was applied, twice over), are marked (tide_plan_freeze). */
bool tide_predict_task_times(tide_rt *rt, double *times, long n)
{
    bool hints = rt->feed.source == TIDE_FEED_SRC_HINT;
    if (!hints && !rt->feed.per_task) return false;
    if (n <= 0) return n == 0;
    if (n != rt->phase_tasks || rt->marks.n != n) return false;
    for (long k = 0; k < n; k++) {
        const tide_task_mark *m = &rt->marks.at[k];
        times[k] = m->pinned ? 0 : hints ? m->cost : tide_feed_weight(&rt->feed, m->sample);
    }
    if (rt->marks.queued_cap < n) {
        long *q = realloc(rt->marks.queued, (size_t)n * sizeof *q);
        if (!q) return false;
        rt->marks.queued = q;
        rt->marks.queued_cap = n;
    }
    positions p = {rt->marks.queued, 0, n};
    tide_queue_visit(&rt->local, false, position_of, &p);
    double budget = 0;
    if (!rt->hold_own) /* the workers ran while the plan was made */
        budget = 2 * rt->threads * (rt->plan_at - (tide_now() - rt->phase_start));
    tide_plan_freeze(times, n, p.pos, p.n, budget);
    return true;
}

/* Called on the comm thread just before the workers are released: the samples of the phase
 * that ended stop filling, so that the next phase's submissions go to the other buffer. */
void tide_predict_phase_ended(void)
{
    if (!collect) return;
    pthread_mutex_lock(&capture_lock);
    filling ^= 1;
    bufs[filling].n = 0;
    pthread_mutex_unlock(&capture_lock);
}

void tide_predict_observe(tide_rt *rt, double load, long count)
{
    if (!rt->predicting) return;
    tide_feed_tasks done = feed_tasks(&bufs[filling ^ 1]);
    tide_feed_observe(&rt->feed, load, collect ? &done : NULL, count,
                      rt->feed.freq ? phase_mhz(rt->phase_end) : 0);
}
