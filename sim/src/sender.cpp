/* The sender actor: the comm thread's send loop over simulated communications. Which message
 * leaves next, how many tasks it packs, the in-flight bound, the round-robin cursor, the throttle
 * and which queued tasks are taken back first are the engine core's send scheduler
 * (tide_core_send.h), which libtide's runtime/engine/transport.c asks too; this file keeps the
 * simulated communications and the channels between pairs. Controls and replica copies leave at
 * once, outside the bound.
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

static void start_send(sim_rank *R, sim_msg *m, bool channel)
{
    m->channel = channel;
    m->burst = m->kind == M_TASKS && !m->copy && tide_drain_posted(&R->drain);
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
        tide_drain_completed(&R->drain, m->bytes, now(), m->burst);
    }
    sim_wake_sender(R);
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
        if (R->busy[(size_t)m->dest] ||
            !tide_send_fits(R->inflight, m->bytes, R->S->cfg->tide.max_inflight)) {
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
    tide_send_pack p = tide_send_pack_begin(c->tide.offload == TIDE_OFFLOAD_PACKED, c->tide.pack_max,
                                            c->tide.max_inflight, SIM_HDR_BYTES, R->inflight);
    for (size_t i = 0; i < q->size(); i++)
        if (!tide_send_pack_add(&p, R->S->wl->task_bytes)) break;
    int n = p.n;
    double len = p.len;
    if (n == 0) return false;
    sim_msg *m = new sim_msg();
    *m = sim_msg{M_TASKS, R->id, dest, R->phase, {}, false, false, 0, {}, len, false};
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
        R->throttle_next = tide_send_throttle_next(now(), R->throttle_next, len, R->throttle_bw);
    sim_view_changed(R);
    return true;
}

/* One pass over the destinations with tasks queued, from the cursor (tide_send_pass; reset at
 * each phase end). A destination whose channel is busy waits for its receiver. One pass, not
 * libtide's passes until none sends: libtide sees its sends complete only between two calls
 * (tide_transport_complete), but a receiver here may free a channel while this pass runs (each
 * send yields to the other actors); that free kicks this actor, whose next pass, as libtide's
 * next turn, starts again from the cursor. True when the throttle held a message back. */
static bool send_outgoing(sim_rank *R)
{
    bool held = false;
    tide_send_pass pass = tide_send_pass_begin(R->next_dest, R->S->P);
    for (size_t i = 0, n = R->outgoing.size(); i < n && !R->outgoing.empty(); i++) {
        auto it = R->outgoing.lower_bound(pass.next);
        if (it == R->outgoing.end()) it = R->outgoing.begin();
        int dest = it->first;
        if (!tide_send_pass_try(&pass, dest)) break;
        bool free = !R->busy[(size_t)dest];
        if (free && R->throttle_bw > 0 && tide_send_throttled(now(), R->throttle_next))
            held = true;
        else if (free && send_one_message(R, dest, &it->second))
            tide_send_pass_sent(&pass);
        if (it->second.empty()) R->outgoing.erase(it);
    }
    R->next_dest = tide_send_pass_cursor(&pass);
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
