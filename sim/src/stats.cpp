/* Statistics: the TIDE_STATS document of real runs (docs/stats.md, schema tide-stats/2), so
 * that scripts/bench and every other reader take a simulated run as it takes a real one. The
 * phase and summary figures are computed as runtime/engine/stats.c computes them; `config.sim`
 * adds what only a simulation has (platform, workload, the collective model). */
#include "sim.h"
#include "tide_core_decisions.h"
#include "tide_json.h"

#include <cmath>
#include <cstring>

void sim_record_fill(sim_rank *R, sim_record *rec)
{
    *rec = sim_record{};
    rec->W = R->last_done > 0 ? R->last_done - R->phase_start : 0;
    rec->L = R->L;
    rec->L_run = R->L_run;
    rec->L_pred = R->feed.load;
    rec->L_unc = R->feed.load >= 0 ? R->feed.unc : -1;
    rec->L_suspect = R->feed.load >= 0 ? R->feed.suspect : 0;
    rec->pred_kind = tide_feed_served(R->feed.load, R->feed.source, R->feed.model_code);
    rec->task_max = R->task_max;
    rec->tasks = (double)R->phase_tasks;
    rec->offloaded = (double)R->n_offloaded;
    rec->received = (double)R->n_received;
    rec->cancelled = (double)R->n_cancelled;
    rec->bytes_sent = R->bytes_sent;
    sim_transport_phase_end(R, &rec->send_bw, &rec->sent_last);
    rec->plan_transfer = R->plan_transfer;
    rec->reclaimed = (double)R->n_reclaimed;
    rec->protocol = true;
}

typedef struct phase_figures {
    double W_max, W_avg, L_total, R_imb, ideal, task_max;
    double time; /* the longest rank's phase, as runtime/engine/stats.c */
    double tasks, offloaded, bytes;
    bool have_pred;
} phase_figures;

static phase_figures figures(const sim *S, const std::vector<sim_record> &r)
{
    phase_figures f = {};
    f.have_pred = true;
    for (const sim_record &x : r) {
        if (x.W > f.W_max) f.W_max = x.W;
        if (x.time > f.time) f.time = x.time;
        f.W_avg += x.W / S->P;
        f.L_total += x.L;
        f.tasks += x.tasks;
        f.offloaded += x.offloaded;
        f.bytes += x.bytes_sent;
        if (x.task_max > f.task_max) f.task_max = x.task_max;
        if (x.L_pred < 0) f.have_pred = false;
    }
    f.R_imb = f.W_avg > 0 ? f.W_max / f.W_avg - 1 : 0;
    f.ideal = fmax(f.L_total / ((double)S->P * S->W), f.task_max);
    return f;
}

typedef double sim_record::*field;

static void array(FILE *f, const char *name, const std::vector<sim_record> &r, field x,
                  bool integer)
{
    fprintf(f, "\"%s\": [", name);
    for (size_t i = 0; i < r.size(); i++)
        fprintf(f, integer ? "%s%.0f" : "%s%.17g", i ? ", " : "", r[i].*x);
    fprintf(f, "]");
}

static void predictions(FILE *f, const std::vector<sim_record> &r, bool have)
{
    if (!have) {
        fprintf(f, "\"L_pred\": null, \"L_unc\": null, \"L_suspect\": null, \"pred_source\": null");
        return;
    }
    array(f, "L_pred", r, &sim_record::L_pred, false);
    fprintf(f, ", ");
    array(f, "L_unc", r, &sim_record::L_unc, false);
    fprintf(f, ", ");
    array(f, "L_suspect", r, &sim_record::L_suspect, false);
    fprintf(f, ", \"pred_source\": [");
    for (size_t i = 0; i < r.size(); i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", tide_feed_served_name(r[i].pred_kind));
    fprintf(f, "]");
}

static void write_phase(FILE *f, const sim *S, int p)
{
    const std::vector<sim_record> &r = S->log[(size_t)p];
    phase_figures x = figures(S, r);
    fprintf(f, "%s\n    {\"phase\": %d, \"time\": %.9g, ", p ? "," : "", p, x.time);
    array(f, "W", r, &sim_record::W, false);
    fprintf(f, ", ");
    array(f, "L", r, &sim_record::L, false);
    fprintf(f, ", ");
    array(f, "L_run", r, &sim_record::L_run, false);
    fprintf(f, ", ");
    predictions(f, r, x.have_pred);
    fprintf(f, ",\n     ");
    array(f, "tasks", r, &sim_record::tasks, true);
    fprintf(f, ", ");
    array(f, "offloaded", r, &sim_record::offloaded, true);
    fprintf(f, ", ");
    array(f, "received", r, &sim_record::received, true);
    fprintf(f, ", ");
    array(f, "cancelled", r, &sim_record::cancelled, true);
    fprintf(f, ", ");
    array(f, "bytes_sent", r, &sim_record::bytes_sent, true);
    fprintf(f, ",\n     ");
    array(f, "send_bw", r, &sim_record::send_bw, false);
    fprintf(f, ", ");
    array(f, "sent_last", r, &sim_record::sent_last, false);
    fprintf(f, ", ");
    array(f, "plan_transfer", r, &sim_record::plan_transfer, false);
    fprintf(f, ", ");
    array(f, "reclaimed", r, &sim_record::reclaimed, true);
    fprintf(f, ",\n     \"task_max\": %.9g, \"ideal\": %.9g, \"R_imb\": %.9g, \"protocol\": %s}",
            x.task_max, x.ideal, x.R_imb, r[0].protocol ? "true" : "false");
}

static void write_config(FILE *f, const sim *S)
{
    const sim_config *c = S->cfg;
    fprintf(f,
            "  \"config\": {\"lb\": \"%s\", \"offload\": \"%s\", \"ranks\": %d, \"threads\": %d, "
            "\"max_inflight\": %llu, \"pack_max\": %llu, \"round_us\": %d, \"seed\": %llu,\n"
            "    \"pred_model\": \"%s\", \"pred_window\": %d, \"pred_train\": %d, "
            "\"pred_retrain_err\": %g, \"pred_solver\": \"%s\", \"pred_select\": \"%s\", "
            "\"pred_guard\": %g, \"pred_spike\": %g, \"version\": \"0.1\",\n",
            c->tide.lb, tide_offload_name(c->tide.offload), S->P, S->W,
            (unsigned long long)c->tide.max_inflight, (unsigned long long)c->tide.pack_max,
            c->tide.round_us, (unsigned long long)c->tide.seed,
            c->pred_mode == SIM_PRED_EXACT ? "exact" : c->tide.pred.kind, c->tide.pred.window,
            c->tide.pred.train, c->tide.pred.retrain_err, tide_solver_name(c->tide.pred.solver),
            c->tide.pred.select == TIDE_SELECT_AUTO ? "auto" : "model", c->tide.pred.guard,
            c->tide.pred.spike);
    fprintf(f, "    \"sim\": {\"platform\": ");
    tide_json_string(f, c->platform);
    fprintf(f, ", \"ranks_per_host\": %d, \"host_cores\": %d, \"net\": \"%s\", \"workload\": ",
            S->ranks_per_host, S->host_cores, sim_net_name(c->net));
    tide_json_string(f, S->wl->name.c_str());
    fprintf(f,
            ", \"task_bytes\": %.17g, \"result_bytes\": %.17g, \"coll_latency\": %.9g, "
            "\"coll_bandwidth\": %.9g, \"coll_overhead\": %.9g, \"idle_turns\": \"%s\", "
            "\"idle_turns_skipped\": %ld}},\n",
            S->wl->task_bytes, S->wl->result_bytes, S->coll_lat, S->coll_bw, S->coll_overhead,
            c->idle_turns == SIM_IDLE_SKIP ? "skip" : "every", S->turns_skipped);
    size_t n;
    const tide_lb_knob *const *k = tide_lb_all_knobs(&n);
    fprintf(f, "  \"lb_knobs\": {");
    for (size_t i = 0; i < n && i < TIDE_LB_KNOBS_MAX; i++)
        fprintf(f, "%s\"%s\": %.9g", i ? ", " : "", k[i]->name, c->tide.lb_knob[i]);
    fprintf(f, "},\n");
}

typedef struct pred_error {
    double sq = 0, ape = 0;
    int n = 0, n_ape = 0;
    void add(const sim_record &r)
    {
        if (r.L_pred < 0) return;
        double d = r.L_pred - r.L;
        sq += d * d;
        n++;
        if (r.L > 0) ape += fabs(d) / r.L, n_ape++;
    }
} pred_error;

static void mean_or_null(FILE *f, double sum, int n)
{
    if (n)
        fprintf(f, "%.9g", sum / n);
    else
        fprintf(f, "null");
}

static void write_rank_errors(FILE *f, const sim *S)
{
    for (int pass = 0; pass < 2; pass++) {
        fprintf(f, pass ? ", \"pred_mse_ranks\": [" : ",\n    \"pred_mape_ranks\": [");
        for (int i = 0; i < S->P; i++) {
            pred_error e;
            for (const auto &r : S->log)
                e.add(r[(size_t)i]);
            fprintf(f, "%s", i ? ", " : "");
            if (pass)
                mean_or_null(f, e.sq, e.n);
            else
                mean_or_null(f, e.ape, e.n_ape);
        }
        fprintf(f, "]");
    }
}

static void write_summary(FILE *f, const sim *S)
{
    double W_par = 0, W_avg = 0, time = 0, ideal = 0, tasks = 0, moved = 0, bytes = 0;
    pred_error all;
    long served[TIDE_SERVED_COUNT] = {0};
    for (const auto &r : S->log) {
        phase_figures x = figures(S, r);
        W_par += x.W_max, W_avg += x.W_avg, time += x.time, ideal += x.ideal;
        tasks += x.tasks, moved += x.offloaded, bytes += x.bytes;
        for (const sim_record &rec : r) {
            all.add(rec);
            if (rec.pred_kind >= 0) served[rec.pred_kind]++;
        }
    }
    fprintf(f,
            "\n  ],\n  \"summary\": {\"phases\": %zu, \"W_par\": %.9g, \"W_avg\": %.9g, "
            "\"R_imb\": %.9g, \"time_total\": %.9g, \"ideal_time\": %.9g, \"tasks\": %.0f, "
            "\"tasks_offloaded\": %.0f, \"bytes_moved\": %.0f,\n    \"pred_mape\": ",
            S->log.size(), W_par, W_avg, W_avg > 0 ? W_par / W_avg - 1 : 0, time, ideal, tasks,
            moved, bytes);
    mean_or_null(f, all.ape, all.n_ape);
    fprintf(f, ", \"pred_mse\": ");
    mean_or_null(f, all.sq, all.n);
    write_rank_errors(f, S);
    fprintf(f, ",\n    \"pred_sources\": {");
    for (int k = 0, first = 1; k < TIDE_SERVED_COUNT; k++) {
        if (k == TIDE_SERVED_HINT) continue; /* libtide's cost hints: none in a simulation */
        fprintf(f, "%s\"%s\": %ld", first ? "" : ", ", tide_feed_served_name(k), served[k]);
        first = 0;
    }
    fprintf(f, "}}\n}\n");
}

int sim_stats_write(const sim *S, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) return snprintf(err, len, "TIDE_STATS='%s' cannot be written", path), -1;
    fprintf(f, "{\n  \"schema\": \"tide-stats/2\",\n");
    write_config(f, S);
    fprintf(f, "  \"phases\": [");
    for (size_t p = 0; p < S->log.size(); p++)
        write_phase(f, S, (int)p);
    write_summary(f, S);
    if (fclose(f) != 0) return snprintf(err, len, "TIDE_STATS='%s': write failed", path), -1;
    return 0;
}

void sim_stats_print_summary(const sim *S, FILE *out)
{
    double W_par = 0, W_avg = 0, time = 0, ideal = 0, tasks = 0, moved = 0, bytes = 0;
    for (const auto &r : S->log) {
        phase_figures x = figures(S, r);
        W_par += x.W_max, W_avg += x.W_avg, time += x.time, ideal += x.ideal;
        tasks += x.tasks, moved += x.offloaded, bytes += x.bytes;
    }
    fprintf(out,
            "tide-sim: %d ranks x %d workers, lb=%s, %zu phases: time %.3f s (ideal %.3f s), "
            "R_imb %.3f, %.0f of %.0f tasks offloaded, %.1f MiB moved\n",
            S->P, S->W, S->cfg->tide.lb, S->log.size(), time, ideal,
            W_avg > 0 ? W_par / W_avg - 1 : 0, moved, tasks, bytes / (1 << 20));
}

int sim_moves_write(const sim *S, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) return snprintf(err, len, "--moves '%.900s' cannot be written", path), -1;
    for (size_t p = 0; p < S->moves.size(); p++)
        for (const auto &m : S->moves[p])
            fprintf(f, "%zu %d %d %ld\n", p, m.first.first, m.first.second, m.second);
    if (fclose(f) != 0) return snprintf(err, len, "--moves '%.900s': write failed", path), -1;
    return 0;
}

int sim_decisions_write(const sim *S, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) return snprintf(err, len, "--decisions '%.900s' cannot be written", path), -1;
    for (size_t p = 0; p < S->decisions.size(); p++)
        for (int r = 0; r < S->P; r++)
            tide_decisions_pred(f, (int)p, r, &S->decisions[p][(size_t)r].pred);
    for (size_t p = 0; p < S->decisions.size(); p++)
        for (int r = 0; r < S->P; r++) {
            const sim_decision &d = S->decisions[p][(size_t)r];
            if (d.count.empty()) continue; /* no plan: no phase-start collective */
            tide_decisions_plan(f, (int)p, r, S->P, d.count.data(),
                                d.sel.empty() ? nullptr : d.sel.data(), (long)d.sel.size());
        }
    if (fclose(f) != 0) return snprintf(err, len, "--decisions '%.900s': write failed", path), -1;
    return 0;
}
