/* PackDrop's and DistributedLB's decentralized protocols in a simulated rescheduling round
 * (global.cpp runs the round): what runtime/src/objects_dlb.c does, message by message, with the
 * pure per-rank steps (tide_packdrop_*, tide_distributed_*, tide_gossip_peers) and the runtime's
 * per-rank seeds: push gossip of the underloaded ranks until quiescence, then PackDrop's batch
 * handshake rounds or DistributedLB's transfer phases. */
#include "global_internal.h"

#include <algorithm>
#include <stdexcept>
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
            a->answers.push_back(pd ? tide_packdrop_rank_answer(&R->pd, p.load)
                                    : tide_distributed_rank_answer(&R->dist, p.load));
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

/* The proposals a step wrote, into this round's messages. */
static void put_proposals(grank *R, const tide_dlb_proposal *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out_to(R, out[i].target)->props.push_back({out[i].handle, out[i].load});
}

/* The ranks heard of other than this one, in the order heard. */
static std::vector<int32_t> targets_of(const grank *R)
{
    std::vector<int32_t> targets;
    for (int32_t t : R->known)
        if (t != R->id) targets.push_back(t);
    return targets;
}

static void add_counters(grank *R, double load, int64_t proposals, int64_t refused,
                         int64_t unplaced)
{
    R->load = load;
    R->G->proposals += proposals;
    R->G->refused += refused;
    R->G->unplaced += unplaced;
}

/* PackDrop as runtime/objects/dlb.c (run_packdrop) runs it: the steps of tide_global_rank.h
 * between two reductions, gossip and handshake rounds. */
void packdrop(grank *R)
{
    gsim *G = R->G;
    tide_packdrop_rank *S = &R->pd;
    int64_t k = (int64_t)R->w.size();
    double total = allreduce(R, R->load), ttc = allreduce(R, (double)k);
    if (tide_packdrop_rank_begin(S, G->P, total, ttc, G->prm.packdrop_tolerance, k, R->w.data()) !=
        TIDE_PLAN_OK)
        throw std::runtime_error("packdrop rejected a rank's loads");
    if (S->run && allreduce(R, (double)S->nb) > 0) {
        gossip(R, tide_packdrop_rank_announces(S));
        std::vector<int32_t> targets = targets_of(R);
        tide_packdrop_rank_targets(S, (int64_t)targets.size(), targets.data(), &R->rng);
        while (allreduce(R, tide_packdrop_rank_pending(S) ? 1.0 : 0.0) > 0) {
            if (R->id == 0) G->handshake_rounds++;
            put_proposals(R, S->out, tide_packdrop_rank_propose(S));
            handshake(R, [&](int target, int64_t h, bool ok) {
                tide_packdrop_rank_answered(S, target, h, ok);
            });
        }
        tide_packdrop_rank_dest(S, R->dest.data());
        add_counters(R, S->load, S->proposals, S->refused, S->unplaced);
    }
    tide_packdrop_rank_free(S);
}

/* DistributedLB as runtime/objects/dlb.c (run_distributed) runs it: the steps of
 * tide_global_rank.h between two reductions, gossip, and per phase a handshake and a max. */
void distributed(grank *R)
{
    gsim *G = R->G;
    tide_distributed_rank *S = &R->dist;
    double sum = allreduce(R, R->load), max = reduce(R, R->load, true);
    if (tide_distributed_rank_begin(S, R->id, G->P, sum, max, (int64_t)R->w.size(), R->w.data(),
                                    R->dest.data(), &G->prm) != TIDE_PLAN_OK)
        throw std::runtime_error("distributed rejected a rank's loads");
    if (allreduce(R, S->stop) == 0) {
        gossip(R, tide_distributed_rank_announces(S));
        std::vector<int32_t> targets = targets_of(R);
        std::vector<double> heard;
        for (int32_t t : targets)
            heard.push_back(R->heard[(size_t)t]);
        if (tide_distributed_rank_targets(S, (int64_t)targets.size(), targets.data(),
                                          heard.data()) != TIDE_PLAN_OK)
            throw std::bad_alloc();
        do {
            if (R->id == 0) G->handshake_rounds++;
            put_proposals(R, S->out, tide_distributed_rank_propose(S, &R->rng));
            handshake(R, [&](int target, int64_t o, bool ok) {
                tide_distributed_rank_answered(S, target, o, ok);
            });
            tide_distributed_rank_end(S, reduce(R, S->load, true));
        } while (allreduce(R, S->stop) == 0);
        add_counters(R, S->load, S->proposals, S->refused, S->unplaced);
    }
    tide_distributed_rank_free(S);
}

} // namespace tide_gsim
