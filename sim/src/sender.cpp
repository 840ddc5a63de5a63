/* The sender actor: the comm thread's send loop (runtime/engine/commthread.c) over simulated
 * communications. Controls and replica copies leave at once; results next; then offloaded
 * tasks, one message per destination per pass (so that with TIDE_OFFLOAD=rr they leave
 * round-robin across destinations), one task each (rr) or packed up to TIDE_PACK_MAX and an
 * eighth of TIDE_MAX_INFLIGHT (packed). A message is admitted when the bytes in flight stay
 * within TIDE_MAX_INFLIGHT, or when nothing else is in flight.
 *
 * Between two ranks, one task or result message travels at a time: MPI delivers a pair's
 * messages in order, and a large one (rendezvous) moves when the receiver has matched it, one
 * after the other over the pair's connection (an InfiniBand queue pair, a shared-memory copy by
 * the receiver). Messages to different ranks share the links. A message is in flight from its
 * send until the receiving comm thread takes it (sim_channel_free). */
#include "sim.h"

#define SIM_HDR_BYTES 32.0
#define SIM_PACK_TASKS 256

static void start_send(sim_rank *R, sim_msg *m, bool channel)
{
    m->channel = channel;
    if (channel) {
        R->busy[(size_t)m->dest] = 1;
        R->inflight += m->bytes;
    }
    R->bytes_sent += m->bytes;
    if (R->S->cfg->net != SIM_NET_EXACT)
        sim_net_send(R, m);
    else
        R->S->ranks[(size_t)m->dest].mbox->put_init(m, (uint64_t)m->bytes)->detach();
}

void sim_channel_free(sim_rank *R, const sim_msg *m)
{
    R->busy[(size_t)m->dest] = 0;
    R->inflight -= m->bytes;
    sim_wake_sender(R);
}

static bool fits(const sim_rank *R, double len)
{
    return R->inflight == 0 || R->inflight + len <= (double)R->S->cfg->max_inflight;
}

static void send_controls(sim_rank *R)
{
    while (!R->controls.empty()) {
        sim_msg *m = R->controls.front();
        R->controls.pop_front();
        start_send(R, m, false);
    }
}

/* Results in order, each when its channel is free and the bound admits it. */
static void send_results(sim_rank *R)
{
    for (auto it = R->results.begin(); it != R->results.end();) {
        sim_msg *m = *it;
        if (R->busy[(size_t)m->dest] || !fits(R, m->bytes)) {
            ++it;
            continue;
        }
        it = R->results.erase(it);
        start_send(R, m, true);
    }
}

/* At most one message to dest; false when nothing went (none queued, or the bound). */
static bool send_one_message(sim_rank *R, int dest, std::deque<int> *q)
{
    const sim_config *c = R->S->cfg;
    double task = R->S->wl->task_bytes, len = SIM_HDR_BYTES;
    int max = c->offload == SIM_OFFLOAD_PACKED ? SIM_PACK_TASKS : 1;
    double cap = (double)(c->max_inflight / 8 < c->pack_max ? c->max_inflight / 8 : c->pack_max);
    int n = 0;
    for (size_t i = 0; i < q->size() && n < max; i++) {
        if (n > 0 && len + task > cap) break;
        bool first_alone = n == 0 && R->inflight == 0;
        if (!first_alone && R->inflight + len + task > (double)c->max_inflight) break;
        len += task;
        n++;
    }
    if (n == 0) return false;
    sim_msg *m = new sim_msg();
    *m = sim_msg{M_TASKS, R->id, dest, R->phase, {}, false, false, 0, {}, len};
    for (int i = 0; i < n; i++) {
        int tid = q->front();
        q->pop_front();
        sim_task_of(R, tid)->state = T_SENT;
        m->tasks.push_back(tid);
    }
    R->noutgoing -= n;
    R->n_offloaded += n;
    if (!R->S->moves.empty()) R->S->moves[(size_t)R->phase][{R->id, dest}] += n;
    start_send(R, m, true);
    return true;
}

/* One message per free destination per pass; a destination whose channel is busy waits for
 * its receiver. */
static void send_outgoing(sim_rank *R)
{
    for (auto it = R->outgoing.begin(); it != R->outgoing.end();) {
        if (!R->busy[(size_t)it->first]) send_one_message(R, it->first, &it->second);
        if (it->second.empty())
            it = R->outgoing.erase(it);
        else
            ++it;
    }
}

void sim_sender_actor(sim_rank *R)
{
    sg::Actor::self()->daemonize();
    for (;;) {
        R->mu->lock();
        while (!R->send_kick)
            R->send_cv->wait(R->mu);
        R->send_kick = false;
        R->mu->unlock();
        send_controls(R);
        send_results(R);
        send_outgoing(R);
    }
}
