/* tide-sim: Tide's phase loop over P simulated ranks on a SimGrid platform, with the real task
 * strategies, planners and load models deciding (docs/sim.md).
 *
 *   tide-sim --platform coolmuc2 --ranks 64 --threads 14 --imb 3 --iters 50 --lb proact
 *
 * Exit codes: 0 ok, 2 a bad option or knob (one line), 3 a task that did not run and complete
 * exactly once, 70 a broken protocol. */
#include "sim.h"

#include <xbt/log.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

static sim_config cfg; /* large (the --tasks list): not on the stack */

/* Hosts in their natural order (node-2 before node-10), so rank r lands on the r-th group. */
static bool natural_less(const sg::Host *a, const sg::Host *b)
{
    const char *x = a->get_cname(), *y = b->get_cname();
    while (*x && *y) {
        if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
            char *ex, *ey;
            unsigned long long nx = strtoull(x, &ex, 10), ny = strtoull(y, &ey, 10);
            if (nx != ny) return nx < ny;
            x = ex, y = ey;
        } else {
            if (*x != *y) return *x < *y;
            x++, y++;
        }
    }
    return *x == 0 && *y != 0;
}

/* --ranks-per-host, else the platform's tide_ranks_per_host (a property of its hosts), else 1. */
static int ranks_per_host(const sg::Host *h)
{
    if (cfg.ranks_per_host) return cfg.ranks_per_host;
    const char *v = h->get_property("tide_ranks_per_host");
    if (!v && h->get_englobing_zone())
        v = h->get_englobing_zone()->get_property("tide_ranks_per_host");
    int n = v ? atoi(v) : 1;
    return n > 0 ? n : 1;
}

static int rank_init(sim *S, sim_rank *R, int id, sg::Host *host, char *err, size_t len)
{
    R->S = S;
    R->id = id;
    R->host = host;
    R->mbox = sg::Mailbox::by_name("rank-" + std::to_string(id));
    R->mu = sg::Mutex::create();
    R->cb_lock = sg::Mutex::create();
    R->work_cv = sg::ConditionVariable::create();
    R->comm_cv = sg::ConditionVariable::create();
    R->send_cv = sg::ConditionVariable::create();
    R->poll_cv = sg::ConditionVariable::create();
    R->head = R->tail = -1;
    R->busy.assign((size_t)S->P, 0);
    R->throttle_bw = id == S->cfg->tide.throttle_rank ? (double)S->cfg->tide.throttle_bw : 0;
    R->plan_transfer = -1;
    if (sim_lb_init(R, err, len) != 0) return -1;
    return sim_predict_init(R, err, len);
}

static void rank_free(sim_rank *R)
{
    sim_predict_free(R);
    tide_host_free(&R->lb);
    R->mbox->set_receiver(nullptr);
    for (sim_msg *m : R->controls)
        delete m;
    for (sim_msg *m : R->results)
        delete m;
    for (; !R->inbox.empty(); R->inbox.pop())
        delete R->inbox.top().m;
}

static void start_actors(sim *S)
{
    for (sim_rank &R : S->ranks) {
        std::string id = std::to_string(R.id);
        sg::ActorPtr rx = sg::Actor::create("recv-" + id, R.host, sim_receiver_actor, &R);
        R.mbox->set_receiver(rx);
        sg::Actor::create("send-" + id, R.host, sim_sender_actor, &R);
        for (int w = 0; w < S->W; w++)
            sg::Actor::create("work-" + id + "." + std::to_string(w), R.host, sim_worker_actor, &R);
        sg::Actor::create("comm-" + id, R.host, sim_comm_actor, &R);
    }
}

/* The ranks on the platform's hosts, ranks_per_host to a host. */
static int place_ranks(sim *S, sg::Engine *e, char *err, size_t len)
{
    std::vector<sg::Host *> hosts = e->get_all_hosts();
    std::sort(hosts.begin(), hosts.end(), natural_less);
    if (hosts.empty()) return snprintf(err, len, "platform '%.900s' has no host", cfg.platform), -1;
    S->ranks_per_host = ranks_per_host(hosts[0]);
    size_t need = ((size_t)S->P + (size_t)S->ranks_per_host - 1) / (size_t)S->ranks_per_host;
    if (need > hosts.size())
        return snprintf(err, len,
                        "platform '%.900s' has %zu hosts; %d ranks at %d per host need %zu",
                        cfg.platform, hosts.size(), S->P, S->ranks_per_host, need),
               -1;
    int on_one = S->P < S->ranks_per_host ? S->P : S->ranks_per_host;
    S->host_cores = hosts[0]->get_core_count();
    S->exec_sleeps = S->host_cores >= on_one * S->W;
    S->ranks.resize((size_t)S->P);
    for (int r = 0; r < S->P; r++)
        if (rank_init(S, &S->ranks[(size_t)r], r, hosts[(size_t)(r / S->ranks_per_host)], err, len))
            return -1;
    return 0;
}

static int die(int code, const char *msg)
{
    fprintf(stderr, "%s%s\n", strncmp(msg, "tide-sim:", 9) ? "tide-sim: " : "", msg);
    return code;
}

/* SimGrid's settings, before the user's --cfg (which win): tens of thousands of actors get
 * small stacks (mapped lazily); the network model is CM02 without cross traffic, i.e. links as
 * the platform gives them, without the TCP-over-Ethernet corrections of SimGrid's default
 * (LV08: latency x 13.01, bandwidth x 0.97, a reverse flow per message) -- docs/sim.md. */
static char *defaults[] = {(char *)"--cfg=contexts/stack-size:256",
                           (char *)"--cfg=network/model:CM02",
                           (char *)"--cfg=network/crosstraffic:0"};

/* SimGrid's own options (--cfg=..., --log=..., --help-cfg, ...) go to its engine, the rest to
 * ours. */
static bool simgrid_option(const char *a)
{
    return !strncmp(a, "--cfg=", 6) || !strncmp(a, "--log=", 6) || !strncmp(a, "--help-", 7);
}

static void split_args(int argc, char **argv, std::vector<char *> *ours, std::vector<char *> *sg)
{
    ours->push_back(argv[0]);
    sg->push_back(argv[0]);
    for (char *d : defaults)
        sg->push_back(d);
    for (int i = 1; i < argc; i++)
        (simgrid_option(argv[i]) ? sg : ours)->push_back(argv[i]);
    sg->push_back(nullptr);
}

static int run(sim *S, std::vector<char *> *sgargs, char *err, size_t len)
{
    int sgc = (int)sgargs->size() - 1;
    xbt_log_control_set("xbt_cfg.thres:warning"); /* SimGrid's chatter, unless --log asks */
    sg::Engine e(&sgc, sgargs->data());
    FILE *f = fopen(cfg.platform, "r");
    if (!f) return snprintf(err, len, "--platform '%.900s' cannot be read", cfg.platform), 2;
    fclose(f);
    e.load_platform(cfg.platform);
    if (place_ranks(S, &e, err, len)) return 2;
    sim_coll_init(S);
    int rc = 0;
    std::vector<sg::Host *> hosts;
    for (const sim_rank &R : S->ranks)
        hosts.push_back(R.host);
    if (cfg.workload == SIM_WL_CBENCH) {
        rc = sim_cbench_run(&cfg, S->wl, hosts, S->coll_lat, S->coll_bw, err, len);
    } else if (cfg.tide.global_lb[0] && strcmp(cfg.tide.global_lb, "none") != 0) {
        rc = sim_global_run(&cfg, S->wl, hosts, S->coll_lat, S->coll_bw, err, len);
    } else {
        sim_poll_init(S, S->ranks[0].host);
        if (cfg.net != SIM_NET_EXACT) sim_net_init(S);
        start_actors(S);
        e.run();
    }
    sim_coll_free();
    for (sim_rank &R : S->ranks)
        rank_free(&R);
    return rc;
}

int main(int argc, char **argv)
{
    char err[1024];
    std::vector<char *> ours, sgargs;
    split_args(argc, argv, &ours, &sgargs);
    if (sim_config_load(&cfg, (int)ours.size(), ours.data(), err, sizeof err)) return die(2, err);
    if (cfg.help) return fputs(sim_usage, stdout), 0;
    sim_workload wl;
    if (sim_workload_make(&cfg, &wl, err, sizeof err)) return die(2, err);
    sim S = {};
    S.cfg = &cfg;
    S.wl = &wl;
    S.ops = tide_lb_ops_find(cfg.tide.lb);
    S.P = wl.ranks;
    S.inline_phases = tide_proto_inline_phases(S.ops, cfg.tide.phase_driver, S.P);
    S.W = cfg.tide.threads || wl.threads < 1 ? sim_threads(&cfg) : wl.threads;
    if (cfg.tide.throttle_rank >= S.P) { /* as libtide's tide_init: the ranks are known only now */
        snprintf(err, sizeof err,
                 "TIDE_THROTTLE_RANK='%d' is invalid: the run has ranks 0 to %d (-1: none)",
                 cfg.tide.throttle_rank, S.P - 1);
        sim_cbench_free(&wl);
        return die(2, err);
    }
    S.log.assign((size_t)wl.phases, std::vector<sim_record>((size_t)S.P));
    if (cfg.moves[0]) S.moves.resize((size_t)wl.phases);
    if (cfg.decisions[0])
        S.decisions.assign((size_t)wl.phases, std::vector<sim_decision>((size_t)S.P));
    int rc = run(&S, &sgargs, err, sizeof err);
    sim_cbench_free(&wl);
    if (rc) return die(rc, err);
    if (cfg.workload == SIM_WL_CBENCH) return 0; /* reported there */
    if (cfg.tide.global_lb[0] && strcmp(cfg.tide.global_lb, "none") != 0)
        return 0; /* reported there */
    if (S.violations) {
        snprintf(err, sizeof err, "%ld exactly-once violations; the first: %s", S.violations,
                 S.violation);
        return die(3, err);
    }
    if (cfg.tide.stats_path[0] && sim_stats_write(&S, cfg.tide.stats_path, err, sizeof err))
        return die(2, err);
    if (cfg.moves[0] && sim_moves_write(&S, cfg.moves, err, sizeof err)) return die(2, err);
    if (cfg.decisions[0] && sim_decisions_write(&S, cfg.decisions, err, sizeof err))
        return die(2, err);
    if (!cfg.tide.quiet) sim_stats_print_summary(&S, stdout);
    return 0;
}
