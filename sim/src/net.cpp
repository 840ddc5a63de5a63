/* --net fast and --net fair: task, result and control messages without SimGrid's flows
 * (docs/sim.md, "Scale").
 *
 * The exact model (--net exact, the default) sends every message as a SimGrid communication,
 * and every start and end of one re-solves the bandwidth sharing of all flows that share links
 * with it: with ~1.8 P large messages in flight on a fat tree the cost per message grows with
 * P, the run's as P^2. Here a message's time is computed instead, as an endpoint model: a
 * node's link out and its link in are the shared resources, at the route's narrowest bandwidth,
 * and a message crosses the route's latency after its last byte left. --net fast carries one
 * message at a time on each link, first come first served: close to the exact model for the
 * non-replicating modes, far too fast for the replicating ones, whose replica copies leave in
 * bursts. --net fair shares each link fairly among the messages on it (processor sharing, as
 * SimGrid's flows do on one link): a message's last byte has left when it is done on both its
 * sender's link out and its receiver's link in, each shared independently; a message that
 * joins a link delays the ones already on it, so the receiver re-checks a message's time when
 * it comes (docs/sim.md gives how close either is). Lost either way: contention inside the
 * network (a full-bisection fat tree has little). Messages between the two ranks of a node use
 * the loopback, which SimGrid does not share either (FATPIPE). Controls are small and skip the
 * links. The receiver takes messages in arrival order from an inbox of its own instead of its
 * mailbox. */
#include "sim.h"

#include <algorithm>
#include <cmath>
#include <map>

/* A message on the links: when its last byte leaves its sender's link out and its receiver's
 * link in, as the links' sharing predicts from the messages on them so far. */
struct net_flow {
    double out_end, in_end, lat;
};

/* One link under processor sharing: every message on it gets 1/n of it. A message's load is
 * its time alone on the link (bytes / bandwidth), so routes of different bandwidths mix. */
typedef struct net_share {
    double last; /* the time the loads below are for */
    std::vector<std::pair<std::shared_ptr<net_flow>, double>> on;
} net_share;

struct net_links {
    std::vector<net_share> out, in;
};

/* The link's state at time t: the messages done by then leave it. */
static void share_advance(net_share *L, double t)
{
    while (!L->on.empty()) {
        double n = (double)L->on.size(), least = INFINITY;
        for (auto &f : L->on)
            least = std::min(least, f.second);
        if (L->last + least * n > t) {
            for (auto &f : L->on)
                f.second -= (t - L->last) / n;
            break;
        }
        L->last += least * n;
        for (auto &f : L->on)
            f.second -= least;
        L->on.erase(std::remove_if(L->on.begin(), L->on.end(),
                                   [](const std::pair<std::shared_ptr<net_flow>, double> &f) {
                                       return f.second <= 0;
                                   }),
                    L->on.end());
    }
    L->last = t;
}

/* Processor sharing from time t of the messages `on` (load: time alone on the link, and a key):
 * they finish in load order, the n still on the link each at 1/n of it. done(key, end) is
 * called for each. */
template <typename K, typename F>
static void share_ends(std::vector<std::pair<double, K>> *on, double t, F done)
{
    std::sort(on->begin(), on->end(),
              [](const std::pair<double, K> &a, const std::pair<double, K> &b) {
                  return a.first < b.first;
              });
    double at = t, before = 0, n = (double)on->size();
    for (auto &o : *on) {
        at += (o.first - before) * n;
        before = o.first;
        n -= 1;
        done(o.second, at);
    }
}

/* Adds a message of load wire at time t and predicts when each message on the link is done,
 * into end (out_end for a link out, in_end for a link in). */
static void share_add(net_share *L, double t, const std::shared_ptr<net_flow> &fl, double wire,
                      double net_flow::*end)
{
    share_advance(L, t);
    L->on.emplace_back(fl, wire);
    std::vector<std::pair<double, net_flow *>> order;
    order.reserve(L->on.size());
    for (auto &f : L->on)
        order.emplace_back(f.second, f.first.get());
    share_ends(&order, t, [end](net_flow *f, double at) { f->*end = at; });
}

typedef struct net_route {
    double lat, bw;
} net_route;

/* The route's latency and its narrowest bandwidth. */
static net_route host_route(sg::Host *a, sg::Host *b)
{
    std::vector<sg::Link *> links;
    double lat = 0, bw = INFINITY;
    a->route_to(b, links, &lat);
    for (sg::Link *l : links)
        if (l->get_bandwidth() < bw) bw = l->get_bandwidth();
    if (!std::isfinite(bw) || bw <= 0) bw = 1e12;
    return {lat, bw};
}

static net_route route_of(sim *S, const sim_rank *a, const sim_rank *b)
{
    uint64_t key =
        (uint64_t)(uint32_t)sim_host_index(S, a->id) << 32 | (uint32_t)sim_host_index(S, b->id);
    auto it = S->net_routes.find(key);
    if (it != S->net_routes.end()) return {it->second.first, it->second.second};
    net_route rt = host_route(a->host, b->host);
    S->net_routes[key] = {rt.lat, rt.bw};
    return rt;
}

void sim_net_init(sim *S)
{
    size_t hosts = (size_t)(S->P + S->ranks_per_host - 1) / (size_t)S->ranks_per_host;
    S->net_links = std::make_shared<net_links>();
    S->net_links->out.assign(hosts, net_share{0, {}});
    S->net_links->in.assign(hosts, net_share{0, {}});
    S->net_out_free.assign(hosts, 0);
    S->net_in_free.assign(hosts, 0);
    S->net_seq = 0;
    for (sim_rank &R : S->ranks)
        R.inbox_cv = sg::ConditionVariable::create();
}

/* --net fast: one message at a time on each link. */
static double fcfs_end(sim *S, size_t from, size_t to, double t, double wire)
{
    double end = std::max(t, S->net_out_free[from]) + wire;
    S->net_out_free[from] = end;
    end = std::max(end, S->net_in_free[to] + wire);
    S->net_in_free[to] = end;
    return end;
}

void sim_net_send(sim_rank *R, sim_msg *m)
{
    sim *S = R->S;
    sim_rank *D = &S->ranks[(size_t)m->dest];
    net_route rt = route_of(S, R, D);
    double t = sg::Engine::get_clock(), wire = m->bytes / rt.bw;
    size_t from = (size_t)sim_host_index(S, R->id), to = (size_t)sim_host_index(S, D->id);
    double end = t + wire;
    std::shared_ptr<net_flow> fl;
    if (m->kind != M_CONTROL && from != to) {
        if (S->cfg->net == SIM_NET_FAST) {
            end = fcfs_end(S, from, to, t, wire);
        } else {
            fl = std::make_shared<net_flow>(net_flow{t, t, rt.lat});
            share_add(&S->net_links->out[from], t, fl, wire, &net_flow::out_end);
            share_add(&S->net_links->in[to], t, fl, wire, &net_flow::in_end);
            end = std::max(fl->out_end, fl->in_end);
        }
    }
    D->inbox.push(sim_inbox_entry{end + rt.lat, S->net_seq++, m, fl});
    D->inbox_cv->notify_all();
}

sim_msg *sim_net_take(sim_rank *R)
{
    std::unique_lock<sg::Mutex> lk(*R->mu);
    for (;;) {
        double now = sg::Engine::get_clock();
        if (!R->inbox.empty() && R->inbox.top().at <= now) {
            sim_inbox_entry e = R->inbox.top();
            R->inbox.pop();
            double at = e.flow ? std::max(e.flow->out_end, e.flow->in_end) + e.flow->lat : e.at;
            if (at <= e.at) return e.m;
            e.at = at; /* messages joined its links since it was sent: later */
            R->inbox.push(e);
            continue;
        }
        if (R->inbox.empty())
            R->inbox_cv->wait(lk);
        else
            R->inbox_cv->wait_until(lk, R->inbox.top().at);
    }
}

double sim_net_batch_time(int net, const std::vector<sim_batch_msg> &batch)
{
    std::map<std::pair<sg::Host *, sg::Host *>, net_route> routes;
    std::map<sg::Host *, std::vector<std::pair<double, size_t>>> out, in;
    std::map<sg::Host *, double> out_free, in_free; /* fast: each link's next free time */
    std::vector<double> done(batch.size(), 0.0), lat(batch.size());
    for (size_t i = 0; i < batch.size(); i++) {
        const sim_batch_msg &m = batch[i];
        auto key = std::make_pair(m.from, m.to);
        auto it = routes.find(key);
        if (it == routes.end()) it = routes.emplace(key, host_route(m.from, m.to)).first;
        double wire = m.bytes / it->second.bw;
        lat[i] = it->second.lat;
        if (m.from == m.to) { /* the loopback: not shared */
            done[i] = wire;
        } else if (net == SIM_NET_FAST) { /* one at a time, in the batch's order (fcfs_end) */
            double end = out_free[m.from] += wire;
            done[i] = in_free[m.to] = std::max(end, in_free[m.to] + wire);
        } else {
            out[m.from].emplace_back(wire, i);
            in[m.to].emplace_back(wire, i);
        }
    }
    /* fair: processor sharing on each link from the batch's common start */
    auto at_least = [&done](size_t i, double at) { done[i] = std::max(done[i], at); };
    for (auto &l : out)
        share_ends(&l.second, 0.0, at_least);
    for (auto &l : in)
        share_ends(&l.second, 0.0, at_least);
    double last = 0;
    for (size_t i = 0; i < batch.size(); i++)
        last = std::max(last, done[i] + lat[i]);
    return last;
}
