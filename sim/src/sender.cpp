/* The sender actor: the comm thread's send loop (runtime/src/commthread.c) over simulated
 * communications. Controls and replica copies leave at once; results next; then offloaded
 * tasks, one message per destination per pass (so that with TIDE_OFFLOAD=rr they leave
 * round-robin across destinations), one task each (rr) or packed up to TIDE_PACK_MAX and an
 * eighth of TIDE_MAX_INFLIGHT (packed). A message is admitted when the bytes in flight stay
 * within TIDE_MAX_INFLIGHT, or when nothing else is in flight. */
#include "sim.h"

#define SIM_HDR_BYTES 32.0
#define SIM_PACK_TASKS 256

static void start_send(sim_rank *R, sim_msg *m)
{
    sg::Mailbox *to = R->S->ranks[(size_t)m->dest].mbox;
    double bytes = m->bytes;
    sg::CommPtr c = to->put_async(m, (uint64_t)bytes);
    R->pending.push_back(c);
    R->pending_len.push_back(bytes);
    R->inflight += bytes;
    R->bytes_sent += bytes;
}

static void forget(sim_rank *R, size_t i)
{
    R->inflight -= R->pending_len[i];
    R->pending.erase(R->pending.begin() + (long)i);
    R->pending_len.erase(R->pending_len.begin() + (long)i);
}

/* Sends that completed leave the in-flight count. */
static void reap(sim_rank *R)
{
    for (size_t i = R->pending.size(); i-- > 0;)
        if (R->pending[i]->test()) forget(R, i);
}

static bool fits(const sim_rank *R, double len)
{
    return R->inflight == 0 || R->inflight + len <= (double)R->S->cfg->max_inflight;
}

static bool send_controls(sim_rank *R)
{
    bool did = !R->controls.empty();
    while (!R->controls.empty()) {
        sim_msg *m = R->controls.front();
        R->controls.pop_front();
        start_send(R, m);
    }
    return did;
}

static bool send_results(sim_rank *R)
{
    bool did = false;
    while (!R->results.empty() && fits(R, R->results.front()->bytes)) {
        sim_msg *m = R->results.front();
        R->results.pop_front();
        start_send(R, m);
        did = true;
    }
    return did;
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
    *m = sim_msg{M_TASKS, R->id, dest, R->phase, {}, false, 0, {}, len};
    for (int i = 0; i < n; i++) {
        int tid = q->front();
        q->pop_front();
        sim_task_of(R, tid)->state = T_SENT;
        m->tasks.push_back(tid);
    }
    R->noutgoing -= n;
    R->n_offloaded += n;
    if (!R->S->moves.empty()) R->S->moves[(size_t)R->phase][{R->id, dest}] += n;
    start_send(R, m);
    return true;
}

static bool send_outgoing(sim_rank *R)
{
    bool did = false, progress;
    do {
        progress = false;
        for (auto it = R->outgoing.begin(); it != R->outgoing.end();) {
            progress |= send_one_message(R, it->first, &it->second);
            if (it->second.empty())
                it = R->outgoing.erase(it);
            else
                ++it;
        }
        did |= progress;
    } while (progress);
    return did;
}

static bool has_work(const sim_rank *R)
{
    return !R->controls.empty() || !R->results.empty() || R->noutgoing > 0;
}

void sim_sender_actor(sim_rank *R)
{
    sg::Actor::self()->daemonize();
    for (;;) {
        R->mu->lock();
        while (!has_work(R))
            R->send_cv->wait(R->mu);
        R->mu->unlock();
        reap(R);
        bool did = send_controls(R);
        did |= send_results(R);
        did |= send_outgoing(R);
        if (!did && !R->pending.empty()) { /* the bound holds the rest back */
            ssize_t i = sg::Comm::wait_any(R->pending);
            if (i >= 0) forget(R, (size_t)i);
        }
    }
}
