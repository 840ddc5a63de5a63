/* The simulated rescheduling round's communication (global.cpp, global_dlb.cpp): collectives,
 * reductions and the sparse exchange of protocol messages (NBX), over SimGrid's mailboxes and the
 * allgather time model of coll.cpp. */
#include "global_internal.h"

#include <cmath>

namespace tide_gsim
{

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

} // namespace tide_gsim
