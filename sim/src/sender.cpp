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
 * send until the receiving comm thread takes it (sim_channel_free).
 *
 * The transport's part of transfer-aware plans, as runtime/engine/transport.c: the rate at which
 * the rank's task messages drain (a task message completes when its channel is free again),
 * taking back tasks that have not left (reclaim), and TIDE_THROTTLE_*, which holds one rank's
 * task messages to a rate as if its link were slow. */
#include "sim.h"

#include <cmath>

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

static double now()
{
    return sg::Engine::get_clock();
}

/* ---- the drain rate ---------------------------------------------------------------------- */

double sim_send_bw(const sim_rank *R)
{
    return tide_drain_rate(&R->drain);
}

void sim_transport_phase_end(sim_rank *R, double *send_bw, double *sent_last)
{
    double last;
    *send_bw = tide_drain_phase_end(&R->drain, now(), &last);
    *sent_last = last > 0 ? last - R->phase_start : 0;
    R->next_dest = 0; /* plans model each phase's sends from rank 0 on (plan_transfer.c) */
}

void sim_channel_free(sim_rank *R, const sim_msg *m)
{
    R->busy[(size_t)m->dest] = 0;
    R->inflight -= m->bytes;
    if (m->kind == M_TASKS && !m->copy) { /* where libtide's MPI_Testsome sees it complete */
        tide_drain_completed(&R->drain, m->bytes, now());
    }
    sim_wake_sender(R);
}

static bool fits(const sim_rank *R, double len)
{
    return R->inflight == 0 || R->inflight + len <= (double)R->S->cfg->tide.max_inflight;
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
    int max = c->tide.offload == TIDE_OFFLOAD_PACKED ? SIM_PACK_TASKS : 1;
    double cap = (double)(c->tide.max_inflight / 8 < c->tide.pack_max ? c->tide.max_inflight / 8
                                                                      : c->tide.pack_max);
    int n = 0;
    for (size_t i = 0; i < q->size() && n < max; i++) {
        if (n > 0 && len + task > cap) break;
        bool first_alone = n == 0 && R->inflight == 0;
        if (!first_alone && R->inflight + len + task > (double)c->tide.max_inflight) break;
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
    if (R->noutgoing == 0) tide_drain_flowing(&R->drain, now());
    R->n_offloaded += n;
    if (!R->S->moves.empty()) R->S->moves[(size_t)R->phase][{R->id, dest}] += n;
    start_send(R, m, true);
    if (R->throttle_bw > 0)
        R->throttle_next = std::fmax(now(), R->throttle_next) + len / R->throttle_bw;
    sim_view_changed(R);
    return true;
}

/* One message per free destination per pass, from where the last pass left off (libtide's
 * round-robin cursor, reset at each phase end): when the in-flight bound or the throttle cuts
 * a pass short, the next one goes on with the following destination. A destination whose
 * channel is busy waits for its receiver. True when the throttle held a message back. */
static bool send_outgoing(sim_rank *R)
{
    bool held = false;
    size_t n = R->outgoing.size();
    auto it = R->outgoing.lower_bound(R->next_dest);
    for (size_t i = 0; i < n; i++) {
        if (it == R->outgoing.end()) it = R->outgoing.begin();
        int dest = it->first;
        bool free = !R->busy[(size_t)dest];
        if (free && R->throttle_bw > 0 && now() < R->throttle_next)
            held = true;
        else if (free && send_one_message(R, dest, &it->second))
            R->next_dest = (dest + 1) % R->S->P;
        if (it->second.empty())
            it = R->outgoing.erase(it);
        else
            ++it;
    }
    return held;
}

/* A task message the throttle held back leaves at the comm thread's first turn after the
 * throttle lets it, as libtide's comm loop retries it at every turn. */
void sim_sender_actor(sim_rank *R)
{
    sg::Actor::self()->daemonize();
    bool held = false;
    for (;;) {
        if (held) { /* a timed wait for the throttle; the run never ends during one */
            std::unique_lock<sg::Mutex> lk(*R->mu);
            double at = sim_next_poll(R, R->throttle_next);
            while (!R->send_kick && now() < at)
                R->send_cv->wait_until(lk, at);
            R->send_kick = false;
        } else {
            /* Where the run's end kills this daemon. Through a std::unique_lock on the stack,
             * the kill's exception leaks (LeakSanitizer, sim_validate_harness). */
            R->mu->lock();
            while (!R->send_kick)
                R->send_cv->wait(R->mu);
            R->send_kick = false;
            R->mu->unlock();
        }
        send_controls(R);
        send_results(R);
        held = send_outgoing(R);
    }
}
