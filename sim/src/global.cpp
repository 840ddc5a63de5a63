/* One global rescheduling round of persistent objects (TIDE_GLOBAL_LB) over simulated ranks,
 * timed: how long P ranks take to agree on a new mapping, and to move the objects.
 *
 * Centralized strategies do what runtime/src/objects_lb.c does: every rank allgathers every
 * object's load and runs the same pure core (rescheduling), whose measured CPU time is the
 * simulated compute time. PackDrop does what runtime/src/objects_dlb.c does, message by message:
 * two sums (allreduce), batch assembly on overloaded ranks, push gossip of the underloaded ranks
 * in rounds (a sparse exchange: synchronous sends, then a barrier, as MPI's NBX; then a
 * one-integer allreduce that detects quiescence), then handshake rounds (proposals, answers), the
 * objects to their new owners, and an allgather of the moves. Both use the pure per-rank steps
 * (tide_packdrop_*, tide_gossip_peers) with the runtime's per-rank seeds (global_dlb.cpp). One
 * actor per rank. */
#include "global_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>

namespace tide_gsim
{

/* Every rank gathers all loads and computes the same mapping: computed once here, its CPU time
 * charged to every rank. */
void centralized(grank *R)
{
    gsim *G = R->G;
    double t0 = now();
    collective(R, 16.0 * (double)R->w.size()); /* each object's id and load */
    if (R->id == 0) {
        G->t_gather = now() - t0;
        std::vector<double> load;
        std::vector<int32_t> owner;
        G->off.assign(1, 0);
        for (const grank &x : G->r) {
            for (double v : x.w)
                load.push_back(v), owner.push_back(x.id);
            G->off.push_back((long)load.size());
        }
        G->central.assign(load.size() + 1, 0);
        tide_global_input in = {G->P,        (int64_t)load.size(),
                                load.data(), owner.data(),
                                nullptr,     nullptr,
                                nullptr,     nullptr,
                                nullptr};
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        G->st->plan(&in, &G->prm, G->central.data());
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        G->t_cpu = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    }
    G->barrier->wait();
    sg::this_actor::sleep_for(G->t_cpu);
    for (size_t i = 0; i < R->w.size(); i++)
        R->dest[i] = G->central[(size_t)G->off[(size_t)R->id] + i];
}

/* --net fast|fair: the migration's messages leave together and are timed as one batch by the
 * endpoint model (sim_net_batch_time, net.cpp) instead of as SimGrid flows; the round goes on
 * when the last one arrived and the NBX barrier is over, as after exchange(). */
void migrate_batch(grank *R)
{
    gsim *G = R->G;
    G->barrier->wait(); /* every rank's messages are in its `out` */
    if (R->id == 0) {
        std::vector<sim_batch_msg> batch;
        for (const grank &x : G->r)
            for (const auto &o : x.out)
                batch.push_back({x.host, G->r[(size_t)o.first].host, 32 + o.second->object_bytes});
        G->messages += (long)batch.size();
        G->t_batch = sim_net_batch_time(G->cfg->net, batch);
    }
    G->barrier->wait();
    for (auto &o : R->out)
        delete o.second;
    R->out.clear();
    sg::this_actor::sleep_for(G->t_batch);
    collective(R, 0);
}

/* The objects to their new owners (one message per pair), then the moves' allgather. */
void migrate(grank *R, bool gather_moves)
{
    int64_t moved = 0;
    for (size_t i = 0; i < R->dest.size(); i++) {
        if (R->dest[i] == R->id) continue;
        double bytes = R->wb.empty() ? R->G->cfg->task_bytes : R->wb[i];
        gmsg *m = out_to(R, R->dest[i]);
        m->objects++, m->object_bytes += bytes, moved++;
        R->G->bytes_moved += bytes;
    }
    R->G->moved += moved;
    if (!R->G->cfg->global_migrate) { /* the decision only: nothing travels */
        for (auto &o : R->out)
            delete o.second;
        R->out.clear();
        return;
    }
    if (R->G->cfg->net != SIM_NET_EXACT)
        migrate_batch(R);
    else
        for (gmsg *m : exchange(R, T_MIGRATE, 0))
            delete m;
    if (gather_moves) collective(R, 12.0 * (double)moved);
}

/* One round on every rank together: the decision, then the migration. */
void round(grank *R)
{
    gsim *G = R->G;
    G->barrier->wait();
    double t0 = now();
    if (G->st->protocol == TIDE_GLOBAL_PROTO_PACKDROP)
        packdrop(R);
    else if (G->st->protocol == TIDE_GLOBAL_PROTO_DISTRIBUTED)
        distributed(R);
    else
        centralized(R);
    G->barrier->wait();
    if (R->id == 0) G->t_decided = now() - t0;
    migrate(R, G->st->protocol != TIDE_GLOBAL_CENTRAL);
    G->barrier->wait();
    if (R->id == 0) G->t_done = now() - t0;
}

} // namespace tide_gsim

using namespace tide_gsim;

struct sim_global {
    gsim G;
};

sim_global *sim_global_new(const sim_config *c, int P, const std::vector<sg::Host *> &hosts,
                           int ranks_per_host, double lat, double bw)
{
    sim_global *S = new sim_global();
    gsim &G = S->G;
    G.cfg = c;
    G.st = tide_global_find(c->tide.global_lb);
    G.prm = c->tide.global; /* every TIDE_* knob of the global strategies, as libtide's */
    G.prm.seed = c->tide.seed;
    G.P = P;
    G.lat = lat;
    G.bw = bw;
    G.barrier = sg::Barrier::create((unsigned)G.P);
    G.sums.assign((size_t)G.P, 0.0);
    G.reduced = -1;
    G.r.resize((size_t)G.P);
    for (int r = 0; r < G.P; r++) {
        grank *R = &G.r[(size_t)r];
        R->G = &G;
        R->id = r;
        R->host = hosts[(size_t)(r / ranks_per_host)];
        for (int t = 0; t < NTAGS; t++)
            R->mb[t] = sg::Mailbox::by_name("g" + std::to_string(t) + "-" + std::to_string(r));
    }
    return S;
}

void sim_global_set_objects(sim_global *S, int rank, const std::vector<double> &load,
                            const std::vector<double> &bytes)
{
    grank *R = &S->G.r[(size_t)rank];
    R->w = load;
    R->wb = bytes;
    R->dest.assign(load.size(), rank);
    R->load = 0;
    for (double v : R->w)
        R->load += v;
}

void sim_global_attach(sim_global *S, int rank, sg::ActorPtr a)
{
    for (sg::Mailbox *m : S->G.r[(size_t)rank].mb)
        m->set_receiver(a);
}

const std::vector<int32_t> &sim_global_round(sim_global *S, int rank, uint64_t seed)
{
    grank *R = &S->G.r[(size_t)rank];
    S->G.prm.seed = seed; /* every rank writes the same value before the first barrier */
    S->G.t_gather = 0;
    R->rng = tide_global_rank_seed(seed, rank);
    round(R);
    return R->dest;
}

void sim_global_collective(sim_global *S, int rank, double bytes)
{
    collective(&S->G.r[(size_t)rank], bytes);
}

void sim_global_stats_get(const sim_global *S, sim_global_stats *out)
{
    const gsim &G = S->G;
    *out = sim_global_stats{G.t_decided,   G.t_gather, G.t_cpu,         G.t_done,          G.moved,
                            G.bytes_moved, G.messages, G.gossip_rounds, G.handshake_rounds};
}

void sim_global_free(sim_global *S)
{
    for (grank &R : S->G.r)
        for (sg::Mailbox *m : R.mb)
            m->set_receiver(nullptr);
    delete S;
}

static void summarize(const gsim *G, FILE *f, bool json)
{
    std::vector<double> load;
    std::vector<int32_t> owner, dest;
    for (const grank &R : G->r)
        for (size_t i = 0; i < R.w.size(); i++)
            load.push_back(R.w[i]), owner.push_back(R.id), dest.push_back(R.dest[i]);
    tide_global_input in = {
        G->P,   (int64_t)load.size(), load.data(), owner.data(), nullptr, nullptr, nullptr, nullptr,
        nullptr};
    tide_global_summary s = {};
    tide_global_summarize(&in, dest.data(), &s);
    const char *fmt =
        json ? "{\n  \"schema\": \"tide-sim-global/1\",\n  \"strategy\": \"%s\", \"ranks\": %d, "
               "\"objects\": %zu, \"net\": \"%s\",\n  \"decision_time\": %.9g, \"total_time\": "
               "%.9g, "
               "\"compute_cpu\": %.9g,\n  \"max_before\": %.9g, \"max_after\": %.9g, "
               "\"avg\": %.9g, \"moved\": %ld,\n  \"messages\": %ld, \"gossip_rounds\": %ld, "
               "\"handshake_rounds\": %ld, \"proposals\": %ld, \"refused\": %ld, "
               "\"unplaced\": %ld\n}\n"
             : "tide-sim: global %s, %d ranks, %zu objects: decided in %.6f s, moved in %.6f s "
               "(compute %.6f s); max/avg %.3f -> %.3f, %ld moved, %ld messages, %ld gossip and "
               "%ld handshake rounds, %ld proposals, %ld refused, %ld unplaced\n";
    if (json)
        fprintf(f, fmt, G->st->name, G->P, load.size(), sim_net_name(G->cfg->net), G->t_decided,
                G->t_done, G->t_cpu, s.max_before, s.max_after, s.avg, G->moved, G->messages,
                G->gossip_rounds, G->handshake_rounds, G->proposals, G->refused, G->unplaced);
    else
        fprintf(f, fmt, G->st->name, G->P, load.size(), G->t_decided, G->t_done - G->t_decided,
                G->t_cpu, s.avg > 0 ? s.max_before / s.avg : 0, s.avg > 0 ? s.max_after / s.avg : 0,
                G->moved, G->messages, G->gossip_rounds, G->handshake_rounds, G->proposals,
                G->refused, G->unplaced);
}

static int sim_global_report(const sim_global *S, char *err, size_t len)
{
    const sim_config *c = S->G.cfg;
    if (!c->tide.quiet) summarize(&S->G, stdout, false);
    if (!c->tide.stats_path[0]) return 0;
    FILE *f = fopen(c->tide.stats_path, "w");
    if (!f)
        return snprintf(err, len, "TIDE_STATS='%.900s' cannot be written", c->tide.stats_path), 2;
    summarize(&S->G, f, true);
    if (fclose(f))
        return snprintf(err, len, "TIDE_STATS='%.900s': write failed", c->tide.stats_path), 2;
    return 0;
}

static void one_round(sim_global *S, int rank)
{
    sim_global_round(S, rank, S->G.cfg->tide.seed);
}

int sim_global_run_objects(const sim_config *c, const std::vector<std::vector<double>> &load,
                           const std::vector<std::vector<double>> &bytes,
                           const std::vector<sg::Host *> &hosts, double lat, double bw, char *err,
                           size_t len)
{
    sim_global *S = sim_global_new(c, (int)load.size(), hosts, 1, lat, bw);
    for (size_t r = 0; r < load.size(); r++) {
        sim_global_set_objects(S, (int)r, load[r], bytes[r]);
        sim_global_attach(
            S, (int)r,
            sg::Actor::create("global-" + std::to_string(r), hosts[r], one_round, S, (int)r));
    }
    sg::Engine::get_instance()->run();
    int rc = sim_global_report(S, err, len);
    sim_global_free(S);
    return rc;
}
