/* --net fast: task, result and control messages without SimGrid's flows (docs/sim.md, "Scale").
 *
 * The exact model (--net exact, the default) sends every message as a SimGrid communication,
 * and every start and end of one re-solves the bandwidth sharing of all flows that share links
 * with it: with ~1.8 P large messages in flight on a fat tree the cost per message grows with
 * P, the run's as P^2. Here a message's time is computed instead, as an endpoint model: a node's
 * link out and its link in each carry one task or result message at a time at the route's
 * narrowest bandwidth, first come first served, and a message crosses the route's latency after
 * its last byte left. So the NICs are still the shared resources (a rank that sends to many, or
 * a rank that many send to, takes as long as with fair sharing for the last byte); what is lost
 * is the fair sharing itself (a message waits for the one before it instead of both slowing)
 * and contention inside the network (a full-bisection fat tree has little). Messages between
 * the two ranks of a node use the loopback, which SimGrid does not share either (FATPIPE).
 * Controls are small and skip the queues. The receiver takes messages in arrival order from an
 * inbox of its own instead of its mailbox. */
#include "sim.h"

#include <cmath>

typedef struct net_route {
    double lat, bw;
} net_route;

static net_route route_of(sim *S, const sim_rank *a, const sim_rank *b)
{
    uint64_t key =
        (uint64_t)(uint32_t)sim_host_index(S, a->id) << 32 | (uint32_t)sim_host_index(S, b->id);
    auto it = S->net_routes.find(key);
    if (it != S->net_routes.end()) return {it->second.first, it->second.second};
    std::vector<sg::Link *> links;
    double lat = 0, bw = INFINITY;
    a->host->route_to(b->host, links, &lat);
    for (sg::Link *l : links)
        if (l->get_bandwidth() < bw) bw = l->get_bandwidth();
    if (!std::isfinite(bw) || bw <= 0) bw = 1e12;
    S->net_routes[key] = {lat, bw};
    return {lat, bw};
}

void sim_net_init(sim *S)
{
    size_t hosts = (size_t)(S->P + S->ranks_per_host - 1) / (size_t)S->ranks_per_host;
    S->net_out_free.assign(hosts, 0);
    S->net_in_free.assign(hosts, 0);
    S->net_seq = 0;
    for (sim_rank &R : S->ranks)
        R.inbox_cv = sg::ConditionVariable::create();
}

void sim_net_send(sim_rank *R, sim_msg *m)
{
    sim *S = R->S;
    sim_rank *D = &S->ranks[(size_t)m->dest];
    net_route rt = route_of(S, R, D);
    double t = sg::Engine::get_clock(), wire = m->bytes / rt.bw;
    size_t from = (size_t)sim_host_index(S, R->id), to = (size_t)sim_host_index(S, D->id);
    double end = t + wire;
    if (m->kind != M_CONTROL && from != to) {
        end = std::max(t, S->net_out_free[from]) + wire;
        S->net_out_free[from] = end;
        end = std::max(end, S->net_in_free[to] + wire);
        S->net_in_free[to] = end;
    }
    D->inbox.push(sim_inbox_entry{end + rt.lat, S->net_seq++, m});
    D->inbox_cv->notify_all();
}

sim_msg *sim_net_take(sim_rank *R)
{
    std::unique_lock<sg::Mutex> lk(*R->mu);
    for (;;) {
        double now = sg::Engine::get_clock();
        if (!R->inbox.empty() && R->inbox.top().at <= now) {
            sim_msg *m = R->inbox.top().m;
            R->inbox.pop();
            return m;
        }
        if (R->inbox.empty())
            R->inbox_cv->wait(lk);
        else
            R->inbox_cv->wait_until(lk, R->inbox.top().at);
    }
}
