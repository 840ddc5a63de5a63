/* The cbench workload (--cbench FILE): ComprehensiveBench's objects, read and evaluated by
 * cbench's own code (apps/cbench, compiled in) exactly as a cbench run does before its first
 * iteration: the file, then the --cbench-set overrides (an override wins wherever it stands, a
 * name given twice is an error), p defaulting to ranks x workers, every expression evaluated for
 * every object and iteration, gcomm's shape checked. The first error is cbench's own message
 * (exit 2). Then the tables the objects loop (objloop.cpp) reads, and its report in cbench's
 * `cbench-1` terms. */
#include "cbench.h"
#include "tide_json.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>

/* --cbench-set NAME=VALUE, applied as cbench applies --NAME VALUE (cbench.c, load_config). */
static int apply_overrides(const sim_config *c, cbench_config *cc, char *err, size_t len)
{
    for (int k = 0; k < c->ncbench_set; k++) {
        const char *s = c->cbench_set[k], *eq = strchr(s, '=');
        std::string name(s, (size_t)(eq - s));
        for (int j = 0; j < k; j++)
            if (!strncmp(c->cbench_set[j], s, (size_t)(eq - s) + 1))
                return snprintf(err, len, "--cbench-set %s is given twice", name.c_str()), -1;
        std::string origin = "--cbench-set " + name;
        if (cbench_config_set(cc, name.c_str(), eq + 1, origin.c_str(), err, len)) return -1;
    }
    return 0;
}

/* The strategy and its period, as cbench's apply_lbfreq decides them: lbfreq from the file or
 * an override replaces TIDE_LB_PERIOD, and 0 means none; otherwise TIDE_LB_PERIOD (10). */
static void pick_strategy(const sim_config *c, sim_cbench *cb)
{
    const cbench_config *cc = &cb->cfg;
    cb->strategy = c->tide.global_lb[0] ? c->tide.global_lb : "none";
    cb->period = c->tide.lb_period;
    if (strcmp(cc->origin[CBENCH_LBFREQ], "default") != 0) {
        cb->period = (int)cc->lbfreq;
        if (cc->lbfreq == 0) cb->strategy = "none";
    }
    cb->balance = strcmp(cb->strategy, "none") != 0 && cb->period > 0;
}

static int64_t value(const cbench_config *cc, cbench_param k, int64_t t, int64_t i)
{
    char err[CBENCH_ERR_LEN];
    int64_t v = 0;
    cbench_config_eval(cc, k, t, i, &v, err, sizeof err); /* checked up front: cannot fail */
    return v;
}

/* Every object's placement, state, loads and messages, from the checked expressions. */
static void tabulate(const sim_config *c, sim_cbench *cb)
{
    const cbench_config *cc = &cb->cfg;
    int64_t n = cc->n, r = cc->r;
    cb->owner0.resize((size_t)n);
    cb->bytes.resize((size_t)n);
    cb->nb_off.assign(1, 0);
    for (int64_t t = 0; t < n; t++) {
        /* p processing units over the ranks in blocks, as cbench's create_objects */
        cb->owner0[(size_t)t] = (int32_t)(value(cc, CBENCH_INITMAP, t, 0) * c->ranks / cc->p);
        cb->bytes[(size_t)t] = (double)value(cc, CBENCH_TASKSIZE, t, 0) + SIM_CBENCH_STATE_HEADER;
        int64_t nb[CBENCH_MAX_NEIGHBOURS];
        int k = cbench_neighbours(cc->gcomm, n, t, nb);
        cb->nb.insert(cb->nb.end(), nb, nb + k);
        cb->nb_off.push_back((int64_t)cb->nb.size());
    }
    cb->load.resize((size_t)(n * r));
    bool sends = false;
    for (int64_t i = 1; i <= r && !sends; i++)
        for (int64_t t = 0; t < n && !sends; t++)
            sends = value(cc, CBENCH_MSGNUM, t, i) > 0;
    if (sends) {
        cb->msgnum.resize((size_t)(n * r));
        cb->msgsize.resize((size_t)(n * r));
    }
    for (int64_t i = 1; i <= r; i++)
        for (int64_t t = 0; t < n; t++) {
            size_t at = (size_t)((i - 1) * n + t);
            cb->load[at] = 1e-6 * (double)(value(cc, CBENCH_LOAD, t, i) * cc->load_unit);
            if (!sends) continue;
            cb->msgnum[at] = (int32_t)value(cc, CBENCH_MSGNUM, t, i);
            cb->msgsize[at] = (double)value(cc, CBENCH_MSGSIZE, t, i);
        }
}

int sim_cbench_make(const sim_config *c, sim_workload *w, char *err, size_t len)
{
    static char e[CBENCH_ERR_LEN]; /* cbench's messages may carry an expression and a caret */
    sim_cbench *cb = new sim_cbench();
    w->cbench = cb;
    cbench_config *cc = &cb->cfg;
    cbench_config_init(cc);
    int rc = cbench_config_read_file(cc, c->cbench, e, sizeof e) ||
             apply_overrides(c, cc, e, sizeof e) || cbench_config_finish(cc, false, e, sizeof e);
    if (!rc && !cc->origin[CBENCH_P][0]) {
        char p[32];
        snprintf(p, sizeof p, "%lld", (long long)c->ranks * sim_threads(c));
        rc = cbench_config_set(cc, "p", p, "ranks x workers", e, sizeof e);
    }
    rc = rc || cbench_config_check(cc, cc->r, nullptr, e, sizeof e) ||
         cbench_topology_check(cc->gcomm, cc->n, e, sizeof e);
    if (!rc && (double)cc->n * (double)cc->r > 2e8)
        rc = snprintf(e, sizeof e,
                      "n x r = %lld x %lld: more than 2e8 object iterations to tabulate",
                      (long long)cc->n, (long long)cc->r) > 0;
    if (rc) {
        snprintf(err, len, "tide-sim: %s", e);
        sim_cbench_free(w);
        return -1;
    }
    tabulate(c, cb);
    pick_strategy(c, cb);
    w->ranks = c->ranks;
    w->phases = (int)std::min<int64_t>(cc->r, 1000000);
    w->threads = 0;
    w->feature.clear();
    w->mhz = 0;
    w->ntasks.assign(1, std::vector<int>((size_t)c->ranks, 0));
    w->dur.assign(1, std::vector<double>((size_t)c->ranks, 0.0));
    w->name = std::string("cbench ") + c->cbench;
    return 0;
}

void sim_cbench_free(sim_workload *w)
{
    if (!w->cbench) return;
    cbench_config_free(&w->cbench->cfg);
    delete w->cbench;
    w->cbench = nullptr;
}

/* ---- the report -------------------------------------------------------------------------- */

static void json_doubles(FILE *f, const char *name, const std::vector<double> &v)
{
    fprintf(f, "  \"%s\": [", name);
    for (size_t k = 0; k < v.size(); k++)
        fprintf(f, "%s%.9g", k ? ", " : "", v[k]);
    fprintf(f, "],\n");
}

typedef struct totals {
    double decision, gather, migrate, bytes;
    long moved;
} totals;

static totals sum_resched(const sim_cbench_result *res)
{
    totals s = {};
    for (const sim_cbench_resched &x : res->resched) {
        s.decision += x.decision_s, s.gather += x.gather_s, s.migrate += x.migrate_s;
        s.bytes += x.bytes, s.moved += x.moved;
    }
    return s;
}

static void write_json(FILE *f, const sim_config *c, const sim_cbench *cb,
                       const sim_cbench_result *res)
{
    const cbench_config *cc = &cb->cfg;
    fprintf(f, "{\n  \"schema\": \"tide-sim-cbench/1\",\n  \"config\": {\"file\": ");
    tide_json_string(f, c->cbench);
    fprintf(f,
            ", \"n\": %" PRId64 ", \"p\": %" PRId64 ", \"r\": %" PRId64 ", \"lbfreq\": %" PRId64
            ", \"load_unit\": %" PRId64 ", \"ranks\": %d, \"workers\": %d, \"kernel\": \"sim\", "
            "\"strategy\": \"%s\", \"period\": \"%d\", \"platform\": ",
            cc->n, cc->p, cc->r, cc->lbfreq, cc->load_unit, res->ranks, res->workers, cb->strategy,
            cb->period);
    tide_json_string(f, c->platform);
    fprintf(f, ", \"seed\": %llu},\n", (unsigned long long)c->tide.seed);
    fprintf(f, "  \"total_s\": %.9g,\n", res->total_s);
    json_doubles(f, "iteration_s", res->iter_s);
    json_doubles(f, "load_max_s", res->load_max);
    json_doubles(f, "load_avg_s", res->load_avg);
    totals s = sum_resched(res);
    fprintf(f,
            "  \"summary\": {\"reschedules\": %zu, \"decision_s\": %.9g, \"gather_s\": %.9g, "
            "\"migrate_s\": %.9g, \"moved\": %ld, \"bytes_moved\": %.0f, \"messages\": %ld, "
            "\"message_bytes\": %.0f, \"failures\": %ld},\n",
            res->resched.size(), s.decision, s.gather, s.migrate, s.moved, s.bytes, res->messages,
            res->message_bytes, res->failures);
    fprintf(f, "  \"reschedules\": [");
    for (size_t k = 0; k < res->resched.size(); k++) {
        const sim_cbench_resched &x = res->resched[k];
        fprintf(f,
                "%s\n    {\"iteration\": %" PRId64 ", \"decision_s\": %.9g, \"gather_s\": %.9g, "
                "\"migrate_s\": %.9g, \"moved\": %ld, \"bytes\": %.0f, \"max_before\": %.9g, "
                "\"avg\": %.9g, \"max_after\": %.9g, \"protocol_messages\": %ld, "
                "\"gossip_rounds\": %ld, \"handshake_rounds\": %ld}",
                k ? "," : "", x.iteration, x.decision_s, x.gather_s, x.migrate_s, x.moved, x.bytes,
                x.max_before, x.avg, x.max_after, x.messages, x.gossip_rounds, x.handshake_rounds);
    }
    fprintf(f, "%s]\n}\n", res->resched.empty() ? "" : "\n  ");
}

static void print_summary(const sim_config *c, const sim_cbench *cb, const sim_cbench_result *res)
{
    const cbench_config *cc = &cb->cfg;
    auto mm = std::minmax_element(res->iter_s.begin(), res->iter_s.end());
    totals s = sum_resched(res);
    printf("tide-sim: cbench %s: n=%" PRId64 " p=%" PRId64 " r=%" PRId64
           " on %d ranks x %d workers, strategy %s every %d iterations\n",
           c->cbench, cc->n, cc->p, cc->r, res->ranks, res->workers, cb->strategy, cb->period);
    printf("tide-sim: total %.4f s; per iteration mean %.4f s, min %.4f, max %.4f; last "
           "iteration load max %.4f s / avg %.4f s\n",
           res->total_s, res->total_s / (double)cc->r, *mm.first, *mm.second, res->load_max.back(),
           res->load_avg.back());
    printf("tide-sim: %zu reschedules: decision %.3f ms (gather %.3f, migrate %.3f), %ld "
           "migrations, %.0f bytes; %ld messages (%.0f bytes) routed between ranks\n",
           res->resched.size(), 1e3 * s.decision, 1e3 * s.gather, 1e3 * s.migrate, s.moved, s.bytes,
           res->messages, res->message_bytes);
}

int sim_cbench_report(const sim_config *c, const sim_cbench *cb, const sim_cbench_result *res,
                      char *err, size_t len)
{
    if (!c->tide.quiet) print_summary(c, cb, res);
    if (!c->tide.stats_path[0]) return 0;
    FILE *f = fopen(c->tide.stats_path, "w");
    if (!f)
        return snprintf(err, len, "TIDE_STATS='%.900s' cannot be written", c->tide.stats_path), 2;
    write_json(f, c, cb, res);
    if (fclose(f))
        return snprintf(err, len, "TIDE_STATS='%.900s': write failed", c->tide.stats_path), 2;
    return 0;
}
