/* The prediction feed with a fake driver: phases of known tasks (feature x, time 1 ms * x) are
 * observed, then the feed is asked for the next phase. Pins what is served, the per-task
 * weights (the task model's, scaled to the served load), which columns the model sees, the
 * source kinds, and what a tool's hooks are given. */
#include "tide_core_feed.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIDE 4
#define NTASKS 12

/* Phase tasks: feature 0 cycles 1..6, time 1 ms per unit; a stride of 4 as libtide's rows. */
static void make_phase(double *feat, double *times, double scale)
{
    memset(feat, 0, sizeof(double) * NTASKS * STRIDE);
    for (int i = 0; i < NTASKS; i++) {
        feat[i * STRIDE] = 1 + i % 6;
        times[i] = 1e-3 * scale * (1 + i % 6);
    }
}

static double sum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* A feed of model `kind`, served by the model alone (TIDE_PRED_SELECT=model). */
static void open_feed(tide_feed *f, const char *kind, const tide_tool *tool, bool freq)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    char err[256];
    if (tide_model_params_set(&p, "TIDE_PRED_MODEL", kind, err, sizeof err) != TIDE_PRED_OK ||
        tide_model_params_set(&p, "TIDE_PRED_SELECT", "model", err, sizeof err) != TIDE_PRED_OK ||
        tide_feed_init(f, &p, tool, freq, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
}

/* The task model, served: the load is the sum of the tasks' times, and the weights are the
 * tasks' times (proportional to the feature), summing to the served load. */
static void task_model_serves_and_weighs(void)
{
    tide_feed f;
    open_feed(&f, "task", NULL, false);
    CHECK(f.collect);
    double feat[NTASKS * STRIDE], times[NTASKS];
    make_phase(feat, times, 1);
    tide_feed_tasks t = {NTASKS, STRIDE, feat, times};
    /* Before any observation there is no prediction and no weights. */
    CHECK(tide_feed_predict(&f, &t) == TIDE_PRED_NOT_READY);
    CHECK(f.load == -1 && f.unc == -1 && !f.per_task);
    CHECK(tide_feed_served(f.load, f.source, f.model_code) == -1);
    CHECK(f.nfeat == 1); /* fixed by the first phase: one column set */
    for (int ph = 0; ph < 4; ph++) {
        CHECK(tide_feed_predict(&f, &t) == TIDE_PRED_OK || ph == 0);
        CHECK(tide_feed_observe(&f, sum(times, NTASKS), &t, ph, 0) == TIDE_PRED_OK);
    }
    CHECK(tide_feed_predict(&f, &t) == TIDE_PRED_OK);
    double L = sum(times, NTASKS);
    CHECK(fabs(f.load - L) < 1e-9);
    CHECK(f.source == TIDE_SRC_MODEL && f.model_code == TIDE_FEED_MODEL_TASK);
    CHECK(tide_feed_served(f.load, f.source, f.model_code) == TIDE_SERVED_TASK);
    CHECK(strcmp(tide_feed_served_name(TIDE_SERVED_TASK), "task") == 0);
    CHECK(f.per_task && f.nweights == NTASKS);
    double w = 0;
    for (long i = 0; i < NTASKS; i++) {
        CHECK(fabs(tide_feed_weight(&f, i) - times[i]) < 1e-9);
        w += tide_feed_weight(&f, i);
    }
    CHECK(fabs(w - f.load) < 1e-12);
    CHECK(tide_feed_weight(&f, -1) == 0 && tide_feed_weight(&f, NTASKS) == 0);

    /* A phase of twice as many tasks of the same features: the model sums the tasks it is
     * shown, so the served load doubles. */
    double feat2[2 * NTASKS * STRIDE];
    memcpy(feat2, feat, sizeof feat);
    memcpy(feat2 + NTASKS * STRIDE, feat, sizeof feat);
    tide_feed_tasks t2 = {2 * NTASKS, STRIDE, feat2, NULL};
    CHECK(tide_feed_predict(&f, &t2) == TIDE_PRED_OK);
    CHECK(fabs(f.load - 2 * L) < 1e-9 && f.nweights == 2 * NTASKS);

    /* Coefficients out and in (proact pools them across ranks): this model's vector, doubled,
     * weighs the phase's tasks at twice their times, served as "pooled"; a vector of another
     * length is refused and changes nothing. */
    double c[8];
    int nc = tide_feed_task_coef(&f, c, 8);
    CHECK(nc == 4); /* intercept, x, x^2, x^3 (TIDE_PRED_TASK_DEGREE 3) */
    CHECK(tide_feed_predict(&f, &t) == TIDE_PRED_OK);
    for (int j = 0; j < nc; j++)
        c[j] *= 2;
    CHECK(!tide_feed_adopt(&f, c, nc - 1, NULL) && f.model_code == TIDE_FEED_MODEL_TASK);
    double adopted = 0;
    CHECK(tide_feed_adopt(&f, c, nc, &adopted) && adopted == f.load);
    CHECK(fabs(f.load - 2 * L) < 1e-6 * L && f.per_task && f.nweights == NTASKS);
    CHECK(fabs(tide_feed_weight(&f, 5) - 2 * times[5]) < 1e-6 * times[5]);
    CHECK(tide_feed_served(f.load, f.source, f.model_code) == TIDE_SERVED_POOLED);
    CHECK(strcmp(tide_feed_served_name(TIDE_SERVED_POOLED), "pooled") == 0);

    /* A known load (cost hints, an oracle) replaces the model's: uncertainty 0, no weights. */
    tide_feed_serve(&f, 0.5, TIDE_FEED_SRC_HINT);
    CHECK(f.load == 0.5 && f.unc == 0 && !f.per_task && tide_feed_weight(&f, 0) == 0);
    CHECK(tide_feed_served(f.load, f.source, f.model_code) == TIDE_SERVED_HINT);
    tide_feed_free(&f);
}

/* The weights are the task model's scaled to the served load: with the rank model competing
 * (auto) and a phase whose tasks ran 1.5x slower than their features say, whatever source
 * serves, the weights keep the features' proportions and sum to the served load. */
static void weights_scale_to_served_load(void)
{
    tide_feed f;
    open_feed(&f, "auto", NULL, false);
    CHECK(f.collect);
    double feat[NTASKS * STRIDE], times[NTASKS];
    make_phase(feat, times, 1);
    tide_feed_tasks t = {NTASKS, STRIDE, feat, times};
    for (int ph = 0; ph < 12; ph++) {
        tide_feed_predict(&f, &t);
        make_phase(feat, times, ph % 2 ? 1.5 : 1);
        tide_feed_observe(&f, sum(times, NTASKS), &t, ph, 0);
    }
    CHECK(tide_feed_predict(&f, &t) == TIDE_PRED_OK);
    CHECK(f.load > 0 && f.per_task);
    double w = 0;
    for (long i = 0; i < NTASKS; i++)
        w += tide_feed_weight(&f, i);
    CHECK(fabs(w - f.load) < 1e-12 * NTASKS);
    /* Task 5 has feature 6, task 0 feature 1. */
    CHECK(fabs(tide_feed_weight(&f, 5) / tide_feed_weight(&f, 0) - 6) < 1e-6);
    tide_feed_free(&f);
}

/* The rank model sees no tasks: no columns fixed, no weights; its source kind is "rank". */
static void rank_model_sees_no_tasks(void)
{
    tide_feed f;
    open_feed(&f, "rank", NULL, false);
    CHECK(!f.collect);
    for (int ph = 0; ph < 30; ph++) {
        tide_feed_predict(&f, NULL);
        tide_feed_observe(&f, 1.0 + 0.1 * (ph % 3), NULL, ph, 0);
    }
    CHECK(tide_feed_predict(&f, NULL) == TIDE_PRED_OK);
    CHECK(f.nfeat == -1 && !f.per_task && f.load > 0.9 && f.load < 1.3);
    CHECK(tide_feed_served(f.load, f.source, f.model_code) == TIDE_SERVED_RANK);
    tide_feed_free(&f);
}

/* A bad parameter fails at init with one line and no model. */
static void bad_params_fail(void)
{
    tide_model_params p;
    tide_model_params_defaults(&p);
    p.window = 0;
    tide_feed f;
    char err[256] = "";
    CHECK(tide_feed_init(&f, &p, NULL, false, err, sizeof err) == -1);
    CHECK(f.model == NULL && err[0] != 0);
}

/* A tool's hooks: the task hook gets the application's columns the model sees (fixed by the
 * first phase even when a later phase sets more), the phase hook the phase index; the
 * frequency comes first among the phase features. */
typedef struct tool_log {
    int napp_min, napp_max, task_calls;
    long last_phase;
    int phase_calls;
} tool_log;

static int task_hook(void *user, const double *app, int napp, double *extra, int max)
{
    tool_log *l = user;
    (void)app;
    if (napp < l->napp_min) l->napp_min = napp;
    if (napp > l->napp_max) l->napp_max = napp;
    l->task_calls++;
    CHECK(max >= 1);
    extra[0] = 1;
    return 1;
}

static int phase_hook(void *user, long phase, double *out, int max)
{
    tool_log *l = user;
    l->last_phase = phase;
    l->phase_calls++;
    CHECK(max >= 1);
    out[0] = 42;
    return 1;
}

static void tool_hooks(void)
{
    tool_log log = {100, -1, 0, -1, 0};
    tide_tool tool = {
        .name = "fake", .user = &log, .task_features = task_hook, .phase_features = phase_hook};
    tide_feed f;
    open_feed(&f, "rank", &tool, true); /* rank, yet the tool's task features make it collect */
    CHECK(f.collect && f.freq);
    double feat[NTASKS * STRIDE], times[NTASKS];
    make_phase(feat, times, 1);
    tide_feed_tasks t = {NTASKS, STRIDE, feat, times};
    tide_feed_predict(&f, &t);
    CHECK(f.nfeat == 1 && log.task_calls == NTASKS);
    feat[2] = 7; /* a later phase sets column 2 too: the model still sees one column */
    tide_feed_observe(&f, sum(times, NTASKS), &t, 3, 2400);
    CHECK(log.napp_min == 1 && log.napp_max == 1 && log.task_calls == 2 * NTASKS);
    CHECK(log.phase_calls == 1 && log.last_phase == 3);
    tide_feed_free(&f);
}

/* Phase 0 with no tasks fixes zero columns; no tasks give no weights, and the model is never
 * handed a NULL matrix. */
static void empty_first_phase(void)
{
    tide_feed f;
    open_feed(&f, "task", NULL, false);
    tide_feed_tasks none = {0, STRIDE, NULL, NULL};
    tide_feed_predict(&f, &none);
    CHECK(f.nfeat == 0 && !f.per_task);
    tide_feed_free(&f);
}

int main(void)
{
    task_model_serves_and_weighs();
    weights_scale_to_served_load();
    rank_model_sees_no_tasks();
    bad_params_fail();
    tool_hooks();
    empty_first_phase();
    return CHECK_REPORT("test_feed");
}
