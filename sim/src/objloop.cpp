/* cbench's persistent objects in a simulated iteration loop (--cbench FILE), as cbench's run
 * drives Tide's objects layer (apps/cbench/run.c, runtime/objects/objects.c), one actor per rank:
 *
 *   1. run: the rank's W workers execute its objects, load(t,i) x load_unit each, in id order,
 *      each object on the first free worker (what W sleeping workers taking the queue in order
 *      give); every execution is counted for the exactly-once check;
 *   2. the taskwait's end: a collective (the closing status allgather);
 *   3. every `period` iterations one global rescheduling round over the loads averaged since the
 *      last one (the objects layer's window): global.cpp's round, the same code as --global
 *      (centralized cores timed, PackDrop and DistributedLB as messages), objects migrating
 *      with tasksize + cbench's header bytes;
 *   4. routing, after the migration as in the objects layer: an alltoall of counts, then one
 *      message per pair of ranks carrying every message of this iteration from an object that
 *      ran on the sender to a neighbour living on the receiver (records of 32 bytes + the
 *      payload padded to 8); messages between objects of the same rank cost nothing (a copy
 *      inside the rank, not modelled);
 *   5. the iteration's statistics: an allreduce of the rank loads.
 *
 * Collectives follow global.cpp's model (a barrier of all ranks, then a recursive-doubling
 * allgather's time). */
#include "cbench.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>

namespace
{

struct loop;

struct lrank {
    loop *L;
    int id;
    sg::Host *host;
    sg::Mailbox *mb;
    std::vector<int64_t> objs; /* the objects living here, ascending id */
    int window;                /* iterations since the last rescheduling */
};

struct loop {
    const sim_config *c;
    const sim_cbench *cb;
    sim_global *G;
    int P, W;
    int64_t n, r;
    std::vector<lrank> ranks;
    std::vector<int32_t> owner; /* every object's rank, after this iteration's migration */
    std::vector<int64_t> runs;  /* executions of each object so far */
    std::vector<double> acc;    /* each object's load since the last rescheduling */
    std::vector<double> load;   /* each rank's load in this iteration */
    sim_global_stats before;    /* the round's counters before it (rank 0) */
    double t_iter, t_round;     /* rank 0: when this iteration and its round began */
    sim_cbench_result res;
    long violations;
    char violation[256];
};

double now()
{
    return sg::Engine::get_clock();
}

void execute(lrank *R, int64_t i)
{
    loop *L = R->L;
    std::priority_queue<double, std::vector<double>, std::greater<double>> free;
    for (int w = 0; w < L->W; w++)
        free.push(0.0);
    double load = 0, end = 0;
    for (int64_t t : R->objs) {
        double d = L->cb->load[(size_t)((i - 1) * L->n + t)];
        double start = free.top();
        free.pop();
        free.push(start + d);
        end = std::max(end, start + d);
        load += d;
        L->acc[(size_t)t] += d;
        L->runs[(size_t)t]++;
        if (t == L->c->cbench_test_twice && i == 1) L->runs[(size_t)t]++; /* the tests' fault */
    }
    L->load[(size_t)R->id] = load;
    sg::this_actor::sleep_for(end);
}

/* Rank 0, once every rank's executions of iteration i are counted. */
void check_once(loop *L, int64_t i)
{
    for (int64_t t = 0; t < L->n; t++) {
        if (L->runs[(size_t)t] == i) continue;
        if (L->violations++ == 0)
            snprintf(L->violation, sizeof L->violation,
                     "object %lld ran %lld times in iterations 1..%lld (once each expected)",
                     (long long)t, (long long)L->runs[(size_t)t], (long long)i);
    }
}

/* Rank 0, at the same moment: the rank loads of the iteration (before any rank starts the next). */
void record_loads(loop *L)
{
    double sum = 0;
    for (double v : L->load)
        sum += v;
    L->res.load_max.push_back(*std::max_element(L->load.begin(), L->load.end()));
    L->res.load_avg.push_back(sum / L->P);
}

void reschedule(lrank *R, int64_t i)
{
    loop *L = R->L;
    std::vector<double> w, bytes;
    for (int64_t t : R->objs) {
        w.push_back(L->acc[(size_t)t] / R->window);
        bytes.push_back(L->cb->bytes[(size_t)t]);
    }
    sim_global_set_objects(L->G, R->id, w, bytes);
    if (R->id == 0) {
        sim_global_stats_get(L->G, &L->before);
        L->t_round = now();
    }
    uint64_t seed = L->c->tide.seed * 0x9e3779b97f4a7c15ull + (uint64_t)(i - 1); /* objects.c's */
    const std::vector<int32_t> &dest = sim_global_round(L->G, R->id, seed);
    for (size_t k = 0; k < R->objs.size(); k++)
        L->owner[(size_t)R->objs[k]] = dest[k];
}

/* Rank 0, once every rank has routed by the old lists: the round's record, the new lists. */
void finish_reschedule(loop *L, int64_t i, int window)
{
    sim_global_stats s;
    sim_global_stats_get(L->G, &s);
    std::vector<double> before((size_t)L->P, 0.0), after((size_t)L->P, 0.0);
    double sum = 0;
    for (const lrank &x : L->ranks)
        for (int64_t t : x.objs) {
            double w = L->acc[(size_t)t] / window;
            before[(size_t)x.id] += w;
            after[(size_t)L->owner[(size_t)t]] += w;
            sum += w;
        }
    sim_cbench_resched x = {i,
                            s.decision - s.gather,
                            s.gather,
                            s.total - s.decision,
                            s.moved - L->before.moved,
                            s.bytes_moved - L->before.bytes_moved,
                            *std::max_element(before.begin(), before.end()),
                            sum / L->P,
                            *std::max_element(after.begin(), after.end()),
                            s.messages - L->before.messages,
                            s.gossip_rounds - L->before.gossip_rounds,
                            s.handshake_rounds - L->before.handshake_rounds};
    L->res.resched.push_back(x);
    for (lrank &y : L->ranks)
        y.objs.clear();
    for (int64_t t = 0; t < L->n; t++)
        L->ranks[(size_t)L->owner[(size_t)t]].objs.push_back(t);
    std::fill(L->acc.begin(), L->acc.end(), 0.0);
}

void route(lrank *R, int64_t i)
{
    loop *L = R->L;
    static int token;                        /* a message's contents do not matter, its bytes do */
    sim_global_collective(L->G, R->id, 4.0); /* the alltoall of counts */
    if (L->cb->msgnum.empty()) return;
    std::map<int, double> out;
    long messages = 0;
    double payload = 0;
    for (int64_t t : R->objs) {
        size_t at = (size_t)((i - 1) * L->n + t);
        int32_t num = L->cb->msgnum[at];
        if (num == 0) continue;
        double size = L->cb->msgsize[at];
        for (int64_t k = L->cb->nb_off[(size_t)t]; k < L->cb->nb_off[(size_t)t + 1]; k++) {
            int dest = L->owner[(size_t)L->cb->nb[(size_t)k]];
            messages += num;
            payload += num * size;
            if (dest != R->id) out[dest] += num * sim_cbench_msg_bytes(size);
        }
    }
    L->res.messages += messages;
    L->res.message_bytes += payload;
    std::vector<sg::CommPtr> sends;
    for (auto &o : out)
        sends.push_back(L->ranks[(size_t)o.first].mb->put_async(&token, (uint64_t)o.second));
    sg::Comm::wait_all(sends);
    sim_global_collective(L->G, R->id, 0); /* every rank's messages arrived */
    while (R->mb->ready())
        R->mb->get<int>();
}

void rank_actor(lrank *R)
{
    loop *L = R->L;
    double start = now();
    for (int64_t i = 1; i <= L->r; i++) {
        if (R->id == 0) L->t_iter = now();
        execute(R, i);
        sim_global_collective(L->G, R->id, 8.0); /* the taskwait's end */
        if (R->id == 0) {
            check_once(L, i);
            record_loads(L);
        }
        R->window++;
        bool due = L->cb->balance && R->window >= L->cb->period;
        if (due) reschedule(R, i);
        route(R, i);
        if (due && R->id == 0) finish_reschedule(L, i, R->window);
        if (due) R->window = 0;
        sim_global_collective(L->G, R->id, 16.0); /* the iteration's statistics */
        if (R->id == 0) L->res.iter_s.push_back(now() - L->t_iter);
    }
    if (R->id == 0) L->res.total_s = now() - start;
}

} // namespace

/* --cbench-mode round: one round of iteration 1's loads in the initmap placement. */
static int run_round(const sim_config *c, const sim_cbench *cb,
                     const std::vector<sg::Host *> &hosts, double lat, double bw, char *err,
                     size_t len)
{
    std::vector<std::vector<double>> w(hosts.size()), b(hosts.size());
    for (int64_t t = 0; t < cb->cfg.n; t++) {
        w[(size_t)cb->owner0[(size_t)t]].push_back(cb->load[(size_t)t]);
        b[(size_t)cb->owner0[(size_t)t]].push_back(cb->bytes[(size_t)t]);
    }
    return sim_global_run_objects(c, w, b, hosts, lat, bw, err, len);
}

int sim_cbench_run(const sim_config *c, const sim_workload *w, const std::vector<sg::Host *> &hosts,
                   double lat, double bw, char *err, size_t len)
{
    const sim_cbench *cb = w->cbench;
    if (c->cbench_mode == SIM_CBENCH_ROUND) {
        if (!c->tide.global_lb[0] || !strcmp(c->tide.global_lb, "none"))
            return snprintf(err, len,
                            "tide-sim: --cbench-mode round needs a strategy: --global NAME or "
                            "TIDE_GLOBAL_LB"),
                   2;
        return run_round(c, cb, hosts, lat, bw, err, len);
    }
    loop *L = new loop();
    L->c = c;
    L->cb = cb;
    L->P = (int)hosts.size();
    L->W = sim_threads(c);
    L->n = cb->cfg.n;
    L->r = cb->cfg.r;
    L->owner = cb->owner0;
    L->runs.assign((size_t)L->n, 0);
    L->acc.assign((size_t)L->n, 0.0);
    L->load.assign((size_t)L->P, 0.0);
    L->res.ranks = L->P;
    L->res.workers = L->W;
    L->G = sim_global_new(c, L->P, hosts, 1, lat, bw);
    L->ranks.resize((size_t)L->P);
    for (int r = 0; r < L->P; r++) {
        lrank *R = &L->ranks[(size_t)r];
        *R = lrank{L,  r, hosts[(size_t)r], sg::Mailbox::by_name("cbench-" + std::to_string(r)),
                   {}, 0};
    }
    for (int64_t t = 0; t < L->n; t++)
        L->ranks[(size_t)cb->owner0[(size_t)t]].objs.push_back(t);
    for (lrank &R : L->ranks) {
        sg::ActorPtr a =
            sg::Actor::create("cbench-" + std::to_string(R.id), R.host, rank_actor, &R);
        R.mb->set_receiver(a);
        sim_global_attach(L->G, R.id, a);
    }
    sg::Engine::get_instance()->run();
    for (lrank &R : L->ranks)
        R.mb->set_receiver(nullptr);
    sim_global_free(L->G);
    L->res.failures = L->violations;
    int rc = sim_cbench_report(c, cb, &L->res, err, len);
    if (!rc && L->violations) {
        snprintf(err, len, "%ld exactly-once violations of objects; the first: %s", L->violations,
                 L->violation);
        rc = 3;
    }
    delete L;
    return rc;
}
