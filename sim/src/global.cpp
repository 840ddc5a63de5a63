/* One global rescheduling round of persistent objects (TIDE_GLOBAL_LB) over simulated ranks,
 * timed: how long P ranks take to agree on a new mapping, and to move the objects.
 *
 * Centralized strategies do what runtime/src/objects_lb.c does: every rank allgathers every
 * object's load and runs the same pure core (strategies/global), whose measured CPU time is the
 * simulated compute time. PackDrop does what runtime/src/objects_dlb.c does, message by message:
 * two sums (allreduce), batch assembly on overloaded ranks, push gossip of the underloaded ranks
 * in rounds (a sparse exchange: synchronous sends, then a barrier, as MPI's NBX; then a
 * one-integer allreduce that detects quiescence), then handshake rounds (proposals, answers), the
 * objects to their new owners, and an allgather of the moves. Both use the pure per-rank steps
 * (tide_packdrop_*, tide_gossip_peers) with the runtime's per-rank seeds. One actor per rank. */
#include "sim.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>

#include "tide_global.h"

namespace
{

enum { T_GOSSIP, T_PROPOSE, T_REPLY, T_MIGRATE, NTAGS };

struct gossip_entry {
    int64_t rank;
    double load;
};
struct proposal {
    int64_t handle;
    double load;
};

/* A protocol message: entries of one of the kinds above, or a count of migrating objects. */
struct gmsg {
    int src;
    std::vector<gossip_entry> gossip;
    std::vector<proposal> props;
    std::vector<unsigned char> answers;
    int64_t objects;
    double object_bytes; /* the migrating objects' states */
};

struct gsim;

struct grank {
    gsim *G;
    int id;
    sg::Host *host;
    sg::Mailbox *mb[NTAGS];
    std::vector<double> w;     /* this rank's objects' loads */
    std::vector<double> wb;    /* their states' bytes (empty: the workload's task bytes) */
    std::vector<int32_t> dest; /* their new owners */
    double load;
    uint64_t rng;
    std::vector<double> heard; /* gossip: announced load per rank, NAN if not heard of */
    std::vector<int32_t> known;
    bool learned;
    std::map<int, gmsg *> out; /* the current exchange's messages, by destination */
    long reductions;           /* reductions this rank entered */
    double threshold;          /* distributed: this transfer phase's threshold */
};

struct gsim {
    const sim_config *cfg;
    const tide_global_strategy *st;
    tide_global_params prm;
    int P;
    std::vector<grank> r;
    sg::BarrierPtr barrier;
    std::vector<double> sums; /* a reduction's inputs, one slot per rank */
    long reduced;             /* the reduction whose result is in `result` (-1: none) */
    double result;
    double lat, bw;
    tide_packdrop_globals g;
    std::vector<int32_t> central; /* the centralized mapping, all objects in rank order */
    std::vector<long> off;        /* rank r's objects in it: [off[r], off[r+1]) */
    double t_cpu;                 /* its measured compute time */
    double t_gather;              /* the centralized allgather's time */
    double bytes_moved;
    long gossip_rounds, handshake_rounds, messages, proposals, refused, unplaced, moved;
    double t_decided, t_done;
    double t_batch; /* --net fast|fair: the migration's time (migrate_batch) */
};

double now()
{
    return sg::Engine::get_clock();
}

/* A collective of `bytes` per rank: every rank waits for all, then for a recursive-doubling
 * allgather's time (the model of coll.cpp). */
void collective(grank *R, double bytes)
{
    gsim *G = R->G;
    G->barrier->wait();
    if (G->P > 1) sg::this_actor::sleep_for(sim_allgather_time(G->P, G->lat, G->bw, bytes * G->P));
}

/* The sum (or the maximum) over all ranks of x (allreduce), in rank order; the first rank to
 * read it computes it for all (O(P), not O(P^2) per reduction). */
double reduce(grank *R, double x, bool max)
{
    gsim *G = R->G;
    G->sums[(size_t)R->id] = x;
    collective(R, 8);
    if (G->reduced != R->reductions) {
        double s = max ? -INFINITY : 0;
        for (double v : G->sums)
            s = max ? std::max(s, v) : s + v;
        G->result = s;
        G->reduced = R->reductions;
    }
    double s = G->result;
    R->reductions++;
    G->barrier->wait(); /* nobody writes the slots again before everyone has read them */
    return s;
}

double allreduce(grank *R, double x)
{
    return reduce(R, x, false);
}

/* The sparse exchange: every message of R->out leaves; whatever reaches this rank on `tag` is
 * returned in arrival order once every rank's messages arrived. */
std::vector<gmsg *> exchange(grank *R, int tag, double bytes_each)
{
    std::vector<sg::CommPtr> sends;
    for (auto &o : R->out) {
        double bytes = 32 + bytes_each * (double)(o.second->gossip.size() + o.second->props.size());
        bytes += o.second->object_bytes;
        sends.push_back(R->G->r[(size_t)o.first].mb[tag]->put_async(o.second, (uint64_t)bytes));
        R->G->messages++;
    }
    R->out.clear();
    sg::Comm::wait_all(sends);
    collective(R, 0); /* NBX's barrier: every rank's sends arrived */
    std::vector<gmsg *> in;
    while (R->mb[tag]->ready())
        in.push_back(R->mb[tag]->get<gmsg>());
    return in;
}

gmsg *out_to(grank *R, int dest)
{
    gmsg *&m = R->out[dest];
    if (!m) m = new gmsg{R->id, {}, {}, {}, 0, 0.0};
    return m;
}

void hear(grank *R, int64_t rank, double load)
{
    if (!std::isnan(R->heard[(size_t)rank])) return;
    R->heard[(size_t)rank] = load;
    R->known.push_back((int32_t)rank);
    R->learned = true;
}

void gossip(grank *R, bool announce)
{
    gsim *G = R->G;
    R->heard.assign((size_t)G->P, NAN);
    R->known.clear();
    if (announce) hear(R, R->id, R->load);
    bool fresh = announce;
    std::vector<int32_t> peers((size_t)G->prm.gossip_fanout + 1);
    while (allreduce(R, fresh) > 0) {
        if (R->id == 0) G->gossip_rounds++;
        if (fresh) {
            int32_t n = tide_gossip_peers(G->P, R->id, G->prm.gossip_fanout, &R->rng, peers.data());
            for (int32_t p = 0; p < n; p++)
                for (int32_t k : R->known)
                    out_to(R, peers[(size_t)p])->gossip.push_back({k, R->heard[(size_t)k]});
        }
        R->learned = false;
        for (gmsg *m : exchange(R, T_GOSSIP, sizeof(gossip_entry))) {
            for (const gossip_entry &e : m->gossip)
                hear(R, e.rank, e.load);
            delete m;
        }
        fresh = R->learned;
    }
}

struct batch {
    double load;
    int32_t target;
    int64_t tries, start, stride;
};

int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Proposals out, answers back (runtime/objects/dlb_proto.c, dlb_handshake): each receiver
 * decides from its own load alone (PackDrop's or DistributedLB's rule); each proposer hears its
 * targets' answers, in target order, through on_answer(target, proposal handle, accepted). */
template <typename F> void handshake(grank *R, F on_answer)
{
    gsim *G = R->G;
    bool pd = G->st->protocol == TIDE_GLOBAL_PROTO_PACKDROP;
    std::map<int, std::vector<int64_t>> asked; /* my proposals by target, in order */
    for (auto &o : R->out)
        for (const proposal &p : o.second->props)
            asked[o.first].push_back(p.handle);
    std::vector<sg::CommPtr> replies;
    for (gmsg *in : exchange(R, T_PROPOSE, sizeof(proposal))) {
        gmsg *a = new gmsg{R->id, {}, {}, {}, 0, 0.0};
        for (const proposal &p : in->props) {
            bool ok = pd ? tide_packdrop_accept(R->load, p.load, &G->g)
                         : tide_distributed_accept(R->load, p.load, R->threshold);
            if (ok) R->load += p.load;
            a->answers.push_back(ok);
        }
        replies.push_back(G->r[(size_t)in->src].mb[T_REPLY]->put_async(a, 32 + a->answers.size()));
        G->messages++;
        delete in;
    }
    std::map<int, gmsg *> answers;
    while (answers.size() < asked.size()) {
        gmsg *a = R->mb[T_REPLY]->get<gmsg>();
        answers[a->src] = a;
    }
    for (auto &t : asked) {
        gmsg *a = answers[t.first];
        for (size_t i = 0; i < t.second.size(); i++)
            on_answer(t.first, t.second[i], a->answers[i] != 0);
        delete a;
    }
    sg::Comm::wait_all(replies);
}

/* BatchSend: each batch to its next known target, round by round, until every batch is placed
 * or refused by all. */
void send_batches(grank *R, std::vector<batch> *B, const std::vector<int32_t> &targets)
{
    gsim *G = R->G;
    int64_t m = (int64_t)targets.size();
    std::vector<int64_t> pending;
    for (size_t b = 0; b < B->size(); b++) {
        batch &x = (*B)[b];
        if (m == 0) {
            G->unplaced++;
            continue;
        }
        x.start = (int64_t)tide_global_rand_below(&R->rng, (uint64_t)m);
        x.stride = 1 + (int64_t)tide_global_rand_below(&R->rng, (uint64_t)m);
        while (gcd64(x.stride, m) != 1)
            x.stride = x.stride % m + 1;
        pending.push_back((int64_t)b);
    }
    while (allreduce(R, (double)pending.size()) > 0) {
        if (R->id == 0) G->handshake_rounds++;
        std::vector<int64_t> round;
        round.swap(pending);
        for (int64_t h : round) {
            batch &x = (*B)[(size_t)h];
            int32_t t = targets[(size_t)((x.start + x.tries * x.stride) % m)];
            x.tries++;
            G->proposals++;
            out_to(R, t)->props.push_back({h, x.load});
        }
        handshake(R, [&](int target, int64_t h, bool ok) {
            batch &b = (*B)[(size_t)h];
            if (ok) {
                b.target = target;
                R->load -= b.load;
            } else if (G->refused++, b.tries < m) {
                pending.push_back(h);
            } else {
                G->unplaced++;
            }
        });
    }
}

void packdrop(grank *R)
{
    gsim *G = R->G;
    int64_t k = (int64_t)R->w.size();
    double total = allreduce(R, R->load), ttc = allreduce(R, (double)k);
    if (ttc < 1 || tide_packdrop_globals_make(G->P, total, (int64_t)ttc, G->prm.packdrop_tolerance,
                                              &G->g) != TIDE_PLAN_OK)
        return;
    std::vector<int32_t> batch_of((size_t)k + 1, -1);
    std::vector<double> bload((size_t)k + 1);
    int64_t nb = 0;
    if (R->load > G->g.ub)
        tide_packdrop_assemble(k, R->w.data(), 0.0, &G->g, batch_of.data(), &nb, bload.data());
    if (allreduce(R, (double)nb) == 0) return;
    gossip(R, R->load < G->g.avg);
    std::vector<int32_t> targets;
    for (int32_t t : R->known)
        if (t != R->id) targets.push_back(t);
    std::vector<batch> B((size_t)nb);
    for (int64_t b = 0; b < nb; b++)
        B[(size_t)b] = batch{bload[(size_t)b], -1, 0, 0, 0};
    send_batches(R, &B, targets);
    for (int64_t i = 0; i < k; i++)
        if (batch_of[(size_t)i] >= 0 && B[(size_t)batch_of[(size_t)i]].target >= 0)
            R->dest[(size_t)i] = B[(size_t)batch_of[(size_t)i]].target;
}

/* DistributedLB as runtime/objects/dlb.c (run_distributed) runs it: two reductions, gossip of the
 * ranks under ratio x avg, then transfer phases: each rank above the phase's threshold offers
 * its objects, smallest first, to targets drawn by free room (tide_distributed_pick), one
 * handshake per phase; a refusal closes that target for this sender; the threshold relaxes
 * (tide_distributed_next_threshold) until max <= ratio x avg or the phases run out. */
void distributed(grank *R)
{
    gsim *G = R->G;
    const tide_global_params *prm = &G->prm;
    double sum = allreduce(R, R->load), max = reduce(R, R->load, true);
    double avg = sum / G->P, goal = prm->dist_target_ratio * avg;
    if (allreduce(R, !(avg > 0.0) || max <= goal) > 0) return;
    gossip(R, R->load < goal);
    std::vector<int32_t> targets;
    for (int32_t t : R->known)
        if (t != R->id) targets.push_back(t);
    int64_t m = (int64_t)targets.size();
    std::map<int, int64_t> slot;
    for (int64_t i = 0; i < m; i++)
        slot[targets[(size_t)i]] = i;
    std::vector<double> view((size_t)m + 1), cdf((size_t)m + 1), sent((size_t)m + 1, 0.0);
    std::vector<unsigned char> full((size_t)m + 1, 0);
    std::vector<std::pair<double, int64_t>> objs; /* smallest first, ties by index */
    for (size_t i = 0; i < R->w.size(); i++)
        objs.push_back({R->w[i], (int64_t)i});
    std::sort(objs.begin(), objs.end());
    double threshold = (max + avg) / 2.0, ratio = max / avg;
    for (int32_t phase = 1;; phase++) {
        if (R->id == 0) G->handshake_rounds++;
        R->threshold = threshold;
        if (R->load > threshold && m > 0) {
            for (int64_t i = 0; i < m; i++)
                view[(size_t)i] = full[(size_t)i]
                                      ? threshold
                                      : R->heard[(size_t)targets[(size_t)i]] + sent[(size_t)i];
            tide_distributed_cdf(m, view.data(), avg, cdf.data());
            double projected = R->load;
            for (size_t j = 0; j < objs.size() && projected > threshold; j++) {
                int64_t o = objs[j].second;
                double w = objs[j].first;
                if (R->dest[(size_t)o] != R->id || w <= 0.0) continue; /* already gone */
                int64_t i = tide_distributed_pick(m, view.data(), cdf.data(), w, threshold,
                                                  prm->dist_max_trials, &R->rng, NULL, NULL);
                if (i < 0) {
                    G->unplaced++;
                    break; /* no room found: this sender is done this phase */
                }
                out_to(R, targets[(size_t)i])->props.push_back({o, w});
                G->proposals++;
                view[(size_t)i] += w;
                projected -= w;
            }
        }
        handshake(R, [&](int target, int64_t o, bool ok) {
            if (!ok) {
                G->refused++;
                full[(size_t)slot[target]] = 1;
                return;
            }
            R->dest[(size_t)o] = target;
            R->load -= R->w[(size_t)o];
            sent[(size_t)slot[target]] += R->w[(size_t)o];
        });
        double new_max = reduce(R, R->load, true), old_ratio = ratio;
        ratio = new_max / avg;
        if (allreduce(R, ratio <= prm->dist_target_ratio || threshold <= goal ||
                             phase >= prm->dist_max_phases) > 0)
            break;
        threshold = tide_distributed_next_threshold(threshold, new_max, avg, old_ratio, ratio);
    }
}

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

} // namespace

struct sim_global {
    gsim G;
};

sim_global *sim_global_new(const sim_config *c, int P, const std::vector<sg::Host *> &hosts,
                           int ranks_per_host, double lat, double bw)
{
    sim_global *S = new sim_global();
    gsim &G = S->G;
    G.cfg = c;
    G.st = tide_global_find(c->global_lb);
    tide_global_params_default(&G.prm);
    G.prm.seed = c->seed;
    G.prm.packdrop_tolerance = c->packdrop_tolerance;
    G.prm.gossip_fanout = c->gossip_fanout;
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
    if (!c->quiet) summarize(&S->G, stdout, false);
    if (!c->stats[0]) return 0;
    FILE *f = fopen(c->stats, "w");
    if (!f) return snprintf(err, len, "TIDE_STATS='%.900s' cannot be written", c->stats), 2;
    summarize(&S->G, f, true);
    if (fclose(f)) return snprintf(err, len, "TIDE_STATS='%.900s': write failed", c->stats), 2;
    return 0;
}

static void one_round(sim_global *S, int rank)
{
    sim_global_round(S, rank, S->G.cfg->seed);
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
