/* Load prediction on the comm thread: one model per rank (predictor/), fed with the rank's own
 * load after every phase and asked for the next phase's load before it starts. With the `task`
 * model the features of every own task and its measured time are collected too: features at
 * submission (task.c calls tide_predict_capture), times when the task completes, wherever it
 * ran. The model trains after the workers are released, so training overlaps the next phase. */
#define _GNU_SOURCE
#include "internal.h"

#include <sched.h>

#include <stdlib.h>
#include <string.h>

#define TOOL_EXTRA_MAX 8

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
static int model_nfeat = -1; /* features per task the model sees, fixed by the first phase */

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

static double phase_mhz(void)
{
    double now = tide_now();
    if (freq_read_at < 0 || now - freq_read_at >= FREQ_REFRESH) {
        double v = core_mhz();
        if (v > 0) freq_mhz = v; /* a failed read keeps the last: the feature count is fixed */
        freq_read_at = now;
    }
    return freq_mhz;
}

int tide_predict_init(tide_rt *rt, char *err, size_t len)
{
    const tide_model_ops *ops = NULL;
    if (rt->cfg.tool_path[0]) {
        if (tide_tool_load(rt->cfg.tool_path, &rt->tool, err, len) != TIDE_PRED_OK)
            return TIDE_ERR_CONFIG;
        rt->have_tool = true;
        ops = rt->tool.model;
    }
    rt->model = ops ? tide_model_create_ops(ops, &rt->cfg.pred, err, len)
                    : tide_model_create(&rt->cfg.pred, err, len);
    if (!rt->model) {
        if (rt->have_tool) tide_tool_unload(&rt->tool);
        rt->have_tool = false;
        return TIDE_ERR_CONFIG;
    }
    /* Decided once, so that the number of phase features stays the same all run long. */
    rt->freq_known = core_mhz() > 0;
    freq_read_at = -1;
    /* auto needs the features too: its task model competes with the rank model. */
    collect = strcmp(rt->cfg.pred.kind, "task") == 0 || strcmp(rt->cfg.pred.kind, "auto") == 0 ||
              (rt->have_tool && rt->tool.task_features != NULL);
    filling = 0;
    model_nfeat = -1;
    rt->L_pred = rt->L_unc = -1;
    return TIDE_OK;
}

void tide_predict_finalize(tide_rt *rt)
{
    tide_model_destroy(rt->model);
    rt->model = NULL;
    if (rt->have_tool) tide_tool_unload(&rt->tool);
    rt->have_tool = false;
    for (int i = 0; i < 2; i++) {
        free(bufs[i].feat);
        free(bufs[i].time);
        memset(&bufs[i], 0, sizeof bufs[i]);
    }
}

/* Called by tide_task_submit: records the task's features and gives it its sample index. */
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

/* Builds the model's feature matrix from a sample buffer: the application's features (as many
 * columns as the first phase used) plus the tool's extra ones. Returns rows; *nf the columns. */
static long build_features(tide_rt *rt, const sample_buf *b, double **out, int *nf)
{
    if (model_nfeat < 0) {
        int maxf = 0;
        for (long i = 0; i < b->n; i++)
            for (int k = TIDE_MAX_FEATURES; k > maxf; k--)
                if (b->feat[i * TIDE_MAX_FEATURES + k - 1] != 0) {
                    maxf = k;
                    break;
                }
        model_nfeat = maxf;
    }
    int extra = rt->have_tool && rt->tool.task_features ? TOOL_EXTRA_MAX : 0;
    int cols = model_nfeat + extra;
    *nf = cols;
    *out = NULL;
    if (b->n == 0 || cols == 0) return b->n;
    double *m = calloc((size_t)b->n * (size_t)cols, sizeof *m);
    if (!m) return 0;
    for (long i = 0; i < b->n; i++) {
        double *row = m + i * cols;
        memcpy(row, b->feat + i * TIDE_MAX_FEATURES, (size_t)model_nfeat * sizeof *row);
        if (extra) {
            int got = rt->tool.task_features(rt->tool.user, b->feat + i * TIDE_MAX_FEATURES,
                                             model_nfeat, row + model_nfeat, extra);
            if (got < 0) memset(row + model_nfeat, 0, (size_t)extra * sizeof *row);
        }
    }
    *out = m;
    return b->n;
}

static double model_code(const char *name)
{
    if (strcmp(name, "rank") == 0) return TIDE_PMODEL_RANK;
    if (strcmp(name, "task") == 0) return TIDE_PMODEL_TASK;
    return *name ? TIDE_PMODEL_TOOL : TIDE_PMODEL_NONE;
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
    if (!hints_serve(rt)) return;
    rt->L_pred = rt->phase_hints.sum;
    rt->L_unc = 0;
    rt->pred_source = TIDE_SRC_HINT;
    rt->pred_model = TIDE_PMODEL_NONE;
    rt->task_pred_ready = 1;
}

typedef struct hint_times {
    double *times;
    long n, k;
} hint_times;

/* Pinned tasks weigh 0 for the planner: their load counts in the rank's, but they never move. */
static bool hint_one(tide_queue *q, tide_task *t, void *arg)
{
    (void)q;
    hint_times *h = arg;
    if (h->k >= h->n) return false;
    h->times[h->k++] = t->pinned ? 0 : t->cost;
    return true;
}

void tide_predict_phase(tide_rt *rt)
{
    tide_prediction p;
    int rc;
    if (collect) {
        double *f;
        int nf;
        long n = build_features(rt, &bufs[filling], &f, &nf);
        tide_task_set next = {(int)n, nf, f};
        rc = tide_model_predict_info(rt->model, &next, &p);
        free(f);
    } else {
        rc = tide_model_predict_info(rt->model, NULL, &p);
    }
    if (rc == TIDE_PRED_OK && tide_model_fell_back(rt->model) && !rt->warned_fallback &&
        rt->cfg.verbose) {
        fprintf(stderr, "tide: rank %d: load model falls back to the last load: %s\n", rt->rank,
                tide_model_fallback_reason(rt->model));
        rt->warned_fallback = true;
    }
    bool ok = rc == TIDE_PRED_OK;
    rt->L_pred = ok ? p.load : -1;
    rt->L_unc = ok ? p.unc : -1;
    rt->pred_source = ok ? p.source : TIDE_SRC_NONE;
    rt->pred_model = ok && p.source == TIDE_SRC_MODEL ? model_code(p.model) : TIDE_PMODEL_NONE;
    rt->task_pred_ready = ok && tide_predict_task_times(rt, NULL, 0);
    serve_hints(rt);
}

typedef struct weights {
    double *times;
    const double *row_time;
    long rows, n, k;
    double scale;
} weights;

static bool weigh_one(tide_queue *q, tide_task *t, void *arg)
{
    (void)q;
    weights *w = arg;
    if (w->k >= w->n) return false;
    w->times[w->k++] =
        !t->pinned && t->sample >= 0 && t->sample < w->rows ? w->scale * w->row_time[t->sample] : 0;
    return true;
}

bool tide_predict_task_times(tide_rt *rt, double *times, long n)
{
    if (rt->pred_source == TIDE_SRC_HINT) {
        hint_times h = {times, n, 0};
        if (times) tide_queue_visit(&rt->local, false, hint_one, &h);
        return h.k == n;
    }
    if (!collect) return false;
    const sample_buf *b = &bufs[filling];
    double *f;
    int nf;
    long rows = build_features(rt, b, &f, &nf);
    double *all = rows ? malloc((size_t)rows * sizeof *all) : NULL;
    tide_task_set set = {(int)rows, nf, f};
    double sum = 0;
    bool ok = all && tide_model_predict_tasks(rt->model, &set, all, &sum) == TIDE_PRED_OK;
    if (ok && times) {
        /* The task model says which tasks are heavy; the served prediction (perhaps a baseline
         * that predicts the total better) says how much the rank carries: the weights are the
         * task model's, scaled to sum to L_pred, so the planner's load and weights agree. */
        double scale = sum > 0 && rt->L_pred >= 0 ? rt->L_pred / sum : 1.0;
        /* Queue order: the k-th queued task's sample index gives its row. */
        weights w = {times, all, rows, n, 0, scale};
        tide_queue_visit(&rt->local, false, weigh_one, &w);
        ok = w.k == n;
    }
    free(all);
    free(f);
    return ok;
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

void tide_predict_observe(tide_rt *rt, double load)
{
    tide_phase_obs obs = {.load = load};
    double *f = NULL;
    if (collect) {
        const sample_buf *b = &bufs[filling ^ 1];
        int nf;
        long n = build_features(rt, b, &f, &nf);
        obs.tasks = (tide_task_set){(int)n, nf, f};
        obs.task_times = b->time;
    }
    double phase_feat[1 + TOOL_EXTRA_MAX];
    int nf = 0;
    if (rt->freq_known) phase_feat[nf++] = phase_mhz();
    if (rt->have_tool && rt->tool.phase_features) {
        int got = rt->tool.phase_features(rt->tool.user, rt->log.nphases, phase_feat + nf,
                                          TOOL_EXTRA_MAX);
        if (got > 0) nf += got;
    }
    obs.nphase_feat = nf;
    obs.phase_features = nf ? phase_feat : NULL;
    tide_model_observe(rt->model, &obs);
    free(f);
}
