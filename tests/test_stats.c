/* The headline formulas of the statistics (docs/stats.md, shared/DESIGN.md "Key notions") on
 * logs built by hand, every expected value worked out in the comments. No MPI run: stats.c
 * only reads the log.
 *
 *   test_stats                         tide_stats_compute and tide_stats_add_phase
 *   test_stats --json PYTHON3 OUT.json tide_stats_write_json: OUT.json parses (python3's json)
 *                                      and holds the hand values */
#define _GNU_SOURCE
#include "internal.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

#define CHECK_NEAR(got, want)                                                                      \
    CHECK(fabs((double)(got) - (double)(want)) <= 1e-9 * fmax(1.0, fabs((double)(want))),          \
          "%s = %.17g, expected %.17g", #got, (double)(got), (double)(want))

/* One rank's record without a prediction; the other fields as given. */
static tide_rank_record rec(double W, double L, double task_max, double tasks, double offloaded,
                            double received, double bytes_sent)
{
    return (tide_rank_record){.W = W,
                              .L = L,
                              .L_pred = -1,
                              .task_max = task_max,
                              .time = W,
                              .tasks = tasks,
                              .offloaded = offloaded,
                              .received = received,
                              .bytes_sent = bytes_sent,
                              .L_unc = -1};
}

/* A log as rank 0 keeps it with TIDE_STATS: every phase; 2 threads a rank (the totals'). */
static tide_phase_log log_of(int nranks)
{
    return (tide_phase_log){.nranks = nranks, .threads = 2, .keep_all = true};
}

/* 4 ranks x 2 threads. W = 1, 2, 3, 2: W_max 3, W_avg 2, R_imb = 3/2 - 1 = 0.5.
 * L = 2, 4, 6, 4: L_total 16, work per worker 16 / (4 x 2) = 2 > longest task 1: ideal 2. */
static void typical_phase(void)
{
    tide_phase_log log = log_of(4);
    tide_rank_record r[4] = {rec(1, 2, 0.5, 4, 0, 1, 0), rec(2, 4, 1.0, 8, 1, 0, 1000),
                             rec(3, 6, 0.75, 12, 3, 0, 3000), rec(2, 4, 0.25, 8, 0, 3, 24)};
    r[2].L_pred = 5.5;
    r[2].L_unc = 0.25;
    r[2].time = 3.75;
    r[0].time = 3.5;
    CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
    tide_phase_stats s;
    tide_stats_compute(&log, 0, 2, 2, &s);
    CHECK(s.phase == 0, "phase %d", s.phase);
    CHECK_NEAR(s.W_max, 3);
    CHECK_NEAR(s.W_avg, 2);
    CHECK_NEAR(s.R_imb, 0.5);
    CHECK_NEAR(s.L_total, 16);
    CHECK_NEAR(s.ideal, 2);
    CHECK_NEAR(s.time, 3.75); /* the longest taskwait: rank 2's, not rank 0's */
    CHECK(s.tasks == 32 && s.offloaded == 4 && s.bytes_moved == 4024,
          "tasks %lld offloaded %lld bytes %lld", (long long)s.tasks, (long long)s.offloaded,
          (long long)s.bytes_moved);
    /* The asking rank's own values (me = 2). */
    CHECK_NEAR(s.W_self, 3);
    CHECK_NEAR(s.L_self, 6);
    CHECK_NEAR(s.L_pred_self, 5.5);
    CHECK_NEAR(s.L_unc_self, 0.25);
    CHECK(s.tasks_self == 12 && s.offloaded_self == 3 && s.received_self == 0, "own counts");
    /* Rank 1 has no prediction: its uncertainty reads -1 whatever the record says. */
    r[1].L_unc = 7;
    CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
    tide_stats_compute(&log, 1, 2, 1, &s);
    CHECK(s.phase == 1 && s.L_pred_self == -1 && s.L_unc_self == -1, "no prediction");
    tide_stats_free(&log);
}

/* 2 ranks x 4 threads, one long task: L_total 2 over 8 workers is 0.25, the longest task 0.9,
 * so ideal = 0.9. W = 0.9, 0.3: W_avg 0.6, R_imb = 0.9 / 0.6 - 1 = 0.5. */
static void longest_task_dominates(void)
{
    tide_phase_log log = log_of(2);
    tide_rank_record r[2] = {rec(0.9, 1, 0.9, 2, 0, 0, 0), rec(0.3, 1, 0.1, 10, 0, 0, 0)};
    CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
    tide_phase_stats s;
    tide_stats_compute(&log, 0, 4, 0, &s);
    CHECK_NEAR(s.ideal, 0.9);
    CHECK_NEAR(s.L_total, 2);
    CHECK_NEAR(s.W_avg, 0.6);
    CHECK_NEAR(s.R_imb, 0.5);
    /* Fewer threads: 2 / (2 x 1) = 1 > 0.9, the work per worker rules again. */
    tide_stats_compute(&log, 0, 1, 0, &s);
    CHECK_NEAR(s.ideal, 1);
    tide_stats_free(&log);
}

/* An empty phase: every W is 0, so R_imb is 0 (defined, not 0/0) and ideal 0. */
static void empty_phase(void)
{
    tide_phase_log log = log_of(3);
    tide_rank_record r[3] = {rec(0, 0, 0, 0, 0, 0, 0), rec(0, 0, 0, 0, 0, 0, 0),
                             rec(0, 0, 0, 0, 0, 0, 0)};
    CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
    tide_phase_stats s;
    tide_stats_compute(&log, 0, 2, 1, &s);
    CHECK(s.W_avg == 0 && s.R_imb == 0 && !isnan(s.R_imb), "R_imb %g with W_avg 0", s.R_imb);
    CHECK(s.ideal == 0 && s.tasks == 0 && s.offloaded == 0 && s.bytes_moved == 0, "empty");
    tide_stats_free(&log);
}

/* One rank, 3 threads: balanced by definition (R_imb 0); ideal = max(6 / 3, 1) = 2. */
static void one_rank(void)
{
    tide_phase_log log = log_of(1);
    tide_rank_record r[1] = {rec(2.5, 6, 1, 9, 0, 0, 0)};
    CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
    tide_phase_stats s;
    tide_stats_compute(&log, 0, 3, 0, &s);
    CHECK_NEAR(s.R_imb, 0);
    CHECK_NEAR(s.W_max, 2.5);
    CHECK_NEAR(s.W_avg, 2.5);
    CHECK_NEAR(s.ideal, 2);
    CHECK(s.tasks == 9 && s.offloaded == 0, "one rank counts");
    tide_stats_free(&log);
}

/* The log grows past its first allocation (64 phases) without losing a record: phase k has
 * W = k + 1 on rank 0 and 2 (k + 1) on rank 1, so W_avg = 1.5 (k + 1) and R_imb = 1/3. */
static void many_phases(void)
{
    enum { N = 200 };
    tide_phase_log log = log_of(2);
    for (int k = 0; k < N; k++) {
        tide_rank_record r[2] = {rec(k + 1, k + 1, 0.5, k, 0, 0, 0),
                                 rec(2.0 * (k + 1), 2.0 * (k + 1), 0.5, 0, k, 0, 0)};
        CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
    }
    CHECK(log.nphases == N, "%d phases", log.nphases);
    for (int k = 0; k < N; k++) {
        tide_phase_stats s;
        tide_stats_compute(&log, k, 1, 1, &s);
        CHECK(s.phase == k, "phase %d", s.phase);
        CHECK_NEAR(s.W_avg, 1.5 * (k + 1));
        CHECK_NEAR(s.R_imb, 1.0 / 3.0);
        CHECK_NEAR(s.ideal, 1.5 * (k + 1)); /* 3 (k + 1) / 2 workers > 0.5 */
        CHECK(s.tasks == k && s.offloaded == k && s.W_self == 2.0 * (k + 1), "phase %d", k);
    }
    tide_stats_free(&log);
}

/* Two phases, 2 ranks x 2 threads.
 *   phase 0: W 1, 3 (R_imb 0.5); L 2, 6, longest 1: ideal max(8 / 4, 1) = 2; no prediction.
 *   phase 1: W 4, 4 (R_imb 0);   L 4, 4, longest 3: ideal max(8 / 4, 3) = 3;
 *            predictions 4 and 4.4 from the rank model.
 * summary: W_par = 3 + 4 = 7, W_avg = 2 + 4 = 6, R_imb = 7 / 6 - 1 (not the mean of the
 * phases' 0.5 and 0), ideal_time = 2 + 3 = 5, time_total = 3.5 + 4.5 = 8 (rank 0's times),
 * tasks 8 + 8, offloaded 1 + 3, bytes 500 + 300; pred_mape = (0 / 4 + 0.4 / 4) / 2 = 0.05,
 * pred_mse = (0 + 0.16) / 2 = 0.08. */
static void json_document(const char *python, const char *path)
{
    tide_phase_log log = log_of(2);
    tide_rank_record p0[2] = {rec(1, 2, 0.5, 2, 0, 1, 0), rec(3, 6, 1, 6, 1, 0, 500)};
    tide_rank_record p1[2] = {rec(4, 4, 3, 4, 1, 2, 100), rec(4, 4, 0.5, 4, 2, 1, 200)};
    p0[0].time = 3.5;
    p1[0].time = 4.5;
    p1[0].replicated = 3;
    for (int i = 0; i < 2; i++) {
        p1[i].L_pred = i ? 4.4 : 4;
        p1[i].L_unc = 0.1;
        p1[i].L_suspect = i ? 0.6 : 0;
        p1[i].pred_source = TIDE_SRC_MODEL;
        p1[i].pred_model = TIDE_FEED_MODEL_RANK;
    }
    CHECK_OK(tide_stats_add_phase(&log, p0, 0, NULL));
    CHECK_OK(tide_stats_add_phase(&log, p1, 0, NULL));
    tide_config cfg;
    tide_config_defaults(&cfg);
    FILE *doc = fopen(path, "w");
    CHECK(doc != NULL, "cannot open %s", path);
    tide_node_load node = {4, 8, 2};
    tide_stats_write_json(&log, &cfg, &node, doc);
    CHECK(fclose(doc) == 0, "closing %s", path);
    tide_stats_free(&log);

    /* python3 parses the document (any syntax error fails here) and prints the values. */
    static const char prog[] =
        "import json, sys\n"
        "d = json.load(open(sys.argv[1]))\n"
        "s, p = d['summary'], d['phases']\n"
        "assert d['schema'] == 'tide-stats/2' and len(p) == 2, 'schema or phase count'\n"
        "assert d['config']['ranks'] == 2 and d['config']['threads'] == 2, 'config'\n"
        "assert p[0]['L_pred'] is None and p[0]['pred_source'] is None, 'no prediction yet'\n"
        "assert p[1]['pred_source'] == ['rank', 'rank'], p[1]['pred_source']\n"
        "assert p[0]['W'] == [1, 3] and p[1]['L_pred'] == [4, 4.4], 'per-rank arrays'\n"
        "assert p[0]['L_suspect'] is None and p[1]['L_suspect'] == [0, 0.6], 'suspect loads'\n"
        "assert s['pred_sources']['rank'] == 2, s['pred_sources']\n"
        "assert s['tasks_replicated'] == 3 and p[1]['replicated'] == [3, 0], 'replicas'\n"
        "assert d['config']['node_workers'] == 4 and d['config']['node_cores'] == 8, 'node'\n"
        "v = [s['R_imb'], s['ideal_time'], s['W_par'], s['W_avg'], s['time_total'], s['tasks'],\n"
        "     s['tasks_offloaded'], s['bytes_moved'], s['pred_mape'], s['pred_mse'],\n"
        "     p[0]['R_imb'], p[0]['ideal'], p[1]['R_imb'], p[1]['ideal']]\n"
        "print(' '.join(repr(float(x)) for x in v))\n";
    char prog_path[4096];
    snprintf(prog_path, sizeof prog_path, "%s.py", path);
    FILE *f = fopen(prog_path, "w");
    CHECK(f && fputs(prog, f) >= 0 && fclose(f) == 0, "cannot write %s", prog_path);
    char cmd[3 * 4096 + 16];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", python, prog_path, path);
    FILE *out = popen(cmd, "r");
    CHECK(out, "cannot run %s", cmd);
    double got[14];
    int n = 0;
    while (n < 14 && fscanf(out, "%lf", &got[n]) == 1)
        n++;
    int status = pclose(out);
    CHECK(status == 0 && n == 14, "%s: exit status %d, %d values read", cmd, status, n);
    remove(prog_path);
    const double want[14] = {7.0 / 6.0 - 1, 5, 7, 6, 8, 16, 4, 800, 0.05, 0.08, 0.5, 2, 0, 3};
    const char *names[14] = {"summary.R_imb",           "summary.ideal_time",  "summary.W_par",
                             "summary.W_avg",           "summary.time_total",  "summary.tasks",
                             "summary.tasks_offloaded", "summary.bytes_moved", "summary.pred_mape",
                             "summary.pred_mse",        "phases[0].R_imb",     "phases[0].ideal",
                             "phases[1].R_imb",         "phases[1].ideal"};
    /* The document prints 9 significant digits. */
    for (int i = 0; i < 14; i++)
        CHECK(fabs(got[i] - want[i]) <= 1e-8 * fmax(1.0, fabs(want[i])),
              "%s = %.17g, expected %.17g", names[i], got[i], want[i]);
}

/* The verdict (verdict.c), 2 ranks x 2 threads, longest task 0.5, each phase's time = rank 0's W:
 *   phase 0: L 6, 2: own max 6 / 2 = 3; ideal max(8 / 4, 0.5) = 2; balanced to W 2.5, 2.5.
 *   phase 1: L 4, 4: own max 2 = ideal 2; W 2, 2.
 * unbalanced 3 + 2 = 5, ideal 4, achieved (the summary's time) 2.5 + 2 = 4.5: saving
 * (5 - 4) / 5 = 0.2, recovered (5 - 4.5) / (5 - 4) = 0.5. Without balancing (W = L / 2: 3, 1)
 * achieved equals unbalanced: nothing recovered. */
static void verdict(void)
{
    tide_phase_log log = log_of(2);
    tide_rank_record p0[2] = {rec(2.5, 6, 0.5, 12, 4, 0, 0), rec(2.5, 2, 0.5, 4, 0, 4, 0)};
    tide_rank_record p1[2] = {rec(2, 4, 0.5, 8, 0, 0, 0), rec(2, 4, 0.5, 8, 0, 0, 0)};
    CHECK_OK(tide_stats_add_phase(&log, p0, 0, NULL));
    CHECK_OK(tide_stats_add_phase(&log, p1, 0, NULL));
    tide_verdict v = tide_stats_verdict(&log);
    CHECK_NEAR(v.unbalanced, 5);
    CHECK_NEAR(v.ideal, 4);
    CHECK_NEAR(v.achieved, 4.5);
    CHECK_NEAR(v.saving, 0.2);
    CHECK_NEAR(v.recovered, 0.5);
    CHECK(!v.balanced && !v.too_short && v.moved == 4, "balanced %d moved %lld", v.balanced,
          (long long)v.moved);
    char line[768];
    tide_verdict_format(&v, "react", line, sizeof line);
    CHECK(strstr(line, "save 20% of the 5.000 s") && strstr(line, "(ideal 4.000 s)") &&
              strstr(line, "lb=react took 4.500 s, which recovers 50% of that saving") &&
              strstr(line, "moving 4 tasks") && !strstr(line, "balancing is off"),
          "%s", line);
    /* The same numbers, slower than the estimate: no "recovered none", a comparison to run. */
    tide_stats_free(&log);
    log = log_of(2);
    p0[0].time = 4;
    CHECK_OK(tide_stats_add_phase(&log, p0, 0, NULL));
    CHECK_OK(tide_stats_add_phase(&log, p1, 0, NULL));
    v = tide_stats_verdict(&log);
    tide_verdict_format(&v, "rep", line, sizeof line);
    CHECK(v.recovered < 0 && strstr(line, "lb=rep took 6.000 s, no less than that estimate") &&
              strstr(line, "compare with a TIDE_LB=none run"),
          "%s", line);
    tide_stats_free(&log);

    log = log_of(2);
    p0[0] = rec(3, 6, 0.5, 12, 0, 0, 0), p0[1] = rec(1, 2, 0.5, 4, 0, 0, 0);
    CHECK_OK(tide_stats_add_phase(&log, p0, 0, NULL));
    v = tide_stats_verdict(&log);
    CHECK_NEAR(v.recovered, 0);
    tide_verdict_format(&v, "none", line, sizeof line);
    CHECK(strstr(line, "save 33%") && strstr(line, "lb=none took 3.000 s, balancing is off"), "%s",
          line);
    tide_stats_free(&log);

    log = log_of(2); /* own loads equal: balanced, no ratio */
    CHECK_OK(tide_stats_add_phase(&log, p1, 0, NULL));
    v = tide_stats_verdict(&log);
    CHECK(v.balanced && v.recovered == 0, "balanced %d recovered %g", v.balanced, v.recovered);
    tide_verdict_format(&v, "react", line, sizeof line);
    CHECK(strstr(line, "were balanced") && strstr(line, "took 2.000 s against the ideal 2.000 s"),
          "%s", line);
    tide_stats_free(&log);
}

/* Below the floors: 10 phases of 2 ms (the run is under 0.05 s), and 100 phases of 0.8 ms of
 * work (0.08 s in all, but under 1 ms a phase): too short to judge, however imbalanced. */
static void verdict_too_short(void)
{
    int phases[2] = {10, 100};
    double W[2] = {2e-3, 0.8e-3};
    for (int c = 0; c < 2; c++) {
        tide_phase_log log = log_of(2);
        for (int p = 0; p < phases[c]; p++) {
            tide_rank_record r[2] = {rec(W[c], 2 * W[c], 1e-5, 8, 0, 0, 0),
                                     rec(W[c] / 4, W[c] / 2, 1e-5, 2, 0, 0, 0)};
            CHECK_OK(tide_stats_add_phase(&log, r, 0, NULL));
        }
        tide_verdict v = tide_stats_verdict(&log);
        CHECK(v.too_short && v.recovered == 0, "case %d: too_short %d", c, v.too_short);
        char line[768];
        tide_verdict_format(&v, "react", line, sizeof line);
        CHECK(strstr(line, "tide: verdict: too short to judge: ") && !strstr(line, "save"), "%s",
              line);
        tide_stats_free(&log);
    }
}

/* What finalize prints, line by line: by default the summary and the verdict alone (replica
 * copies counted in the summary); the oversubscription and never-planned lines when they apply;
 * the predictions and the plans' granularity only at TIDE_VERBOSE >= 1. */
static int print_lines(const tide_phase_log *log, const tide_config *cfg, tide_node_load node,
                       char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    CHECK(f, "fmemopen");
    tide_stats_print_summary(log, cfg, &node, f);
    fclose(f);
    int n = 0;
    for (const char *c = buf; *c; c++)
        n += *c == '\n';
    return n;
}

static void finalize_lines(void)
{
    tide_phase_log log = log_of(2);
    tide_rank_record p[2] = {rec(0.3, 0.6, 0.01, 40, 4, 0, 0), rec(0.3, 0.3, 0.01, 20, 0, 9, 0)};
    p[0].replicated = 13;
    for (int i = 0; i < 2; i++) {
        p[i].L_pred = 0.4, p[i].L_unc = 0.01, p[i].pred_source = TIDE_SRC_PERSISTENCE;
    }
    p[0].plan_limit = TIDE_LB_LIMIT_GRANULARITY;
    p[0].protocol = p[1].protocol = 1; /* planned phases run the comm thread's protocol */
    for (int k = 0; k < 3; k++)
        CHECK_OK(tide_stats_add_phase(&log, p, 0, NULL));
    tide_config cfg;
    tide_config_defaults(&cfg);
    snprintf(cfg.lb, sizeof cfg.lb, "proact");
    static char out[8192];
    tide_node_load fits = {4, 4, 2}, over = {16, 2, 4};
    int n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 2 && strncmp(out, "tide: 2 ranks x 2 threads, lb=proact, 3 phases: ", 48) == 0 &&
              strstr(out, "12 of 180 tasks offloaded, 39 replicas sent, ") &&
              strstr(out, "\ntide: verdict: "),
          "%d lines:\n%s", n, out);
    n = print_lines(&log, &cfg, over, out, sizeof out);
    CHECK(n == 3 && strstr(out, "\ntide: oversubscribed: 4 ranks run 16 workers on a node with 2 "
                                "cores"),
          "%d lines:\n%s", n, out);
    cfg.verbose = 1;
    n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 4 && strstr(out, "\ntide: predictions (model auto): ") &&
              strstr(out, "\ntide: in 3 of 6 planned rank-phases"),
          "%d lines:\n%s", n, out);
    cfg.verbose = 0;
    tide_stats_free(&log);
    log = log_of(2);
    p[0].plan_limit = p[1].plan_limit = -1; /* no plan in any phase */
    p[0].protocol = p[1].protocol = 1;      /* each through the comm thread's protocol */
    for (int k = 0; k < 3; k++)
        CHECK_OK(tide_stats_add_phase(&log, p, 0, NULL));
    n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 3 && strstr(out, "\ntide: proact never planned: in these 3 phases ") &&
              strstr(out, "2 x TIDE_PRED_WINDOW + 2 = 10 phases"),
          "%d lines:\n%s", n, out);
    /* the plan gate held the last two idle (inline, no plan): finalize says so instead */
    tide_stats_free(&log);
    log = log_of(2);
    for (int k = 0; k < 3; k++) {
        p[0].protocol = p[1].protocol = k == 0;
        CHECK_OK(tide_stats_add_phase(&log, p, 0, NULL));
    }
    n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 3 && strstr(out, "\ntide: proact never planned: its plan gate ran 2 of these 3 "
                                "phases without the protocol (as under none), where a phase's "
                                "protocol cost more than the imbalance a plan could remove"),
          "%d lines:\n%s", n, out);
    /* a reactive strategy (gated, no plans) whose last two phases the gate held idle: a line says
     * so, for a run that moved little; random (not gated) has none */
    snprintf(cfg.lb, sizeof cfg.lb, "react");
    n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 3 && strstr(out, "39 replicas sent") &&
              strstr(out, "\ntide: the plan gate ran 2 of these 3 phases without react's protocol "
                          "(as under none), where it measured that the protocol cost more than it "
                          "gained"),
          "%d lines:\n%s", n, out);
    snprintf(cfg.lb, sizeof cfg.lb, "random");
    n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 2, "%d lines:\n%s", n, out);
    /* proact that planned in some phases and was held idle in others: the same line */
    tide_stats_free(&log);
    log = log_of(2);
    p[0].plan_limit = TIDE_LB_LIMIT_GRANULARITY;
    for (int k = 0; k < 4; k++) {
        p[0].protocol = p[1].protocol = k < 2;
        CHECK_OK(tide_stats_add_phase(&log, p, 0, NULL));
    }
    snprintf(cfg.lb, sizeof cfg.lb, "proact");
    n = print_lines(&log, &cfg, fits, out, sizeof out);
    CHECK(n == 3 && strstr(out, "\ntide: the plan gate ran 2 of these 4 phases without proact's "),
          "%d lines:\n%s", n, out);
    tide_stats_free(&log);
}

/* A rank that writes nothing at finalize keeps only the last phase's records, and its totals,
 * summary line and verdict are those of the full log to the last bit: 500 phases of 3 ranks
 * with predictions, plans and replicas, added to both logs. */
static void last_phase_only(void)
{
    tide_phase_log all = log_of(3), last = log_of(3);
    last.keep_all = false;
    for (int k = 0; k < 500; k++) {
        tide_rank_record r[3];
        for (int i = 0; i < 3; i++) {
            double w = 0.001 * (1 + (k * 7 + i * 13) % 11);
            r[i] = rec(w, 1.5 * w, 0.0002, 10 + i, k % 3 == i, i == 2 ? k % 4 : 0, 1000 * i);
            r[i].L_pred = k < 5 ? -1 : 1.4 * w, r[i].L_unc = 0.0001;
            r[i].pred_source = TIDE_SRC_MODEL, r[i].pred_model = TIDE_FEED_MODEL_RANK;
            r[i].plan_limit = k % 5 == 0 ? -1 : i % TIDE_LB_LIMIT_COUNT;
            r[i].replicated = k % 7 == 0;
        }
        CHECK_OK(tide_stats_add_phase(&all, r, 0, NULL));
        CHECK_OK(tide_stats_add_phase(&last, r, 0, NULL));
        tide_phase_stats a, b;
        tide_stats_compute(&all, k, 2, 1, &a);
        tide_stats_compute(&last, k, 2, 1, &b);
        CHECK(memcmp(&a, &b, sizeof a) == 0, "phase %d's statistics differ", k);
    }
    CHECK(last.cap == 1 && all.cap >= 500, "kept %d and %d phases", last.cap, all.cap);
    tide_run_totals ta = tide_stats_totals(&all), tb = tide_stats_totals(&last);
    CHECK(memcmp(&ta, &tb, sizeof ta) == 0, "the totals differ");
    tide_verdict va = tide_stats_verdict(&all), vb = tide_stats_verdict(&last);
    CHECK(memcmp(&va, &vb, sizeof va) == 0, "the verdicts differ");
    tide_config cfg;
    tide_config_defaults(&cfg);
    cfg.verbose = 1;
    char la[2048], lb[2048];
    int na = print_lines(&all, &cfg, (tide_node_load){0}, la, sizeof la);
    int nb = print_lines(&last, &cfg, (tide_node_load){0}, lb, sizeof lb);
    CHECK(na == nb && strcmp(la, lb) == 0, "finalize lines differ:\n%s\n%s", la, lb);
    CHECK(ta.predicted == 3 * 495 && ta.replicated == 3 * 72, "%ld predictions, %lld replicas",
          ta.predicted, (long long)ta.replicated);
    tide_stats_free(&all);
    tide_stats_free(&last);
}

/* Ranks that reduce their phase sums instead of gathering every record (phase.c's allreduce, in
 * another order than the ranks': (2 + 0) + 1) get the same statistics and totals as a log of
 * every record, the sums' last bits aside; the steps combine as maxima (the highest, and minus
 * the lowest). 300 phases of 3 ranks with predictions, plans and replicas. */
static void reduced_sums(void)
{
    tide_phase_log all = log_of(3), red = log_of(3);
    red.keep_all = false;
    for (int k = 0; k < 300; k++) {
        tide_rank_record r[3];
        tide_phase_sums one[3];
        for (int i = 0; i < 3; i++) {
            double w = 0.001 * (1 + (k * 5 + i * 11) % 13);
            r[i] = rec(w, 1.25 * w + i, 0.0003 * (i + 1), 7 + i, k % 3 == i, i == 0 ? k % 5 : 0,
                       500 * i);
            r[i].time = w + 0.0001 * i;
            r[i].L_pred = k < 4 ? -1 : 1.3 * w, r[i].L_unc = 0.0001;
            r[i].pred_source = TIDE_SRC_MODEL, r[i].pred_model = TIDE_FEED_MODEL_TASK;
            r[i].plan_limit = k % 4 == 0 ? -1 : (i + k) % TIDE_LB_LIMIT_COUNT;
            r[i].replicated = k % 6 == i;
            r[i].gate_tail = 0.0001 * ((k + 2 * i) % 7);
            tide_phase_sums_of(&r[i], 2, &one[i]);
            one[i].step_hi = k + 1 + i, one[i].step_neg = -(k + 1 + i);
        }
        tide_phase_sums sums = one[2];
        tide_phase_sums_add(&sums, &one[0]);
        tide_phase_sums_add(&sums, &one[1]);
        CHECK(sums.step_hi == k + 3 && -sums.step_neg == k + 1, "steps %g and %g", sums.step_hi,
              -sums.step_neg);
        /* the plan gate's tail: the longest, reduced or gathered (phase.c, gate_phase) */
        double tail = fmax(r[0].gate_tail, fmax(r[1].gate_tail, r[2].gate_tail));
        tide_phase_sums gathered;
        tide_phase_sums_of_all(r, 3, 2, &gathered);
        CHECK(tail > 0, "phase %d: no tail", k);
        CHECK(sums.gate_tail == tail && gathered.gate_tail == tail, "phase %d: tail %g, %g, not %g",
              k, sums.gate_tail, gathered.gate_tail, tail);
        CHECK_OK(tide_stats_add_phase(&all, r, 1, NULL));
        tide_phase_stats a, b;
        CHECK_OK(tide_stats_add_sums(&red, &sums, &r[1], &b));
        tide_stats_compute(&all, k, 2, 1, &a);
        CHECK(a.phase == b.phase && a.tasks == b.tasks && a.offloaded == b.offloaded &&
                  a.bytes_moved == b.bytes_moved && a.tasks_self == b.tasks_self &&
                  a.received_self == b.received_self,
              "phase %d: the counts differ", k);
        CHECK_NEAR(b.W_max, a.W_max);
        CHECK_NEAR(b.W_avg, a.W_avg);
        CHECK_NEAR(b.L_total, a.L_total);
        CHECK_NEAR(b.ideal, a.ideal);
        CHECK_NEAR(b.time, a.time);
        CHECK_NEAR(b.L_self, a.L_self);
    }
    tide_run_totals tx = tide_stats_totals(&all), ty = tide_stats_totals(&red);
    const tide_run_totals *x = &tx, *y = &ty;
    CHECK(x->tasks == y->tasks && x->offloaded == y->offloaded && x->replicated == y->replicated &&
              x->bytes == y->bytes && x->n_err == y->n_err && x->n_ape == y->n_ape &&
              x->predicted == y->predicted && x->planned == y->planned &&
              memcmp(x->served, y->served, sizeof x->served) == 0 &&
              memcmp(x->limits, y->limits, sizeof x->limits) == 0,
          "the totals' counts differ");
    CHECK(x->predicted == 3 * 296 && x->planned == 3 * 225 && x->replicated == 150,
          "%ld predictions, %ld plans, %lld replicas", x->predicted, x->planned,
          (long long)x->replicated);
    CHECK_NEAR(y->W_par, x->W_par);
    CHECK_NEAR(y->W_avg, x->W_avg);
    CHECK_NEAR(y->time, x->time);
    CHECK_NEAR(y->ideal, x->ideal);
    CHECK_NEAR(y->unbalanced, x->unbalanced);
    CHECK_NEAR(y->sq_err, x->sq_err);
    CHECK_NEAR(y->ape_err, x->ape_err);
    CHECK(red.records == NULL, "a reducing log kept records");
    tide_stats_free(&all);
    tide_stats_free(&red);
}

/* A lone rank's phases added straight from its records (phase.c's inline phases on one rank)
 * give the same bits as its sums added (what a rank of several adds): the running totals, the
 * terms that are not sums, and each phase's statistics. 300 phases with predictions, plans,
 * replicas, gate tails and both kinds of phase. */
static void lone_rank_records(void)
{
    tide_phase_log via_sums = log_of(1), direct = log_of(1);
    via_sums.keep_all = direct.keep_all = false;
    for (int k = 0; k < 300; k++) {
        double w = 0.001 * (1 + (k * 7) % 13);
        tide_rank_record r = rec(w, 1.75 * w, 0.0002 * (1 + k % 5), 3 + k % 4, 0, 0, 0);
        r.time = w + 0.00003 * (k % 3);
        r.L_pred = k % 9 == 0 ? -1 : 1.1 * w, r.L_unc = 0.0002;
        r.pred_source = k % 2 ? TIDE_SRC_MODEL : TIDE_SRC_MEDIAN;
        r.pred_model = TIDE_FEED_MODEL_TASK;
        r.plan_limit = k % 4 == 0 ? -1 : k % TIDE_LB_LIMIT_COUNT;
        r.replicated = k % 6 == 0;
        r.gate_tail = 0.0001 * (k % 7);
        r.threads = k % 5 == 0 ? 0 : 2; /* 0: the log's threads */
        r.protocol = k % 3 == 0;
        if (k % 11 == 0) r.L = 0; /* no relative error */
        tide_phase_sums sums;
        tide_phase_sums_of(&r, 2, &sums);
        sums.step_hi = k + 1, sums.step_neg = -(k + 1); /* as phase.c's fused_exchange */
        tide_phase_stats a, b;
        CHECK_OK(tide_stats_add_sums(&via_sums, &sums, &r, &a));
        tide_stats_add_lone(&direct, &r, k % 2 ? &b : NULL);
        /* what tide_stats_last_phase computes when asked (phase.c defers it) */
        tide_phase_stats c;
        tide_stats_lone_last(&direct, &r, &c);
        if (k % 2)
            CHECK(memcmp(&b, &c, sizeof b) == 0, "phase %d: the deferred statistics differ", k);
        CHECK(memcmp(&a, &c, sizeof a) == 0, "phase %d: the statistics differ", k);
    }
    /* the steps aside: fused_exchange's, which a lone rank does not need */
    CHECK(memcmp(&via_sums.sum, &direct.sum, offsetof(tide_phase_sums, step_hi)) == 0,
          "the running sums differ");
    CHECK(via_sums.ideal == direct.ideal && via_sums.unbalanced == direct.unbalanced &&
              via_sums.inline_phases == direct.inline_phases &&
              via_sums.nphases == direct.nphases && direct.nphases == 300,
          "the terms that are not sums differ");
    tide_run_totals t = tide_stats_totals(&direct);
    CHECK(t.predicted == 266 && t.planned == 225 && t.replicated == 50 && t.inline_phases == 200,
          "%ld predictions, %ld plans, %lld replicas, %ld inline phases", t.predicted, t.planned,
          (long long)t.replicated, t.inline_phases);
    tide_stats_free(&via_sums);
    tide_stats_free(&direct);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--json") == 0) {
        json_document(argv[2], argv[3]);
        printf("stats JSON: parses, summary and phases equal the hand values\n");
        return 0;
    }
    CHECK(argc == 1, "usage: test_stats [--json PYTHON3 OUT.json]");
    typical_phase();
    longest_task_dominates();
    empty_phase();
    one_rank();
    many_phases();
    verdict();
    verdict_too_short();
    finalize_lines();
    last_phase_only();
    reduced_sums();
    lone_rank_records();
    printf("stats formulas: R_imb, ideal, W_avg, the counts and the verdict equal the hand "
           "values\n");
    return 0;
}
