/* PackDrop's and DistributedLB's decentralized protocols in a simulated rescheduling round
 * (global.cpp runs the round): what runtime/src/objects_dlb.c does, message by message, with the
 * pure per-rank steps (tide_packdrop_*, tide_distributed_*, tide_gossip_peers) and the runtime's
 * per-rank seeds: push gossip of the underloaded ranks until quiescence, then PackDrop's batch
 * handshake rounds or DistributedLB's transfer phases. */
#include "global_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tide_gsim
{

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

} // namespace tide_gsim
